"""Two lines in one detected box (``bridge.vision.inks.two_lines``): a title over its
subtitle, joined by the detector's map, is read as two lines, not squeezed into one crop."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw, ImageFont

from bridge.vision.boxes import Box
from bridge.vision.inks import two_lines
from tests.skips import need_vision
from tests.vision.real import score

pytestmark = need_vision  # numpy comes with the vision extra


def _pixels(lines: list[tuple[str, int]], icon: bool = False) -> tuple[Any, Box]:
    import numpy as np

    image = Image.new("L", (400, 120), 20)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=32)
    for text, y in lines:
        draw.text((70, y), text, fill=230, font=font)
    if icon:  # a mark beside both lines, inking a little of every row between them
        draw.rectangle((10, 10, 40, 110), outline=230, width=2)
    return np.asarray(image.convert("RGB"), dtype=np.float32), (0, 0, 400, 120)


def test_a_title_over_a_subtitle_is_cut_between_them() -> None:
    pixels, box = _pixels([("Weather monitor", 14), ("On - 15m", 70)], icon=True)
    top, bottom = two_lines(pixels, box)
    assert top[3] == bottom[1] and 45 <= top[3] <= 72, (top, bottom)
    assert (top[0], top[1], bottom[2], bottom[3]) == box


def test_one_line_or_lines_of_unlike_heights_stay_whole() -> None:
    import numpy as np

    pixels, box = _pixels([("Weather monitor", 40)])
    assert two_lines(pixels, box) == [box]
    small = Image.new("L", (400, 120), 20)
    draw = ImageDraw.Draw(small)
    draw.text((70, 10), "Title", fill=230, font=ImageFont.load_default(size=60))
    draw.text((70, 95), "tiny", fill=230, font=ImageFont.load_default(size=12))
    assert two_lines(np.asarray(small.convert("RGB"), dtype=np.float32), box) == [box]


def test_a_short_or_narrow_box_is_left_whole() -> None:
    pixels, _ = _pixels([("Weather monitor", 14), ("On - 15m", 70)])
    assert two_lines(pixels, (0, 0, 400, 20)) == [(0, 0, 400, 20)]
    assert two_lines(pixels, (0, 0, 200, 120)) == [(0, 0, 200, 120)]
    top, bottom = two_lines(pixels, (0, 0, 200, 120), narrow=True)  # asked to look
    assert top[3] == bottom[1] and 45 <= top[3] <= 72, (top, bottom)


def test_a_score_over_its_best_in_one_narrow_box_is_read_as_two_lines() -> None:
    """Splinter Sweets (tests/vision/real): the score ``49`` over the best ``50`` in the
    top right corner, one box of the detector 106 pixels wide and 118 tall, read as nothing
    whole; each of its two lines reads right (``PpOcrEngine._stacked``)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    words = [b.text for b in engine.read(score.load("splintersweets-landscape"))]
    assert "49" in words and "50" in words, words


def test_trail_senses_two_line_row_is_read_as_two_lines() -> None:
    """Before, the detector's one box read as `Wn-ther monitor` (tests/vision/real)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines = [line.text for line in engine.read(score.load("trailsense-pressure"))]
    assert "Weather monitor" in lines and "On 15m" in lines, lines  # a lone dash is no word


def test_two_lines_set_tight_are_cut_where_the_rows_between_them_are_nearly_blank() -> None:
    """The upper line's underscores and descenders ink the rows between the lines a little:
    no row is blank enough for the strict rule, yet the lines are two."""
    import numpy as np

    image = Image.new("L", (600, 80), 0)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    draw.text((10, 4), "HACKRF_1393_Hz_4MSps.iq", fill=255, font=font)
    draw.text((150, 26), "demod at 14.219074 MHz", fill=255, font=font)
    pixels = np.asarray(image.convert("RGB"), dtype=np.float32)[8:66]
    share = (pixels.mean(axis=2) > 48).mean(axis=1)
    between = share[5:46]  # from the upper line's first inked row to the lower's last
    assert int((between < 0.05).sum()) < 3  # blank rows under SPLIT_GAP: the strict rule fails
    top, bottom = two_lines(pixels, (0, 8, 600, 66))
    assert 8 + 22 <= top[3] == bottom[1] <= 8 + 28, (top, bottom)


def test_rf_analyzers_file_name_over_its_frequency_is_read_as_two_lines() -> None:
    """RF Analyzer (tests/vision/real): the two tight lines read as one line of junk, and
    `demod at 14.219074 MHz` was lost."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    words = [
        w for line in engine.read(score.load("rfanalyzer-waterfall")) for w in line.text.split()
    ]
    for word in ("demod", "at", "14.219074", "MHz"):
        assert words.count(word) == 1, (word, words)


def test_an_app_icon_beside_a_title_and_its_subtitle_does_not_join_them() -> None:
    """A browser tab's icon (a filled square as tall as both lines, NewPipe's pop-up
    player in tests/vision/real) inks every row between them: the rows read as not blank,
    and the two lines as one (``earch.``)."""
    import numpy as np

    image = Image.new("L", (400, 120), 20)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=32)
    draw.text((70, 14), "Startpage -", fill=230, font=font)
    draw.text((70, 70), "Private Search", fill=230, font=font)
    draw.rounded_rectangle((4, 12, 54, 108), radius=8, fill=230)
    pixels = np.asarray(image.convert("RGB"), dtype=np.float32)
    top, bottom = two_lines(pixels, (0, 0, 400, 120))
    assert top[3] == bottom[1] and 45 <= top[3] <= 72, (top, bottom)
    # one line beside the same square stays whole
    one = Image.new("L", (400, 120), 20)
    ImageDraw.Draw(one).text((70, 40), "Weather monitor", fill=230, font=font)
    ImageDraw.Draw(one).rounded_rectangle((4, 12, 54, 108), radius=8, fill=230)
    assert two_lines(np.asarray(one.convert("RGB"), dtype=np.float32), (0, 0, 400, 120)) == [
        (0, 0, 400, 120)
    ]


def test_newpipes_tab_title_is_read_as_two_lines() -> None:
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines = [line.text for line in engine.read(score.load("newpipe-popup-player"))]
    assert "Startpage" in lines and any(line.startswith("Private Search") for line in lines), lines


def test_two_values_read_as_one_less_surely_than_apart_are_two_lines() -> None:
    """Juggluco and CanZE (tests/vision/real): a chart's time over its reading, one narrow
    box, read ``13:151`` whole; its two lines read ``13:15`` and ``11``, each more surely,
    and so do CanZE's ``31.0`` over ``20`` (read ``3128``)."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    words = [b.text for b in engine.read(score.load("juggluco-glucose-chart-landscape"))]
    assert "13:15" in words and "11" in words and "13:151" not in words, words
    words = [b.text for b in engine.read(score.load("canze-charging-tablet"))]
    assert "31.0" in words and "3128" not in words, words


def test_a_number_is_a_whole_word_of_digits() -> None:
    from bridge.vision.ppocr import NUMBER

    for text in ("0", "120", "-10", "2.40", "12:30", "57%", "1,263"):
        assert NUMBER.fullmatch(text), text
    for text in ("HR", "bpm", "12a", "1.", "ms/10", ""):
        assert not NUMBER.fullmatch(text), text


def test_a_charts_column_of_axis_numbers_set_tight_is_read(
    monkeypatch: Any,
) -> None:
    """KE.Net ECG's heart-rate plot (tests/vision/real): its axis numbers ``200 160 120 80 40
    0``, set a pixel or two apart beside a rotated axis title, are one block to the detector
    that reads as nothing; that block detected again enlarged (``PpOcrEngine._columns``)
    gives ``120``, ``40`` and ``0``, which were not read before."""
    from bridge.vision import ppocr

    engine = ppocr.load()
    assert isinstance(engine, ppocr.PpOcrEngine), engine
    image = score.load("kenet-ecg-polar-h10").convert("RGB")
    engine.forget_lines()
    words = [w for line in engine.read(image) for w in line.text.split()]
    for number in ("120", "40", "0"):
        assert number in words, (number, words)
    monkeypatch.setattr(ppocr, "COLUMNS", 0)
    engine.forget_lines()
    words = [w for line in engine.read(image) for w in line.text.split()]
    assert "120" not in words and "40" not in words, words  # read only by the second look
