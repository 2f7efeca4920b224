"""The OCR engine behind a pure interface: an RGB image in, text boxes out.

``OcrEngine.read`` is synchronous and CPU-bound: callers run it in a worker thread (see
``bridge.vision.reader``), one call at a time per engine (Tesseract's API object is not
re-entrant). ``load_engine`` returns an engine or the one-line reason there is none; it never
downloads anything: the engine is the ``tesserocr`` wheel's bundled Tesseract and the model is
the ``eng.traineddata`` a Debian package (``tesseract-ocr-eng``) installs, or the folder named
by ``TESSDATA_PREFIX``.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PIL import Image, ImageFilter, ImageOps

from bridge.vision import ENABLE_HINT

MAX_WIDTH = 720
"""Wider images are read at half size or less (phone text stays legible; OCR cost falls)."""
MIN_CONFIDENCE = 0.5
"""Words read with less confidence (0..1) are dropped."""
TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class TextBox:
    """One line of text read from an image: ``box`` is (left, top, right, bottom) in the
    image's pixels, ``confidence`` in 0..1 (the lowest of its words)."""

    text: str
    box: Box
    confidence: float


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
        self._api = tesserocr.PyTessBaseAPI(
            path=str(data) + "/", lang="eng", psm=tesserocr.PSM.SPARSE_TEXT
        )
        self._lock = threading.Lock()

    def read(self, image: Image.Image) -> tuple[TextBox, ...]:
        t = self._t
        factor = 1
        while image.width // factor > MAX_WIDTH:
            factor += 1
        prepared = dark_on_light(image if factor == 1 else image.reduce(factor))
        with self._lock:
            api = self._api
            api.SetImage(prepared)
            api.Recognize()
            lines: dict[tuple[int, int, int], list[tuple[str, Box, float]]] = {}
            it = api.GetIterator()
            level = t.RIL.WORD
            for word in t.iterate_level(it, level):
                text = word.GetUTF8Text(level)
                if not text or not text.strip():
                    continue
                conf = word.Confidence(level) / 100.0
                box = tuple(v * factor for v in word.BoundingBox(level))
                line = word.BoundingBox(t.RIL.TEXTLINE)
                block = word.BoundingBox(t.RIL.BLOCK)
                key = (block[1], line[1] if line else box[1], block[0])
                lines.setdefault(key, []).append((text.strip(), box, conf))
            api.Clear()
        out: list[TextBox] = []
        for words in lines.values():
            kept = [w for w in words if w[2] >= MIN_CONFIDENCE and _plausible(w[0])]
            if not kept or (len(kept) == 1 and len(kept[0][0]) == 1 and not kept[0][0].isdigit()):
                continue  # nothing legible, or one stray letter (a shape's edge read as "J")
            box = (
                min(w[1][0] for w in kept),
                min(w[1][1] for w in kept),
                max(w[1][2] for w in kept),
                max(w[1][3] for w in kept),
            )
            out.append(TextBox(" ".join(w[0] for w in kept), box, min(w[2] for w in kept)))
        out.sort(key=lambda b: (b.box[1], b.box[0]))
        return tuple(out)


def dark_on_light(image: Image.Image) -> Image.Image:
    """``image`` in grey with every part whose surroundings are dark inverted, so white words
    on a dark canvas and dark words on a light button both reach Tesseract (which reads dark
    on light only) as dark on light. The surroundings are a box blur about one text stroke
    group wide (a 68th of the shorter side)."""
    grey = image.convert("L")
    radius = max(4, round(min(grey.size) / 68))
    dark = grey.filter(ImageFilter.BoxBlur(radius)).point(lambda v: 255 if v < 128 else 0)
    return Image.composite(ImageOps.invert(grey), grey, dark)


def _plausible(word: str) -> bool:
    """A word with at least one letter or digit (not noise like ``—~``)."""
    return any(c.isalnum() for c in word)


_lock = threading.Lock()
_loaded: OcrEngine | str | None = None


def load_engine() -> OcrEngine | str:
    """The process's engine (loaded once), or the one line saying how to enable vision."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
        return _loaded


def _load() -> OcrEngine | str:
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
