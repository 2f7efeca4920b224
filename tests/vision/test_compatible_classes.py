"""Recognizer classes read as the text they stand for (``bridge.vision.ppocr.compatible``)
and signs read as signs (``ALLOWED``): the recognizer reads an app's ``°F`` as the one sign
``℉``, which is kept as ``°F`` rather than masked away (its place went to the next class,
``F`` at 2 %, and the word was lost), and a trend arrow as an arrow, not a ``t``."""

from __future__ import annotations

from bridge.vision.ppocr import ALLOWED, compatible
from tests.skips import need_vision
from tests.vision.real import score


def test_signs_and_wide_forms_become_their_latin_text() -> None:
    assert compatible("\u2109") == "\u00b0F"  # ℉
    assert compatible("\u2103") == "\u00b0C"  # ℃
    assert compatible("\uff1a") == ":"  # a full-width colon
    assert compatible("\u246b") == "12"  # a circled twelve


def test_allowed_characters_and_other_scripts_stay_as_they_are() -> None:
    assert compatible("F") == "F"
    assert compatible("\u00b0") == "\u00b0"
    assert compatible("\u4e2d") == "\u4e2d"  # a Chinese character: still not Latin, masked
    assert "\u4e2d" not in ALLOWED
    assert compatible("\u3000") == "\u3000"  # the ideographic space is no ALLOWED text


@need_vision
def test_degrees_fahrenheit_on_a_real_screen_are_read() -> None:
    """Trail Sense's `74 °F` and `82 °F / 63 °F` (tests/vision/real): before, `74`, `82`
    and `63` alone."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines = [line.text for line in engine.read(score.load("trailsense-pressure"))]
    assert "74 \u00b0F" in lines, lines
    assert any(line.startswith("82 \u00b0F") and line.endswith("63 \u00b0F") for line in lines)
    assert not any("\u2109" in line or "\u00b0\u00b0" in line for line in lines)


@need_vision
def test_a_trend_arrow_is_read_as_an_arrow_not_a_letter() -> None:
    """GPS Cockpit's `0 ft↑` and `0 ft↓` (tests/vision/real): with arrows masked away, the
    next class won and `ft↑` read as `ftt`."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [
        w for line in engine.read(score.load("gpscockpit-landscape")) for w in line.text.split()
    ]
    assert "ft\u2191" in words and "ft\u2193" in words, words
    assert "ftt" not in words, words


def test_an_accent_read_with_doubt_is_dropped_from_its_letter() -> None:
    from bridge.vision.ppocr import ACCENT, plain_letter

    assert ACCENT == 0.8
    assert plain_letter("\u00c0") == "A"  # À
    assert plain_letter("\u00fc") == "u"  # ü
    assert plain_letter("\u00df") == "\u00df", "ß has no plain letter: it stays"
    assert plain_letter("\u00e6") == "\u00e6"


@need_vision
def test_a_star_over_a_letter_is_no_accent() -> None:
    """Sky Map (tests/vision/real): `Alnilam` under a star read `Àlnilam`, its `À` at 0.55."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [w for line in engine.read(score.load("skymap-tablet")) for w in line.text.split()]
    assert "Alnilam" in words and "\u00c0lnilam" not in words, words


@need_vision
def test_the_letters_of_central_europe_and_turkey_are_read() -> None:
    """A Karakalpak keyboard (tests/vision/real): its dotless i (U+0131) read as ``i`` and its
    ``ń`` as ``u`` while ``ALLOWED`` held only western Latin letters; a Polish map's ``Ł``
    read as ``t``."""
    from bridge.vision.engine import load_engine
    from bridge.vision.ppocr import PpOcrEngine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    words = " ".join(b.text for b in engine.read(score.load("qqkeyboard-latin-keyboard"))).split()
    dotless = "\u0131"
    assert {f"haqq{dotless}nda", f"qos{dotless}w", "kóriń"} <= set(words), words
    words = " ".join(b.text for b in engine.read(score.load("towercollector-map"))).split()
    assert "Łączna" in words, words
