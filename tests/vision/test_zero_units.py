"""A zero read as the letter O before its unit (``bridge.vision.words.zeros_before_units``)."""

from __future__ import annotations

from bridge.vision.words import Word, zeros_before_units
from tests.skips import need_vision


def _lines(*lines: str) -> list[list[Word]]:
    """A line of words for each of ``lines`` (words apart by spaces), one under another."""
    return [
        [
            Word(t, (10 + 80 * k, 40 * n, 60 + 80 * k, 40 * n + 20), 0.99)
            for k, t in enumerate(line.split())
        ]
        for n, line in enumerate(lines)
    ]


def _texts(lines: list[list[Word]]) -> list[str]:
    return [" ".join(w.text for w in line) for line in lines]


def test_an_o_before_a_unit_that_follows_a_number_elsewhere_is_a_zero() -> None:
    lines = _lines("9h", "6h", "3h", "Oh", "2d Oh", "Om 5m")
    assert _texts(zeros_before_units(lines)) == ["9h", "6h", "3h", "0h", "2d 0h", "0m 5m"]
    assert _texts(zeros_before_units(_lines("Ok 1k 2k"))) == ["0k 1k 2k"]
    assert _texts(zeros_before_units(_lines("-48s -24s Os"))) == ["-48s -24s 0s"]
    assert _texts(zeros_before_units(_lines("14v 2.5v", "Ov"))) == ["14v 2.5v", "0v"]


def test_an_o_and_a_letter_stay_where_no_number_shows_that_unit() -> None:
    assert _texts(zeros_before_units(_lines("Ok", "Oh no", "3 h"))) == ["Ok", "Oh no", "3 h"]
    assert _texts(zeros_before_units(_lines("Ok 1K", "on 3n"))) == ["Ok 1K", "on 3n"]
    assert _texts(zeros_before_units(_lines("OK 1k", "Ohm 3h"))) == ["OK 1k", "Ohm 3h"]
    assert _texts(zeros_before_units(_lines("of 7f", "oh 3h"))) == ["of 7f", "oh 3h"]  # small o


@need_vision
def test_a_weekly_charts_zero_hours_are_read_as_zeros() -> None:
    from tests.vision.real import score

    lines = score.hub_reader()(score.load("tomato-weekly-stats", score.HELDOUT))
    words = [w for line in lines for w in line.split()]
    assert words.count("0h") == 4 and "Oh" not in words, words  # one read 0h before
