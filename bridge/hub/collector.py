"""The garbage collector in a served hub: what the process was started with is moved out of
the collector's generations once the hub listens (``freeze_startup``).

CPython's full collection walks every object it tracks, and while it runs nothing else does:
every handshake, delta and action waits. A served hub's modules, classes, functions and
configuration (about 41,000 tracked objects) live as long as the process, yet every full
collection walked them again. Frozen, they are never walked, nor collected: so only a
process's composition root calls ``freeze_startup``, once, after the hub listens and before
clients come (``mobridge serve``; the bench's hub process, which stands for it). A process
that builds and drops hubs (a test suite) must not: a dropped hub's frozen cycles would never
be freed.
"""

from __future__ import annotations

import gc


def freeze_startup() -> int:
    """Collect what starting left behind, then freeze every object still tracked; returns
    how many are frozen (``gc.get_freeze_count``)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def statistics() -> dict[str, object]:
    """``frozen``: the objects the startup freeze moved out of the collector (0 when the
    process did not freeze); ``collections``: full and partial collections so far, by
    generation (oldest last), and the objects they freed."""
    per_generation = gc.get_stats()
    return {
        "frozen": gc.get_freeze_count(),
        "collections": [g["collections"] for g in per_generation],
        "collected": sum(g["collected"] for g in per_generation),
    }
