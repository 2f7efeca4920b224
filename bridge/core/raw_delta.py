"""Raw-tree deltas of the agent link (``tree_delta``, protocol/README.md §10).

- ``raw_delta(prev, next)``: what an agent sends instead of ``next`` when it last sent
  ``prev`` — None when a full tree is as good (handles repeat, or most nodes changed). The
  simulated device uses it; the Java and Swift agents implement the same rules and are held
  to the same fixtures.
- ``RawMirror``: the hub's copy of the last tree an agent sent on a link. ``apply`` turns a
  delta into the agent's new capture — the full ``RawTree``, with every node the delta did not
  touch the very object it was — and tells which indexes changed when the shape (handles and
  parents) stayed the same, so normalization can skip comparing the rest. Anything that does
  not fit (another base, an unknown handle, a node reached twice or not at all, a parent that
  contradicts the child lists, too many nodes) is refused: the caller asks for a full capture.

Canonical form (what ``raw_delta`` writes and the fixtures hold): ``remove`` in the previous
tree's order, ``upsert`` in the new tree's order, ``order`` keyed by the parent's handle in
decimal (``""`` for the roots) for exactly the parents whose child list changed and that
exist in the new tree, ``meta`` only when a tree-level field changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from bridge.wire.agent_link import RawMeta, TreeDelta
from bridge.wire.raw import MAX_RAW_NODES, RawNode, RawTree

ROOTS = ""
"""``order`` key of the list of roots."""
FULL_SHARE = 0.5
"""``raw_delta`` gives up (send the full tree) when more than this share of nodes changed."""


@dataclass(frozen=True, slots=True)
class DeltaBody:
    """The fields of a ``tree_delta`` that describe the change (the push's own fields —
    reason, stable, quiet — are the agent's)."""

    base: int
    capture: int
    remove: tuple[int, ...]
    upsert: tuple[RawNode, ...]
    order: dict[str, tuple[int, ...]]
    meta: RawMeta | None

    def message(self, reason: str, stable: bool, quiet_ms: int = 0) -> TreeDelta:
        return TreeDelta(
            reason=reason,
            stable=stable,
            base=self.base,
            capture=self.capture,
            remove=self.remove,
            upsert=self.upsert,
            order=self.order,
            meta=self.meta,
            quiet_ms=quiet_ms,
        )


@dataclass(frozen=True, slots=True)
class DeltaRefused:
    reason: str


def meta_of(tree: RawTree) -> RawMeta:
    return RawMeta(
        windows=tree.windows,
        package=tree.package,
        focus=tree.focus,
        rotation=tree.rotation,
        screen=tree.screen,
        secure=tree.secure,
    )


def _parent_handles(nodes: Sequence[RawNode]) -> list[int]:
    return [nodes[n.parent].handle if n.parent >= 0 else -1 for n in nodes]


def _child_lists(nodes: Sequence[RawNode], parents: Sequence[int]) -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {-1: []}
    for node, parent in zip(nodes, parents, strict=True):
        kids.setdefault(parent, []).append(node.handle)
    return kids


def raw_delta(prev: RawTree, new: RawTree) -> DeltaBody | None:
    """The delta from ``prev`` to ``new`` (canonical form), or None when the full tree should
    go instead: a handle repeats in either tree, the platforms differ, or more than
    ``FULL_SHARE`` of the nodes changed."""
    if prev.platform is not new.platform:
        return None
    old_index = {n.handle: i for i, n in enumerate(prev.nodes)}
    new_index = {n.handle: i for i, n in enumerate(new.nodes)}
    if len(old_index) != len(prev.nodes) or len(new_index) != len(new.nodes):
        return None
    old_parents = _parent_handles(prev.nodes)
    new_parents = _parent_handles(new.nodes)
    remove = tuple(n.handle for n in prev.nodes if n.handle not in new_index)
    upsert: list[RawNode] = []
    for i, node in enumerate(new.nodes):
        parent = new_parents[i]
        j = old_index.get(node.handle)
        if j is not None and old_parents[j] == parent:
            before = prev.nodes[j]
            if node == before or (
                node.parent != before.parent
                and msgspec.structs.replace(node, parent=before.parent) == before
            ):
                continue
        upsert.append(
            node if node.parent == parent else msgspec.structs.replace(node, parent=parent)
        )
    if len(upsert) > FULL_SHARE * max(1, len(new.nodes)):
        return None
    old_kids = _child_lists(prev.nodes, old_parents)
    new_kids = _child_lists(new.nodes, new_parents)
    order: dict[str, tuple[int, ...]] = {}
    for parent in (-1, *(n.handle for n in new.nodes)):
        kids = new_kids.get(parent, [])
        if kids != old_kids.get(parent, []):
            order[ROOTS if parent == -1 else str(parent)] = tuple(kids)
    meta = meta_of(new)
    return DeltaBody(
        base=prev.capture,
        capture=new.capture,
        remove=remove,
        upsert=tuple(upsert),
        order=order,
        meta=None if meta == meta_of(prev) else meta,
    )


class RawMirror:
    """The last tree an agent sent on one link (immutable: ``apply`` returns a new mirror)."""

    __slots__ = ("_kids", "index", "parents", "tree")

    def __init__(
        self,
        tree: RawTree,
        index: dict[int, int],
        parents: list[int],
        kids: dict[int, list[int]] | None = None,
    ) -> None:
        self.tree = tree
        self.index = index
        """Handle -> index in ``tree.nodes``."""
        self.parents = parents
        """Per index: the parent's handle (-1 for a root)."""
        self._kids = kids

    @classmethod
    def of(cls, tree: RawTree) -> RawMirror | None:
        """A mirror of a full tree; None when its handles repeat (no delta can apply)."""
        index = {n.handle: i for i, n in enumerate(tree.nodes)}
        if len(index) != len(tree.nodes):
            return None
        return cls(tree, index, _parent_handles(tree.nodes))

    def retree(self, tree: RawTree) -> RawMirror:
        """A mirror of ``tree``, which the caller knows has this mirror's node count and, at
        every index, the same handle and parent (its other fields may differ): the index,
        parents and child lists are shared, not built again."""
        return RawMirror(tree, self.index, self.parents, self._kids)

    @property
    def capture(self) -> int:
        return self.tree.capture

    def kids(self) -> dict[int, list[int]]:
        """Parent handle (-1: roots) -> child handles in order (built once, never mutated)."""
        if self._kids is None:
            self._kids = _child_lists(self.tree.nodes, self.parents)
        return self._kids

    def apply(self, delta: TreeDelta) -> tuple[RawMirror, tuple[int, ...] | None] | DeltaRefused:
        """The new mirror and, when the shape stayed the same, the indexes of the changed
        nodes (else None)."""
        if delta.base != self.capture:
            return DeltaRefused(f"delta base {delta.base} is not the last capture {self.capture}")
        tree = self.tree
        meta = delta.meta
        if meta is not None:
            tree = msgspec.structs.replace(
                tree,
                windows=meta.windows,
                package=meta.package,
                focus=meta.focus,
                rotation=meta.rotation,
                screen=meta.screen,
                secure=meta.secure,
                truncated=meta.truncated,
                warnings=meta.warnings,
            )
        if not delta.remove and not delta.order:
            same = self._reshaped_nothing(delta)
            if same is not None:
                if tree.focus is not None and tree.focus not in self.index:
                    return DeltaRefused(f"focus {tree.focus} is not a handle of the tree")
                nodes = list(tree.nodes)
                for i, node in same:
                    nodes[i] = node
                new = msgspec.structs.replace(tree, capture=delta.capture, nodes=tuple(nodes))
                return RawMirror(new, self.index, self.parents, self._kids), tuple(
                    sorted(i for i, _ in same)
                )
        return self._rebuild(tree, delta)

    def _reshaped_nothing(self, delta: TreeDelta) -> list[tuple[int, RawNode]] | None:
        """The upserts as (index, node) when each replaces an existing node under the same
        parent (the shape is unchanged); None otherwise."""
        out: list[tuple[int, RawNode]] = []
        for node in delta.upsert:
            i = self.index.get(node.handle)
            if i is None or self.parents[i] != node.parent:
                return None
            index_parent = self.tree.nodes[i].parent
            out.append((i, node if node.parent == index_parent else _at(node, index_parent)))
        return out

    def _rebuild(self, tree: RawTree, delta: TreeDelta) -> tuple[RawMirror, None] | DeltaRefused:
        content = {n.handle: n for n in self.tree.nodes}
        kids = dict(self.kids())
        declared: dict[int, int] = {}
        for handle in delta.remove:
            if content.pop(handle, None) is None:
                return DeltaRefused(f"delta removes unknown handle {handle}")
            kids.pop(handle, None)
        for node in delta.upsert:
            content[node.handle] = node
            declared[node.handle] = node.parent
        for key, handles in delta.order.items():
            if key == ROOTS:
                parent = -1
            else:
                try:
                    parent = int(key)
                except ValueError:
                    return DeltaRefused(f"order key {key[:20]!r} is not a handle")
                if parent not in content:
                    return DeltaRefused(f"order names unknown parent {parent}")
            kids[parent] = list(handles)
        nodes: list[RawNode] = []
        index: dict[int, int] = {}
        parents: list[int] = []
        stack: list[tuple[int, int]] = [(h, -1) for h in reversed(kids.get(-1, []))]
        while stack:
            handle, parent = stack.pop()
            found = content.get(handle)
            if found is None:
                return DeltaRefused(f"delta places unknown handle {handle}")
            node = found
            if handle in index:
                return DeltaRefused(f"handle {handle} is placed twice")
            if declared.get(handle, parent) != parent:
                return DeltaRefused(f"handle {handle} is upserted under another parent")
            if len(nodes) >= MAX_RAW_NODES:
                return DeltaRefused(f"the tree would pass {MAX_RAW_NODES} nodes")
            at = index[parent] if parent >= 0 else -1
            index[handle] = len(nodes)
            nodes.append(node if node.parent == at else _at(node, at))
            parents.append(parent)
            stack.extend((c, handle) for c in reversed(kids.get(handle, ())))
        if len(nodes) != len(content):
            return DeltaRefused("delta leaves nodes unreachable from the roots")
        if tree.focus is not None and tree.focus not in index:
            return DeltaRefused(f"focus {tree.focus} is not a handle of the tree")
        new = msgspec.structs.replace(tree, capture=delta.capture, nodes=tuple(nodes))
        return RawMirror(new, index, parents), None


def _at(node: RawNode, parent_index: int) -> RawNode:
    return msgspec.structs.replace(node, parent=parent_index)
