"""Short readings among unread marks (``bridge.vision.words.among_marks``): one arrow of a
toolbar read as ``5`` goes, a digit on a board beside unread marks stays. Pure: no model."""

from __future__ import annotations

from bridge.vision.words import Word, among_marks


def _line(text: str, x: int, y: int = 1000, height: int = 40) -> list[Word]:
    return [Word(text, (x, y, x + 30, y + height), 0.98)]


def _mark(x: int, y: int = 990, side: int = 60) -> tuple[int, int, int, int]:
    return (x, y, x + side, y + side)  # a detected box, grown around a 40-pixel icon


def test_a_glyph_in_a_row_of_unread_marks_is_dropped() -> None:
    lines = [_line("7", 500), _line("Gems:", 20, y=200)]
    assert among_marks(lines, [_mark(200), _mark(350)]) == [[], lines[1]]


def test_one_neighbour_mark_counts_only_when_near() -> None:
    near = [_line("5", 300)]
    assert among_marks(near, [_mark(200)]) == [[]]  # 70 px away: under three heights
    far = [_line("5", 700)]
    assert among_marks(far, [_mark(200)]) == far  # 440 px away


def test_a_reading_with_other_words_in_its_row_stays() -> None:
    lines = [_line("2", 500), _line("3", 650)]  # a board: digits beside unread flags
    assert among_marks(lines, [_mark(200), _mark(350)]) == lines


def test_marks_off_its_line_or_of_another_size_do_not_count() -> None:
    lines = [_line("21", 500)]
    above = [_mark(200, y=940), _mark(350, y=940)]  # a chart's markers above their numbers
    assert among_marks(lines, above) == lines
    huge = [_mark(200, y=900, side=240), _mark(350, y=900, side=240)]
    assert among_marks(lines, huge) == lines


def test_longer_words_and_lines_of_several_words_are_left_alone() -> None:
    word = [_line("Net", 500)]
    two = [[Word("1", (500, 1000, 520, 1040), 0.9), Word("km", (530, 1000, 570, 1040), 0.9)]]
    marks = [_mark(200), _mark(350)]
    assert among_marks(word, marks) == word
    assert among_marks(two, marks) == two


def test_a_twin_of_its_own_detected_box_counts_at_any_distance() -> None:
    """A timer's skip-back button read as `K`, its skip-forward twin across the screen."""
    lines = [_line("K", 30)]
    own = (20, 990, 80, 1050)
    twin = (900, 991, 961, 1049)
    assert among_marks(lines, [twin], [own]) == [[]]
    assert among_marks(lines, [twin]) == lines, "without its detected box: no twin"
    unlike = (900, 985, 1000, 1055)  # wider by two thirds
    assert among_marks(lines, [unlike], [own]) == lines
    lower = (900, 1020, 961, 1078)  # half a height lower
    assert among_marks(lines, [lower], [own]) == lines


def test_a_reading_the_recognizer_is_sure_of_stays_among_marks() -> None:
    """A stepper's ``2`` between its unread minus and plus (read at 0.999), a key's ``0``
    between unread keys: a glyph read this surely is text, not an icon read as one."""
    sure = [[Word("2", (500, 1000, 530, 1040), 0.9995)]]
    assert among_marks(sure, [_mark(420), _mark(560)]) == sure
    doubtful = [[Word("2", (500, 1000, 530, 1040), 0.99)]]  # an arrow read as ``7`` at 0.994
    assert among_marks(doubtful, [_mark(420), _mark(560)]) == [[]]
