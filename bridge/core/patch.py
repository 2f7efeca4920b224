"""Deltas between two snapshots of one device: ``patch`` and ``apply_patch``.

A ``Patch`` is the body of a ``delta`` event: ``remove`` (every removed id, whole subtrees
included), ``upsert`` (full nodes that are new or differ in any field), ``order`` (for every
parent whose child list changed — ``""`` for the root list — the complete new child list),
and ``meta`` (the new snapshot with ``nodes`` empty).

Law (tested with hypothesis and on every real dump): ``apply_patch(a, patch(a, b)) == b`` in
nodes and meta, node for node in pre-order; ``patch(a, a)`` is empty.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from bridge.core.tree import ROOT
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


@dataclass(frozen=True, slots=True)
class Patch:
    base: str
    meta: ScreenSnapshot
    remove: tuple[str, ...]
    upsert: tuple[SemanticNode, ...]
    order: dict[str, tuple[str, ...]]

    @property
    def empty(self) -> bool:
        return not (self.remove or self.upsert or self.order)


@dataclass(frozen=True, slots=True)
class PatchMismatch:
    """The patch does not apply: its base is not the given snapshot, or it names ids that do
    not exist. The subscriber must resync from a full snapshot."""

    reason: str


def unseen_changes(
    a: ScreenSnapshot,
    b: ScreenSnapshot,
    cut_a: Collection[str],
    cut_b: Collection[str],
    changed: Sequence[str] | None = None,
) -> list[str]:
    """Ids of the full nodes, ``a`` to ``b``, that were added or changed among ``b``'s
    compact cut (``cut_b``) or removed from ``a``'s (``cut_a``): what a compact subscriber
    cannot see (``b`` order, removals after). ``changed``: see ``patch``."""
    if not cut_a and not cut_b:
        return []
    if changed is not None:  # the same ids in the same places: nothing was removed
        return [nid for nid in changed if nid in cut_b]
    body = patch(a, b, changed)
    out = [n.node_id for n in body.upsert if n.node_id in cut_b]
    out += [nid for nid in body.remove if nid in cut_a]
    return out


def _children(nodes: Sequence[SemanticNode]) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {ROOT: []}
    for node in nodes:
        children.setdefault(node.parent_id or ROOT, []).append(node.node_id)
    return children


def meta_of(snapshot: ScreenSnapshot) -> ScreenSnapshot:
    return msgspec.structs.replace(snapshot, nodes=())


def _same_shape_upserts(
    a: Sequence[SemanticNode], b: Sequence[SemanticNode]
) -> tuple[SemanticNode, ...] | None:
    """When ``b`` has ``a``'s ids with the same parents in the same pre-order (then no node
    was removed and no child list changed), the nodes of ``b`` that differ, in ``b`` order;
    else None. One pass, and a node the engine reused (the same object) is not compared."""
    if len(a) != len(b):
        return None
    upsert: list[SemanticNode] = []
    for x, y in zip(a, b, strict=True):
        if x is y:
            continue
        if x.node_id != y.node_id or x.parent_id != y.parent_id:
            return None
        if x != y:
            upsert.append(y)
    return tuple(upsert)


def patch(
    a: ScreenSnapshot,
    b: ScreenSnapshot,
    changed: Sequence[str] | None = None,
    by_id: Mapping[str, SemanticNode] | None = None,
) -> Patch:
    """The delta from ``a`` to ``b``. ``changed`` (optional) names every node of ``b`` that
    differs from ``a`` when both have the same ids in the same places (the normalization
    engine knows it, in ``b``'s order); then the delta is built from those nodes alone,
    looked up in ``by_id`` (``b``'s nodes by id) when given instead of scanning ``b``."""
    if changed is not None:
        if not changed:
            return Patch(a.snapshot_id, meta_of(b), (), (), {})
        if by_id is not None:
            return Patch(a.snapshot_id, meta_of(b), (), tuple(by_id[i] for i in changed), {})
        wanted = set(changed)
        upsert = tuple(n for n in b.nodes if n.node_id in wanted)
        return Patch(a.snapshot_id, meta_of(b), (), upsert, {})
    same_shape = _same_shape_upserts(a.nodes, b.nodes)
    if same_shape is not None:
        return Patch(a.snapshot_id, meta_of(b), (), same_shape, {})
    old = {n.node_id: n for n in a.nodes}
    new_ids = {n.node_id for n in b.nodes}
    remove = tuple(n.node_id for n in a.nodes if n.node_id not in new_ids)
    upsert = tuple(n for n in b.nodes if old.get(n.node_id) != n)
    old_children = _children(a.nodes)
    new_children = _children(b.nodes)
    order: dict[str, tuple[str, ...]] = {}
    for parent, kids in new_children.items():
        if old_children.get(parent, []) != kids and (kids or parent in old_children):
            order[parent] = tuple(kids)
    for parent, kids in old_children.items():
        if kids and parent not in new_children and parent in new_ids:
            order[parent] = ()
    return Patch(a.snapshot_id, meta_of(b), remove, upsert, order)


def apply_patch(a: ScreenSnapshot, p: Patch) -> ScreenSnapshot | PatchMismatch:
    """The snapshot ``p`` leads to from ``a`` (pre-order rebuilt from the child lists)."""
    if p.base != a.snapshot_id:
        return PatchMismatch(f"delta base {p.base} is not the current snapshot {a.snapshot_id}")
    nodes = {n.node_id: n for n in a.nodes}
    for nid in p.remove:
        if nodes.pop(nid, None) is None:
            return PatchMismatch(f"delta removes unknown node {nid}")
    for node in p.upsert:
        nodes[node.node_id] = node
    children = _children(a.nodes)
    for nid in p.remove:
        children.pop(nid, None)
    children.update({k: list(v) for k, v in p.order.items()})
    out: list[SemanticNode] = []
    stack = list(reversed(children.get(ROOT, [])))
    while stack:
        nid = stack.pop()
        current = nodes.get(nid)
        if current is None:
            return PatchMismatch(f"delta orders unknown node {nid}")
        out.append(current)
        stack.extend(reversed(children.get(nid, [])))
    if len(out) != len(nodes):
        return PatchMismatch("delta leaves nodes unreachable from the root")
    return msgspec.structs.replace(p.meta, nodes=tuple(out))
