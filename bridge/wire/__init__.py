"""LAYER 0 — data only: every message and reference type, codecs, schema generation.

Imports nothing from the rest of ``bridge`` and no I/O. Modules:

- ``base``: the Struct base and constrained scalars;  ``enums``: closed vocabularies;
- ``node``, ``snapshot``, ``noderef``, ``query``, ``diff``, ``action``, ``errors``: the
  Mobile Semantic reference types, field for field;
- ``conditions``: wait conditions (tag ``kind``);
- ``raw``: the raw tree agents send and importers produce;
- ``client_protocol``: subscribers <-> hub;  ``agent_link``: hub <-> on-device agent;
- ``codec``: strict decoders built once, shared encoders;  ``schema``: protocol/schema/.
"""
