"""A tiny PNG encoder (zlib + struct) and a box renderer for the simulated screen.

``encode_png`` writes an 8-bit truecolour PNG (colour type 2, no interlace, filter 0 on every
row) with one IDAT chunk. ``render_scene`` paints a ``Scene``: boxes for views, bars where
text would be (no fonts), a dimmed backdrop under dialog windows. Passwords draw nothing:
neither their value nor their length reach the pixels.

Invariants: pure functions (no I/O); the same scene gives the same bytes; output is a valid
PNG of the scene's size divided by ``scale``.
"""

from __future__ import annotations

import struct
import zlib

from bridge.devices.sim.views import Box, Kind, Scene, View

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RGB = tuple[int, int, int]

_BACKGROUND: RGB = (246, 246, 246)
_INK: RGB = (48, 48, 48)
_LINE: RGB = (208, 208, 208)
_ACCENT: RGB = (33, 118, 210)
_WHITE: RGB = (255, 255, 255)
_DIM = bytes(v // 2 for v in range(256))


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


class Canvas:
    """An RGB raster with rectangle fills (coordinates in device pixels, scaled down).

    Rows are stored as PNG scanlines: a filter byte (0) then the row's pixels, so encoding
    needs no copy."""

    def __init__(self, width: int, height: int, scale: int, background: RGB) -> None:
        self.scale = scale
        self.width = max(1, width // scale)
        self.height = max(1, height // scale)
        self.stride = 1 + self.width * 3
        self.pixels = bytearray((b"\x00" + bytes(background) * self.width) * self.height)

    def fill(self, box: Box, colour: RGB) -> None:
        s = self.scale
        left = max(0, box[0] // s)
        top = max(0, box[1] // s)
        right = min(self.width, box[2] // s)
        bottom = min(self.height, box[3] // s)
        if right <= left or bottom <= top:
            return
        row = bytes(colour) * (right - left)
        stride = self.stride
        for y in range(top, bottom):
            start = y * stride + 1 + left * 3
            self.pixels[start : start + len(row)] = row

    def outline(self, box: Box, colour: RGB, thickness: int = 3) -> None:
        left, top, right, bottom = box
        t = thickness * self.scale
        self.fill((left, top, right, top + t), colour)
        self.fill((left, bottom - t, right, bottom), colour)
        self.fill((left, top, left + t, bottom), colour)
        self.fill((right - t, top, right, bottom), colour)

    def dim(self) -> None:
        self.pixels = bytearray(self.pixels.translate(_DIM))

    def png(self, level: int = 1) -> bytes:
        return _png_of_filtered(self.width, self.height, self.pixels, level)

    def rgb(self) -> bytes:
        """The raster without filter bytes (row-major RGB)."""
        return b"".join(
            self.pixels[y * self.stride + 1 : (y + 1) * self.stride] for y in range(self.height)
        )


def _text_bar(canvas: Canvas, box: Box, text: str | None, colour: RGB, size: int = 36) -> None:
    if not text:
        return
    left, top, right, bottom = box
    height = min(size, bottom - top)
    y = top + (bottom - top - height) // 2
    width = min(right - left - 16, 20 * len(text))
    canvas.fill((left + 16, y, left + 16 + max(width, 0), y + height), colour)


def _paint(canvas: Canvas, view: View) -> None:
    box = view.bounds
    left, top, right, bottom = box
    match view.kind:
        case Kind.CONTAINER | Kind.LIST:
            canvas.outline(box, _LINE, 1)
        case Kind.TEXT:
            _text_bar(canvas, box, view.text, _INK, 48 if view.heading else 32)
        case Kind.BUTTON:
            canvas.fill(box, _ACCENT)
            _text_bar(canvas, (left + 24, top, right, bottom), view.text, _WHITE)
        case Kind.INPUT:
            canvas.fill(box, _WHITE)
            canvas.outline(box, _ACCENT if view.focused else (150, 150, 150), 3)
            if view.text and not view.password:
                _text_bar(canvas, box, view.text, _INK)
            elif view.hint and not view.password:
                _text_bar(canvas, box, view.hint, (190, 190, 190))
        case Kind.ROW:
            canvas.fill((left, bottom - 2, right, bottom), _LINE)
        case Kind.TOGGLE:
            track = (right - 200, top + 40, right - 40, bottom - 40)
            canvas.fill(track, (76, 175, 80) if view.checked else (180, 180, 180))
            knob_left = track[2] - 60 if view.checked else track[0]
            canvas.fill((knob_left, track[1] - 10, knob_left + 60, track[3] + 10), _WHITE)
            _text_bar(canvas, (left, top, right - 220, bottom), view.text, _INK)
        case Kind.SURFACE:
            canvas.fill(box, (18, 52, 38))
            for i in range(6):
                x = left + (i * 157) % max(1, right - left - 120)
                y = top + (i * 311) % max(1, bottom - top - 120)
                canvas.fill((x, y, x + 120, y + 120), (240, 200 - 25 * i, 40 + 30 * i))
        case Kind.PROGRESS:
            canvas.fill((left, top + 30, left + (right - left) // 3, bottom - 30), _ACCENT)
        case Kind.ICON:
            canvas.fill((left + 60, top, right - 60, bottom - 100), _ACCENT)
            _text_bar(canvas, (left, bottom - 80, right, bottom), view.text, _INK, 28)
        case Kind.ALERT:
            canvas.fill(box, _WHITE)
            canvas.outline(box, (120, 120, 120), 2)
        case Kind.DECOR | Kind.IOS_WINDOW:
            pass
    for child in view.children:
        _paint(canvas, child)


def render_scene(scene: Scene, scale: int = 1) -> bytes:
    """A PNG screenshot of ``scene`` (``scale`` 2 halves each side)."""
    canvas = Canvas(scene.width, scene.height, scale, _BACKGROUND)
    for window in scene.windows:
        if window.layer > 0:
            canvas.dim()
        _paint(canvas, window.root)
    return canvas.png()
