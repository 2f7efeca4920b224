"""The compact view: the meaningful subset of a full snapshot's nodes.

Invariants:
- a subset of the full nodes with the same ids and the same fields, except that parents are
  re-pointed to the nearest kept ancestor and raw class names are dropped;
- kept: anything with a name, value, action, a real role, or a screen marker; layout wrappers
  (UNKNOWN, nothing to read or do) go, ids or not;
- a collapsed node (a soft keyboard's root, see ``bridge.core.keyboard``) is kept alone: its
  descendants go, except the ones named in ``keep`` (the key that hides the keyboard);
- cut to ``COMPACT_BUDGET_BYTES`` (``truncated`` = True) in document order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode

SCREEN_MARKER_PREFIX = "__screen_"
COMPACT_BUDGET_BYTES = 28_000
"""Compact snapshots are cut (``truncated``) above this encoded size (target: < 30 KB)."""
_MEANINGFUL_ROLES = frozenset(set(Role) - {Role.UNKNOWN})


def is_meaningful(node: SemanticNode) -> bool:
    """Kept in compact snapshots: anything with a name, value, action, a real role, or a
    screen marker. Layout wrappers (UNKNOWN, nothing to read or do) go, ids or not."""
    marker = node.automation_id or node.resource_id or ""
    return bool(
        node.parent_id is None
        or node.label
        or node.text
        or node.value
        or node.hint
        or SCREEN_MARKER_PREFIX in marker
        or node.actions
        or node.effective_state.clickable
        or node.effective_state.focused
        or node.role in _MEANINGFUL_ROLES
    )


def compact_nodes(
    nodes: Sequence[SemanticNode],
    collapsed: Collection[str] = (),
    keep: Collection[str] = (),
) -> tuple[tuple[SemanticNode, ...], bool]:
    """The compact subset: meaningful nodes, parents re-pointed to the nearest kept
    ancestor, raw class names dropped; the descendants of ``collapsed`` nodes left out except
    ``keep``; cut to ``COMPACT_BUDGET_BYTES`` (truncated=True)."""
    kept_parent: dict[str, str | None] = {}
    folded: set[str] = set()
    out: list[SemanticNode] = []
    size = 0
    truncated = False
    for node in nodes:
        parent = node.parent_id
        nearest = kept_parent.get(parent) if parent is not None else None
        inside = parent is not None and (parent in folded or parent in collapsed)
        if inside:
            folded.add(node.node_id)
        if (inside and node.node_id not in keep) or not is_meaningful(node):
            kept_parent[node.node_id] = nearest
            continue
        slim = msgspec.structs.replace(node, parent_id=nearest, class_name=None, native_type=None)
        cost = len(msgspec.json.encode(slim)) + 1
        if size + cost > COMPACT_BUDGET_BYTES:
            truncated = True
            kept_parent[node.node_id] = nearest
            continue
        size += cost
        kept_parent[node.node_id] = node.node_id
        out.append(slim)
    return tuple(out), truncated
