"""Read the blind regions of one screenshot: crop, hash, look up, OCR what is new.

``read_regions`` is synchronous and CPU-bound (cropping, hashing, OCR): the hub calls it in a
worker thread (``anyio.to_thread.run_sync`` with a limiter of one), never on its event loop.
It never raises for what the engine does: a region whose OCR fails reads as no text and is
counted (``ReadStats.failures``). Region bounds are device pixels; ``scale`` is screenshot
pixels per device pixel (a device may send a downscaled screenshot). A region's result is
cached by its pixels' hash, so a screen shown again costs a hash, not an OCR pass. Besides
text, a region's targets without words (a play triangle, a pause sign, a close cross:
``bridge.vision.icons``) become BUTTON items labelled with the shape's name. Timings of
OCR passes are kept (the last ``TIMINGS``) for ``stats``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image

from bridge.vision import icons
from bridge.vision.cache import ResultCache, key_of
from bridge.vision.engine import Box, OcrEngine, TextBox
from bridge.vision.overlay import MAX_ITEMS, Overlay, VisionItem
from bridge.vision.regions import Region
from bridge.vision.shapes import background_of, looks_like_button
from bridge.wire.base import Bounds
from bridge.wire.enums import Role

TIMINGS = 256


@dataclass
class ReadStats:
    passes: int = 0
    ocr_ms: deque[float] = field(default_factory=lambda: deque(maxlen=TIMINGS))
    failures: int = 0
    """Regions whose OCR raised: read as no text (and cached as such: the same pixels are
    not tried again)."""
    last_failure: str | None = None


def read_lines(engine: OcrEngine, region: Image.Image) -> tuple[tuple[TextBox, Role], ...]:
    """Lines in ``region`` with their role (TEXT, or BUTTON when the shape says so). No text
    (an empty, uniform or purely graphic region) is an empty answer, not an error; an error
    of the engine itself propagates (``RegionReader`` counts it)."""
    lines = engine.read(region)
    if not lines:
        return ()
    background = background_of(region)
    return tuple(
        (line, Role.BUTTON if looks_like_button(region, line.box, background) else Role.TEXT)
        for line in lines
    )


def read_shapes(
    region: Image.Image, lines: Sequence[tuple[TextBox, Role]]
) -> tuple[tuple[str, Box, float], ...]:
    """Targets without words in ``region`` (``bridge.vision.icons``): (shape, box,
    confidence), those overlapping a line of ``lines`` left out (a glyph of a word, ``l!``,
    is not a pause sign)."""
    return tuple(
        found
        for found in icons.find(region)
        if not any(_overlaps(found[1], line.box) for line, _ in lines)
    )


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


Reading = tuple[tuple[tuple[TextBox, Role], ...], tuple[tuple[str, Box, float], ...]]
"""What one region holds: its lines with their roles, and its shapes."""


class RegionReader:
    """One engine, one bounded cache, its statistics. Not thread-safe: one call at a time.
    ``shapes``: also look for targets without words (``read_shapes``)."""

    def __init__(self, engine: OcrEngine, cache: ResultCache[Reading], shapes: bool = True):
        self.engine = engine
        self.cache = cache
        self.shapes = shapes
        self.stats = ReadStats()

    def read_regions(
        self, screenshot: Image.Image, regions: Sequence[Region], scale: float
    ) -> Overlay:
        image = screenshot.convert("RGB")
        out: list[tuple[Bounds, tuple[VisionItem, ...]]] = []
        for region in regions:
            b = region.bounds
            crop_box = (
                max(0, int(b[0] * scale)),
                max(0, int(b[1] * scale)),
                min(image.width, int(b[2] * scale)),
                min(image.height, int(b[3] * scale)),
            )
            if crop_box[2] - crop_box[0] < 8 or crop_box[3] - crop_box[1] < 8:
                out.append((b, ()))
                continue
            crop = image.crop(crop_box)
            key = key_of(crop)
            reading = self.cache.get(key)
            if reading is None:
                started = time.perf_counter()
                shapes: tuple[tuple[str, Box, float], ...] = ()
                try:
                    lines = read_lines(self.engine, crop)
                    if self.shapes:
                        shapes = read_shapes(crop, lines)
                except Exception as exc:  # an engine fault: this region reads as no text
                    self.stats.failures += 1
                    self.stats.last_failure = f"{type(exc).__name__}: {exc}"[:200]
                    lines = ()
                self.stats.passes += 1
                self.stats.ocr_ms.append((time.perf_counter() - started) * 1000)
                reading = (lines, shapes)
                self.cache.put(key, reading)
            lines, shapes = reading
            items = [
                VisionItem(
                    text=line.text,
                    bounds=(
                        int((crop_box[0] + line.box[0]) / scale),
                        int((crop_box[1] + line.box[1]) / scale),
                        int((crop_box[0] + line.box[2]) / scale),
                        int((crop_box[1] + line.box[3]) / scale),
                    ),
                    role=role,
                    confidence=line.confidence,
                )
                for line, role in lines
            ]
            items += [
                VisionItem(
                    text="",
                    bounds=(
                        int((crop_box[0] + box[0]) / scale),
                        int((crop_box[1] + box[1]) / scale),
                        int((crop_box[0] + box[2]) / scale),
                        int((crop_box[1] + box[3]) / scale),
                    ),
                    role=Role.BUTTON,
                    confidence=confidence,
                    shape=name,
                )
                for name, box, confidence in shapes
            ]
            items.sort(key=lambda it: -it.confidence)
            kept = sorted(items[:MAX_ITEMS], key=lambda it: (it.bounds[1], it.bounds[0]))
            out.append((b, tuple(kept)))
        return Overlay(tuple(out))
