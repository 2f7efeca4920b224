"""The compact view: the meaningful subset of a full snapshot's nodes.

Invariants:
- a subset of the full nodes with the same ids and the same fields, except that parents are
  re-pointed to the nearest kept ancestor and raw class names are dropped;
- kept: anything with a name, value, action, a real role, or a screen marker; layout wrappers
  (UNKNOWN, nothing to read or do) go, ids or not;
- a collapsed node (a soft keyboard's root, see ``bridge.core.keyboard``) is kept alone: its
  descendants go, except the ones named in ``keep`` (the key that hides the keyboard);
- cut to ``COMPACT_BUDGET_BYTES`` (``truncated`` = True) in document order; ``cut`` names the
  meaningful nodes the budget left out, so a compact subscriber can be told that something it
  cannot see changed.

``build_compact`` computes the view and remembers, per full node, what it decided;
``CompactView.update`` gives the view of the next capture of the same shape, re-deciding only
the nodes that changed when the budget's cut cannot move (else it walks again, reusing each
unchanged node's encoded size).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import msgspec

from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode

SCREEN_MARKER_PREFIX = "__screen_"
COMPACT_BUDGET_BYTES = 28_000
"""Compact snapshots are cut (``truncated``) above this encoded size (target: < 30 KB)."""
_MEANINGFUL_ROLES = frozenset(set(Role) - {Role.UNKNOWN})
_encode = msgspec.json.Encoder().encode


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


def _slim(node: SemanticNode, nearest: str | None) -> SemanticNode:
    return msgspec.structs.replace(node, parent_id=nearest, class_name=None, native_type=None)


@dataclass
class CompactView:
    """A compact view and, per full node (by index), what it decided."""

    nodes: tuple[SemanticNode, ...]
    truncated: bool
    cut: frozenset[str]
    collapsed: frozenset[str]
    keep: frozenset[str]
    size: int
    source: list[SemanticNode]
    """The full nodes the decisions were made for (by index)."""
    candidate: list[bool]
    """Meaningful and not folded into a collapsed node: kept unless the budget cuts it."""
    folded: list[bool]
    """Left out as a part of a collapsed node (a keyboard's key)."""
    nearest: list[str | None]
    """The nearest kept ancestor (the slim node's parent)."""
    slim: list[SemanticNode | None]
    cost: list[int]
    position: list[int]
    """Index in ``nodes`` (-1: not kept)."""

    def update(
        self,
        nodes: Sequence[SemanticNode],
        changed: Sequence[int],
        collapsed: Collection[str],
        keep: Collection[str],
    ) -> CompactView:
        """The view of ``nodes``: the previous capture's full nodes with those at ``changed``
        replaced (same ids and shape). Re-decides only ``changed`` when no decision can
        move; else builds again (reusing the encoded size of every unchanged node).

        A truncated view (issue 41: a 10,000-node list always is) keeps its decisions when
        every size change is growth and the kept total still fits: a node kept before
        was kept with the running total at most the final total, so it still fits with the
        growth added, and a node cut before (total plus its size above the budget) stays
        cut with more in front of it. A shrink may let a cut node in: the budget decisions
        from the first changed node on are replayed with the new sizes (arithmetic only),
        and any that differs builds again."""
        if not changed:
            self.source = list(nodes)
            return self
        same_folds = frozenset(collapsed) == self.collapsed and frozenset(keep) == self.keep
        plan: list[tuple[int, SemanticNode, int]] = []
        size = self.size
        shrunk = False
        for i in changed:
            node = nodes[i]
            if (
                not same_folds
                or node.node_id != self.source[i].node_id
                or (is_meaningful(node) and not self.folded[i]) != self.candidate[i]
            ):
                return build_compact(nodes, collapsed, keep, self)
            if not self.candidate[i]:
                continue
            slim = _slim(node, self.nearest[i])
            cost = len(_encode(slim)) + 1
            grow = cost - self.cost[i]
            if grow:
                shrunk = shrunk or grow < 0
                kept = self.position[i] >= 0
                if kept and size + grow > COMPACT_BUDGET_BYTES:
                    return build_compact(nodes, collapsed, keep, self)
                if kept:
                    size += grow
            plan.append((i, slim, cost))
        if shrunk and self.truncated and not _replay_agrees(self, plan):
            return build_compact(nodes, collapsed, keep, self)  # a cut node fits now
        out = list(self.nodes)
        for i, slim, cost in plan:
            self.slim[i] = slim
            self.cost[i] = cost
            if self.position[i] >= 0:
                out[self.position[i]] = slim
        self.nodes = tuple(out)
        self.size = size
        self.source = list(nodes)
        return self


def _replay_agrees(view: CompactView, plan: list[tuple[int, SemanticNode, int]]) -> bool:
    """Whether every budget decision of ``view`` holds with the sizes of ``plan``."""
    new_cost = {i: cost for i, _, cost in plan}
    start = min(new_cost)
    cost, position, candidate = view.cost, view.position, view.candidate
    running = sum(c for c, p in zip(cost[:start], position[:start], strict=True) if p >= 0)
    for j in range(start, len(cost)):
        if not candidate[j]:
            continue
        c = new_cost.get(j, cost[j])
        fits = running + c <= COMPACT_BUDGET_BYTES
        if fits != (position[j] >= 0):
            return False
        if fits:
            running += c
    return True


def build_compact(
    nodes: Sequence[SemanticNode],
    collapsed: Collection[str] = (),
    keep: Collection[str] = (),
    previous: CompactView | None = None,
) -> CompactView:
    """The compact view of ``nodes`` (see the module docstring); ``previous`` lends the
    encoded sizes of nodes that did not change."""
    collapsed_set = frozenset(collapsed)
    keep_set = frozenset(keep)
    n = len(nodes)
    kept_parent: dict[str, str | None] = {}
    folded: set[str] = set()
    out: list[SemanticNode] = []
    cut: list[str] = []
    candidate = [False] * n
    folds = [False] * n
    nearest_of: list[str | None] = [None] * n
    slims: list[SemanticNode | None] = [None] * n
    costs = [0] * n
    position = [-1] * n
    size = 0
    truncated = False
    for i, node in enumerate(nodes):
        parent = node.parent_id
        nearest = kept_parent.get(parent) if parent is not None else None
        nearest_of[i] = nearest
        inside = parent is not None and (parent in folded or parent in collapsed_set)
        if inside:
            folded.add(node.node_id)
        if (inside and node.node_id not in keep_set) or not is_meaningful(node):
            kept_parent[node.node_id] = nearest
            folds[i] = inside and node.node_id not in keep_set
            continue
        candidate[i] = True
        slim: SemanticNode | None = None
        if (
            previous is not None
            and i < len(previous.source)
            and previous.source[i] is node
            and previous.nearest[i] == nearest
            and previous.slim[i] is not None
        ):
            slim, cost = previous.slim[i], previous.cost[i]
        if slim is None:
            slim = _slim(node, nearest)
            cost = len(_encode(slim)) + 1
        slims[i], costs[i] = slim, cost
        if size + cost > COMPACT_BUDGET_BYTES:
            truncated = True
            cut.append(node.node_id)
            kept_parent[node.node_id] = nearest
            continue
        size += cost
        kept_parent[node.node_id] = node.node_id
        position[i] = len(out)
        out.append(slim)
    return CompactView(
        nodes=tuple(out),
        truncated=truncated,
        cut=frozenset(cut),
        collapsed=collapsed_set,
        keep=keep_set,
        size=size,
        source=list(nodes),
        candidate=candidate,
        folded=folds,
        nearest=nearest_of,
        slim=slims,
        cost=costs,
        position=position,
    )


def compact_nodes(
    nodes: Sequence[SemanticNode],
    collapsed: Collection[str] = (),
    keep: Collection[str] = (),
) -> tuple[tuple[SemanticNode, ...], bool]:
    """The compact subset: meaningful nodes, parents re-pointed to the nearest kept
    ancestor, raw class names dropped; the descendants of ``collapsed`` nodes left out except
    ``keep``; cut to ``COMPACT_BUDGET_BYTES`` (truncated=True)."""
    view = build_compact(nodes, collapsed, keep)
    return view.nodes, view.truncated
