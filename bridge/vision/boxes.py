"""What an OCR engine reads: a line of text and where it is (``TextBox``, ``Box``), and how
boxes stand to each other (``area``, ``meets``, ``same_row``, ``inside``, ``centre_in``,
``union``, ``shift``, ``grown``).

Its own module so that ``engine`` (which loads the engines), each engine's reader
(``ppocr``) and the rules on its words (``words``) share the types without importing each
other. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class TextBox:
    """One line of text read from an image: ``box`` is (left, top, right, bottom) in the
    image's pixels, ``confidence`` in 0..1 (the lowest of its words)."""

    text: str
    box: Box
    confidence: float


SAME_LINE = 0.3
"""... and a line it reads replaces those of the first reading it shares more than this
share of the smaller's area with."""


def shift(box: Box, x: int, y: int) -> Box:
    return (box[0] + x, box[1] + y, box[2] + x, box[3] + y)


def grown(box: Box, by: float, size: tuple[int, int]) -> Box:
    """``box`` grown by ``by`` pixels on every side, within an image of ``size``."""
    return (
        max(0, int(box[0] - by)),
        max(0, int(box[1] - by)),
        min(size[0], int(box[2] + by)),
        min(size[1], int(box[3] + by)),
    )


def union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def area(box: Box) -> int:
    """The pixels ``box`` covers."""
    return (box[2] - box[0]) * (box[3] - box[1])


def meets(a: Box, b: Box) -> bool:
    """Whether boxes ``a`` and ``b`` share more than ``SAME_LINE`` of the smaller's area."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return False
    return width * height > SAME_LINE * min(area(a), area(b))


def same_row(a: Box, b: Box) -> bool:
    """Whether the vertical centre of box ``a`` lies within box ``b``'s rows: the same line
    of text, not the one above or below it."""
    return b[1] <= (a[1] + a[3]) / 2 <= b[3]


def inside(a: Box, b: Box) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def centre_in(a: Box, b: Box) -> bool:
    """Whether the centre of box ``a`` lies inside box ``b``."""
    cx, cy = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
    return b[0] <= cx <= b[2] and b[1] <= cy <= b[3]
