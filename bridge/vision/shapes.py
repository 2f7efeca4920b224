"""TEXT or BUTTON from the pixels around a line of text (pure, Pillow only).

A line is a BUTTON when it sits on a filled shape: the four strips of ``BAND`` x the text
height around its box are each nearly one colour (their channels' spreads add up to at most
``NEAR``), share one colour (medians within ``NEAR``), and that colour differs from the
region's own background (its median) by more than ``APART``. Text drawn straight on the
canvas background is TEXT. Pillow counts the pixels (its histogram) and numpy turns the
counts into spreads and medians (no per-pixel or per-level Python: Pillow's own ``ImageStat``
sums its 256 levels a band in Python, 15 ms a real screen's lines).
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from bridge.vision.boxes import Box

BAND = 0.45
NEAR = 40
APART = 60


def stats(image: Image.Image) -> tuple[Any, tuple[int, ...]]:
    """The spread (population standard deviation) and the median of each of the first three
    bands of ``image`` (RGB), the median as Pillow's ``ImageStat`` gives it: the lowest level
    at which more than half of the pixels (the count halved, rounded down) are counted."""
    import numpy as np

    counts = np.asarray(image.histogram(), dtype=np.float64).reshape(-1, 256)[:3]
    levels = np.arange(256, dtype=np.float64)
    n = counts.sum(axis=1)
    total = counts @ levels
    squares = counts @ (levels * levels)
    spread = np.sqrt(np.maximum(0.0, (squares - total * total / n) / n))
    median = (np.cumsum(counts, axis=1) > (n // 2)[:, None]).argmax(axis=1)
    return spread, tuple(int(v) for v in median)


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
        spread, median = stats(_rgb(region.crop(strip)))
        if float(spread.sum()) > NEAR:
            return False
        medians.append(median)
    first = medians[0]
    return (
        all(_distance(m, first) <= NEAR for m in medians) and _distance(first, background) > APART
    )


def background_of(region: Image.Image) -> tuple[int, ...]:
    return stats(_rgb(region))[1]


def _rgb(image: Image.Image) -> Image.Image:
    """``image`` itself when it is RGB already (no copy), else its RGB conversion."""
    return image if image.mode == "RGB" else image.convert("RGB")
