"""Iterative pre-order traversal shared by the importers that read a whole document first (JSON
formats, iOS XML; Android XML is read as it streams: ``android_xml.AndroidReader``).

Invariants: items are yielded in pre-order (a node before its descendants, siblings in source
order); ``index`` counts yields from 0, so it is the node's position in ``RawTree.nodes`` and
its handle; ``parent`` is the index of the parent visit or -1; ``root`` is the ordinal of the
top-level item the visit descends from. Recursion is never used. More than ``MAX_RAW_NODES``
visits or a depth beyond ``MAX_TREE_DEPTH`` raises ``DumpError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_RAW_NODES, MAX_TREE_DEPTH

T = TypeVar("T")


@dataclass(slots=True)
class Visit(Generic[T]):
    """One visit; never mutated (not ``frozen``: one is made per node of every import, and a
    frozen dataclass's ``__init__`` costs a ``object.__setattr__`` a field)."""

    item: T
    index: int
    parent: int
    depth: int
    root: int


def preorder(roots: Sequence[T], children: Callable[[T, int], Sequence[T]]) -> Iterator[Visit[T]]:
    """Visit ``roots`` and their descendants. ``children(item, index)`` returns an item's
    children (and may raise ``DumpError`` naming node ``index`` when their shape is wrong)."""
    stack: list[tuple[T, int, int, int]] = [
        (root, -1, 0, ordinal) for ordinal, root in reversed(list(enumerate(roots)))
    ]
    index = 0
    while stack:
        item, parent, depth, root = stack.pop()
        if index >= MAX_RAW_NODES:
            raise DumpError(f"more than {MAX_RAW_NODES} nodes")
        if depth > MAX_TREE_DEPTH:
            raise DumpError(f"node {index} is nested deeper than {MAX_TREE_DEPTH} levels")
        yield Visit(item, index, parent, depth, root)
        kids = children(item, index)
        stack.extend((kid, index, depth + 1, root) for kid in reversed(kids))
        index += 1
