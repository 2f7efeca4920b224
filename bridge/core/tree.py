"""NodeTree: an index over a snapshot's nodes for navigation by id.

Invariants: ``nodes`` is the snapshot's pre-order sequence; ``order[id]`` is a node's position
in it (document order); ``children[id]`` lists child ids in order and ``children[""]`` the
roots. Built once per snapshot (O(n)); never mutated afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from bridge.core.node_index import NodeIndex
from bridge.wire.node import SemanticNode

ROOT = ""


class NodeTree:
    __slots__ = ("_index", "_pending", "by_id", "children", "nodes", "order", "parent")

    def __init__(self, nodes: Sequence[SemanticNode]) -> None:
        self.nodes: tuple[SemanticNode, ...] = tuple(nodes)
        self.by_id: dict[str, SemanticNode] = {}
        self.order: dict[str, int] = {}
        self.parent: dict[str, str] = {}
        self.children: dict[str, list[str]] = {ROOT: []}
        for i, node in enumerate(self.nodes):
            nid = node.node_id
            self.by_id[nid] = node
            self.order[nid] = i
            self.children.setdefault(nid, [])
            pid = node.parent_id if node.parent_id is not None else ROOT
            self.parent[nid] = pid
            self.children.setdefault(pid, []).append(nid)
        self._index: NodeIndex | None = None
        self._pending: tuple[NodeIndex, dict[str, tuple[SemanticNode, SemanticNode]]] | None = None
        """An earlier capture's index and the nodes changed since (built on first use)."""

    @classmethod
    def replaced(
        cls, previous: NodeTree, nodes: Sequence[SemanticNode], changed: Iterable[SemanticNode]
    ) -> NodeTree:
        """The tree of ``nodes``: ``previous``'s nodes with ``changed`` ones replaced by nodes
        of the same ids and parents (the shape is shared, not rebuilt)."""
        tree = cls.__new__(cls)
        tree.nodes = tuple(nodes)
        tree.order = previous.order
        tree.parent = previous.parent
        tree.children = previous.children
        by_id = dict(previous.by_id)
        pairs = []
        for node in changed:
            pairs.append((previous.by_id[node.node_id], node))
            by_id[node.node_id] = node
        tree.by_id = by_id
        tree._index = None
        tree._pending = None
        if previous._index is not None:
            base, changes = previous._index, {}
        elif previous._pending is not None:
            base, earlier = previous._pending
            changes = dict(earlier)
        else:
            return tree
        for before, after in pairs:
            first = changes.get(after.node_id)
            changes[after.node_id] = (first[0] if first is not None else before, after)
        tree._pending = (base, changes)
        return tree

    @property
    def index(self) -> NodeIndex:
        """Lookups by id, text, label, role, name and item key (built on first use)."""
        index = self._index
        if index is None:
            pending = self._pending
            if pending is not None:
                base, changes = pending
                index = base.replaced(self.order, changes.values())
            else:
                index = NodeIndex.build(self.nodes, self.order)
            self._index, self._pending = index, None
        return index

    def lookup(self, map_name: str, key: object) -> list[SemanticNode]:
        """The nodes in ``map_name``'s bucket ``key`` (document order)."""
        by_id = self.by_id
        return [by_id[nid] for nid in self.index.find(map_name, key)]

    def __len__(self) -> int:
        return len(self.nodes)

    def get(self, node_id: str) -> SemanticNode | None:
        return self.by_id.get(node_id)

    def ancestors(self, node_id: str) -> Iterator[SemanticNode]:
        """Ancestors from the parent up to the root (the node itself excluded)."""
        pid = self.parent.get(node_id, ROOT)
        while pid != ROOT:
            node = self.by_id.get(pid)
            if node is None:
                return
            yield node
            pid = self.parent.get(pid, ROOT)

    def descendants(self, node_id: str) -> Iterator[SemanticNode]:
        """Descendants in document order (the node itself excluded)."""
        stack = list(reversed(self.children.get(node_id, [])))
        while stack:
            nid = stack.pop()
            yield self.by_id[nid]
            stack.extend(reversed(self.children.get(nid, [])))

    def is_descendant(self, node_id: str, ancestor_id: str) -> bool:
        return any(a.node_id == ancestor_id for a in self.ancestors(node_id))

    def path(self, node_id: str) -> str:
        """Child-index path from the root list, e.g. ``0/2/1`` (STRUCTURAL_PATH value)."""
        parts: list[str] = []
        nid = node_id
        while True:
            pid = self.parent.get(nid, ROOT)
            parts.append(str(self.children[pid].index(nid)))
            if pid == ROOT:
                break
            nid = pid
        return "/".join(reversed(parts))

    def at_path(self, path: str) -> SemanticNode | None:
        """The node at a child-index path, or None when the path leads nowhere."""
        pid = ROOT
        try:
            for part in path.split("/"):
                pid = self.children[pid][int(part)]
        except (IndexError, ValueError, KeyError):
            return None
        return self.by_id.get(pid)
