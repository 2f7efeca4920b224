"""The grey copy and ink of the last image looked at are made once (``bridge.vision.glyphs``,
``_Copies``): the glyphs' and the shapes' passes over one region share them, in any thread,
another image is looked at anew, and the kept copies neither keep an image alive nor outlive
it. The detector's input is
scaled by a table with the values the arithmetic gave (``bridge.vision.ppocr._levels``)."""

from __future__ import annotations

import gc
import weakref

import pytest
from PIL import Image, ImageDraw

from bridge.vision import glyphs, icons
from tests.skips import need_vision


def _screen(text: str) -> Image.Image:
    image = Image.new("RGB", (1080, 1600), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    draw.text((100, 100), text, fill=(20, 20, 20), font_size=60)
    draw.rectangle((500, 800, 620, 920), fill=(30, 30, 30))
    return image


@need_vision
def test_one_image_is_made_grey_once_for_glyphs_and_shapes() -> None:
    image = _screen("SCORE 120")
    grey, scale = glyphs.grey_of(image)
    assert max(grey.shape) == glyphs.WORK_SIDE and scale < 1.0
    again, ink, _ = glyphs.ink_of(image, icons.SURROUND)
    assert again is grey  # the same array: not made again
    glyphs.candidates(image, [])
    assert glyphs.ink_of(image, icons.SURROUND)[1] is ink
    icons.find(image)
    assert glyphs.grey_of(image)[0] is grey


@need_vision
def test_another_image_is_looked_at_anew() -> None:
    import numpy as np

    first = _screen("SCORE 120")
    grey = glyphs.grey_of(first)[0].copy()
    second = _screen("LEVEL 7")  # a new object with other pixels, same size
    other = glyphs.grey_of(second)[0]
    assert not np.array_equal(grey, other)
    assert np.array_equal(other, glyphs._grey_of(second)[0])
    assert np.array_equal(glyphs.ink_of(second)[1], glyphs.ink_in(other, glyphs.SURROUND))


@need_vision
def test_the_copies_do_not_keep_an_image_alive_and_go_with_it() -> None:
    """One image's copies at most, for the whole process, let go with the image: no thread
    that read a region keeps its arrays after the region is gone."""
    image = _screen("SCORE 120")
    glyphs.ink_of(image)
    assert glyphs._copies.grey is not None and glyphs._copies.ink
    gone = weakref.ref(image)
    del image
    gc.collect()
    assert gone() is None
    assert glyphs._copies.grey is None and not glyphs._copies.ink


@need_vision
def test_a_copy_made_in_one_thread_serves_another() -> None:
    """The hub reads a region in whichever worker thread its pool gives: a grey copy made in
    one thread is the one another thread gets for the same image."""
    from concurrent.futures import ThreadPoolExecutor

    image = _screen("SCORE 120")
    with ThreadPoolExecutor(1) as pool:
        grey, ink, _ = pool.submit(glyphs.ink_of, image).result()
    again, ink_again, _ = glyphs.ink_of(image)
    assert again is grey and ink_again is ink


@need_vision
def test_the_lone_glyphs_look_is_made_beside_the_lines_and_used_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reading makes the lone glyphs' grey copy and ink of the whole image on a window
    thread while it detects and reads the lines (``glyphs.prepare``), and the lone glyphs
    then take those very arrays: none is made twice."""
    import threading

    from bridge.vision.engine import load_engine
    from bridge.vision.ppocr import PpOcrEngine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    made: list[tuple[str, str]] = []
    prepare, grey_of = glyphs.prepare, glyphs._grey_of

    def noted(image: Image.Image) -> None:
        made.append(("prepare", threading.current_thread().name))
        prepare(image)

    def counted(image: Image.Image) -> tuple[object, float]:
        made.append(("grey", threading.current_thread().name))
        return grey_of(image)

    monkeypatch.setattr(glyphs, "prepare", noted)
    monkeypatch.setattr(glyphs, "_grey_of", counted)
    ink_in = glyphs.ink_in
    inks: list[float] = []

    def ink_counted(grey: object, surround: float) -> object:
        inks.append(surround)
        return ink_in(grey, surround)

    monkeypatch.setattr(glyphs, "ink_in", ink_counted)
    image = _screen("SCORE 120")
    engine.forget_lines()
    engine.read(image)
    assert [kind for kind, _ in made] == ["prepare", "grey"], "one grey copy, made once"
    assert all(thread.startswith("ocr-window") for _, thread in made)
    assert sorted(inks) == sorted(glyphs.GROUNDS), "each ink made once, by prepare"


@need_vision
def test_the_detectors_scale_table_is_the_arithmetic() -> None:
    import numpy as np

    from bridge.vision.ppocr import _levels

    levels = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=2)
    arithmetic = (np.asarray(levels, dtype=np.float32) / 255.0 - 0.5) / 0.5
    assert np.array_equal(_levels()[levels], arithmetic)
    assert _levels().dtype == np.float32 and _levels()[0] == -1.0 and _levels()[255] == 1.0
