"""Targets without words (``bridge.vision.icons``): play, pause and close on real screens of
tests/vision/real and on drawn ones; nothing on screens that have none; as vision nodes they
are clickable BUTTONs whose label is the shape's name, found by ``text``."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from bridge.core.normalize import SnapshotContext, normalize
from bridge.core.query import visible_text
from bridge.vision.boxes import TextBox
from bridge.vision.overlay import Overlay, VisionItem
from bridge.wire.enums import Role, Source
from tests.skips import need_vision
from tests.vision.test_overlay import CANVAS, game_tree


def _inside(box: tuple[int, int, int, int], area: tuple[int, int, int, int]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return area[0] <= cx <= area[2] and area[1] <= cy <= area[3]


@need_vision
@pytest.mark.parametrize(
    ("screen", "shape", "area"),
    [
        ("player-tv-tos", "play", (900, 480, 1020, 600)),  # the player's centre button
        ("player-tv-sunflower", "play", (900, 480, 1020, 600)),
        ("player-tos-subtitles", "play", (900, 460, 1040, 620)),
        ("pixelwheels-gun", "pause", (20, 20, 130, 130)),  # the race's pause, top left
        ("pixelwheels-rocket", "pause", (20, 20, 130, 130)),
        ("tuner-edit-instrument", "close", (40, 60, 130, 150)),  # the editor's close cross
        ("transportr-station-map", "close", (950, 130, 1030, 200)),  # a search bar's, thin
    ],
)
def test_a_real_screen_s_shape_is_found_where_a_person_sees_it(
    screen: str, shape: str, area: tuple[int, int, int, int]
) -> None:
    from bridge.vision import icons
    from tests.vision.real.score import load

    found = icons.find(load(screen))
    assert [s for s in found if s[0] == shape and _inside(s[1], area)], found


@need_vision
@pytest.mark.parametrize(
    "screen", ["sgt-lightup", "sgt-inertia", "antimine-board-4", "openscale-charts", "sgt-solo"]
)
def test_boards_and_charts_without_such_shapes_give_none(screen: str) -> None:
    from bridge.vision import icons
    from tests.vision.real.score import load

    assert icons.find(load(screen)) == []


@need_vision
@pytest.mark.parametrize(
    ("screen", "area"),
    [
        ("player-tv-tos", (1640, 990, 1700, 1050)),  # a full-screen sign: corner brackets
        ("sgt-net", (290, 2120, 390, 2200)),  # a shuffle sign: two crossing arrows
    ],
)
def test_signs_that_cross_or_fill_corners_without_strokes_on_diagonals_are_no_close(
    screen: str, area: tuple[int, int, int, int]
) -> None:
    from bridge.vision import icons
    from tests.vision.real.score import load

    found = icons.find(load(screen))
    assert not [s for s in found if s[0] == "close" and _inside(s[1], area)], found


def _drawn() -> Image.Image:
    """Icons of a phone's size (about 40 px on a 540 px wide screen)."""
    image = Image.new("RGB", (540, 960), (40, 44, 52))
    draw = ImageDraw.Draw(image)
    draw.polygon([(100, 100), (100, 144), (138, 122)], fill="white")  # play
    draw.rectangle((300, 100, 309, 144), fill="white")  # pause
    draw.rectangle((325, 100, 334, 144), fill="white")
    draw.line((100, 400, 140, 440), fill="white", width=7)  # close
    draw.line((100, 440, 140, 400), fill="white", width=7)
    draw.ellipse((300, 390, 348, 438), fill="white")  # play drawn on a round button
    draw.polygon([(317, 402), (317, 426), (337, 414)], fill=(40, 44, 52))
    draw.text((100, 700), "ll 11 II", fill="white", font_size=40)  # glyphs, not signs
    return image


@need_vision
def test_drawn_shapes_are_named_and_placed_and_glyphs_are_not_shapes() -> None:
    from bridge.vision import icons

    found = icons.find(_drawn())
    assert any(n == "play" and _inside(b, (95, 95, 145, 150)) for n, b, _ in found), found
    assert any(n == "pause" and _inside(b, (295, 95, 340, 150)) for n, b, _ in found), found
    assert any(n == "close" and _inside(b, (95, 395, 145, 445)) for n, b, _ in found), found
    assert any(n == "play" and _inside(b, (300, 390, 348, 438)) for n, b, _ in found), found
    assert not [b for _, b, _ in found if b[1] > 650], found  # glyphs are not shapes


@need_vision
def test_the_reader_gives_shapes_as_labelled_buttons_beside_the_words() -> None:
    from bridge.vision.cache import ResultCache
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import RegionReader
    from bridge.vision.regions import Region
    from tests.vision.real.score import load

    engine = load_engine()
    assert not isinstance(engine, str), engine
    image = load("player-tv-tos")
    reader = RegionReader(engine, ResultCache(capacity=2))
    whole = Region("screen", (0, 0, image.width, image.height))
    items = [i for _, got in reader.read_regions(image, (whole,), 1.0).regions for i in got]
    shapes = [i for i in items if i.shape is not None]
    assert [(i.shape, i.role, i.text) for i in shapes] == [("play", Role.BUTTON, "")]
    assert any(i.text == "ToS-4k-1920" for i in items)
    off = RegionReader(engine, ResultCache(capacity=2), shapes=False)
    items = [i for _, got in off.read_regions(image, (whole,), 1.0).regions for i in got]
    assert not [i for i in items if i.shape is not None]


def test_a_shape_node_is_a_clickable_button_labelled_with_the_shape() -> None:
    item = VisionItem("", (500, 900, 580, 980), Role.BUTTON, 0.9, shape="pause")
    raw = Overlay(((CANVAS, (item,)),)).apply(game_tree())
    result = normalize(raw, SnapshotContext("d", "s_1", 0))
    assert not isinstance(result, str) and hasattr(result, "full")
    (node,) = [n for n in result.full.nodes if n.source is Source.VISION]
    assert (node.role, node.text, node.label, node.bounds) == (
        Role.BUTTON,
        None,
        "pause",
        (500, 900, 580, 980),
    )
    assert visible_text(node) == ("label", "pause")  # a query by text="pause" finds it


class _Lines:
    """An engine that reads the given lines on any image: what the recognizer made of a
    search bar's close cross (``X``) and of a keyboard's row, without depending on it."""

    name = "fixed"

    def __init__(self, *lines: tuple[str, tuple[int, int, int, int]]) -> None:
        self.lines = tuple(TextBox(text, box, 0.95) for text, box in lines)

    def read(self, image: Image.Image) -> tuple[TextBox, ...]:
        return self.lines


def _search_bar_and_keys() -> Image.Image:
    image = Image.new("RGB", (540, 960), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 80, 520, 160), fill="white", outline=(200, 200, 200))
    draw.line((455, 100, 495, 140), fill=(60, 60, 60), width=6)  # the bar's close cross
    draw.line((455, 140, 495, 100), fill=(60, 60, 60), width=6)
    for k in range(4):  # a keyboard's row: Z X C V, its X drawn as a cross too
        x = 60 + k * 110
        draw.rectangle((x, 700, x + 80, 780), fill=(70, 70, 80))
    draw.line((185, 725, 205, 755), fill="white", width=4)
    draw.line((185, 755, 205, 725), fill="white", width=4)
    return image


@need_vision
def test_a_close_cross_read_as_the_letter_x_is_the_cross_and_a_keys_x_a_letter() -> None:
    from bridge.vision.reader import read_region

    engine = _Lines(
        ("Waterloo Station", (40, 100, 300, 140)),
        ("X", (456, 101, 496, 141)),
        ("Z", (88, 724, 112, 756)),
        ("X", (184, 724, 206, 756)),
        ("C", (288, 724, 312, 756)),
        ("V", (398, 724, 422, 756)),
    )
    lines, shapes = read_region(engine, _search_bar_and_keys())
    assert [line.text for line, _ in lines] == ["Waterloo Station", "Z", "X", "C", "V"]
    assert [(n, _inside(b, (450, 95, 500, 145))) for n, b, _ in shapes] == [("close", True)]
    lines, shapes = read_region(engine, _search_bar_and_keys(), shapes=False)
    assert len(lines) == 6 and shapes == ()


def _pause_and_score() -> Image.Image:
    image = Image.new("RGB", (540, 960), (40, 40, 48))
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, 48, 70), fill="white")  # a game's pause: two bars, about square
    draw.rectangle((56, 40, 64, 70), fill="white")
    return image


@need_vision
def test_a_pause_sign_read_as_two_bars_is_the_pause_and_a_score_s_11_a_number() -> None:
    from bridge.vision.reader import read_region

    engine = _Lines(("11", (38, 38, 66, 72)), ("Lines: 11", (200, 300, 420, 340)))
    lines, shapes = read_region(engine, _pause_and_score())
    assert [line.text for line, _ in lines] == ["Lines: 11"]
    assert [(n, _inside(b, (30, 30, 80, 86))) for n, b, _ in shapes] == [("pause", True)]
    engine = _Lines(("ll", (38, 38, 66, 72)), ("11", (200, 300, 260, 340)))
    lines, shapes = read_region(engine, _pause_and_score())
    assert [line.text for line, _ in lines] == ["11"]
    engine = _Lines(("10", (38, 38, 66, 72)))  # not what two bars read as: a word
    lines, shapes = read_region(engine, _pause_and_score())
    assert [line.text for line, _ in lines] == ["10"] and shapes == ()


@need_vision
def test_tetramines_pause_button_is_no_11() -> None:
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_region
    from tests.vision.real.score import HERE, load

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines, shapes = read_region(engine, load("tetramine-gameover", HERE))
    assert "11" not in [line.text for line, _ in lines]
    assert [n for n, b, _ in shapes if _inside(b, (100, 190, 145, 245))] == ["pause"]
