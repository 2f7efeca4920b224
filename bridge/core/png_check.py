"""Checks on a screenshot's PNG before the hub keeps it (sans-I/O: bytes in, a verdict out).

The hub never decodes a screenshot; it keeps the agent's bytes and clients decode them. So
before keeping, ``check_png`` reads only the signature and the ``IHDR`` chunk (the first 33
bytes, CRC included) and refuses, with a reason naming the field:

- a missing signature or an ``IHDR`` that is not the first chunk, 13 bytes long, with a valid
  CRC, bit depth and colour type (``PNG``, ``IHDR.length``, ``IHDR.crc``, ``IHDR.bitDepth``);
- a width or height of 0 or past ``max_side`` — the device's display (long side, times
  ``DISPLAY_SCALE`` for point-based platforms) when known, else ``MAX_SIDE``
  (``IHDR.width`` / ``IHDR.height``);
- more than ``MAX_PIXELS`` pixels: the decompression-bomb guard (the same bound as Pillow's
  default ``Image.MAX_IMAGE_PIXELS``), since a few kilobytes of deflate can claim gigabytes;
- more bytes than such an image could take even stored uncompressed (``bytes``): a PNG
  larger than its raw pixels plus deflate's overhead and ``ANCILLARY_SLACK`` of metadata is
  padding, not a picture.

The caller must refuse the capture on a ``PngRefused`` (nothing of it is kept) and may then
report ``PngInfo.width`` / ``height`` as the capture's size.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Final

SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
MAX_PIXELS: Final = 89_478_485
"""Pillow's default decompression-bomb limit (about a quarter gigapixel)."""
MAX_SIDE: Final = 16_384
"""Width or height allowed when the device's display is not known."""
DISPLAY_SCALE: Final = 4
"""A screenshot may be this many times the display's long side (iOS reports points)."""
ANCILLARY_SLACK: Final = 256 * 1024
"""Metadata chunks (colour profile, text) a PNG may carry beyond its pixels."""

_BITS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
"""Colour type -> allowed bit depths."""
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


@dataclass(frozen=True, slots=True)
class PngInfo:
    width: int
    height: int
    raw_bytes: int
    """The decoded image's size (filter bytes included): what a client's decoder allocates."""


@dataclass(frozen=True, slots=True)
class PngRefused:
    field: str
    """The field that was wrong (``IHDR.width``, ``bytes``, ...)."""
    reason: str


def check_png(
    data: bytes, display: tuple[int, int] | None = None, *, max_pixels: int = MAX_PIXELS
) -> PngInfo | PngRefused:
    """The PNG's size when it may be kept, else why not (see the module docstring).
    ``display``: the device's (width, height), when known."""
    if not data.startswith(SIGNATURE):
        return PngRefused("PNG", "not a PNG (no signature)")
    if len(data) < 33:
        return PngRefused("IHDR", f"a PNG of {len(data)} bytes has no complete IHDR chunk")
    length = int.from_bytes(data[8:12], "big")
    if data[12:16] != b"IHDR" or length != 13:
        return PngRefused("IHDR.length", "the first chunk is not a 13-byte IHDR")
    if zlib.crc32(data[12:29]) != int.from_bytes(data[29:33], "big"):
        return PngRefused("IHDR.crc", "the IHDR chunk's CRC does not match")
    width = int.from_bytes(data[16:20], "big")
    height = int.from_bytes(data[20:24], "big")
    depth, colour = data[24], data[25]
    if depth not in _BITS.get(colour, ()):
        return PngRefused(
            "IHDR.bitDepth", f"bit depth {depth} with colour type {colour} is not a PNG format"
        )
    max_side = MAX_SIDE
    if display is not None and max(display) > 0:
        max_side = max(display) * DISPLAY_SCALE
    for name, value in (("width", width), ("height", height)):
        if not 0 < value <= max_side:
            return PngRefused(
                f"IHDR.{name}", f"{name} {value} is outside 1..{max_side} (the device's display)"
            )
    if width * height > max_pixels:
        return PngRefused(
            "IHDR.width",
            f"{width}x{height} is {width * height} pixels, past the decompression-bomb limit "
            f"of {max_pixels}",
        )
    row = 1 + (width * _CHANNELS[colour] * depth + 7) // 8
    raw = height * row
    # Deflate's stored blocks cost 5 bytes per 65,535; each IDAT chunk 12 bytes per 8 KiB at worst.
    bound = raw + raw // 1000 + 12 * (raw // 8192 + 1) + ANCILLARY_SLACK
    if len(data) > bound:
        return PngRefused(
            "bytes",
            f"{len(data)} bytes is more than a {width}x{height} image can take "
            f"({bound} at most, uncompressed)",
        )
    return PngInfo(width, height, raw)
