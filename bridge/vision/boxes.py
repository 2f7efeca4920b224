"""What an OCR engine reads: a line of text and where it is (``TextBox``, ``Box``).

Its own module so that ``engine`` (which loads the engines) and each engine's reader
(``ppocr``) share the types without importing each other.
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
