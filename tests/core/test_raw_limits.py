"""bridge.core.raw_limits: a capture is cut by nodes, depth and bytes of text and attributes."""

from __future__ import annotations

from bridge.core.raw_limits import MAX_CAPTURE_BYTES, cap_raw_tree, node_bytes
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
