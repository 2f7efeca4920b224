"""Normalization: a RawTree -> semantic nodes and the full and compact ScreenSnapshots.

Invariants:
- deterministic: the same raw tree, allocator state and context give byte-identical output;
- node ids come from the device's ``IdAllocator`` over the FULL tree, and the compact
  snapshot is a subset of the full one with the same ids (parents re-pointed to the nearest
  kept ancestor);
- password values never survive: ``state.password`` is set and ``value``/``text`` are
  dropped — no value, no length;
- roles are never raw class names (see ``roles.infer_role``);
- a soft keyboard's root carries its summary (``keyboard``) in both views, and the compact
  view holds that one node instead of every key (``compact.compact_nodes``).

The rules live in ``bridge.core.node_rules`` and the passes in ``bridge.core.renormalize``:
``normalize`` is one full pass; a device's ``NormalizeEngine`` also reuses, capture after
capture, whatever did not change, with the same result. The caller passes the snapshot id,
timestamp and device id in; nothing here reads a clock.
"""

from __future__ import annotations

from bridge.core.identity import IdAllocator
from bridge.core.renormalize import (
    Normalized,
    NormalizeEngine,
    NormalizeFailure,
    normalize_once,
)
from bridge.core.snapshot_meta import (
    SnapshotContext,
    package_name,
    screen_markers,
    validate_raw_tree,
)
from bridge.wire.raw import RawTree

__all__ = [
    "NormalizeEngine",
    "NormalizeFailure",
    "Normalized",
    "SnapshotContext",
    "normalize",
    "package_name",
    "screen_markers",
    "validate_raw_tree",
]


def normalize(
    raw: RawTree, ctx: SnapshotContext, ids: IdAllocator | None = None
) -> Normalized | NormalizeFailure:
    """Normalize one capture. ``ids`` carries node identity across a device's captures;
    without it ids are numbered n1.. in document order."""
    if ids is None:  # a one-shot pass: nobody can allocate with this allocator again
        return normalize_once(raw, ctx)
    return NormalizeEngine(ids).run(raw, ctx)
