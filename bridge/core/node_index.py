"""NodeIndex: maps from what queries and refs look for to the nodes that have it.

Built once per capture (lazily, on the first query or resolution), and for the next capture
of the same shape derived from the previous one by moving only the changed nodes between
buckets — so finding a node by id, text, label, role, name or item key costs a dict lookup
instead of a scan. Every bucket lists node ids in document order.

It narrows, never decides: callers run their exact rules on the candidates it gives, so an
answer with the index is the answer without it. What each map holds:

- ``ids``: resource id and automation id, exactly; ``short``: what follows each ``:id/`` in
  them (a short query id ``login`` finds ``com.pkg:id/login``);
- ``text`` / ``text_norm``: the node's visible text (``query.visible_text``), as is and
  normalized; ``hint`` / ``hint_norm``: an INPUT's hint (a text query also matches it);
- ``label`` / ``label_norm``; ``role``;
- ``name``: (role, ``identity.node_name``) — look-alikes; ``item``: (role, item key);
- ``fingerprint`` / ``ancestry``: each node's fingerprint and ancestor fingerprint, cached.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from bridge.core.textmatch import normalize_text
from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode

# The tree type is a parameter so this module need not know bridge.core.tree (which imports it).
_Tree = TypeVar("_Tree")

ID_MARK = ":id/"
_MAPS = (
    "ids",
    "short",
    "text",
    "text_norm",
    "hint",
    "hint_norm",
    "label",
    "label_norm",
    "role",
    "name",
    "item",
)


def visible_text(node: SemanticNode) -> str | None:
    """The text a ``text`` query reads (``query.visible_text``'s value)."""
    if not node.effective_state.password:
        if node.text is not None and normalize_text(node.text):
            return node.text
        if node.role is Role.INPUT and node.value is not None and normalize_text(node.value):
            return node.value
    if node.label is not None and normalize_text(node.label):
        return node.label
    return None


def _name(node: SemanticNode) -> str | None:
    return node.label or node.text or node.hint


def _keys(node: SemanticNode) -> Iterator[tuple[str, object]]:
    """(map, key) of every bucket ``node`` belongs to."""
    idents = {i for i in (node.resource_id, node.automation_id) if i}
    for ident in idents:
        yield "ids", ident
        start = ident.find(ID_MARK)
        while start >= 0:
            yield "short", ident[start + len(ID_MARK) :]
            start = ident.find(ID_MARK, start + 1)
    shown = visible_text(node)
    if shown is not None:
        yield "text", shown
        yield "text_norm", normalize_text(shown)
    if node.role is Role.INPUT and node.hint is not None and normalize_text(node.hint):
        yield "hint", node.hint
        yield "hint_norm", normalize_text(node.hint)
    if node.label is not None:
        yield "label", node.label
        yield "label_norm", normalize_text(node.label)
    yield "role", node.role
    name = _name(node)
    if name:
        yield "name", (node.role, name)
    if node.collection is not None and node.collection.item_key:
        yield "item", (node.role, node.collection.item_key)


class NodeIndex:
    """The maps of one capture (see the module docstring); read-only once built."""

    __slots__ = ("_fingerprints", "_ancestry", "_order", *_MAPS)

    def __init__(self, order: dict[str, int]) -> None:
        self._order = order
        self.ids: dict[object, list[str]] = {}
        self.short: dict[object, list[str]] = {}
        self.text: dict[object, list[str]] = {}
        self.text_norm: dict[object, list[str]] = {}
        self.hint: dict[object, list[str]] = {}
        self.hint_norm: dict[object, list[str]] = {}
        self.label: dict[object, list[str]] = {}
        self.label_norm: dict[object, list[str]] = {}
        self.role: dict[object, list[str]] = {}
        self.name: dict[object, list[str]] = {}
        self.item: dict[object, list[str]] = {}
        self._fingerprints: dict[str, str] = {}
        self._ancestry: dict[str, str] = {}

    @classmethod
    def build(cls, nodes: Iterable[SemanticNode], order: dict[str, int]) -> NodeIndex:
        index = cls(order)
        for node in nodes:
            nid = node.node_id
            for map_name, key in _keys(node):
                getattr(index, map_name).setdefault(key, []).append(nid)
        return index

    def replaced(
        self,
        order: dict[str, int],
        changed: Iterable[tuple[SemanticNode, SemanticNode]],
    ) -> NodeIndex:
        """The index after ``(before, after)`` node pairs changed in place (same ids, same
        shape). Shares every bucket the changes do not touch."""
        out = NodeIndex(order)
        copied: set[tuple[str, object]] = set()
        for map_name in _MAPS:
            setattr(out, map_name, dict(getattr(self, map_name)))
        structural = False
        changed = [(b, a) for b, a in changed if b is not a]
        for before, after in changed:
            nid = after.node_id
            old, new = set(_keys(before)), set(_keys(after))
            for map_name, key in old - new:
                bucket = out._bucket(map_name, key, copied)
                bucket.remove(nid)
                if not bucket:
                    del getattr(out, map_name)[key]
            for map_name, key in new - old:
                insort(out._bucket(map_name, key, copied), nid, key=order.__getitem__)
            if before.role is not after.role or (before.resource_id, before.automation_id) != (
                after.resource_id,
                after.automation_id,
            ):
                structural = True
        if not structural:
            out._ancestry = self._ancestry
            fingerprints = dict(self._fingerprints)
            for _, after in changed:
                fingerprints.pop(after.node_id, None)
            out._fingerprints = fingerprints
        return out

    def _bucket(self, map_name: str, key: object, copied: set[tuple[str, object]]) -> list[str]:
        """The bucket to edit, copied first so the previous index keeps its own."""
        table: dict[object, list[str]] = getattr(self, map_name)
        if (map_name, key) not in copied:
            copied.add((map_name, key))
            table[key] = list(table.get(key, ()))
        return table[key]

    def find(self, map_name: str, key: object) -> list[str]:
        found: list[str] = getattr(self, map_name).get(key, [])
        return found

    def fingerprint(self, node: SemanticNode, compute: Callable[[SemanticNode], str]) -> str:
        found = self._fingerprints.get(node.node_id)
        if found is None:
            found = self._fingerprints[node.node_id] = compute(node)
        return found

    def ancestry(self, tree: _Tree, node_id: str, compute: Callable[[_Tree, str], str]) -> str:
        found = self._ancestry.get(node_id)
        if found is None:
            found = self._ancestry[node_id] = compute(tree, node_id)
        return found
