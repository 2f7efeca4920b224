"""Word boundaries the recognizer's columns leave out (``bridge.vision.ppocr``): a row of
digits a cell apart is several numbers, and an upright stroke read from a flat bar is no
``1``. Drawn here with the font Pillow ships, read by the hub's own path."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from bridge.vision.words import Word, lying_stroke
from tests.skips import need_vision


def _lines(image: Image.Image) -> list[str]:
    """The hub's own reading of ``image``: its lines of text, top to bottom."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    assert not isinstance(engine, str), engine
    return [line.text for line, _ in read_lines(engine, image)]


def _page(
    size: tuple[int, int], background: Any, font_size: int
) -> tuple[Image.Image, ImageDraw.ImageDraw, ImageFont.FreeTypeFont | ImageFont.ImageFont]:
    """A blank image to draw text on, with the font Pillow ships at ``font_size``."""
    image = Image.new("RGB", size, background)
    return image, ImageDraw.Draw(image), ImageFont.load_default(size=font_size)


def _board_row(gap: int) -> Image.Image:
    image, draw, font = _page((720, 400), "white", 40)
    draw.text((100, 60), "Board", fill="black", font=font)
    for k, digit in enumerate("3759"):
        draw.text((100 + k * gap, 150), digit, fill="black", font=font)
    return image


@need_vision
@pytest.mark.parametrize("gap", [100, 110])
def test_digits_a_cell_apart_are_read_as_separate_numbers(gap: int) -> None:
    words = [w for line in _lines(_board_row(gap)) for w in line.split()]
    # before WIDE_SPACE: "375 9" and "37 9 5", numbers the board does not show
    assert sorted(words) == ["3", "5", "7", "9", "Board"], words


def test_an_upright_stroke_read_from_a_flat_bar_is_not_kept() -> None:
    assert lying_stroke(Word("1", (188, 1025, 249, 1044), 0.8))  # a minus sign, 61 x 19
    assert not lying_stroke(Word("1", (839, 738, 871, 809), 0.98))  # a digit 1, 32 x 71
    assert not lying_stroke(Word("-", (0, 0, 60, 10), 0.9))
    assert not lying_stroke(Word("11", (0, 0, 60, 40), 0.9))


@need_vision
def test_a_small_letter_then_a_capital_a_little_apart_are_two_words() -> None:
    image, draw, font = _page((720, 300), "white", 32)
    draw.text((100, 100), "The", fill="black", font=font)
    # 2 px past the advance: a map label's narrow space (before: "TheState")
    draw.text((100 + draw.textlength("The", font=font) + 2, 100), "State", fill="black", font=font)
    draw.text((100, 180), "iPhone McDonald YouTube", fill="black", font=font)
    lines = _lines(image)
    assert lines == ["The State", "iPhone McDonald YouTube"], lines


@need_vision  # numpy comes with the vision extra
def test_a_rule_across_the_line_leaves_the_gaps_between_its_words() -> None:
    import numpy as np

    from bridge.vision.inks import REC_HEIGHT, blank_columns, glyph_ink

    pixels = np.full((REC_HEIGHT, 200, 3), 230.0, dtype=np.float32)
    pixels[10:38, 10:40] = 20.0  # a glyph
    pixels[10:38, 60:90] = 20.0  # another, a word space away
    before = blank_columns(glyph_ink(pixels))
    assert before[45:55].all() and not before[10:40].any()
    pixels[30:34, 0:200] = 20.0  # a scale bar drawn across the crop
    after = blank_columns(glyph_ink(pixels))
    assert (after == before).all(), "the rule is not read as ink between the words"
    glyph = np.full((REC_HEIGHT, 60, 3), 230.0, dtype=np.float32)
    glyph[10:38, 20:24] = 20.0
    glyph[34:38, 5:55] = 20.0  # a 2's foot: one glyph wide, no rule
    assert not blank_columns(glyph_ink(glyph))[5:55].any()


@need_vision
def test_a_number_and_its_unit_over_a_scale_bar_are_two_words() -> None:
    image, draw, font = _page((600, 300), "white", 40)
    draw.text((100, 100), "20 m", fill="black", font=font)
    draw.text((100, 200), "Scale", fill="black", font=font)
    draw.rectangle((90, 122, 220, 126), fill="black")  # a bar through the line (was "20m")
    assert _lines(image) == ["20 m", "Scale"]


@need_vision
@pytest.mark.parametrize("gap", [0.6, 0.65])
def test_a_digit_and_a_letter_far_apart_are_two_words(gap: float) -> None:
    # a count beside an icon the recognizer reads as a letter (a Minesweeper hint's bulb:
    # "5g"); two characters give no usual gap to compare with, so the line height does
    image, draw, font = _page((720, 300), (30, 30, 30), 40)
    draw.text((100, 100), "Score", fill="white", font=font)
    draw.text((100, 180), "5", fill="white", font=font)
    draw.text((100 + draw.textlength("5", font=font) + gap * 40, 180), "Y", fill="white", font=font)
    lines = _lines(image)
    assert sorted(lines) == ["5 Y", "Score"], lines


@need_vision
def test_letters_of_a_board_a_cell_apart_are_separate_words() -> None:
    # a word game's grid: every gap in a row is wide, so the line's median gap is too; the
    # letters of one word are never set more than GRID_SPACE line heights apart
    image, draw, font = _page((720, 560), (250, 248, 225), 64)
    for r, row in enumerate(("SIUT", "EVRS", "NAAO")):
        for c, letter in enumerate(row):
            x, y = 40 + c * 130, 60 + r * 130
            draw.rectangle((x, y, x + 130, y + 130), outline=(215, 213, 190), width=2)
            draw.text((x + 65, y + 65), letter, fill=(50, 50, 50), font=font, anchor="mm")
    words = [w for line in _lines(image) for w in line.split()]
    assert words.count("A") == 2, words  # before GRID_SPACE: "AA"
    assert all(len(w) == 1 for w in words), words


def _axis(labels: list[str], gap: float, size: int = 22) -> Image.Image:
    """A chart's y axis: each label a number, then its unit ``gap`` cap heights further."""
    image, draw, font = _page((400, 80 + 60 * len(labels)), "white", size)
    cap = draw.textbbox((0, 0), "0", font=font)
    height = cap[3] - cap[1]
    for k, label in enumerate(labels):
        number, unit = label.split()
        y = 40 + 60 * k
        draw.text((40, y), number, fill=(90, 90, 90), font=font)
        x = 40 + draw.textlength(number, font=font) + gap * height
        draw.text((x, y), unit, fill=(90, 90, 90), font=font)
        draw.line((120, y + size // 2, 380, y + size // 2), fill=(220, 220, 220), width=1)
    return image


@need_vision
def test_a_number_and_its_unit_a_third_of_its_height_apart_are_two_words() -> None:
    # a chart's axis (GPSTest's "10 m"): two or three characters give no usual gap to
    # compare with; the glyphs' height does (UNIT_GAP)
    lines = _lines(_axis(["30 m", "15 m", "10 m", "5 m"], 0.4))
    assert lines == ["30 m", "15 m", "10 m", "5 m"], lines


@need_vision
def test_a_number_set_tight_to_its_letters_stays_one_word() -> None:
    lines = _lines(_axis(["2462 MHz", "4 th", "1.0 m"], 0.0))
    assert lines == ["2462MHz", "4th", "1.0m"], lines


@need_vision
def test_a_keypads_doubtful_digit_in_a_row_of_keys_is_kept() -> None:
    """N Calculator (tests/vision/real): the detector took the keys ``5``, ``6`` and a minus key
    as one line; the recognizer read the ``6`` at 0.72, under a lone character's 0.8, and it
    was dropped. Among one-character words only, a digit is a key or a cell, kept from 0.6
    (``KEY_CONFIDENCE``)."""
    from tests.vision.real import score

    lines = _lines(score.load("ncalculator-keypad"))
    assert "5 6" in lines, lines


@need_vision
def test_a_unit_set_tight_after_a_1_stays_with_its_number() -> None:
    """GetFlow (tests/vision/real): ``21h``, ``41h``, ``31m`` in a font whose ``1`` is as
    wide as its other digits, its ink a narrow stem: the blank run after it is its side
    bearing, not a space (``28h`` and ``35h`` beside them were read whole). A ``1`` and its
    unit a third of its height apart are still two words (``11 m``)."""
    from tests.vision.real import score

    words = " ".join(_lines(score.load("getflow-statistics-tablet"))).split()
    assert {"21h", "41h", "31m"} <= set(words), words
    assert "h" not in words and "m" not in words, words
    assert _lines(_axis(["11 m", "21 h"], 0.4)) == ["11 m", "21 h"]


@need_vision
def test_a_row_of_a_line_charts_markers_is_not_read_as_zeros() -> None:
    # MPAndroidChart's default: a ring on every point, joined by the line (GPSTest's chart
    # read "00000000000")
    image, draw, font = _page((720, 400), "white", 24)
    draw.text((40, 40), "Horizontal Error", fill="black", font=font)
    draw.line((60, 200, 60 + 17 * 35, 200), fill=(200, 40, 40), width=2)
    for k in range(36):  # rings 12 px wide, 5 px apart
        x = 60 + 17 * k
        draw.ellipse((x - 6, 194, x + 6, 206), fill="white", outline=(40, 40, 40), width=2)
    lines = _lines(image)
    assert lines == ["Horizontal Error"], lines


def _grid_row(text: str, cell: int, line: int, font_size: int) -> Image.Image:
    """A board's row: each character centred in its own cell, the cells' borders drawn
    ``line`` px wide in the glyphs' own black."""
    image, draw, font = _page((80 + cell * len(text), 200 + cell), "white", font_size)
    draw.text((40, 40), "Board", fill="black", font=font)
    for k, ch in enumerate(text):
        x, y = 40 + k * cell, 140
        draw.rectangle((x, y, x + cell, y + cell), outline="black", width=line)
        draw.text((x + cell / 2, y + cell / 2), ch, fill="black", font=font, anchor="mm")
    return image


@need_vision
def test_letters_of_a_crossword_between_grid_lines_are_separate_words() -> None:
    # Forkyz's grid read "AGENT", "MRSLATE": the cells' borders left no blank run between
    # the letters, so no gap was wide enough (STANDING)
    words = [w for line in _lines(_grid_row("AGENT", 44, 2, 30)) for w in line.split()]
    assert sorted(words) == ["A", "Board", "E", "G", "N", "T"], words


@need_vision
def test_digits_of_a_sudoku_row_between_grid_lines_are_read_without_the_lines() -> None:
    # OpenSudoku's board read "1|5", "9|8": a grid line read as a bar between two digits
    words = [w for line in _lines(_grid_row("915827", 64, 3, 44)) for w in line.split()]
    assert sorted(words) == ["1", "2", "5", "7", "8", "9", "Board"], words


@need_vision
def test_a_full_stop_then_a_capital_a_space_apart_are_two_words() -> None:
    """A chess game's move list (tests/vision/real, chess-tablet): `37. Ke1` read as `37.Ke1`
    while a full stop was given the extra room of a narrow glyph before any letter."""
    from tests.vision.real import score

    words = [w for line in _lines(score.load("chess-tablet")) for w in line.split()]
    for number, move in [("37.", "Ke1"), ("38.", "Kd1"), ("39.", "Kc1"), ("40.", "Kb1")]:
        assert number in words and move in words, words
        assert number + move not in words, words


@need_vision  # numpy comes with the vision extra
def test_characters_on_blank_columns_mean_the_line_has_ink_of_other_colours() -> None:
    import numpy as np

    from bridge.vision.inks import colour_ink, off_ink

    blank = np.array([True] * 40 + [False] * 20 + [True] * 40)  # ink only at 40-59
    on = [(10, "C", 0.9), (12, "H", 0.9)]  # output columns 10-12: pixels 40-52
    off = [(2, "-", 0.9), (3, "4", 0.9), (4, "0", 0.9), (10, "C", 0.9), (12, "H", 0.9)]
    assert not off_ink(on, blank, 25.0)  # 4 pixels per output column
    assert off_ink(off, blank, 25.0)
    assert not off_ink([(2, "4", 0.9)], blank, 25.0), "one character alone says nothing"
    # three in a row off the ink among many on it: a word of another colour (OFF_RUN)
    many = [(10 + k // 4, "W", 0.9) for k in range(0, 12)]  # twelve on the ink (40-59)
    assert not off_ink([(2, "5", 0.9), (4, "F", 0.9), *many], blank, 25.0)
    assert off_ink([(1, "5", 0.9), (2, "8", 0.9), (4, "F", 0.9), *many], blank, 25.0)
    pixels = np.full((48, 100, 3), 97.0, dtype=np.float32)
    pixels[10:30, 5:15] = (76.0, 175.0, 80.0)  # green, about the grey's own lightness
    ink = colour_ink(pixels)
    assert ink[10:30, 5:15].all() and not ink[:, 20:].any()


@need_vision
def test_a_line_of_several_colours_keeps_its_word_gaps() -> None:
    """WiFi Analyzer (tests/vision/real): `-40dBm` in green, `CH` in grey, `11` in cyan on
    one dark grey line; the brightest colour alone was ink, the others' gaps ran together
    (`-40`, `d`, `Bm`) and `192.168.1.1` broke in pieces. The chart's lines behind `SSID-01`
    are no grid of cells: they do not part its characters (``CELLS``)."""
    from tests.vision.real import score

    words = [w for line in _lines(score.load("wifianalyzer-channel-graph")) for w in line.split()]
    for word in ("-40dBm", "2462MHz", "1.0m", "72Mbps", "192.168.1.1", "SSID-01", "SSID-03"):
        assert word in words, (word, words)


@need_vision  # numpy comes with the vision extra
def test_a_space_the_recognizer_read_does_not_widen_the_lines_usual_gap() -> None:
    """``UV 3 UV 3`` (a weather app's chips, omweather-week-chart in tests/vision/real): the
    runs beside the spaces the recognizer read made the line's median run a space wide,
    and each ``UV 3`` one word."""
    import numpy as np

    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    inked = [(0, 10), (12, 22), (32, 42), (70, 80), (82, 92), (102, 112)]  # U V 3, U V 3
    blank = np.ones(114, dtype=bool)
    for first, last in inked:
        blank[first:last] = False
    chars = [(5, "U"), (17, "V"), (37, "3"), (55, " "), (75, "U"), (87, "V"), (107, "3")]
    words = engine._group([(c, t, 0.99) for c, t in chars], 114.0, blank, 30)
    assert [w[0] for w in words] == ["UV", "3", "UV", "3"], words


@need_vision
def test_short_words_on_chips_keep_their_spaces() -> None:
    from tests.vision.real import score

    lines = _lines(score.load("omweather-week-chart"))
    words = [w for line in lines for w in line.split()]
    assert words.count("UV") == 5 and words.count("3") >= 2, lines
    assert not {"UV2", "UV3"} & set(words), lines


@need_vision  # numpy comes with the vision extra
def test_an_underscore_joins_whatever_the_blank_columns_beside_it() -> None:
    """An underscore lies below the rows that part words, so its columns look blank: a file
    name (``HACKRF_13938505Hz_4MSps.iq``) broke at each one, a hangman's ``__I_RE`` too."""
    import numpy as np

    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    blank = np.ones(100, dtype=bool)
    for first, last in [(0, 10), (12, 22), (50, 60), (62, 72)]:  # R F _ 1 3: no ink at _
        blank[first:last] = False
    chars = [(5, "R", 0.99), (17, "F", 0.99), (36, "_", 0.99), (55, "1", 0.99), (67, "3", 0.99)]
    assert [w[0] for w in engine._group(chars, 100.0, blank, 30)] == ["RF_13"]


def _grouped(text: str, runs: tuple[int, ...], width: int, first: int = 10) -> list[str]:
    """The words ``_group`` makes of ``text``'s characters drawn as 10-pixel glyphs on a line
    crop ``width`` columns wide (24 rows of glyph ink), from column ``first``, with ``runs``
    blank columns between each glyph and the next."""
    import numpy as np

    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    blank = np.ones(width, dtype=bool)
    inked = []
    for run in (0, *runs):
        first += run
        inked.append((first, first + 10))
        first += 10
    for a, b in inked:
        blank[a:b] = False
    chars = [((a + b) // 2, t, 0.99) for (a, b), t in zip(inked, text, strict=True)]
    return [w[0] for w in engine._group(chars, float(width), blank, 24)]


@need_vision  # numpy comes with the vision extra
def test_a_slash_set_off_between_digits_parts_them_and_a_tight_one_joins() -> None:
    """``3 / 5`` (a quiz's score by level, braincup-result in tests/vision/real) is three
    words; a fraction or a date set tight (``1/3``, ``7/19``) stays one."""

    def words(runs: tuple[int, int]) -> list[str]:
        return _grouped("3/5", runs, 100)

    assert words((7, 7)) == ["3", "5"]  # a slash alone is no word (``plausible``)
    assert words((2, 3)) == ["3/5"]
    assert words((12, 4)) == ["3/5"]  # a ``1``'s side bearing on one side only


@need_vision  # numpy comes with the vision extra
def test_a_monospaced_hyphen_between_letters_joins_them_and_a_dash_set_off_parts() -> None:
    """A terminal's file name (``print-sentence``, cppnide-terminal-ls in
    tests/vision/heldout) sets its hyphen in a cell of its own, 8 or 9 blank columns each
    side: one word; a range between digits with as much blank (``9x15 - 24``) is two, and
    so are letters with a dash a space off each side."""
    assert _grouped("abc-def", (5, 5, 9, 9, 5, 5), 200) == ["abc-def"]
    assert _grouped("abc-def", (5, 5, 13, 13, 5, 5), 200) == ["abc", "def"]
    assert _grouped("115-224", (5, 5, 9, 9, 5, 5), 200) == ["115", "224"]


@need_vision
def test_scores_set_off_by_slashes_are_read_as_numbers() -> None:
    from tests.vision.real import score

    words = [w for line in _lines(score.load("braincup-result")) for w in line.split()]
    assert not {"3/3", "4/4", "4/5", "5/5", "3/5"} & set(words), words
    assert words.count("5") >= 5, words


def test_a_lone_digit_or_o_before_a_unit_is_a_number() -> None:
    from bridge.vision.words import count_before_unit

    assert count_before_unit("O", "ft\u2191", 0.75)  # a gauge's 0 before its unit: a 0
    assert count_before_unit("0", "mph", 0.73)
    assert count_before_unit("5", "km", 0.65)
    assert not count_before_unit("0", "mph", 0.5)  # too doubtful even there
    assert not count_before_unit("O", "North", 0.75)  # no unit after it: a lone letter
    assert not count_before_unit("A", "km", 0.9)  # a letter before a unit stays a letter
    assert not count_before_unit("12", "km", 0.9)  # not one character: the usual rules


@need_vision
def test_a_speedometers_zeros_before_their_units_are_read() -> None:
    """GPS Cockpit at rest: ``0 mph``, ``0 ft↑``, ``0 ft↓`` beside icons; the recognizer
    read each ``0`` as a doubtful ``0`` or ``O`` (0.73 to 0.75), which a lone glyph's 0.8
    left out."""
    from tests.vision.real import score

    lines = _lines(score.load("gpscockpit-landscape"))
    assert lines.count("0 mph") == 2, lines
    assert {"0 ft\u2191", "0 ft\u2193"} <= set(lines), lines


def test_an_axis_next_numbers_set_tight_are_split() -> None:
    from bridge.vision.words import axis_parts

    assert axis_parts(["7", "8", "9", "1011"]) == [["7"], ["8"], ["9"], ["10", "11"]]
    assert axis_parts(["0", "20", "40", "6080"]) == [["0"], ["20"], ["40"], ["60", "80"]]
    assert axis_parts(["20", "15", "10", "50"]) == [["20"], ["15"], ["10"], ["5", "0"]]
    assert axis_parts(["8", "9", "100"]) == [["8"], ["9"], ["100"]]  # not 10 then 11
    assert axis_parts(["9", "1011"]) == [["9"], ["1011"]]  # one step is no axis
    assert axis_parts(["1", "5", "9", "1011"]) == [["1"], ["5"], ["9"], ["1011"]]
    assert axis_parts(["CH", "11", "12", "1314"]) == [["CH"], ["11"], ["12"], ["1314"]]
    assert axis_parts(["1", "2", "3", "m\u00b2", "\u00b2"])[-1] == ["\u00b2"]  # no number
    # one tight run after another, up to a word of 8 digits: an hourly price chart's axis
    hours = ["6", "7", "8", "9", "1011", "1213", "14", "15161718", "1920", "21"]
    assert [p for parts in axis_parts(hours) for p in parts] == [str(h) for h in range(6, 22)]


@need_vision
def test_a_channel_charts_10_and_11_set_tight_are_two_labels() -> None:
    from tests.vision.real import score

    lines = _lines(score.load("wifianalyzer-channel-graph"))
    axis = next(line.split() for line in lines if line.startswith("5 6 7"))
    assert axis[-2:] == ["10", "11"], lines


@need_vision  # numpy comes with the vision extra
def test_a_colon_between_digits_joins_them_unless_set_far_off() -> None:
    """A pixel font's time, its colon centred in a cell as wide as a digit's (Jewel Thief's
    ``00:27``, which read ``00`` and ``:27``) or a time set with wide tracking (CairnGPS's
    ``1 : 35``)."""

    def words(runs: tuple[int, ...], text: str = "00:27") -> list[str]:
        return _grouped(text, runs, 140, first=5)

    assert words((2, 12, 12, 2)) == ["00:27"]  # runs of 12 beside the colon: 0.5 of 24
    assert words((2, 16, 16, 2)) == ["00:27"]  # 0.67: a time set with wide tracking
    assert words((2, 21, 21, 2)) == ["00", "27"]  # 0.88 of the height: set off, no time
    assert words((2, 12, 12, 2), "ab:cd") == ["ab", "cd"]  # letters: no time


@need_vision  # numpy comes with the vision extra
def test_a_colon_joins_digits_only_before_a_times_two_digits() -> None:
    """A price after its fuel's name (``E5: 1.869``, Spritpreise's map in
    tests/vision/heldout, read ``E5:1.869``) is no time: one digit follows the colon."""

    def words(text: str, runs: tuple[int, ...]) -> list[str]:
        return _grouped(text, runs, 200, first=5)

    assert words("E5:1.869", (2, 12, 12, 2, 2, 2, 2)) == ["E5", "1.869"]
    assert words("5:12", (12, 12, 2)) == ["5:12"]  # a time's minutes
    assert words("1:23.4", (12, 12, 2, 2, 2)) == ["1:23.4"]  # a lap time's tenths
    assert words("1:234", (12, 12, 2, 2)) == ["1", "234"]  # three digits: no time
    assert words("E5:1.869", (2, 2, 2, 2, 2, 2, 2)) == ["E5:1.869"]  # set tight: one word


@need_vision  # numpy comes with the vision extra
def test_a_tracked_words_letters_are_one_word_beside_a_tight_number() -> None:
    """A monospaced word's letters stand wider apart than the digits of the underlined date
    beside it (Alarmetrics' ``Start date: 2026-01-26`` in tests/vision/real, whose date's
    underline leaves no blank run): the word's own usual run, not the line's, parts it."""
    tight = (0,) * 7
    assert _grouped("Start 20260126", (6, 6, 6, 6, 6, 6, *tight), 300) == ["Start", "20260126"]
    # a keyboard's keys stand more than TRACKED_RUN of their height apart: each its own word
    assert _grouped("QWER 1234", (14, 14, 14, 6, 6, 0, 0, 0), 300) == [
        "Q",
        "W",
        "E",
        "R",
        "1234",
    ]


def test_a_words_own_run_counts_only_for_letters_and_one_last_mark() -> None:
    from bridge.vision.ppocr import tracked_runs

    def own(text: str, runs: tuple[int, ...]) -> list[float]:
        return tracked_runs([(k, c, 0.99) for k, c in enumerate(text)], list(runs), 24)

    assert own("date: 12", (6, 7, 7, 9, 14, 14, 0)) == [7.0] * 4 + [0.0] * 3
    assert own("TAP:CYCLE", (6, 6, 6, 12, 6, 6, 6, 6)) == [0.0] * 8  # a mark inside
    assert own("date5", (6, 7, 7, 9)) == [0.0] * 4  # a digit last
    assert own("abc:", (6, 7, 7)) == [0.0] * 3  # three letters
    assert own("dates", (9, 9, 9, 9)) == [0.0] * 4  # 9 of 24 rows: wider than TRACKED_RUN


@need_vision
def test_a_monospaced_label_before_an_underlined_date_reads_whole() -> None:
    from tests.vision.real import score

    lines = _lines(score.load("alarmetrics-snooze-chart"))
    assert "Start date: 2026-01-26" in lines, lines


@need_vision
def test_a_fuel_price_after_its_colon_is_its_own_word() -> None:
    from tests.vision.real import score

    where = score.HELDOUT
    words = [w for line in _lines(score.load("spritpreise-map", where)) for w in line.split()]
    assert words.count("1.869") == 1, words


@need_vision
def test_a_pixel_fonts_times_keep_their_colons() -> None:
    from tests.vision.real import score

    words = [w for line in _lines(score.load("jewelthief-game-over-dialog")) for w in line.split()]
    assert words.count("00:27") == 2, words
    words = [w for line in _lines(score.load("cairngps-track-profiles")) for w in line.split()]
    assert "1:35" in words, words  # set with wide tracking


@need_vision
def test_a_label_slanted_along_its_road_is_not_read_and_an_upright_one_is() -> None:
    """A map's street name drawn along its road reads as junk (Transportr's ``Stran``,
    Trekarta's ``Epidavro``): the detector's part for it is a band across its box."""
    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    image, draw, font = _page((720, 900), (236, 232, 224), 36)
    draw.text((60, 80), "Waterloo Station", fill="black", font=font)
    label = Image.new("RGBA", (420, 60), (0, 0, 0, 0))
    ImageDraw.Draw(label).text((10, 5), "Upper Ground Road", fill="black", font=font)
    slanted = label.rotate(35, expand=True, resample=Image.Resampling.BICUBIC)
    image.paste(slanted, (150, 400), slanted)
    boxes = engine.detect(image)
    assert any(b[1] < 200 for b in boxes), boxes  # the upright title
    assert not any(b[1] > 300 for b in boxes), boxes  # nothing of the slanted label
    assert _lines(image) == ["Waterloo Station"]


@need_vision  # numpy comes with the vision extra
def test_an_underscore_of_a_lines_tops_is_a_space_and_a_space_over_one_an_underscore() -> None:
    """A terminal's next line reaching into the box (``report_for_192.168.1.1``); a file
    name's underscore the recognizer took for a gap (``big_buck bunny_1080p``)."""
    import numpy as np

    from bridge.vision.inks import underscores

    ink = np.zeros((48, 100), dtype=bool)
    ink[10:35, 0:20] = ink[10:35, 45:60] = ink[10:35, 85:100] = True  # three glyphs
    ink[46:48, 22:38] = True  # under the first gap, at the crop's last rows: a line below
    chars = [(0, "a", 0.99), (3, "_", 0.99), (5, "b", 0.99), (7, " ", 0.9), (9, "c", 0.99)]
    assert [c[1] for c in underscores(chars, ink, 10.0)] == ["a", " ", "b", " ", "c"]
    ink[46:48, 22:38] = False
    ink[40:42, 22:38] = ink[40:42, 62:78] = True  # the line's own underscores, above its last row
    assert [c[1] for c in underscores(chars, ink, 10.0)] == ["a", "_", "b", "_", "c"]
    ink[40:42, 62:78] = False  # a plain gap: the space stays one
    assert [c[1] for c in underscores(chars, ink, 10.0)] == ["a", "_", "b", " ", "c"]


@need_vision
def test_a_terminals_next_line_is_no_underscore() -> None:
    from tests.vision.real import score

    lines = _lines(score.load("termux-nmap"))
    assert any(line.endswith("scan report for 192.168.1.1") for line in lines), lines


@need_vision
def test_a_percentage_ends_its_word_before_a_digit() -> None:
    """A status bar's battery and clock set a narrow gap apart read as one word
    (``100%10:36``, ``83%10:25``) on three real screens; no label has a digit right after a
    ``%``."""
    assert _grouped("100%10:36", (2,) * 8, 140, first=5) == ["100%", "10:36"]
    assert _grouped("100%", (2,) * 3, 60, first=5) == ["100%"]


@need_vision
def test_a_line_of_short_words_read_with_no_spaces_keeps_them() -> None:
    """A cube's scramble (Cube Scrambler, tests/vision/real): one- and two-letter moves a
    space apart, read with no space, have as many spaces as gaps between letters; the line's
    median run was a space wide, and it read ``LB'FD'UF2`` (``inks.letter_run``)."""
    from bridge.vision.inks import letter_run

    assert _grouped("L'BFD'U", (4, 14, 14, 14, 4, 14), 160, first=5) == [
        "L'",
        "B",
        "F",
        "D'",
        "U",
    ]
    assert letter_run([4, 4, 14, 14, 14], 24, 14.0) == 4.0
    assert letter_run([4, 4, 14, 14, 14], 24, 9.0) == 9.0  # the median a letter gap already
    assert letter_run([4, 5, 6, 7, 8], 24, 6.0) == 6.0  # one kind of run: a word
    assert letter_run([4, 14, 14], 24, 14.0) == 14.0  # too few runs to tell


@need_vision
def test_a_faint_line_keeps_its_words_whole() -> None:
    """A line whose glyphs are too close to the ground to be told from it as ink (a game's
    dimmed hint, a countdown's fading number): every column is blank, and the runs between
    its characters measured whole glyphs' widths (``spa wned``, ``10 0``, ``5 8``); the
    spaces the recognizer read part its words."""
    image, draw, font = _page((900, 260), (40, 42, 54), 34)
    draw.text((40, 60), "the player has just spawned with 100", fill=(68, 70, 84), font=font)
    draw.text((40, 150), "Countdown 58", fill=(68, 70, 84), font=font)
    words = [w for line in _lines(image) for w in line.split()]
    assert words == ["the", "player", "has", "just", "spawned", "with", "100", "Countdown", "58"]


@need_vision
def test_a_charts_tick_glued_after_a_time_is_left_out() -> None:
    """A time axis's tick mark drawn down from the axis right after its label's last digit is
    read as one more stroke of it (``16:37:001``); no time has three digits of seconds."""
    image, draw, font = _page((700, 200), "white", 26)
    draw.line((20, 60, 680, 60), fill="black", width=3)  # the chart's axis
    for x, label in ((60, "16:37:00"), (360, "16:57:00")):
        draw.text((x, 66), label, fill=(40, 40, 40), font=font)
        right = x + int(draw.textlength(label, font=font)) + 2
        draw.line((right, 60, right, 84), fill=(60, 60, 60), width=3)  # its tick, glued
    words = [w for line in _lines(image) for w in line.split()]
    assert words == ["16:37:00", "16:57:00"], words


@need_vision
def test_a_clocks_small_seconds_set_tight_after_its_minutes_are_a_word_of_their_own() -> None:
    """A clock's seconds set smaller right after its hours and minutes (``23:18`` then a
    small ``07``) read as one run of digits, ``23:1807``; no time has four digits of
    minutes."""
    image = Image.new("RGB", (700, 260), "black")
    draw = ImageDraw.Draw(image)
    large, small = ImageFont.load_default(size=90), ImageFont.load_default(size=48)
    draw.text((60, 70), "23:18", fill="white", font=large)
    draw.text((60 + int(draw.textlength("23:18", font=large)) + 6, 110), "07", fill="white",
              font=small)  # fmt: skip
    words = [w for line in _lines(image) for w in line.split()]
    assert words == ["23:18", "07"], words


@need_vision  # numpy comes with the vision extra
def test_the_blank_after_a_lines_last_ink_is_no_gap_before_its_last_letter() -> None:
    """The recognizer may place a line's last character past its glyph, in the blank margin
    after it (a calendar's ``Team Meeting`` on a tablet: its ``g`` read 7 columns on,
    ``Meetin g``); that margin lies between no two glyphs."""
    import numpy as np

    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    blank = np.ones(100, dtype=bool)
    for k in range(7):  # M e e t i n g, 8 columns each, 2 apart
        blank[2 + 10 * k : 10 + 10 * k] = False
    chars = [(6 + 10 * k, t) for k, t in enumerate("Meetin")] + [(84, "g")]  # g read late
    words = engine._group([(c, t, 0.99) for c, t in chars], 100.0, blank, 30)
    assert [w[0] for w in words] == ["Meeting"], words


@need_vision
def test_a_small_screens_small_map_labels_are_read_whole() -> None:
    """An old phone's topographic map (276 x 491 pixels, tests/vision/real), its labels 8 to
    10 pixels tall: at its own size the detector cut and joined them (``gem``, ``ainberg``,
    ``schel``); detected again at twice its size (``ppocr.SMALL_TEXT``) they read whole."""
    from tests.vision.real import score

    words = [w for line in _lines(score.load("opentopomap-hiking-track")) for w in line.split()]
    for word in ("Gemainberg", "Geiereck", "Schellenberger", "Sattel", "1805", "1440"):
        assert word in words, (word, words)


@need_vision
@pytest.mark.parametrize(("gap", "words"), [(0, ["112"]), (8, ["1", "1", "2"])])
def test_a_nonograms_clues_set_a_narrow_space_apart_are_numbers_each(
    gap: int, words: list[str]
) -> None:
    """A nonogram's clues ``1 1 2`` (a space of a third of a digit's width between them,
    ``ppocr.CLUE_GAP``) read ``112`` under the cap on a space between digits; set tight,
    the same digits are one number."""
    image, draw, font = _page((500, 300), "white", 28)
    draw.text((40, 40), "Clues", fill="black", font=font)
    x = 60
    for digit in "112":
        draw.text((x, 140), digit, fill="black", font=font)
        x += int(draw.textlength(digit, font=font)) + gap
    read = [w for line in _lines(image) for w in line.split()]
    assert read == ["Clues", *words], read


@need_vision  # numpy comes with the vision extra
def test_two_ones_in_their_own_digit_cells_are_one_number() -> None:
    """A clock's ``11`` in a thin font with tabular figures (talalarmo-dark in
    tests/vision/real) leaves half a digit's height blank between its two stems: each ``1``
    has a side bearing on both sides, so the cap on a space between digits grows by both
    (``ppocr.NARROW_SPACE``); a board's two ``1``s a cell apart stay two numbers, and so does
    a ``1`` and a wider digit as far apart."""
    assert _grouped("11", (25,), 100) == ["11"]
    assert _grouped("11", (30,), 100) == ["1", "1"]
    assert _grouped("12", (25,), 100) == ["1", "2"]


def _spaced(word: str, gaps: list[int]) -> tuple[list[tuple[int, str, float]], Any, float]:
    """``word``'s characters as the recognizer gives them (one column each, no space read),
    each glyph 8 pixel columns of ink and ``gaps`` the blank columns after each: (chars,
    blank, columns) for ``PpOcrEngine._group``, one output column per pixel column."""
    import numpy as np

    width = 8 * len(word) + sum(gaps) + 4
    blank = np.ones(width, dtype=bool)
    chars, x = [], 2
    for k, letter in enumerate(word):
        blank[x : x + 8] = False
        chars.append((x + 4, letter, 0.99))
        x += 8 + (gaps[k] if k < len(gaps) else 0)
    return chars, blank, float(width)


@need_vision  # numpy comes with the vision extra
@pytest.mark.parametrize(
    ("word", "gaps", "words"),
    [
        # Held-out OSM labels: each read as one line, no space read, one gap ~2x the others
        ("Peninsula", [7, 6, 7, 5, 3, 10, 8, 16], ["Peninsula"]),
        ("Warehouse", [13, 9, 6, 12, 8, 24, 10, 7], ["Warehouse"]),
        ("Grass", [7, 8, 12, 17], ["Grass"]),
        # a space the recognizer did not read: over three times the usual gap
        ("ofthe", [6, 26, 7, 6], ["of", "the"]),
    ],
)
def test_a_small_letters_gap_parts_words_only_at_three_times_the_usual(
    word: str, gaps: list[int], words: list[str]
) -> None:
    """Between two small letters a run of blank columns is a space only when it is
    ``ppocr.LOWER_SPACE`` times the line's usual run: a map label's halo leaves one gap
    inside a word about twice the others (``Peninsul a``, ``Wareho use``, ``Gras s``, read
    so at twice)."""
    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    chars, blank, columns = _spaced(word, gaps)
    got = [w[0] for w in engine._group(chars, columns, blank, 30)]
    assert got == words, got


@need_vision
def test_a_map_labels_halo_gap_inside_a_word_is_no_space() -> None:
    """Every Door's map (tests/vision/real): ``Pizza Arthur`` read ``Piz za`` when a gap
    twice the word's others parted small letters; 2048's help text on a tablet read
    ``tile s``."""
    from tests.vision.real import score

    words = [w for line in _lines(score.load("everydoor-map")) for w in line.split()]
    assert "Pizza" in words and "za" not in words, words
    words = [w for line in _lines(score.load("2048-tablet")) for w in line.split()]
    assert "tiles" in words and "tile" not in words, words


def _wide_glyphs(text: str, glyph: int, run: int) -> list[str]:
    """The words ``_group`` makes of ``text``'s characters drawn as ``glyph``-pixel-wide
    glyphs, ``run`` blank columns apart, on a crop of one output column per pixel column."""
    import numpy as np

    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    width = 20 + len(text) * (glyph + run)
    blank = np.ones(width, dtype=bool)
    chars = []
    for k, t in enumerate(text):
        left = 10 + k * (glyph + run)
        blank[left : left + glyph] = False
        chars.append((left + glyph // 2, t, 0.99))
    return [w[0] for w in engine._group(chars, float(width), blank, 40)]


@need_vision  # numpy comes with the vision extra
def test_a_boards_digits_a_cell_apart_are_numbers_each_though_their_runs_are_narrow() -> None:
    """Sonar Minefield's row ``1 2 1 1 2`` (tests/vision/heldout) read ``12 112``: each
    serif ``1`` fills most of its textured cell's width, so the runs between the digits
    (0.4 of the crop's height) stay under the cap on a space between digits, while the
    recognizer places the digits a whole height apart (``ppocr.DIGIT_PITCH``). A wide
    font's digits as far apart but nearly touching (a banknote's ``500``) stay one number."""
    from bridge.vision.ppocr import DIGIT_PITCH, DIGIT_PITCH_RUN, REC_HEIGHT, WIDE_SPACE

    run = int(0.42 * REC_HEIGHT)
    assert DIGIT_PITCH_RUN * REC_HEIGHT <= run < WIDE_SPACE * REC_HEIGHT
    assert 30 + run >= DIGIT_PITCH * REC_HEIGHT
    assert _wide_glyphs("12112", 30, run) == ["1", "2", "1", "1", "2"]
    assert _wide_glyphs("500", 40, 8) == ["500"]
    assert _wide_glyphs("47", 22, 8) == ["47"]  # a crossword's clue number


@need_vision
def test_a_killer_sudokus_cage_sums_a_cell_apart_are_read_apart() -> None:
    """LibreSudoku's killer board (tests/vision/real): a row of cage sums and givens read
    ``84 2 9 3751`` and ``5 9 621`` before ``ppocr.DIGIT_PITCH``."""
    from tests.vision.real import score

    lines = _lines(score.load("libresudoku-killer"))
    assert "5 9 6 2 1" in lines and "5 9 621" not in lines, lines


def test_a_doubtful_x_alone_between_two_numbers_is_a_times_sign() -> None:
    from bridge.vision.words import LONE_CONFIDENCE, MIN_CONFIDENCE, times_sign

    doubtful = (MIN_CONFIDENCE + LONE_CONFIDENCE) / 2
    assert times_sign("x", "12", "40", doubtful)  # a label's size, ``12 x 40 mm``
    assert times_sign("\u00d7", "1335", "941", doubtful)  # the multiplication sign
    assert times_sign("x", "2.5", "3,5", doubtful)
    assert not times_sign("x", "12", "40", MIN_CONFIDENCE - 0.01)  # a speck
    assert not times_sign("x", "Row", "40", doubtful)  # a letter among words
    assert not times_sign("y", "12", "40", doubtful)
    assert not times_sign("x", "12", "mm", doubtful)


@need_vision
def test_a_label_printers_sizes_keep_their_times_signs() -> None:
    from tests.vision.real import score

    lines = _lines(score.load("labler-dashboard"))
    assert sum(line.count("x 40 mm") for line in lines) == 6, lines


def test_a_doubtful_sign_at_a_words_end_is_a_mark_beside_it() -> None:
    """``6♣`` in a card's corner read as ``6%`` (the ``%`` at 0.29): the rank alone, not a
    word whose mean confidence drops it; a faint letter or digit stays the word's own."""
    from bridge.vision.ppocr import _without_signs

    rank = [(2, "6", 0.98), (5, "%", 0.29)]
    assert _without_signs(rank) == [(2, "6", 0.98)]
    assert _without_signs([(0, "#", 0.2), (3, "A", 0.95), (6, "1", 0.99)]) == [
        (3, "A", 0.95),
        (6, "1", 0.99),
    ]
    faint = [(0, "l", 0.99), (3, "a", 0.97), (6, "y", 0.3)]  # ``lay``'s faint ``y``
    assert _without_signs(faint) == faint
    doubtful = [(0, "6", 0.7), (3, "%", 0.29)]  # the rank is doubtful too: as read
    assert _without_signs(doubtful) == doubtful
    assert _without_signs([(0, "%", 0.1)]) == [(0, "%", 0.1)]


@need_vision
def test_a_solitaire_tableaus_corner_index_beside_its_suit_is_read() -> None:
    """Simple Solitaire (tests/vision/real): the six of clubs' corner ``6♣`` and its big
    ``6`` (the suit read as a doubtful ``%`` had dropped the corner, and with the corner
    unread the big ``6`` beside it was taken for a toolbar's mark: no ``6`` was read)."""
    from tests.vision.real import score

    lines = score.hub_reader()(score.load("simplesolitaire-klondike"))
    assert sum(line.split().count("6") for line in lines) >= 2, lines
