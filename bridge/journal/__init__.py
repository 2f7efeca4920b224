"""LAYER 2 — the journal: each device's history on disk (stdlib ``sqlite3``, WAL).

``records`` is the sans-I/O part (record shapes, encoding, rebuilding a screen from a keyframe
and its deltas, time parsing with the clock passed in); ``store`` is the database (schema,
queries, retention); ``writer`` owns the one writer thread and its bounded queue;
``recorder`` is the narrow interface the hub calls (``JournalRecorder``). The hub composes it
like ``net`` and ``devices``.
"""
