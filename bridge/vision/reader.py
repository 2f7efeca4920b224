"""Read the blind regions of one screenshot: crop, hash, look up, OCR what is new.

``read_regions`` is synchronous and CPU-bound (cropping, hashing, OCR): the hub calls it in a
worker thread (``anyio.to_thread.run_sync`` with a limiter of one), never on its event loop.
It never raises for what the engine does: a region whose OCR fails reads as no text and is
counted (``ReadStats.failures``). Region bounds are device pixels; ``scale`` is screenshot
pixels per device pixel (a device may send a downscaled screenshot). A region's result is
cached by its pixels' hash, so a screen shown again costs a hash, not an OCR pass; and when
only a small part of a region changed since its last reading (a score, a timer), only that
part is read and the other lines are kept (``RegionReader._changed_part``). Besides
text, a region's targets without words (a play triangle, a pause sign, a close cross:
``bridge.vision.icons``) become BUTTON items labelled with the shape's name. Timings of
OCR passes are kept (the last ``TIMINGS``) for ``stats``.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageChops

from bridge.vision import icons
from bridge.vision.boxes import centre_in
from bridge.vision.cache import ResultCache, key_of
from bridge.vision.engine import Box, OcrEngine, TextBox
from bridge.vision.overlay import MAX_ITEMS, Overlay, VisionItem
from bridge.vision.regions import Region
from bridge.vision.shapes import background_of, looks_like_button
from bridge.vision.words import ROW, in_row
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
    partial: int = 0
    """Passes that read only the changed part of a region (the rest kept from its last
    reading)."""


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


Reading = tuple[tuple[tuple[TextBox, Role], ...], tuple[tuple[str, Box, float], ...]]
"""What one region holds: its lines with their roles, and its shapes."""


def read_region(engine: OcrEngine, region: Image.Image, shapes: bool = True) -> Reading:
    """What ``region`` holds: its lines (``read_lines``) and, when ``shapes``, its targets
    without words (``with_shapes``)."""
    lines = read_lines(engine, region)
    return with_shapes(region, lines) if shapes else (lines, ())


def with_shapes(region: Image.Image, lines: tuple[tuple[TextBox, Role], ...]) -> Reading:
    """``lines`` (read from ``region``) and the targets without words ``icons`` finds in it
    (``read_shapes``). A line that reads as the shape its centre lies in is that shape, not
    text: a lone ``X`` on a close cross (a search bar's or a dialog's ``✕``), with no row
    of one-character lines beside it (``words.ROW``: a keyboard's or a word game's
    letters), or two bars (``11``, ``ll``) on a pause sign (a game's pause button). Such a
    line is left out of the lines and kept as the shape."""
    found = icons.find(region)
    if found:
        lines = tuple(
            (line, role) for line, role in lines if not _reads_as_shape(line, lines, found)
        )
    return lines, read_shapes(lines, found)


CROSSES = frozenset("Xx\u00d7\u2715\u2716")
"""What a close cross reads as."""
BARS = frozenset("1lI|!")
"""What each of a pause sign's two bars reads as."""


def _reads_as_shape(
    line: TextBox,
    lines: Sequence[tuple[TextBox, Role]],
    found: Sequence[tuple[str, Box, float]],
) -> bool:
    """Whether ``line`` is the reading of a shape of ``found`` its centre lies in (see
    ``with_shapes``)."""
    for name, box, _ in found:
        if not centre_in(line.box, box):
            continue
        if name == "close" and line.text in CROSSES and _row_of(line, lines) + 1 < ROW:
            return True
        if name == "pause" and len(line.text) == 2 and set(line.text) <= BARS:
            return True
    return False


def _row_of(line: TextBox, lines: Sequence[tuple[TextBox, Role]]) -> int:
    """How many other one-character lines stand in ``line``'s row (``words.in_row``)."""
    return sum(
        1
        for other, _ in lines
        if other is not line and len(other.text) == 1 and in_row(line.box, other.box)
    )


def read_shapes(
    lines: Sequence[tuple[TextBox, Role]], found: Sequence[tuple[str, Box, float]]
) -> tuple[tuple[str, Box, float], ...]:
    """The targets without words ``found`` in a region (``bridge.vision.icons.find``):
    (shape, box, confidence), those overlapping a line of ``lines`` left out (a glyph of a
    word, ``l!``, is not a pause sign)."""
    return tuple(
        shape for shape in found if not any(_overlaps(shape[1], line.box) for line, _ in lines)
    )


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _within(a: Box, b: Box) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def _shift(box: Box, x: int, y: int) -> Box:
    return (box[0] + x, box[1] + y, box[2] + x, box[3] + y)


LAST_REGIONS = 8
"""Regions whose last pixels and reading are kept for the next frame."""
PARTIAL = 0.25
"""A change covering at most this share of a region is read alone (the rest kept)."""
MARGIN = 0.5
"""The changed part is grown by this share of its height on every side before reading."""
_CHANGED = [0 if v <= 12 else 255 for v in range(256)]
"""A pixel whose grey level differs from the last frame's by more than 12 changed."""


class RegionReader:
    """One engine, one bounded cache, its statistics. Not thread-safe: one call at a time.
    ``shapes``: also look for targets without words (``with_shapes``; without them a close
    cross read as ``X`` stays a word)."""

    def __init__(self, engine: OcrEngine, cache: ResultCache[Reading], shapes: bool = True):
        self.engine = engine
        self.cache = cache
        self.shapes = shapes
        self.stats = ReadStats()
        self._last: OrderedDict[Bounds, tuple[Image.Image, Reading]] = OrderedDict()
        """Each region's last pixels (in grey: a third of the memory) and reading
        (``LAST_REGIONS`` at most)."""

    def forget(self) -> None:
        """Drop every cached reading and every region's last frame: the next reading of any
        pixels goes through the engine."""
        self.cache = ResultCache(self.cache.capacity)
        self._last.clear()

    def _changed_part(self, bounds: Bounds, crop: Image.Image) -> Reading | None:
        """The reading of ``crop`` from the region's last one when only a small part changed
        (a score, a timer): that part, grown to whole lines and by ``MARGIN`` of its height,
        is read alone; lines and shapes outside it are kept. A part in a row of
        one-character lines (a word game's tiles) is not read alone: whether a lone letter
        is a word depends on its row (``words.in_rows``, ``sure_when_alone``), which a
        crop of the part would not hold, so the region is read whole (None). None too when
        there is no last reading of the same size or the change covers more than ``PARTIAL``
        of the region."""
        last = self._last.get(bounds)
        if last is None or last[0].size != crop.size:
            return None
        before, (old_lines, old_shapes) = last
        changed = ImageChops.difference(before, crop.convert("L")).point(_CHANGED).getbbox()
        if changed is None:
            return last[1]
        whole = crop.width * crop.height
        grow = max(8, int(MARGIN * (changed[3] - changed[1])))
        part = (
            max(0, changed[0] - grow),
            max(0, changed[1] - grow),
            min(crop.width, changed[2] + grow),
            min(crop.height, changed[3] + grow),
        )
        boxes = [line.box for line, _ in old_lines] + [box for _, box, _ in old_shapes]
        grown = True
        while grown:  # a line the change touches is read again whole
            grown = False
            for box in boxes:
                if _overlaps(box, part) and not _within(box, part):
                    part = (
                        max(0, min(part[0], box[0] - 4)),
                        max(0, min(part[1], box[1] - 4)),
                        min(crop.width, max(part[2], box[2] + 4)),
                        min(crop.height, max(part[3], box[3] + 4)),
                    )
                    grown = True
        singles = [line.box for line, _ in old_lines if len(line.text) == 1]
        near = [b for b in singles if _overlaps(b, part)] + [changed]
        if any(not _within(b, part) and any(in_row(b, n) for n in near) for b in singles):
            return None  # a tile among its row's: read whole, as a lone letter is judged
        if (part[2] - part[0]) * (part[3] - part[1]) > PARTIAL * whole:
            return None
        sub = crop.crop(part)
        fresh, fresh_shapes = read_region(self.engine, sub, self.shapes)
        x, y = part[0], part[1]
        lines = [(ln, role) for ln, role in old_lines if not _overlaps(ln.box, part)]
        lines += [
            (TextBox(ln.text, _shift(ln.box, x, y), ln.confidence), role) for ln, role in fresh
        ]
        shapes = [s for s in old_shapes if not _overlaps(s[1], part)]
        shapes += [(n, _shift(b, x, y), c) for n, b, c in fresh_shapes]
        lines.sort(key=lambda lr: (lr[0].box[1], lr[0].box[0]))
        return tuple(lines), tuple(shapes)

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
                try:
                    reading = self._changed_part(b, crop)
                    if reading is None:
                        reading = read_region(self.engine, crop, self.shapes)
                    else:
                        self.stats.partial += 1
                except Exception as exc:  # an engine fault: this region reads as no text
                    self.stats.failures += 1
                    self.stats.last_failure = f"{type(exc).__name__}: {exc}"[:200]
                    reading = ((), ())
                self.stats.passes += 1
                self.stats.ocr_ms.append((time.perf_counter() - started) * 1000)
                self.cache.put(key, reading)
            self._last[b] = (crop.convert("L"), reading)
            self._last.move_to_end(b)
            while len(self._last) > LAST_REGIONS:
                self._last.popitem(last=False)
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
