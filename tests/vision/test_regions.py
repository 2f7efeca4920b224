"""``blind_regions``: CANVAS nodes (largest first, vision children ignored), else the one big
wordless leaf of a sparse screen, else nothing."""

from __future__ import annotations

from bridge.vision.regions import MAX_REGIONS, Region, blind_regions
from bridge.wire.enums import Role, Source
from bridge.wire.node import SemanticNode


def node(
    nid: str,
    role: Role,
    bounds: tuple[int, int, int, int],
    parent: str | None = "n1",
    text: str | None = None,
    source: Source = Source.ACCESSIBILITY,
) -> SemanticNode:
    return SemanticNode(
        node_id=nid, role=role, parent_id=parent, bounds=bounds, text=text, source=source
    )


ROOT = node("n1", Role.SCREEN, (0, 0, 1080, 2400), parent=None)


def test_canvases_largest_first_and_vision_children_do_not_count() -> None:
    small = node("n2", Role.CANVAS, (0, 0, 300, 300))
    big = node("n3", Role.CANVAS, (0, 300, 1080, 2000))
    tiny = node("n4", Role.CANVAS, (0, 0, 20, 20))
    read = node("n5", Role.TEXT, (10, 10, 90, 40), parent="n3", text="PLAY", source=Source.VISION)
    buttons = [node(f"b{i}", Role.BUTTON, (0, 0, 100, 50), text=f"B{i}") for i in range(20)]
    got = blind_regions([ROOT, small, big, tiny, read, *buttons])
    assert got == (Region("n3", big.bounds or (0, 0, 0, 0)), Region("n2", (0, 0, 300, 300)))
    many = [node(f"c{i}", Role.CANVAS, (0, 0, 100 + i, 100)) for i in range(10)]
    assert len(blind_regions([ROOT, *many])) == MAX_REGIONS


def test_a_sparse_screen_reads_its_big_wordless_leaf() -> None:
    surface = node("n2", Role.UNKNOWN, (0, 63, 1080, 2337))
    assert blind_regions([ROOT, surface]) == (Region("n2", (0, 63, 1080, 2337)),)


def test_a_screen_with_words_is_not_blind() -> None:
    surface = node("n2", Role.UNKNOWN, (0, 63, 1080, 2337))
    words = [node(f"t{i}", Role.TEXT, (0, 0, 100, 40), text=f"w{i}") for i in range(3)]
    assert blind_regions([ROOT, surface, *words]) == ()
    assert blind_regions([]) == ()
