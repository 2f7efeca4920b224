"""TEXT or BUTTON from the pixels around a line of text (pure, Pillow only).

A line is a BUTTON when it sits on a filled shape: the band of ``BAND`` x the text height
around its box is one colour (at least ``UNIFORM`` of its pixels within ``NEAR`` of their
median) and that colour differs from the region's own background (its median) by more than
``APART``. Text drawn straight on the canvas background is TEXT.
"""

from __future__ import annotations

from PIL import Image, ImageStat

from bridge.vision.engine import Box

BAND = 0.45
UNIFORM = 0.8
NEAR = 40
APART = 60


def _median(image: Image.Image) -> tuple[int, ...]:
    return tuple(int(v) for v in ImageStat.Stat(image).median[:3])


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=False))


def looks_like_button(region: Image.Image, box: Box, background: tuple[int, ...]) -> bool:
    """Whether the text at ``box`` (region pixels) sits on a filled shape unlike
    ``background`` (the region's median colour, see ``background_of``)."""
    left, top, right, bottom = box
    pad = max(3, int((bottom - top) * BAND))
    outer = (
        max(0, left - pad),
        max(0, top - pad),
        min(region.width, right + pad),
        min(region.height, bottom + pad),
    )
    if outer[2] - outer[0] < 4 or outer[3] - outer[1] < 4:
        return False
    band = region.crop(outer).convert("RGB")
    pixels: list[tuple[int, ...]] = []
    bw, bh = band.size
    inner = (left - outer[0], top - outer[1], right - outer[0], bottom - outer[1])
    data = band.load()
    assert data is not None
    step = max(1, (bw * bh) // 4000)
    i = 0
    for y in range(bh):
        for x in range(bw):
            i += 1
            if i % step or (inner[0] <= x < inner[2] and inner[1] <= y < inner[3]):
                continue
            px = data[x, y]
            rgb = px if isinstance(px, tuple) else (px, px, px)
            pixels.append((int(rgb[0]), int(rgb[1]), int(rgb[2])))
    if len(pixels) < 8:
        return False
    med = tuple(sorted(p[c] for p in pixels)[len(pixels) // 2] for c in range(3))
    near = sum(1 for p in pixels if _distance(p, med) <= NEAR)
    return near >= UNIFORM * len(pixels) and _distance(med, background) > APART


def background_of(region: Image.Image) -> tuple[int, ...]:
    return _median(region.convert("RGB"))
