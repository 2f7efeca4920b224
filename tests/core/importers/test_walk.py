from __future__ import annotations

import pytest

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_TREE_DEPTH
from bridge.core.importers.walk import preorder

Tree = tuple[str, list["Tree"]]


def _kids(item: Tree, index: int) -> list[Tree]:
    return item[1]


def test_preorder_indexes_parents_and_roots() -> None:
    roots: list[Tree] = [("a", [("b", [("c", [])]), ("d", [])]), ("e", [("f", [])])]
    visits = [(v.item[0], v.index, v.parent, v.depth, v.root) for v in preorder(roots, _kids)]
    assert visits == [
        ("a", 0, -1, 0, 0),
        ("b", 1, 0, 1, 0),
        ("c", 2, 1, 2, 0),
        ("d", 3, 0, 1, 0),
        ("e", 4, -1, 0, 1),
        ("f", 5, 4, 1, 1),
    ]


def test_depth_limit() -> None:
    chain: Tree = ("leaf", [])
    for _ in range(MAX_TREE_DEPTH + 1):
        chain = ("n", [chain])
    with pytest.raises(DumpError, match=f"deeper than {MAX_TREE_DEPTH} levels"):
        list(preorder([chain], _kids))
