"""Doubtful lines read again by the larger recognizer (``bridge.vision.ppocr``, ``SECOND``):
on a real screen whose paragraph the tiny recognizer misreads, the second reading is kept;
junk and confident lines are not read again."""

from __future__ import annotations

import pytest
from PIL import Image

from bridge.vision.boxes import TextBox, same_row
from bridge.vision.ppocr import (
    SECOND_BELOW,
    SECOND_FLOOR,
    PpOcrEngine,
    _agrees,
    _confirms,
    _disputed,
    _doubtful,
    _dropped,
    _letter_alone,
    _mean,
)
from tests.skips import need_vision
from tests.vision.real.score import load


def _tiny_alone(engine: PpOcrEngine, image: Image.Image) -> tuple[TextBox, ...]:
    """``engine``'s lines of ``image`` read with its tiny recognizer alone (no second), nothing
    remembered from earlier readings either way."""
    second, engine._second = engine._second, None
    engine.forget_lines()
    try:
        return engine.read(image)
    finally:
        engine._second = second
        engine.forget_lines()


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
    sure = [_word("Sk", 1.0), _word("Map", 1.0)]
    assert not _doubtful(sure, [(2, "S", 1.0), (4, "k", 1.0), (6, " ", 0.99), (9, "M", 1.0)])
    assert _doubtful(sure, [(2, "S", 1.0), (4, "k", 1.0), (6, " ", 0.57), (9, "M", 1.0)])
    assert _doubtful([_word("EdinburghWaverley", 1.0)])  # a capital inside: two words joined
    assert not _doubtful([_word("Edinburgh", 1.0), _word("Waverley", 1.0), _word("DC", 1.0)])
    assert _doubtful([_word("40%", 1.0), _word("D18:13:30", 0.96)])  # an icon glued to a time
    assert not _doubtful([_word("40%", 1.0), _word("18:13:30", 0.99), _word("PM1:30", 0.99)])


@need_vision
def test_a_status_icon_glued_to_the_time_is_read_again() -> None:
    """Alarmio (tests/vision/real): the battery icon between ``40%`` and the time read as a
    ``D`` of 0.62 glued to it, ``D18:13:30`` at 0.95 in all; the second recognizer reads no
    character there."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    words = " ".join(b.text for b in engine.read(load("alarmio-clock"))).split()
    assert "18:13:30" in words and "D18:13:30" not in words, words


@need_vision
def test_a_letter_the_first_recognizer_took_for_a_doubtful_space_is_read_again() -> None:
    """Sky Map (tests/vision/real): the tiny recognizer read its title's ``y`` as a space
    of 0.57, every letter it kept sure; the words were ``Sk Map`` until a doubtful space made
    the line doubtful too."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    title = [line.text for line in engine.read(load("skymap-tablet")) if line.box[1] < 100]
    assert "Sky Map" in title, title


@need_vision
def test_two_words_of_a_map_label_read_as_one_are_read_again() -> None:
    """CycleStreets (tests/vision/real): ``Edinburgh Waverley`` read ``EdinburghWaverley``
    at 0.99; the second recognizer parts them."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    words = " ".join(b.text for b in engine.read(load("cyclestreets-journey-map"))).split()
    assert {"Edinburgh", "Waverley"} <= set(words), words


@need_vision
def test_a_misread_paragraph_is_read_right_by_the_second_recognizer() -> None:
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    image = load("2048-tablet")
    words = " ".join(b.text for b in engine.read(image)).split()
    assert {"number", "merge"} <= set(words), words
    assert engine.second_taken >= 1 and engine.second_reads >= engine.second_taken
    alone = " ".join(b.text for b in _tiny_alone(engine, image)).split()
    assert "numher" in alone and "number" not in alone, alone


def test_the_second_reading_may_split_the_same_characters_but_not_join_or_add() -> None:
    first = [_word("100ft", 0.86)]
    assert _agrees([_word("100", 0.99), _word("ft", 0.93)], first)  # the same characters
    assert _agrees([_word("1O0ft", 0.99)], first)  # as many words
    assert not _agrees([_word("ap1/3", 0.93)], [_word("aP", 0.61), _word("1/3", 0.98)])
    assert not _agrees([_word("Epidavro", 0.79), _word("u", 0.92)], [_word("Epidavro", 0.72)])


@need_vision
def test_a_lone_digit_the_second_recognizer_disputes_is_dropped() -> None:
    """Navit (tests/vision/real): a roundabout sign on the route reads ``9`` (a detected
    line) and a mark on the map ``1`` (a lone glyph the detector passed over) with the tiny
    recognizer alone; the second reads neither so (the roundabout ``33``), and neither is
    kept, nor the second's reading of the sign."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    image = load("navit-route-map")
    short = [b.text for b in engine.read(image) if len(b.text) <= 2]
    assert not {"1", "9", "33"} & set(short), short
    alone = [b.text for b in _tiny_alone(engine, image) if len(b.text) <= 2]
    assert {"1", "9"} <= set(alone), alone


def test_a_line_that_dropped_a_character_read_with_some_confidence_is_read_again() -> None:
    assert _dropped([(3, "U", 0.77)], [])  # a key read with doubt, left out alone
    assert _dropped(
        [(1, "q", 1.0), (6, "w", 0.7), (12, "e", 1.0)], [_word("q", 1.0), _word("e", 1.0)]
    )
    assert not _dropped([(3, "U", 0.4)], [])  # junk
    assert not _dropped([(1, "1", 0.99), (2, "2", 0.99)], [_word("12", 0.99)])
    assert not _dropped([(3, ".", 0.9)], [])  # no letter or digit


def test_the_second_reading_is_taken_where_it_reads_what_the_first_dropped() -> None:
    assert _confirms([_word("u", 0.98)], [], [(3, "U", 0.77)])
    keys = [_word("q", 1.0), _word("e", 1.0)]
    seen = [(1, "q", 1.0), (6, "w", 0.7), (12, "e", 1.0)]
    assert _confirms([_word("q", 0.99), _word("w", 1.0), _word("e", 0.99)], keys, seen)
    assert not _confirms([_word("u", 0.98)], [], [(3, "n", 0.77)])  # read otherwise
    assert not _confirms([_word("1", 0.98)], [], [(3, "l", 0.77)])  # a stroke: no fold here
    # a one-character word added beside longer ones: a tick or an icon, not taken
    assert not _confirms(
        [_word("30", 1.0), _word("1", 0.9)],
        [_word("30", 1.0)],
        [(2, "3", 1.0), (4, "0", 1.0), (9, "1", 0.6)],
    )


@need_vision
def test_keys_the_first_recognizer_dropped_are_read_by_the_second() -> None:
    """ReTerminal (tests/vision/real): the tiny recognizer reads its keyboard's ``u`` at 0.77,
    its ``p`` at 0.65 and the ``w`` of ``q w e`` at 0.7, and drops them as doubtful lone
    glyphs; the second reads all three sure (``_dropped``, ``_confirms``)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    image = load("reterminal-ls-root")
    words = " ".join(b.text for b in engine.read(image) if b.box[1] > 1100).split()
    assert {"q", "w", "e", "u", "p"} <= set(words), words
    alone = " ".join(b.text for b in _tiny_alone(engine, image) if b.box[1] > 1100).split()
    assert not {"w", "u", "p"} & set(alone), alone


def test_a_glyph_is_disputed_when_the_second_reading_holds_no_such_character_sure() -> None:
    assert _disputed([(3, "X", 0.91)], "8")  # an hourglass icon: ``8``, then ``X``
    assert _disputed([], "4")  # a pushpin: ``4``, then nothing
    assert _disputed([(3, "1", 0.42)], "1")  # the same character, but not sure
    assert not _disputed([(0, "1", 0.99), (3, "9", 0.99)], "9")  # a neighbour's mark beside
    assert not _disputed([(3, "O", 0.9)], "0")  # glyphs no recognizer tells apart alone
    assert not _disputed([(3, "l", 0.9)], "1")
    assert not _disputed([(3, "w", 0.85)], "W")


def test_a_lone_letter_is_read_again_only_when_sure_clear_of_the_edges_and_no_icon() -> None:
    size = (1080, 2400)
    assert _letter_alone([_word("C", 0.99)], (600, 2000, 700, 2100), size)
    assert not _letter_alone([_word("C", 0.93)], (600, 2000, 700, 2100), size)  # not sure
    assert not _letter_alone([_word("7", 0.99)], (600, 2000, 700, 2100), size)  # a digit's rule
    assert not _letter_alone([_word("Q", 0.99)], (600, 2000, 700, 2100), size)  # a magnifier
    assert not _letter_alone([_word("n", 0.99)], (1050, 1300, 1080, 1350), size)  # a cut label
    assert not _letter_alone([_word("R", 0.99)], (300, 0, 310, 14), size)


@need_vision
def test_a_lone_letter_both_recognizers_read_is_a_word_outside_a_row() -> None:
    """NCalculator and a hex clock (tests/vision/real): a calculator's clear key ``C`` and a
    dial's ``C`` stand alone, in no row of glyphs; the tiny recognizer alone reads each
    surely and keeps neither (a lone letter is kept only in a row), the second reads the
    same letter surely too (``SURE_LETTER``) and each is kept."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    for name, below in (("ncalculator-keypad", 1900), ("lemcal-hex-clock", 700)):
        image = load(name)
        letters = [b.text for b in engine.read(image) if b.box[1] > below and len(b.text) == 1]
        assert "C" in letters, (name, letters)
        assert engine._sure  # remembered with the line, so a next frame keeps it too
        alone = [b.text for b in _tiny_alone(engine, image) if b.box[1] > below]
        assert "C" not in alone, (name, alone)
        assert not engine._sure  # forgotten with the lines (``forget_lines``)


@need_vision
def test_an_icon_read_as_a_glyph_that_the_second_recognizer_disputes_is_dropped() -> None:
    """Pomofocus on a tablet (tests/vision/real): the hourglass before ``Gym`` reads ``8``
    at 0.98 with the tiny recognizer alone and ``X`` with the second; a glyph alone, not in
    a row of one-character lines, that the two read apart is no word (``DISPUTED``)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    image = load("pomofocus-timer-tablet")
    words = " ".join(b.text for b in engine.read(image)).split()
    assert "Gym" in words and "8" not in words, words
    alone = " ".join(b.text for b in _tiny_alone(engine, image)).split()
    assert "8" in alone, alone


def test_a_second_look_does_not_replace_the_line_below_it() -> None:
    twenty_m = (39, 18, 114, 53)  # the second look's `20 m` over a scale bar
    assert same_row((27, 17, 122, 61), twenty_m)  # the first reading of `20 m`
    assert not same_row((22, 38, 137, 102), twenty_m)  # `100 ft`, under the bar


@need_vision
def test_the_second_recognizer_is_loaded_only_when_a_line_needs_it() -> None:
    from PIL import Image, ImageDraw, ImageFont

    from bridge.vision.ppocr import load as load_ppocr

    engine = load_ppocr("ppocr")
    assert isinstance(engine, PpOcrEngine) and engine._second is not None, engine
    clean = Image.new("RGB", (600, 300), "white")
    ImageDraw.Draw(clean).text(
        (50, 50), "Score 120", fill="black", font=ImageFont.load_default(size=40)
    )
    assert [b.text for b in engine.read(clean)] == ["Score 120"]
    assert not engine._second.loaded and engine.second_reads == 0
    engine.read(load("2048-tablet"))
    assert engine._second.loaded and engine.second_reads > 0


def test_a_line_turns_only_when_read_turned_it_is_sure_and_long_enough() -> None:
    from bridge.vision.words import Word, upside_down

    def line(text: str, confidence: float) -> list[Word]:
        return [Word(part, (0, 0, 1, 1), confidence) for part in text.split()]

    assert upside_down(line("9s:0", 0.82), line("0:56", 0.99))
    assert not upside_down(line("9s:0", 0.82), line("0:56", 0.9))  # not sure enough
    assert not upside_down(line("9s:0", 0.89), line("0:56", 0.95))  # not enough above
    assert not upside_down(line("q", 0.82), line("b", 1.0))  # a glyph: either way
    assert not upside_down(line("66 8 2 94", 0.87), line("6 8", 1.0))  # fewer characters


@need_vision
def test_a_chess_clocks_far_half_is_read_upside_down() -> None:
    """A chess clock on a tablet (tests/vision/real): the far player's half is turned half a
    turn; read upright, its time was ``9s:0`` and its moves ``L :SAA0W``."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    lines = [line.text for line in engine.read(load("chessclock-tablet"))]
    assert lines.count("0:56") == 2 and "Moves: 1" in lines, lines
    assert not any("SAA" in text or "9s" in text for text in lines), lines


def test_a_space_read_over_ink_goes_where_the_second_reading_joins_its_words() -> None:
    from bridge.vision.ppocr import _joins_inked

    def chars(text: str) -> list[tuple[int, str, float]]:
        return [(2 * k, c, 0.9) for k, c in enumerate(text)]

    read = chars("Qwer ty169")
    over_ink = [read[4]]  # the space: some column under it holds ink
    first = [_word("Qwer", 0.9), _word("ty169", 0.95)]
    joined = [_word("Qwerty169", 0.97)]
    assert _joins_inked(joined, first, read, over_ink)
    assert not _joins_inked(joined, first, read, [])  # a space on blank columns stays
    assert not _joins_inked([_word("Qwerty16", 0.97)], first, read, over_ink)  # read otherwise
    assert not _joins_inked(first, first, read, over_ink)  # no fewer words
    date = chars("28, 2025")
    assert not _joins_inked(  # a comma ends its word
        [_word("28,2025", 0.97)], [_word("28,", 0.9), _word("2025", 0.9)], date, [date[3]]
    )
    time = chars("9014 17:56")
    assert not _joins_inked(  # two numbers side by side
        [_word("901417:56", 0.97)], [_word("9014", 0.9), _word("17:56", 0.9)], time, [time[4]]
    )
    label = chars("St: 18")
    assert _joins_inked(  # a label's colon and its value
        [_word("St:18", 0.97)], [_word("St:", 0.9), _word("18", 0.9)], label, [label[3]]
    )


@need_vision
def test_a_players_name_read_with_a_space_over_its_letters_is_one_word() -> None:
    """OGS on a tablet (tests/vision/heldout): the tiny recognizer reads ``Qwer ty169`` with
    a space where no blank column is; the second reads ``Qwerty169``."""
    from tests.vision.real import score

    lines = score.hub_reader()(score.load("ogsdroid-go-board-tablet", score.HELDOUT))
    words = [w for line in lines for w in line.split()]
    assert words.count("Qwerty169") == 2 and "ty169" not in words, words
