"""One glyph read twice, from a part of it and whole (``bridge.vision.words.read_twice``)."""

from __future__ import annotations

from bridge.vision.words import Word, read_twice
from tests.skips import need_vision


def _one(text: str, box: tuple[int, int, int, int]) -> list[Word]:
    return [Word(text, box, 0.99)]


def test_a_glyph_read_from_its_top_and_whole_is_read_once() -> None:
    """SailMines' lost board (tests/vision/heldout): a serif ``1`` read from its top
    (908, 111, 925, 134) and whole (910, 112, 924, 179)."""
    top, whole = _one("1", (908, 111, 925, 134)), _one("1", (910, 112, 924, 179))
    assert read_twice([top, whole]) == [[], whole]
    assert read_twice([whole, top]) == [whole, []]


def test_glyphs_side_by_side_other_characters_and_longer_words_stay() -> None:
    left, right = _one("1", (100, 100, 115, 160)), _one("1", (130, 100, 145, 160))
    assert read_twice([left, right]) == [left, right]
    one, seven = _one("1", (908, 111, 925, 134)), _one("7", (910, 112, 924, 179))
    assert read_twice([one, seven]) == [one, seven]
    word = [Word("11", (905, 105, 930, 185), 0.99)]
    assert read_twice([one, word]) == [one, word]
    same = _one("1", (908, 111, 925, 134))
    assert read_twice([one, same]) == [one, same]  # as large: neither is a part


@need_vision
def test_a_map_markers_count_is_read_once() -> None:
    """BTC Map's Madeira (tests/vision/real): a cluster's ``7`` read from its top and whole."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    sevens = [
        line.box
        for line, _ in read_lines(engine, score.load("btcmap-madeira-map"))
        if line.text == "7" and 430 <= line.box[0] <= 465 and 700 <= line.box[1] <= 750
    ]
    assert len(sevens) == 1, sevens
