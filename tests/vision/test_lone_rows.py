"""Lone glyphs in rows (``bridge.vision.words.in_rows``, ``letters_in_rows``): a letter the
detector passed over is a word only among others in a row (a word game's tiles, a keyboard's
keys), and a ``0`` among letters is the letter ``O``. Pure functions on words: no model."""

from __future__ import annotations

from bridge.vision.words import Word, in_rows, letters_in_rows


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
