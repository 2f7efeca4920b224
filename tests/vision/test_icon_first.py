"""An icon read as a letter before its caption (``bridge.vision.words.icon_first``): a search
bar's magnifier read as ``Q`` goes, a letter that is a word stays."""

from __future__ import annotations

import pytest

from bridge.vision.words import ICON_GAP, Word, icon_first
from tests.skips import need_vision


def _line(first: str, gap: float, after: str, height: int = 40) -> list[Word]:
    """``first`` (one glyph wide) then ``after``, ``gap`` line heights apart."""
    right = 100 + height
    start = right + round(gap * height)
    return [
        Word(first, (100, 500, right, 500 + height), 0.99),
        Word(after, (start, 500, start + 6 * height, 500 + height), 0.99),
    ]


@pytest.mark.parametrize("first", ["Q", "C", "G", "B"])
def test_a_letter_set_apart_before_a_word_is_an_icon(first: str) -> None:
    line = _line(first, ICON_GAP + 0.05, "Search")
    assert [w.text for w in icon_first(line)] == ["Search"]


@pytest.mark.parametrize(
    ("first", "gap", "after"),
    [
        ("S", ICON_GAP - 0.05, "Slalom"),  # a letter that is a word stands closer
        ("X", 1.6, "0.24025"),  # a calculator's variable before its value
        ("R", 2.0, "17:36"),
        ("q", 1.0, "w"),  # a keyboard's row
        ("O", 0.6, "items"),  # as likely a count's 0
        ("7", 0.6, "items"),
    ],
)
def test_a_letter_that_may_be_a_word_stays(first: str, gap: float, after: str) -> None:
    line = _line(first, gap, after)
    assert icon_first(line) == line
    assert icon_first(line[:1]) == line[:1]


@need_vision
def test_a_search_bars_magnifier_is_not_read_as_q() -> None:
    """A calendar on a tablet and a map (tests/vision/real): each search bar's magnifier
    read as ``Q`` before its hint."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    for name, hint in (("calendar-month-tablet", "Search"), ("adiresy-madagascar-map", "Search")):
        lines = [line.text for line, _ in read_lines(engine, score.load(name))]
        assert any(text.startswith(hint) for text in lines), (name, lines)
        assert not any(text.startswith("Q ") for text in lines), (name, lines)
