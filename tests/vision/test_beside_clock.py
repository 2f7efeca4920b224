"""Status icons read as digits beside a clock (``bridge.vision.words.beside_clock``): a
status bar's battery or alarm read as ``0`` or ``9`` next to ``4:42`` is dropped."""

from __future__ import annotations

from bridge.vision.words import CLOCK_ICON, beside_clock
from tests.skips import need_vision
from tests.vision.real import score


def _w(text: str, confidence: float = 0.99) -> tuple[str, tuple[int, int], float]:
    return (text, (0, 10), confidence)


def test_a_doubtful_digit_beside_a_clock_goes() -> None:
    assert beside_clock([_w("4:42"), _w("0", 0.92)]) == [_w("4:42")]
    assert beside_clock([_w("9", 0.81), _w("7:04"), _w("PM")]) == [_w("7:04"), _w("PM")]


def test_a_sure_digit_other_words_and_lines_without_a_clock_stay() -> None:
    sure = [_w("12:30"), _w("5", CLOCK_ICON)]
    assert beside_clock(sure) == sure
    words = [_w("12:30"), _w("5G", 0.8), _w("85%", 0.8)]
    assert beside_clock(words) == words
    board = [_w("3", 0.85), _w("7", 0.85)]  # no clock: a board's digits
    assert beside_clock(board) == board


@need_vision
def test_chess_status_bar_reads_its_clock_alone() -> None:
    """Chess on a tablet (tests/vision/real): the battery beside `4:42` read as `0`."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines = engine.read(score.load("chess-tablet"))
    top = [line.text for line in lines if line.box[3] < 60]
    assert top == ["4:42"], top
