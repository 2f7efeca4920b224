"""bridge.core.raw_limits: a capture is cut by nodes, depth and bytes of text and attributes."""

from __future__ import annotations

import msgspec

from bridge.core.raw_limits import MAX_CAPTURE_BYTES, cap_raw_tree, node_bytes, structure_problem
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree


def heavy(count: int, chars: int) -> RawTree:
    nodes = [RawNode(handle=0, parent=-1, class_name="Root")]
    nodes += [
        RawNode(handle=i, parent=0, class_name="T", text=f"{i:06d}" + "x" * (chars - 6))
        for i in range(1, count)
    ]
    return RawTree(capture=1, platform=Platform.ANDROID, nodes=tuple(nodes))


def test_node_bytes_counts_every_string_in_utf8() -> None:
    node = RawNode(handle=1, parent=0, class_name="ab", text="é", label="c", actions=("tap",))
    assert node_bytes(node) == 2 + 2 + 1 + 3


def test_a_tree_within_every_cap_is_returned_as_is_with_its_bytes() -> None:
    tree = heavy(100, 1000)
    capped = cap_raw_tree(tree)
    assert capped.tree is tree and capped.dropped == 0
    assert capped.bytes == 4 + 99 * (1 + 1000)


def test_24_mb_of_valid_text_is_cut_by_the_byte_budget_with_the_reason() -> None:
    tree = heavy(3000, 8000)  # 3,000 nodes x 8,000 characters: 24 MB
    capped = cap_raw_tree(tree)
    kept = len(capped.tree.nodes)
    assert capped.bytes <= MAX_CAPTURE_BYTES
    assert kept == 1 + MAX_CAPTURE_BYTES // 8001
    assert capped.dropped == 3000 - kept
    assert capped.reason is not None
    assert "the byte budget was spent" in capped.reason
    assert f"{MAX_CAPTURE_BYTES} bytes" in capped.reason and "3000 nodes" in capped.reason
    # Kept in document order; the root stays.
    assert capped.tree.nodes[0].parent == -1
    assert [n.handle for n in capped.tree.nodes] == list(range(kept))


def test_the_byte_cut_drops_whole_subtrees() -> None:
    nodes = (
        RawNode(handle=0, parent=-1),
        RawNode(handle=1, parent=0, text="x" * 60),
        RawNode(handle=2, parent=1, text="y"),
        RawNode(handle=3, parent=0, text="z"),
    )
    tree = RawTree(capture=1, platform=Platform.ANDROID, nodes=nodes)
    capped = cap_raw_tree(tree, max_bytes=50)
    assert [n.handle for n in capped.tree.nodes] == [0]
    assert capped.dropped == 3


def _tree(nodes: list[RawNode], focus: int | None = None) -> RawTree:
    return RawTree(capture=1, platform=Platform.ANDROID, nodes=tuple(nodes), focus=focus)


def test_node_bytes_counts_each_string_field_once() -> None:
    bare = RawNode(handle=1, parent=0)
    assert node_bytes(bare) == 0
    for field, size in [
        ("class_name", 1), ("text", 2), ("label", 3), ("value", 4), ("hint", 5),
        ("automation_id", 6), ("package", 7),
    ]:  # fmt: skip
        node = msgspec.structs.replace(bare, **{field: "a" * size})
        assert node_bytes(node) == size, field
    assert node_bytes(msgspec.structs.replace(bare, actions=("tap", "scroll"))) == 9
    assert node_bytes(msgspec.structs.replace(bare, traits=("button", "x"))) == 7
    # non-ASCII counts its UTF-8 bytes, a lone surrogate (3 bytes) included
    assert node_bytes(msgspec.structs.replace(bare, text="€\ud800")) == 6


def test_the_node_cap_keeps_the_first_nodes_and_names_the_caps_in_its_reason() -> None:
    tree = heavy(10, 10)  # a root and 9 children of 10 characters
    capped = cap_raw_tree(tree, max_nodes=4, max_depth=5, max_bytes=1000)
    assert [n.handle for n in capped.tree.nodes] == [0, 1, 2, 3]
    assert capped.dropped == 6 and capped.bytes == 4 + 3 * 11
    assert capped.reason == (
        "the agent sent 10 nodes (103 bytes of text and attributes); kept 4 (37 bytes) "
        "(caps: 4 nodes, 5 levels, 1000 bytes)"
    )
    exact = cap_raw_tree(tree, max_nodes=10)
    assert exact.tree is tree and exact.dropped == 0 and exact.reason is None


def test_the_byte_budget_is_spent_exactly_not_exceeded() -> None:
    tree = heavy(4, 10)  # 4 + 3 x 11 = 37 bytes
    assert cap_raw_tree(tree, max_bytes=37).tree is tree
    capped = cap_raw_tree(tree, max_bytes=36)
    assert [n.handle for n in capped.tree.nodes] == [0, 1, 2]
    assert capped.bytes == 26 and capped.dropped == 1
    assert capped.reason == (
        "the agent sent 4 nodes (37 bytes of text and attributes); kept 3 (26 bytes); "
        "the byte budget was spent (caps: 5000 nodes, 256 levels, 36 bytes)"
    )


def test_the_depth_cap_cuts_deeper_nodes_and_reindexes_the_parents() -> None:
    chain = [RawNode(handle=0, parent=-1)]
    chain += [RawNode(handle=i, parent=i - 1) for i in range(1, 5)]  # depths 0..4
    chain.append(RawNode(handle=5, parent=0))  # a second child of the root
    exact = cap_raw_tree(_tree(chain), max_depth=4)
    assert exact.dropped == 0
    capped = cap_raw_tree(_tree(chain), max_depth=2)
    assert [(n.handle, n.parent) for n in capped.tree.nodes] == [(0, -1), (1, 0), (2, 1), (5, 0)]
    assert capped.dropped == 2
    assert capped.reason is not None and "(caps: 5000 nodes, 2 levels," in capped.reason


def test_a_second_root_is_kept_and_nodes_after_a_cut_parent_are_reindexed() -> None:
    nodes = [
        RawNode(handle=10, parent=-1),
        RawNode(handle=11, parent=0, text="x" * 50),  # over the budget alone: cut
        RawNode(handle=12, parent=1),  # its child: cut with it
        RawNode(handle=13, parent=-1),
        RawNode(handle=14, parent=3),
    ]
    capped = cap_raw_tree(_tree(nodes), max_bytes=40)
    # past the budget nothing more is kept, even nodes that would fit
    assert [(n.handle, n.parent) for n in capped.tree.nodes] == [(10, -1)]
    nodes[1] = RawNode(handle=11, parent=0)
    cut = cap_raw_tree(_tree(nodes), max_depth=1)  # node 12 (depth 2) goes: 14's parent moves
    assert [(n.handle, n.parent) for n in cut.tree.nodes] == [(10, -1), (11, 0), (13, -1), (14, 2)]
    roots = cap_raw_tree(_tree(nodes), max_depth=0)
    assert [(n.handle, n.parent) for n in roots.tree.nodes] == [(10, -1), (13, -1)]


def test_the_focus_handle_survives_only_with_its_node() -> None:
    tree = _tree([RawNode(handle=7, parent=-1), RawNode(handle=8, parent=0)], focus=8)
    assert cap_raw_tree(tree, max_nodes=2).tree.focus == 8
    kept = cap_raw_tree(
        _tree([*list(tree.nodes), RawNode(handle=9, parent=0)], focus=8), max_nodes=2
    )
    assert kept.tree.focus == 8 and kept.dropped == 1
    cut = cap_raw_tree(tree, max_nodes=1)
    assert cut.tree.focus is None and cut.dropped == 1
    unfocused = cap_raw_tree(_tree(list(tree.nodes)), max_nodes=1)
    assert unfocused.tree.focus is None


def test_structure_problem_names_the_node_and_the_valid_range() -> None:
    good = _tree([RawNode(handle=0, parent=-1), RawNode(handle=1, parent=0)])
    assert structure_problem(good) is None
    assert structure_problem(_tree([])) is None
    ahead = _tree([RawNode(handle=0, parent=-1), RawNode(handle=1, parent=2)])
    assert structure_problem(ahead) == (
        "tree.nodes[1].parent: 2 is neither -1 nor the index of a node (0..1)"
    )
    below = _tree([RawNode(handle=0, parent=-2)])
    assert structure_problem(below, "reply.tree") == (
        "reply.tree.nodes[0].parent: -2 is neither -1 nor the index of a node (0..0)"
    )
    last = _tree([RawNode(handle=0, parent=-1), RawNode(handle=1, parent=1)])
    assert structure_problem(last) is None  # an index of the list (a cycle is the tree's job)


def test_a_tree_exactly_at_a_cap_is_returned_as_is() -> None:
    chain = [RawNode(handle=0, parent=-1)]
    chain += [RawNode(handle=i, parent=i - 1) for i in range(1, 5)]  # depths 0..4
    tree = _tree(chain)
    assert cap_raw_tree(tree, max_depth=4).tree is tree
    root = _tree([RawNode(handle=0, parent=-1)])
    assert cap_raw_tree(root, max_depth=0).tree is root
    # a node naming itself as parent (the structure check refuses it before; never a crash)
    odd = _tree([RawNode(handle=0, parent=-1), RawNode(handle=1, parent=1)])
    assert cap_raw_tree(odd).dropped == 0


def test_the_byte_budget_may_be_spent_to_the_last_byte_after_another_cut() -> None:
    tree = heavy(4, 10)  # 4 + 3 x 11 = 37 bytes
    capped = cap_raw_tree(tree, max_nodes=3, max_bytes=26)
    assert [n.handle for n in capped.tree.nodes] == [0, 1, 2] and capped.bytes == 26


def test_the_reason_counts_every_byte_sent_after_the_budget_was_spent() -> None:
    capped = cap_raw_tree(heavy(5, 10), max_bytes=30)  # 4 + 4 x 11 = 48 bytes sent
    assert capped.reason == (
        "the agent sent 5 nodes (48 bytes of text and attributes); kept 3 (26 bytes); "
        "the byte budget was spent (caps: 5000 nodes, 256 levels, 30 bytes)"
    )
