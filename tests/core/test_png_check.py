"""bridge.core.png_check: only a plausible PNG header is accepted, and a refusal names the
field that was wrong."""

from __future__ import annotations

import struct
import zlib

from bridge.core.png_check import MAX_PIXELS, MAX_SIDE, PngInfo, PngRefused, check_png


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack("!I", len(body)) + kind + body + struct.pack("!I", zlib.crc32(kind + body))


def png(width: int, height: int, pad: int = 100, depth: int = 8, colour: int = 6) -> bytes:
    ihdr = struct.pack("!IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", b"\0" * pad)


def test_a_plausible_screenshot_is_accepted_with_its_size() -> None:
    info = check_png(png(1080, 2400), (1080, 2400))
    assert info == PngInfo(1080, 2400, 2400 * (1 + 1080 * 4))


def test_the_adversarial_width_of_1_4_billion_is_refused() -> None:
    got = check_png(png(1_400_000_000, 2400), (1080, 2400))
    assert isinstance(got, PngRefused) and got.field == "IHDR.width"
    assert "1400000000" in got.reason
    unknown_display = check_png(png(1_400_000_000, 1))
    assert isinstance(unknown_display, PngRefused) and str(MAX_SIDE) in unknown_display.reason


def test_a_side_past_the_display_is_refused_but_a_point_scaled_one_is_not() -> None:
    assert isinstance(check_png(png(1170, 2532), (390, 844)), PngInfo)  # iOS: points x3
    got = check_png(png(1080, 20_000), (1080, 2400))
    assert isinstance(got, PngRefused) and got.field == "IHDR.height"


def test_the_decompression_bomb_guard_counts_pixels() -> None:
    got = check_png(png(16_000, 16_000), None)
    assert isinstance(got, PngRefused) and str(MAX_PIXELS) in got.reason
    assert isinstance(check_png(png(9_000, 9_000), None), PngInfo)


def test_more_bytes_than_the_image_can_take_is_padding() -> None:
    got = check_png(png(100, 100, pad=2 << 20), None)
    assert isinstance(got, PngRefused) and got.field == "bytes"
    assert isinstance(check_png(png(100, 100, pad=40_000), None), PngInfo)


def test_broken_headers_name_their_field() -> None:
    good = png(10, 10)
    cases = {
        "PNG": b"GIF89a" + good[6:],
        "IHDR": good[:20],
        "IHDR.length": good[:12] + b"IHDX" + good[16:],
        "IHDR.crc": good[:29] + b"\0\0\0\0" + good[33:],
        "IHDR.bitDepth": png(10, 10, depth=3),
        "IHDR.width": png(0, 10),
    }
    for field, data in cases.items():
        got = check_png(data)
        assert isinstance(got, PngRefused) and got.field == field, (field, got)
