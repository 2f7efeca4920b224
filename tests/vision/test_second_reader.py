"""Doubtful lines read again by the larger recognizer (``bridge.vision.ppocr``, ``SECOND``):
on a real screen whose paragraph the tiny recognizer misreads, the second reading is kept;
junk and confident lines are not read again."""

from __future__ import annotations

import pytest

from bridge.vision.ppocr import SECOND_BELOW, SECOND_FLOOR, PpOcrEngine, _doubtful, _mean
from tests.skips import need_vision
from tests.vision.real.score import load


def _word(text: str, confidence: float) -> tuple[str, tuple[int, int], float]:
    return (text, (0, 1), confidence)


def test_only_a_doubtful_line_that_is_not_junk_is_read_again() -> None:
    assert not _doubtful([])
    assert not _doubtful([_word("Score", 0.99), _word("12", SECOND_BELOW)])
    assert _doubtful([_word("two", 0.99), _word("numher", SECOND_BELOW - 0.01)])
    assert not _doubtful([_word("11", SECOND_FLOOR - 0.01)])  # a pause icon read as 11
    assert _doubtful([_word("Waldkraibúrg", 0.99)])  # an accent: what a map label's halo fakes
    assert not _doubtful([_word("Waldkraiburg", 0.99)])
    assert _mean([_word("ab", 1.0), _word("cdef", 0.7)]) == pytest.approx(0.8)  # by characters


@need_vision
def test_a_misread_paragraph_is_read_right_by_the_second_recognizer() -> None:
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    image = load("2048-tablet")
    words = " ".join(b.text for b in engine.read(image)).split()
    assert {"number", "merge"} <= set(words), words
    assert engine.second_taken >= 1 and engine.second_reads >= engine.second_taken
    second, engine._second = engine._second, None  # the tiny recognizer alone
    engine.forget_lines()
    try:
        alone = " ".join(b.text for b in engine.read(image)).split()
    finally:
        engine._second = second
        engine.forget_lines()
    assert "numher" in alone and "number" not in alone, alone
