"""TEXT or BUTTON from the pixels around a line of text (pure, Pillow only).

A line is a BUTTON when it sits on a filled shape: the four strips of ``BAND`` x the text
height around its box are each nearly one colour (their channels' spreads add up to at most
``NEAR``), share one colour (medians within ``NEAR``), and that colour differs from the
region's own background (its median) by more than ``APART``. Text drawn straight on the
canvas background is TEXT. Pillow computes the statistics (no per-pixel Python).
"""

from __future__ import annotations

from PIL import Image, ImageStat

from bridge.vision.engine import Box

BAND = 0.45
NEAR = 40
APART = 60


def _median(image: Image.Image) -> tuple[int, ...]:
    return tuple(int(v) for v in ImageStat.Stat(image).median[:3])


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=False))


def looks_like_button(region: Image.Image, box: Box, background: tuple[int, ...]) -> bool:
    """Whether the text at ``box`` (region pixels) sits on a filled shape unlike
    ``background`` (the region's median colour, see ``background_of``): the four strips
    around the box are each nearly one colour (a low spread) and share a median far from
    ``background``."""
    left, top, right, bottom = box
    pad = max(3, int((bottom - top) * BAND))
    outer = (
        max(0, left - pad),
        max(0, top - pad),
        min(region.width, right + pad),
        min(region.height, bottom + pad),
    )
    strips = [
        (outer[0], outer[1], outer[2], top),
        (outer[0], bottom, outer[2], outer[3]),
        (outer[0], top, left, bottom),
        (right, top, outer[2], bottom),
    ]
    medians: list[tuple[int, ...]] = []
    for strip in strips:
        if strip[2] - strip[0] < 2 or strip[3] - strip[1] < 2:
            return False  # the text touches the region's edge: no room for a shape
        stat = ImageStat.Stat(region.crop(strip).convert("RGB"))
        if sum(stat.stddev[:3]) > NEAR:
            return False
        medians.append(tuple(int(v) for v in stat.median[:3]))
    first = medians[0]
    return (
        all(_distance(m, first) <= NEAR for m in medians) and _distance(first, background) > APART
    )


def background_of(region: Image.Image) -> tuple[int, ...]:
    return _median(region.convert("RGB"))
