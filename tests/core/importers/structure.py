"""Structural checks every imported tree must pass (shared by the importer tests)."""

from __future__ import annotations

import msgspec

from bridge.wire.raw import MAX_RAW_TEXT, RawTree


def assert_preorder(tree: RawTree) -> None:
    """parent is -1 or an earlier node, and the nodes really are in pre-order: each node's
    parent is on the ancestor path of the node before it (subtrees are contiguous)."""
    path: list[int] = []  # indexes from a root down to the previous node
    for i, node in enumerate(tree.nodes):
        assert -1 <= node.parent < i, f"node {i} has parent {node.parent}"
        if node.parent == -1:
            path = [i]
            continue
        assert node.parent in path, f"node {i}: parent {node.parent} not on path {path}"
        del path[path.index(node.parent) + 1 :]
        path.append(i)


def assert_well_formed(tree: RawTree, *, handles_are_indexes: bool = True) -> None:
    assert_preorder(tree)
    if handles_are_indexes:
        assert [n.handle for n in tree.nodes] == list(range(len(tree.nodes)))
    window_ids = {w.id for w in tree.windows}
    assert len(window_ids) == len(tree.windows)
    if tree.nodes:
        assert window_ids, "a non-empty tree lists its windows"
    for node in tree.nodes:
        assert node.window in window_ids
        for text in (node.class_name, node.text, node.label, node.value, node.hint):
            assert text is None or 0 < len(text) <= MAX_RAW_TEXT
        assert node.automation_id is None or 0 < len(node.automation_id) <= MAX_RAW_TEXT
    if tree.focus is not None:
        assert tree.nodes[tree.focus].focused
    # Every wire constraint (max lengths, types) holds: a strict typed round trip is lossless.
    assert msgspec.json.decode(msgspec.json.encode(tree), type=RawTree) == tree
