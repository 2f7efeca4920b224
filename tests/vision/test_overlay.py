"""``Overlay.apply``: vision nodes land under the deepest node with the region's bounds, in
pre-order, with every later parent index shifted; normalization keeps the canvas a CANVAS and
gives the new nodes source VISION and their confidence."""

from __future__ import annotations

from bridge.core.normalize import SnapshotContext, normalize
from bridge.core.snapshot_meta import validate_raw_tree
from bridge.vision.overlay import Overlay, VisionItem
from bridge.wire.enums import Platform, Role, Source
from bridge.wire.raw import RawNode, RawTree, RawWindow

SCREEN = (0, 0, 1080, 2400)
CANVAS = (0, 63, 1080, 2337)


def game_tree() -> RawTree:
    nodes = (
        RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout", bounds=SCREEN),
        RawNode(
            handle=2,
            parent=0,
            class_name="android.widget.FrameLayout",
            bounds=CANVAS,
            automation_id="com.example.game:id/root",
        ),
        RawNode(handle=3, parent=1, class_name="android.view.SurfaceView", bounds=CANVAS),
        RawNode(
            handle=4,
            parent=0,
            class_name="android.widget.TextView",
            text="Footer",
            bounds=(0, 2337, 1080, 2400),
        ),
    )
    return RawTree(
        capture=1,
        platform=Platform.ANDROID,
        nodes=nodes,
        windows=(RawWindow(id=0, bounds=SCREEN, package="com.example.game"),),
        package="com.example.game",
    )


ITEMS = (
    VisionItem("SCORE 120", (560, 283, 900, 383), Role.TEXT, 0.95),
    VisionItem("PLAY", (452, 1193, 636, 1249), Role.BUTTON, 0.97),
)


def test_items_go_under_the_deepest_node_with_the_bounds_and_later_parents_shift() -> None:
    raw = game_tree()
    out = Overlay(((CANVAS, ITEMS),)).apply(raw)
    assert validate_raw_tree(out) is None
    texts = [(n.text, n.parent, n.source) for n in out.nodes]
    assert texts == [
        (None, -1, None),
        (None, 0, None),
        (None, 1, None),
        ("SCORE 120", 2, Source.VISION),
        ("PLAY", 2, Source.VISION),
        ("Footer", 0, None),
    ]
    assert out.nodes[4].clickable and not out.nodes[3].clickable
    assert {n.handle for n in out.nodes[3:5]} == {-1, -2}


def test_nothing_to_add_or_no_anchor_returns_the_same_tree() -> None:
    raw = game_tree()
    assert Overlay(((CANVAS, ()),)).apply(raw) is raw
    assert Overlay((((1, 2, 3, 4), ITEMS),)).apply(raw) is raw


def test_normalized_vision_nodes_are_children_of_the_canvas_with_source_and_confidence() -> None:
    raw = Overlay(((CANVAS, ITEMS),)).apply(game_tree())
    result = normalize(raw, SnapshotContext("d", "s_1", 0))
    assert not isinstance(result, str) and hasattr(result, "full")
    nodes = result.full.nodes
    canvas = next(n for n in nodes if n.role is Role.CANVAS)  # still a canvas with children
    seen = [n for n in nodes if n.source is Source.VISION]
    assert [(n.role, n.text, n.parent_id, n.confidence) for n in seen] == [
        (Role.TEXT, "SCORE 120", canvas.node_id, 0.95),
        (Role.BUTTON, "PLAY", canvas.node_id, 0.97),
    ]
    plain = normalize(game_tree(), SnapshotContext("d", "s_1", 0))
    assert hasattr(plain, "full")
    assert all(n.source is Source.ACCESSIBILITY for n in plain.full.nodes)
