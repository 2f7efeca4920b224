"""Lone glyphs in rows (``bridge.vision.words.in_rows``, ``letters_in_rows``): a letter the
detector passed over is a word only among others in a row (a word game's tiles, a keyboard's
keys), and a ``0`` among letters is the letter ``O``; a doubtful character alone is dropped
(``sure_when_alone``). Pure functions on words, and one reading of real screens."""

from __future__ import annotations

from bridge.vision.words import Word, in_rows, letters_in_rows
from tests.skips import need_vision


def _tile(text: str, x: int, y: int = 300, size: int = 40) -> list[Word]:
    return [Word(text, (x, y, x + size // 2, y + size), 0.97)]


def test_a_letter_alone_is_dropped_and_a_digit_alone_kept() -> None:
    lines = [_tile("A", 100), _tile("7", 400, y=900), []]
    assert in_rows(lines) == [[], lines[1], []]


def test_letters_in_a_row_of_three_are_kept() -> None:
    lines = [_tile("W", 100), _tile("O", 200), _tile("R", 300), _tile("D", 100, y=900)]
    kept = in_rows(lines)
    assert [line[0].text for line in kept[:3]] == ["W", "O", "R"]
    assert kept[3] == [], "alone on its own row"


def test_glyphs_of_other_sizes_or_rows_do_not_make_a_row() -> None:
    lines = [_tile("A", 100), _tile("B", 200, size=90), _tile("C", 300, y=340)]
    assert in_rows(lines) == [[], [], []]  # B three times taller; C's middle a height lower


def test_a_zero_among_letters_is_the_letter_o_and_among_digits_stays() -> None:
    words = [_tile("T", 100), _tile("0", 200), _tile("S", 300), _tile("E", 400)]
    assert [line[0].text for line in letters_in_rows(words)] == ["T", "O", "S", "E"]
    digits = [_tile("1", 100), _tile("0", 200), _tile("2", 300)]
    assert [line[0].text for line in letters_in_rows(digits)] == ["1", "0", "2"]
    two = [_tile("T", 100), _tile("0", 200)]  # fewer than ROW: no row to judge by
    assert [line[0].text for line in letters_in_rows(two)] == ["T", "0"]


def test_a_zero_inside_a_longer_line_is_left_to_that_line() -> None:
    line = [Word("10", (100, 300, 140, 340), 0.99), Word("0", (150, 300, 170, 340), 0.9)]
    lines = [line, _tile("A", 200), _tile("B", 250), _tile("C", 300)]
    assert letters_in_rows(lines)[0] == line


def test_detected_one_character_words_count_for_a_row() -> None:
    """Mill's board coordinates: the detector read `d` and `g`, the lone-glyph pass found
    `e` and `f` between them; two lone letters alone are no row, with the detected ones
    they are."""
    lone = [_tile("e", 300), _tile("f", 400)]
    detected = [_tile("d", 200)[0], _tile("g", 500)[0]]
    assert in_rows(lone) == [[], []]
    assert [line[0].text for line in in_rows(lone, detected)] == ["e", "f"]
    words = [Word("dB", (200, 300, 220, 340), 0.99)]  # longer words are no row's glyphs
    assert in_rows(lone, words) == [[], []]


def _doubtful(text: str, x: int, y: int = 300, confidence: float = 0.85) -> list[Word]:
    return [Word(text, (x, y, x + 20, y + 40), confidence)]


def test_a_doubtful_character_alone_is_dropped_and_one_in_a_row_kept() -> None:
    from bridge.vision.words import sure_when_alone

    arrow = _doubtful("V", 900, y=1700)  # an arrow the detector took for a glyph
    tiles = [_doubtful("W", 100), _doubtful("O", 200), _doubtful("R", 300)]
    sure = _doubtful("7", 500, y=900, confidence=0.95)
    assert sure_when_alone([_doubtful("7", 500, confidence=0.91)], range(0)) == [[]]
    word = [Word("abc", (100, 1200, 160, 1240), 0.7)]  # three characters: the usual rules
    pair = [Word("0", (600, 600, 620, 640), 0.75), Word("mph", (640, 600, 700, 640), 0.99)]
    lines = [arrow, *tiles, sure, word, pair]
    assert sure_when_alone(lines, range(0)) == [[], *tiles, sure, word, pair]
    assert sure_when_alone(lines, range(0, 1)) == lines  # a lone glyph keeps its own rules
    assert sure_when_alone([arrow, tiles[0]], range(0)) == [[], []]  # two make no row
    suit = [Word("6V", (900, 300, 940, 340), 0.67)]  # a card's 6♥
    score = [Word("40", (100, 300, 140, 340), 0.88)]
    assert sure_when_alone([suit, score, pair], range(0)) == [[], score, pair]


@need_vision
def test_icons_read_with_doubt_as_one_character_are_dropped_on_real_screens() -> None:
    """Tetramine's music note (``P`` 0.82), Inertia's arrow (``V`` 0.85), GPS Cockpit's map
    pin (``8`` 0.87), SOPA's glowing pipe (``7`` 0.91)."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine

    def words(screen: str) -> list[str]:
        return [w for line, _ in read_lines(engine, score.load(screen)) for w in line.text.split()]

    assert "P" not in words("tetramine-gameover")
    assert "V" not in words("sgt-inertia")
    assert "8" not in words("gpscockpit-landscape")
    assert "7" not in words("sopa-level")  # a glowing pipe's corner, read at 0.908
    assert "0 mph" in [
        line.text for line, _ in read_lines(engine, score.load("gpscockpit-landscape"))
    ]
