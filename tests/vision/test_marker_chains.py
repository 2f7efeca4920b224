"""A line chart's markers read as rings and strokes (``bridge.vision.inks.round_glyph``,
``marker_chain``)."""

from __future__ import annotations

from typing import Any

from tests.skips import need_vision


def test_rings_and_strokes_alternating_are_a_chain_and_words_are_not() -> None:
    from bridge.vision.inks import marker_chain

    for text in ("0101010", "o1o1o1o1oa", "pio1oloio1o1olo1o1o1ojo", "9010101010101"):
        assert marker_chain(text), text
    for text in ("10101", "1000", "Oil", "lol", "Hello", "1010", "2o1oiaaa", "100100"):
        assert not marker_chain(text), text


def _rings(pitch: int, count: int) -> Any:
    """A line crop's ink (48 rows): ``count`` rings 20 pixels wide, ``pitch`` apart."""
    import numpy as np

    ink = np.zeros((48, 8 + pitch * count), dtype=bool)
    for k in range(count):
        left = 4 + k * pitch
        ink[14:34, left : left + 20] = True
        ink[17:31, left + 3 : left + 17] = False  # the ring's hole
    return ink


@need_vision  # numpy comes with the vision extra
def test_a_chain_is_markers_only_where_its_rings_stand_a_markers_pitch_apart() -> None:
    """GrowTracker's chart (tests/vision/real): rings 30 of the line's 48 rows apart, read
    ``01010101010101010``; a number's digits stand 16 to 20 apart (0.33 to 0.42 of 48, the
    middle half on every sixth real screen)."""
    from bridge.vision.inks import round_glyph

    text = "010101010"
    markers = _rings(30, 5)
    assert round_glyph(text, markers, (0, markers.shape[1]))
    digits = _rings(20, 5)
    assert not round_glyph(text, digits, (0, digits.shape[1]))
    assert not round_glyph("Hello", markers, (0, markers.shape[1]))  # no chain: a word


@need_vision
def test_a_growtrackers_chart_markers_are_not_read() -> None:
    from tests.vision.real import score

    lines = list(score.hub_reader()(score.load("growtracker-plant-stats")))
    chains = [w for line in lines for w in line.split() if "0101" in w or "o1o1" in w]
    assert not chains, lines
    assert "3.5" in " ".join(lines).split(), lines  # the axis's label beside them stays
