"""Lone glyphs from the pixels (``bridge.vision.glyphs``): a digit alone in a pale cell among
dark ones is found, whichever colour its surroundings mostly are."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.skips import need_vision


def _board() -> tuple[Image.Image, int]:
    """A Minesweeper-like board of small dark cells, one in five pale with a dark ``1``."""
    image = Image.new("RGB", (375, 616), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=12)
    shown = 0
    for r in range(14):
        for c in range(13):
            x, y = 12 + c * 22, 80 + r * 22
            pale = (r * 5 + c * 3) % 5 == 0
            draw.rectangle((x, y, x + 20, y + 20), fill=(140, 165, 205) if pale else (20, 110, 180))
            if pale:
                draw.text((x + 10, y + 10), "1", fill=(40, 60, 90), font=font, anchor="mm")
                shown += 1
    return image, shown


@need_vision  # numpy and OpenCV come with the vision extra
def test_every_digit_of_a_board_of_pale_cells_among_dark_ones_is_a_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bridge.vision import glyphs

    image, shown = _board()
    assert len(glyphs.candidates(image, [])) == shown
    monkeypatch.setattr(glyphs, "GROUNDS", (glyphs.SURROUND,))
    # the wider surroundings alone: where dark cells are most of them, a pale cell is ink
    # itself and its digit a hole in it
    assert len(glyphs.candidates(image, [])) < shown


@need_vision
def test_a_candidate_found_at_both_widths_comes_back_once() -> None:
    from bridge.vision import glyphs

    image, shown = _board()
    boxes = glyphs.candidates(image, [])
    centres = {((b[0] + b[2]) // 2 // 4, (b[1] + b[3]) // 2 // 4) for b in boxes}
    assert len(centres) == len(boxes) == shown
    assert boxes == sorted(boxes, key=lambda b: (b[1], b[0]))


@need_vision
def test_a_detected_box_that_reads_as_nothing_hides_no_lone_digit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a Mill board's coordinates beside its lines: the detector took the whole board for
    # one block of text, which reads as nothing; the digits inside it are still looked for
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    image = Image.new("RGB", (720, 1000), (220, 190, 140))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=36)
    draw.rectangle((120, 200, 600, 680), outline=(140, 80, 40), width=4)
    draw.line((360, 200, 360, 680), fill=(140, 80, 40), width=4)
    draw.text((60, 300), "6", fill=(140, 80, 40), font=font)
    draw.text((60, 560), "5", fill=(140, 80, 40), font=font)
    board = (20, 150, 700, 720)
    monkeypatch.setattr(type(engine), "detect", lambda self, image: [board])
    engine.forget_lines()
    assert sorted(line.text for line in engine.read(image)) == ["5", "6"]


def _card(mark_beside: bool) -> Image.Image:
    """A white card on green with a rank in its corner and a mark under it (a suit), or
    beside it too (another glyph of a word)."""
    image = Image.new("RGB", (720, 1280), (150, 190, 150))
    draw = ImageDraw.Draw(image)
    draw.rectangle((200, 400, 400, 700), fill="white")
    font = ImageFont.load_default(size=40)
    draw.text((215, 410), "9", fill=(200, 20, 20), font=font)
    draw.ellipse((218, 455, 234, 471), fill=(200, 20, 20))  # the suit under the rank
    if mark_beside:
        draw.text((238, 410), "7", fill=(200, 20, 20), font=font)
    return image


@need_vision
def test_a_cards_rank_above_its_suit_is_a_candidate_and_a_glyph_of_a_word_is_not() -> None:
    from bridge.vision import glyphs

    def ranks(image: Image.Image) -> list[tuple[int, int, int, int]]:
        return [b for b in glyphs.candidates(image, []) if b[0] < 240 and b[1] < 440]

    assert len(ranks(_card(False))) == 1
    assert ranks(_card(True)) == []


def _small_card() -> Image.Image:
    """A small white card with a dark outline on green, its rank close to its corner: the
    median of the rank's surroundings is green there, so the card's edge is ink too."""
    image = Image.new("RGB", (1103, 621), (140, 190, 140))
    draw = ImageDraw.Draw(image)
    draw.rectangle((70, 110, 150, 215), fill="white", outline=(60, 60, 60), width=2)
    draw.text((76, 112), "7", fill=(200, 20, 20), font=ImageFont.load_default(size=24))
    draw.ellipse((88, 145, 140, 200), fill=(200, 20, 20))  # the big suit in its middle
    return image


@need_vision
def test_a_rank_in_a_cards_corner_is_looked_for_on_the_cards_own_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bridge.vision import glyphs

    def ranks() -> list[tuple[int, int, int, int]]:
        return [b for b in glyphs.candidates(_small_card(), []) if b[0] < 100 and b[1] < 150]

    assert len(ranks()) == 1
    monkeypatch.setattr(glyphs, "PLATE", 0.0)  # no plates: the rank is one part with the card
    assert ranks() == []


@need_vision
def test_card_ranks_in_their_cards_corners_are_read() -> None:
    """Privacy Friendly Solitaire (tests/vision/real): before plates, two of its 18 ranks
    were candidates; its ace and king were dropped as 'solid' against a crop border that is
    partly the green table."""
    from bridge.vision.engine import load_engine
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [w for line in engine.read(score.load("solitaire-tableau")) for w in line.text.split()]
    for rank in ("A", "K", "3", "7"):
        assert rank in words, (rank, words)


@need_vision
def test_a_candidates_core_is_the_glyph_it_was_grown_from() -> None:
    from bridge.vision import glyphs

    image = Image.new("RGB", (720, 1280), (250, 250, 250))
    ImageDraw.Draw(image).rectangle((140, 80, 155, 119), outline=(20, 20, 20), width=3)
    [box] = glyphs.candidates(image, [])
    left, top, right, bottom = glyphs.core(box)
    assert abs(left - 140) <= 2 and abs(right - 156) <= 2, box
    assert abs(top - 80) <= 2 and abs(bottom - 120) <= 2, box


@need_vision
def test_letter_tiles_in_one_row_are_read_whatever_the_confetti_beside_them() -> None:
    """Gurgle (tests/vision/real): the row ``I D I O T`` in green on dark tiles, confetti
    over them. Each lone letter's box was its crop's ink (a tile's frame, a speck of
    confetti), so ``D``, ``O`` and ``T`` were of unlike heights and no row kept them."""
    from bridge.vision.engine import load_engine
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    row = [
        line
        for line in engine.read(score.load("gurgle-board"))
        if 560 <= (line.box[1] + line.box[3]) / 2 <= 650 and line.box[2] < 680
    ]
    assert {"D", "T"} <= {line.text for line in row}, row


@need_vision
def test_a_solid_bar_is_a_stem_not_a_glyph_candidate() -> None:
    from bridge.vision import glyphs

    image = Image.new("RGB", (720, 1280), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((140, 80, 147, 119), fill=(20, 20, 20))  # 8 x 40: an I in a sans font
    draw.rectangle((300, 80, 339, 119), fill=(20, 20, 20))  # 40 x 40: a square, no glyph
    stems: list[tuple[int, int, int, int]] = []
    assert glyphs.candidates(image, [], stems) == []
    [stem] = stems
    left, top, right, bottom = glyphs.core(stem)
    assert (
        abs(left - 140) <= 2
        and abs(right - 148) <= 2
        and abs(top - 80) <= 2
        and abs(bottom - 120) <= 2
    ), stem


def test_a_bar_among_a_rows_letters_is_an_i_and_among_digits_or_alone_nothing() -> None:
    from bridge.vision.words import Word, stems_in_rows

    def tile(text: str, x: int) -> Word:
        return Word(text, (x, 100, x + 24, 140), 0.98)

    bar = (205, 100, 211, 140)
    [[i]] = stems_in_rows([bar], [tile("D", 100), tile("O", 300), tile("T", 400)])
    assert i.text == "I" and i.box == bar and i.confidence == 0.98
    assert stems_in_rows([bar], [tile("3", 100), tile("5", 300), tile("T", 400)]) == []
    assert stems_in_rows([bar], [tile("D", 100)]) == []  # one letter beside it: no row
    tall = (205, 80, 211, 160)  # a divider twice a letter's height
    assert stems_in_rows([tall], [tile("D", 100), tile("O", 300), tile("T", 400)]) == []
    assert stems_in_rows([bar, (206, 101, 212, 141)], [tile("D", 100), tile("O", 300)]) == [
        [Word("I", bar, 0.98)]
    ]  # found at both grounds: one I


def test_a_bar_among_small_letters_is_an_l_and_a_dotted_one_an_i() -> None:
    from bridge.vision.words import Word, stems_in_rows

    def key(text: str, x: int) -> Word:
        return Word(text, (x, 100, x + 24, 140), 0.98)

    bar = (205, 100, 211, 140)
    small = [key("j", 100), key("k", 300), key("m", 400)]
    assert stems_in_rows([bar], small) == [[Word("l", bar, 0.98)]]  # a keyboard's l
    assert stems_in_rows([bar], small, {bar}) == [[Word("i", bar, 0.98)]]  # its dotted i
    capitals = [key("J", 100), key("K", 300), key("m", 400)]
    assert stems_in_rows([bar], capitals) == [[Word("I", bar, 0.98)]]


def test_the_bars_of_a_letter_grids_row_count_as_its_letters_and_a_dotted_bar_may_be_short() -> (
    None
):
    """9P's letter grid (tests/vision/real) shows ``g i l`` in a row: one letter beside two
    bars, which count toward the row (``words.ROW``) where a letter stands in it; an
    ``i``'s bar without its dot is shorter than the letters beside it
    (``words.DOTTED_HEIGHT``)."""
    from bridge.vision.words import Word, stems_in_rows

    g = Word("g", (73, 514, 94, 548), 0.99)
    dotted_i = (238, 516, 242, 538)  # the bar of the i, 22 tall beside a 34-tall g
    bar_l = (393, 506, 398, 538)
    got = stems_in_rows([bar_l, dotted_i], [g], {dotted_i})
    assert got == [[Word("l", bar_l, 0.99)], [Word("i", dotted_i, 0.99)]], got
    assert stems_in_rows([bar_l, dotted_i], [], {dotted_i}) == []  # bars alone: no letters
    assert stems_in_rows([bar_l], [g]) == []  # one letter and one bar: no row
    three = Word("3", (73, 514, 94, 548), 0.99)
    assert stems_in_rows([bar_l, dotted_i], [three], {dotted_i}) == []  # beside a digit


@need_vision
def test_a_bar_with_a_dot_above_is_a_dotted_stem() -> None:
    from bridge.vision import glyphs

    image = Image.new("RGB", (720, 1280), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((140, 80, 147, 119), fill=(20, 20, 20))  # a bare bar: l or I
    draw.rectangle((400, 80, 407, 119), fill=(20, 20, 20))  # an i: its stem ...
    draw.rectangle((400, 66, 407, 73), fill=(20, 20, 20))  # ... and its dot
    stems: list[tuple[int, int, int, int]] = []
    dotted: list[tuple[int, int, int, int]] = []
    glyphs.candidates(image, [], stems, dotted)
    assert len(stems) == 2, stems
    [i] = dotted
    assert abs(glyphs.core(i)[0] - 400) <= 2, dotted


@need_vision  # numpy comes with the vision extra
def test_a_one_that_fills_its_box_is_a_bare_bar() -> None:
    import numpy as np

    from bridge.vision.inks import bare_bar

    ink = np.zeros((48, 40), dtype=bool)
    ink[8:40, 10:16] = True  # a bar 6 x 32
    assert bare_bar(ink, (0, 40))
    ink[8:14, 4:10] = True  # a flag at its top left: a 1
    ink[38:40, 4:22] = True  # and a foot
    assert not bare_bar(ink, (0, 40))
    wide = np.zeros((48, 40), dtype=bool)
    wide[8:40, 4:30] = True  # a block: not upright
    assert not bare_bar(wide, (0, 40))


@need_vision
def test_a_terminal_maps_walls_are_no_ones_and_a_keyboards_l_is_read() -> None:
    """ConnectBot running NetHack on a tablet (tests/vision/real): the dungeon's walls are
    bars the recognizer reads as ``1``, each filling its box (``inks.bare_bar``); and
    Hacker's Keyboard (tests/vision/real): its ``l`` key is a bare bar in a row of small
    letters, an ``l`` (``words.stems_in_rows``), not an ``I``."""
    from bridge.vision.engine import load_engine
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = " ".join(b.text for b in engine.read(score.load("connectbot-nethack-tablet")))
    assert words.split().count("1") <= 2, words
    keys = [b.text for b in engine.read(score.load("hackerskeyboard-5row-dark"))]
    assert "l" in " ".join(keys).split(), keys


@need_vision
def test_a_word_games_bare_is_are_read() -> None:
    """Gurgle (tests/vision/real): the `I`s of `I D I O T` and of its keyboard are solid
    bars; the recognizer read them as nothing and the glyph search kept them out."""
    from bridge.vision.engine import load_engine
    from tests.vision.real import score

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [line.text for line in engine.read(score.load("gurgle-board"))]
    assert words.count("I") >= 2, words


def _badges() -> Image.Image:
    """A map's markers: black digits on red discs about twice their height, on a grey
    ground; the disc differs from the ground as much as the digit does, so the disc and its
    digit are one part of the ink, too solid to be a glyph and too small to be a plate."""
    image = Image.new("RGB", (1600, 720), (150, 150, 150))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=24)
    for k, digit in enumerate("3857"):
        x, y = 300 + k * 300, 200 + (k % 2) * 250
        draw.ellipse((x - 26, y - 26, x + 26, y + 26), fill=(200, 40, 30))
        draw.text((x, y), digit, fill=(10, 10, 10), font=font, anchor="mm")
    return image


@need_vision
def test_a_digit_on_a_disc_the_size_of_a_glyph_is_looked_for_on_the_discs_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Moroway (tests/vision/real): its track's numbered markers were never candidates."""
    from bridge.vision import glyphs

    def digits() -> list[tuple[int, int, int, int]]:
        cores = [glyphs.core(b) for b in glyphs.candidates(_badges(), [])]
        return [b for b in cores if 14 <= b[3] - b[1] <= 26]  # a digit's height, not a disc's

    assert len(digits()) == 4
    monkeypatch.setattr(glyphs, "BADGE", glyphs.MAX_HEIGHT)  # discs no longer looked into
    assert len(digits()) <= 1  # a 7's open side lets the ground's narrower median find it


@need_vision
def test_digits_on_discs_are_read() -> None:
    """A confetti speck across a letter's hole is no glyph on a disc: Gurgle's tests above
    hold that (``ENCLOSED``)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    assert sorted(line.text for line in engine.read(_badges())) == ["3", "5", "7", "8"]


@need_vision
def test_a_screen_of_solid_blocks_is_looked_into_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hostile input: every glyph-sized solid square would be a badge to look into."""
    import numpy as np

    from bridge.vision import glyphs

    pitch = np.zeros((80, 80), np.uint8)
    pitch[22:58, 22:58] = 255  # a solid square a glyph's size, apart from its neighbours
    blocks = Image.fromarray(np.tile(pitch, (24, 13))).convert("RGB")  # 312 of them
    looked: list[tuple[int, int]] = []
    real_lone = glyphs._lone

    def counting(*args: object, **kwargs: object) -> list[tuple[int, int, int, int]]:
        if kwargs.get("ground") is False:
            looked.append((0, 0))
        return real_lone(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(glyphs, "_lone", counting)
    monkeypatch.setattr(glyphs, "MAX_PLATES", 50)
    glyphs.candidates(blocks, [])
    assert 0 < len(looked) <= 50 * len(glyphs.GROUNDS), len(looked)  # of 312 squares each
