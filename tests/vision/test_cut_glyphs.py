"""A detected box whose edge cuts a glyph (``bridge.vision.inks.past_cut_glyphs``) is read
again grown to take it in whole, and that reading is kept only where it completes the first
(``bridge.vision.words.completes``): a map label's ``Castl`` is ``Castle``."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw, ImageFont

from bridge.vision.words import Word, completes
from tests.skips import need_vision
from tests.vision.real import score


def _strip(draw_more: Any = None) -> Any:
    """A line's strip: ``Cast`` in black on white from column 40, 40 rows tall; the box's
    span is (40, 120), which ends inside the word's ``t``."""
    import numpy as np

    image = Image.new("L", (200, 40), 255)
    draw = ImageDraw.Draw(image)
    draw.text((40, 4), "Cast", fill=0, font=ImageFont.load_default(size=28))
    if draw_more is not None:
        draw_more(draw)
    return np.asarray(image.convert("RGB"), dtype=np.float32)


def _words(*texts: str) -> list[Word]:
    return [Word(t, (10 * k, 0, 10 * k + 8, 10), 0.99) for k, t in enumerate(texts)]


@need_vision  # numpy and OpenCV come with the vision extra
def test_a_glyph_the_edge_cuts_is_taken_in_and_nothing_else() -> None:
    import numpy as np

    from bridge.vision.inks import past_cut_glyphs

    strip = _strip()
    ink_columns = np.flatnonzero((strip.mean(axis=2) < 128).any(axis=0))
    end = int(ink_columns.max()) + 1  # the word's last inked column
    left, right = past_cut_glyphs(strip, (40, end - 6))  # the edge cuts the ``t``
    assert left == 40 and end <= right <= end + 2, (left, right, end)
    assert past_cut_glyphs(strip, (30, end + 4)) == (30, end + 4)  # nothing cut: as it was

    def road(draw: ImageDraw.ImageDraw) -> None:  # a road along the line: no glyph
        draw.rectangle((0, 30, 199, 33), fill=0)

    assert past_cut_glyphs(_strip(road), (40, end + 4))[1] == end + 4

    def pole(draw: ImageDraw.ImageDraw) -> None:  # a mark from the top row down: no glyph
        draw.rectangle((end + 8, 0, end + 11, 30), fill=0)

    assert past_cut_glyphs(_strip(pole), (40, end + 10))[1] == end + 10


def test_a_reading_again_is_kept_only_where_it_completes_the_first() -> None:
    assert completes(_words("Castl"), _words("Castle"), False, True)
    assert completes(_words("epus"), _words("Lepus"), True, False)
    assert completes(_words("The", "Smit"), _words("The", "Smith"), False, True)
    assert completes(_words("ap", "1/3"), _words("Lap", "1/3"), True, True)
    assert not completes(_words("Castl"), _words("Castle"), True, False)  # grew the other way
    assert not completes(_words("Major"), _words("Major1"), False, True)  # a digit on letters
    assert not completes(_words("a1"), _words("9a1"), True, False)  # a digit before a letter
    assert not completes(_words("Castl"), _words("Casile"), False, True)  # read otherwise
    assert not completes(_words("The", "Bike"), _words("Th", "Bike"), True, False)
    assert not completes(_words("The", "Bike"), _words("TheBike"), False, True)
    assert not completes(_words("Station"), _words("Station"), False, True)  # no better


@need_vision
def test_map_labels_cut_by_their_boxes_are_read_whole() -> None:
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    assert not isinstance(engine, str), engine
    image = score.load("cyclestreets-journey-map")
    words = {w for line, _ in read_lines(engine, image) for w in line.text.split()}
    assert {"Castle", "Smith"} <= words, sorted(words)
    assert not {"Castl", "Smit"} & words, sorted(words)


@need_vision  # numpy and OpenCV come with the vision extra
def test_a_box_ending_a_glyph_short_of_a_words_end_takes_in_its_next_glyphs() -> None:
    """A tablet's screen shrunk threefold for the detector: its box ended before a word's
    last letters (``Client Presentati``). The glyphs after the edge, each close to the one
    before, are the word's; a word a space away is not, nor anything on a side the caller
    did not ask for (after a digit, the next cell of a board holds another number)."""
    import numpy as np

    from bridge.vision.inks import past_cut_glyphs

    image = Image.new("L", (400, 40), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    draw.text((20, 4), "Client", fill=0, font=font)
    word_end = 20 + int(draw.textlength("Client", font=font))
    draw.text((word_end + 40, 4), "Next", fill=0, font=font)
    strip = np.asarray(image.convert("RGB"), dtype=np.float32)
    ink = np.flatnonzero((strip.mean(axis=2) < 128)[:, : word_end + 10].any(axis=0))
    last = int(ink.max()) + 1
    short = 20 + int(draw.textlength("Cli", font=font))  # the box ends after ``Cli``
    left, right = past_cut_glyphs(strip, (10, short), next_right=True)
    assert left == 10 and last <= right <= last + 2, (right, last)
    assert past_cut_glyphs(strip, (10, short)) == (10, short)  # not asked: as it was
    assert past_cut_glyphs(strip, (10, last + 3), next_right=True) == (10, last + 3)


@need_vision
def test_a_tablets_calendar_chips_are_read_to_their_words_ends() -> None:
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    assert not isinstance(engine, str), engine
    image = score.load("calendar-month-tablet")
    words = [w for line, _ in read_lines(engine, image) for w in line.text.split()]
    assert "Mentorship" in words and words.count("Webinar") >= 4, words
    assert not {"ntorship", "ebinar"} & set(words), words


def test_a_first_word_of_small_letters_may_have_lost_its_capital() -> None:
    from bridge.vision.words import capital_lost

    assert capital_lost("olumbus") and capital_lost("epus")
    assert not capital_lost("Columbus")  # its capital read
    assert not capital_lost("km") and not capital_lost("a")  # too short to tell
    assert not capital_lost("items2") and not capital_lost("3rd")


def test_a_grown_reading_is_kept_only_for_one_sure_capital() -> None:
    from bridge.vision.words import one_capital

    def read(text: str, confidence: float = 0.99) -> list[Word]:
        return [Word(text, (0, 0, 10, 10), confidence)]

    assert one_capital(read("olumbus"), read("Columbus"))
    assert not one_capital(read("olumbus"), read("Columbus", 0.8))  # a doubtful letter
    assert not one_capital(read("olumbus"), read("lColumbus"))  # a road's edge read too
    assert not one_capital(read("erfront"), read("aerfront"))  # no capital
    assert not one_capital(read("umen"), read("Blumen"))  # two letters: not this rule's


@need_vision
def test_a_sky_maps_constellation_keeps_its_capital() -> None:
    """Sky Map on a tablet (tests/vision/real): the detector's box for ``Lepus`` starts at
    its ``e``; grown one capital's width to the left, the line reads ``Lepus``."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [
        w for line, _ in read_lines(engine, score.load("skymap-tablet")) for w in line.text.split()
    ]
    assert "Lepus" in words and "epus" not in words, words


def test_a_cut_edge_letter_read_again_mends_a_one_word_line() -> None:
    """The edge cut a letter, so the first reading named a part of it: grown on that side,
    the line reads the same word with that letter read again. Letters only, one side."""
    assert completes(_words("Jndo"), _words("Undo"), True, False)
    assert completes(_words("lars"), _words("Mars"), True, False)
    assert completes(_words("hdarmenmarkt"), _words("Gendarmenmarkt"), True, False)
    assert completes(_words("Plar"), _words("Plan"), False, True)
    assert not completes(_words("Jndo"), _words("Undo"), False, True)  # grew the other way
    assert not completes(_words("Jndo"), _words("Undo"), True, True)  # both ways: unsure
    assert not completes(_words("746"), _words("2946"), True, False)  # digits are no part
    assert not completes(_words("Schule"), _words("schule"), True, False)  # the same letter
    assert not completes(_words("ab"), _words("xb"), True, False)  # too short to tell
    assert not completes(_words("Jndo"), _words("Un4o"), True, False)  # read otherwise


@need_vision  # numpy and OpenCV come with the vision extra
def test_a_faint_lines_cut_glyph_is_found_and_no_next_glyph() -> None:
    """Grey glyphs 46 levels above a near-black ground, under ``INK``: the edge's cut glyph
    is still found (at the midpoint), but the next glyphs are not looked for."""
    import numpy as np

    from bridge.vision.inks import INK, past_cut_glyphs

    image = Image.new("L", (400, 40), 21)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    draw.text((40, 4), "Undo", fill=67, font=font)
    word_end = 40 + int(draw.textlength("Undo", font=font))
    draw.text((word_end + 6, 4), "2", fill=67, font=font)  # a neighbour close after it
    assert 67 - 21 < INK
    strip = np.asarray(image.convert("RGB"), dtype=np.float32)
    inked = np.flatnonzero((strip.mean(axis=2) > 44)[:, :word_end].any(axis=0))
    u_end = 40 + int(draw.textlength("U", font=font))
    left, right = past_cut_glyphs(strip, (u_end - 6, word_end + 2), next_right=True)
    assert left <= int(inked.min()) and right == word_end + 2, (left, right, inked.min())


@need_vision
def test_a_toolbars_faint_undo_cut_by_its_box_is_read_undo() -> None:
    """Triangle Draw (tests/vision/real): the detector's box cuts the grey ``U`` of
    ``Undo`` on near black, read ``Jndo``; grown over the cut glyph it reads ``Undo``."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    assert not isinstance(engine, str), engine
    image = score.load("triangledraw-canvas-logo")
    words = [w for line, _ in read_lines(engine, image) for w in line.text.split()]
    assert "Undo" in words and "Jndo" not in words, words
