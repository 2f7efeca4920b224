"""The next frame of a region: when only a small part changed since the region's last reading
(a score, a timer), only that part goes through the engine and the other lines are kept; the
words come out as a fresh reading of the whole frame gives them. A large change is read
whole."""

from __future__ import annotations

from collections import Counter
from typing import Any

from PIL import Image, ImageDraw

from tests.skips import need_vision


class Recording:
    """The hub's engine, noting the size of every image it is given."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.name = engine.name
        self.sizes: list[tuple[int, int]] = []

    def read(self, image: Image.Image) -> Any:
        self.sizes.append(image.size)
        return self.engine.read(image)


def _score(image: Image.Image, text: str) -> Image.Image:
    """``image`` with ``text`` drawn in a plain box (a counter that moved on)."""
    frame = image.copy()
    draw = ImageDraw.Draw(frame)
    draw.rectangle((700, 1500, 1100, 1600), fill=(250, 250, 250))
    draw.text((720, 1510), text, fill=(10, 10, 10), font_size=70)
    return frame


def _texts(reader: Any, image: Image.Image) -> Counter[str]:
    from bridge.vision.regions import Region

    whole = Region("canvas", (0, 0, image.width, image.height))
    overlay = reader.read_regions(image, (whole,), 1.0)
    return Counter(item.text for _, items in overlay.regions for item in items if item.text)


@need_vision
def test_a_small_change_is_read_alone_and_the_rest_is_kept() -> None:
    from bridge.vision.cache import ResultCache
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import RegionReader
    from tests.vision.real.score import load

    engine = load_engine()
    assert not isinstance(engine, str), engine
    first = _score(load("sgt-samegame"), "1230")
    second = _score(load("sgt-samegame"), "4217")
    recording = Recording(engine)
    reader = RegionReader(recording, ResultCache())
    before = _texts(reader, first)
    assert before["1230"] == 1 and before["Score: 32"] == 1, before
    after = _texts(reader, second)
    assert recording.sizes[0] == first.size
    (part,) = recording.sizes[1:]  # one more pass, on the changed part only
    assert part[0] * part[1] < 0.1 * first.width * first.height, part
    assert reader.stats.partial == 1
    fresh = _texts(RegionReader(engine, ResultCache()), second)
    assert after == fresh, (after, fresh)
    assert after["4217"] == 1 and "1230" not in after


@need_vision
def test_a_large_change_is_read_whole() -> None:
    from bridge.vision.cache import ResultCache
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import RegionReader
    from tests.vision.real.score import load

    engine = load_engine()
    assert not isinstance(engine, str), engine
    recording = Recording(engine)
    reader = RegionReader(recording, ResultCache())
    board = load("sgt-lightup")
    _texts(reader, board)
    other = load("sgt-towers").resize(board.size)  # another screen of the same size
    _texts(reader, other)
    assert recording.sizes == [board.size, board.size]
    assert reader.stats.partial == 0


def _tiles(word: str) -> Image.Image:
    """A word game's row of lettered tiles under a title."""
    from PIL import ImageFont

    image = Image.new("RGB", (720, 1280), (250, 248, 240))
    draw = ImageDraw.Draw(image)
    draw.text((40, 60), "Level 3", fill="black", font=ImageFont.load_default(size=40))
    for k, letter in enumerate(word):
        x = 60 + k * 120
        draw.rectangle((x, 500, x + 96, 596), fill=(120, 120, 130))
        draw.text((x + 28, 512), letter, fill="white", font=ImageFont.load_default(size=56))
    return image


@need_vision
def test_a_changed_tile_among_its_rows_other_tiles_is_read_whole() -> None:
    """A letter alone is no word (an icon's stroke) and a doubtful character alone is
    dropped, but a tile's letter among its row's is kept: a changed tile, whose part read
    alone would hold no row, has its region read whole, so the next frame reads as a fresh
    reading does; a change away from the row is still read alone."""
    from bridge.vision.cache import ResultCache
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import RegionReader

    engine = load_engine()
    assert not isinstance(engine, str), engine
    recording = Recording(engine)
    reader = RegionReader(recording, ResultCache())
    before = _texts(reader, _tiles("WORDS"))
    assert before["R"] == 1 and before["D"] == 1, before
    after = _texts(reader, _tiles("WOKDS"))
    assert reader.stats.partial == 0 and recording.sizes[1] == (720, 1280)
    fresh = _texts(RegionReader(engine, ResultCache()), _tiles("WOKDS"))
    assert after == fresh, (after, fresh)
    assert after["K"] == 1 and "R" not in after
    level = _tiles("WOKDS")
    ImageDraw.Draw(level).rectangle((30, 50, 300, 120), fill=(250, 248, 240))
    ImageDraw.Draw(level).text((40, 60), "Level 4", fill="black", font_size=40)
    again = _texts(reader, level)
    assert reader.stats.partial == 1 and recording.sizes[2][1] < 200, recording.sizes
    assert again["Level 4"] == 1 and again["K"] == 1, again
