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


def test_every_refusal_reason_is_the_sentence_the_client_reads() -> None:
    good = png(10, 10)
    assert check_png(b"GIF89a" + good[6:]) == PngRefused("PNG", "not a PNG (no signature)")
    assert check_png(good[:32]) == PngRefused(
        "IHDR", "a PNG of 32 bytes has no complete IHDR chunk"
    )
    assert isinstance(check_png(good[:33]), PngInfo)  # the header alone is complete
    assert check_png(good[:12] + b"IHDX" + good[16:]) == PngRefused(
        "IHDR.length", "the first chunk is not a 13-byte IHDR"
    )
    # a length other than 13 (with the IHDR name) is refused too, whatever its high bytes
    for length in (b"\0\0\0\x0e", b"\x01\0\0\x0d", b"\0\x01\0\x0d"):
        got = check_png(good[:8] + length + good[12:])
        assert got == PngRefused("IHDR.length", "the first chunk is not a 13-byte IHDR"), length
    assert check_png(good[:29] + b"\0\0\0\0" + good[33:]) == PngRefused(
        "IHDR.crc", "the IHDR chunk's CRC does not match"
    )
    # the CRC is read big-endian: the same four bytes reversed do not match
    crc = good[29:33]
    assert check_png(good[:29] + crc[::-1] + good[33:]) == PngRefused(
        "IHDR.crc", "the IHDR chunk's CRC does not match"
    )
    assert check_png(png(10, 10, depth=3)) == PngRefused(
        "IHDR.bitDepth", "bit depth 3 with colour type 6 is not a PNG format"
    )
    assert check_png(png(10, 10, colour=5)) == PngRefused(
        "IHDR.bitDepth", "bit depth 8 with colour type 5 is not a PNG format"
    )
    assert check_png(png(0, 10)) == PngRefused(
        "IHDR.width", f"width 0 is outside 1..{MAX_SIDE} (the device's display)"
    )
    assert check_png(png(10, 0), (100, 50)) == PngRefused(
        "IHDR.height", "height 0 is outside 1..400 (the device's display)"
    )


def test_width_and_height_are_read_whole_and_big_endian() -> None:
    assert check_png(png(300, 2)) == PngInfo(300, 2, 2 * (1 + 300 * 4))
    assert check_png(png(2, 300)) == PngInfo(2, 300, 300 * (1 + 2 * 4))
    assert check_png(png(0x10001, 1), None, max_pixels=1 << 40) == PngRefused(
        "IHDR.width", f"width 65537 is outside 1..{MAX_SIDE} (the device's display)"
    )


def test_the_side_limit_is_inclusive_and_a_blank_display_falls_back_to_max_side() -> None:
    assert isinstance(check_png(png(400, 1), (100, 50)), PngInfo)  # 100 x DISPLAY_SCALE
    assert check_png(png(401, 1), (100, 50)) == PngRefused(
        "IHDR.width", "width 401 is outside 1..400 (the device's display)"
    )
    assert isinstance(check_png(png(1, 1)), PngInfo)
    assert isinstance(check_png(png(MAX_SIDE, 1), (0, 0)), PngInfo)
    assert isinstance(check_png(png(5, 1), (1, 1)), PngRefused)  # a 1-pixel display: 4 at most


def test_the_pixel_limit_is_inclusive_and_its_reason_counts_the_pixels() -> None:
    assert isinstance(check_png(png(100, 100), None, max_pixels=10_000), PngInfo)
    assert check_png(png(100, 101), None, max_pixels=10_000) == PngRefused(
        "IHDR.width",
        "100x101 is 10100 pixels, past the decompression-bomb limit of 10000",
    )


def test_the_byte_bound_is_the_raw_size_plus_deflate_overhead_and_slack() -> None:
    # 100x100 RGBA: raw = 100 * (1 + 400) = 40,100; bound = raw + raw // 1000 +
    # 12 * (raw // 8192 + 1) + 256 KiB = 40,100 + 40 + 60 + 262,144 = 302,344
    bound = 302_344
    header = len(png(100, 100, pad=0))
    assert isinstance(check_png(png(100, 100, pad=bound - header)), PngInfo)
    assert check_png(png(100, 100, pad=bound - header + 1)) == PngRefused(
        "bytes",
        f"{bound + 1} bytes is more than a 100x100 image can take ({bound} at most, uncompressed)",
    )
    # larger images: the per-chunk term grows with every 8 KiB of raw pixels
    raw = 1000 * (1 + 1000 * 4)
    big = raw + raw // 1000 + 12 * (raw // 8192 + 1) + 256 * 1024
    head = len(png(1000, 1000, pad=0))
    assert isinstance(check_png(png(1000, 1000, pad=big - head)), PngInfo)
    assert isinstance(check_png(png(1000, 1000, pad=big - head + 1)), PngRefused)
    # a grey 1-bit image packs 8 pixels a byte
    assert check_png(png(16, 2, depth=1, colour=0)) == PngInfo(16, 2, 2 * (1 + 2))


def test_a_height_is_read_from_all_four_bytes() -> None:
    got = check_png(png(10, 0x01000001))
    assert isinstance(got, PngRefused) and got.field == "IHDR.height"


def test_the_per_chunk_overhead_counts_each_started_8_kib_of_raw_pixels() -> None:
    # grey 8-bit, 8191 x 1: raw = 8192 bytes exactly, so two 8 KiB chunk allowances
    bound = 8192 + 8 + 12 * 2 + 256 * 1024
    head = len(png(8191, 1, pad=0, colour=0))
    assert isinstance(check_png(png(8191, 1, pad=bound - head, colour=0)), PngInfo)
    assert isinstance(check_png(png(8191, 1, pad=bound - head + 1, colour=0)), PngRefused)
