"""A tiny PNG encoder (zlib + struct) and the simulated screen as a PNG.

``encode_png`` writes an 8-bit truecolour PNG (colour type 2, no interlace, filter 0 on every
row) with one IDAT chunk. ``render_scene`` paints a ``Scene`` (``bridge.devices.sim.paint``
draws it, words included) and encodes it.

Invariants: pure functions (no I/O); the same scene gives the same bytes; output is a valid
PNG of the scene's size divided by ``scale``.
"""

from __future__ import annotations

import struct
import zlib

from bridge.devices.sim.views import Scene

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def encode_png(width: int, height: int, rgb: bytes | bytearray, level: int = 1) -> bytes:
    """PNG bytes of a ``width`` x ``height`` RGB image given row-major, 3 bytes per pixel."""
    stride = width * 3
    if width <= 0 or height <= 0 or len(rgb) != stride * height:
        raise ValueError(f"need {stride * height} bytes for {width}x{height}, got {len(rgb)}")
    view = memoryview(rgb)
    raw = b"".join(b"\x00" + view[y * stride : (y + 1) * stride] for y in range(height))
    return _png_of_filtered(width, height, raw, level)


def _png_of_filtered(width: int, height: int, filtered: bytes | bytearray, level: int) -> bytes:
    """PNG bytes from scanlines that already start with their filter byte (0)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(filtered, level))
        + _chunk(b"IEND", b"")
    )


def render_scene(scene: Scene, scale: int = 1) -> bytes:
    """A PNG screenshot of ``scene`` (``scale`` 2 halves each side), drawn with real text
    (``bridge.devices.sim.paint``, Pillow)."""
    from bridge.devices.sim.paint import paint_scene

    width, height, rgb = paint_scene(scene, scale)
    return encode_png(width, height, rgb)
