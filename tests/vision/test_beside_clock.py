"""Status icons read as digits beside a clock (``bridge.vision.words.beside_clock``): a
status bar's battery or alarm read as ``0`` or ``9`` next to ``4:42`` is dropped; a battery level
read with its icon (``1100%``) is its level (``battery_levels``)."""

from __future__ import annotations

from bridge.vision.words import (
    CLOCK_ICON,
    Word,
    battery_levels,
    beside_clock,
    degrees,
    plausible,
)
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


def _line(top: int, *words: tuple[str, float]) -> list[Word]:
    """One line of ``words`` (text, confidence) side by side, 20 pixels tall from ``top``."""
    return [Word(t, (100 * k, top, 100 * k + 60, top + 20), c) for k, (t, c) in enumerate(words)]


def test_a_battery_level_read_with_its_icons_beside_a_clock_is_its_level() -> None:
    clock = _line(2, ("4:40", 0.99))
    lines = battery_levels([clock, _line(4, ("4", 0.84), ("1100%", 0.9))])
    assert [[w.text for w in line] for line in lines] == [["4:40"], ["100%"]]
    lines = battery_levels([clock, _line(0, ("464163%", 0.64))])
    assert [w.text for w in lines[1]] == ["63%"]


def test_a_percentage_over_100_away_from_a_clock_stays() -> None:
    chart = [_line(2, ("4:40", 0.99)), _line(400, ("4", 0.84), ("150%", 0.99))]
    assert battery_levels(chart) == chart  # a chart's level, rows below the clock
    assert battery_levels([_line(4, ("1100%", 0.9))]) == [_line(4, ("1100%", 0.9))]
    level = [_line(2, ("4:40", 0.99)), _line(4, ("85%", 0.9), ("5", 0.95))]
    assert battery_levels(level) == level  # a level of 100 or less and a sure digit: as read


def test_a_doubtful_digit_in_the_status_bars_row_goes_even_in_a_line_of_its_own() -> None:
    """The clock and the icons are often detected as two lines: ``14:00`` at the left,
    ``LTE 0 100%`` at the right, the battery read as ``0``."""
    clock = _line(2, ("14:00", 0.99))
    right = [Word("LTE", (700, 4, 760, 24), 0.99), Word("0", (780, 4, 800, 24), 0.8)]
    right.append(Word("100%", (820, 4, 900, 24), 0.88))
    lines = battery_levels([clock, right, _line(300, ("7", 0.8))])
    assert [[w.text for w in line] for line in lines] == [["14:00"], ["LTE", "100%"], ["7"]]


def test_a_timer_below_other_words_is_no_status_bar() -> None:
    """A game's timer in its own row, under a title: the digit beside it stays."""
    hud = [_line(2, ("Level", 0.99)), _line(200, ("12:30", 0.99), ("5", 0.9))]
    assert battery_levels(hud) == hud


@need_vision
def test_a_tablets_status_bar_reads_its_battery_level() -> None:
    lines = score.hub_reader()(score.load("bbqtimer-tablet", score.HELDOUT))
    words = [w for line in lines for w in line.split()]
    assert "100%" in words and "1100%" not in words and "4" not in words, words


def test_a_degree_read_as_an_apostrophe_before_its_scale_is_a_degree() -> None:
    assert degrees("6'C") == "6°C" and degrees("21.5\u2019F") == "21.5°F"
    for word in ("5'10", "'C", "6'Co", "it's", "6'c"):
        assert degrees(word) == word


def test_a_pagers_dots_are_not_a_word() -> None:
    assert not plausible("●000", 0.8) and not plausible("○●○", 0.99)
    for word in ("000", "●M41", "●None", "100"):
        assert plausible(word, 0.99), word


@need_vision
def test_the_held_out_status_bar_and_pager_read_no_icons() -> None:
    """A drawing app's status bar (its battery read as ``0`` beside ``LTE``, the clock a
    line of its own) and a timer's pager dots (``●000``), both in tests/vision/heldout."""
    paint = score.hub_reader()(score.load("freepaint-mug-drawing", score.HELDOUT))
    assert "0" not in [w for line in paint for w in line.split()], paint
    assert any("LTE" in line for line in paint), paint
    timer = score.hub_reader()(score.load("tomatime-timer", score.HELDOUT))
    assert not any("000" in line for line in timer) and "25:00" in timer, timer
