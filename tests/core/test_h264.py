"""H.264 Annex B cutting and encoding (bridge/core/h264.py, bridge/core/h264_encoder.py): the
rules of h264.py's docstring on hand-made NAL units whose answer is known, and the encoder's
output cut back into the same units."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bridge.core import h264
from bridge.core.h264 import AccessUnit, AccessUnits, codec_string, nal_units
from bridge.core.h264_encoder import H264Encoder, even, fit

SPS = b"\x00\x00\x00\x01" + bytes([0x67, 0x42, 0xC0, 0x1F, 0xAA])
PPS = b"\x00\x00\x00\x01" + bytes([0x68, 0xCE, 0x3C])
IDR = b"\x00\x00\x01" + bytes([0x65, 0x88, 0x11])  # first_mb_in_slice 0 (top bit set)
SLICE = b"\x00\x00\x01" + bytes([0x41, 0x9A, 0x22])
PART = b"\x00\x00\x01" + bytes([0x41, 0x12, 0x33])  # a second slice of the same picture
AUD = b"\x00\x00\x01" + bytes([0x09, 0xF0])
SEI = b"\x00\x00\x01" + bytes([0x06, 0x05])


def _cut(stream: bytes, chunk: int = 1 << 20) -> tuple[list[AccessUnit], AccessUnits]:
    cutter = AccessUnits()
    out: list[AccessUnit] = []
    for at in range(0, len(stream), chunk):
        out += cutter.feed(stream[at : at + chunk])
    return out + cutter.flush(), cutter


def test_parameter_sets_join_the_key_frame_and_each_picture_is_a_unit() -> None:
    stream = SPS + PPS + IDR + SLICE + PART + SLICE
    for chunk in (1, 2, 5, 1 << 20):
        units, cutter = _cut(stream, chunk)
        assert units == [
            AccessUnit(SPS + PPS + IDR, True),
            AccessUnit(SLICE + PART, False),
            AccessUnit(SLICE, False),
        ], chunk
        assert cutter.units == 3 and cutter.dropped_bytes == 0


def test_a_delimiter_or_sei_after_a_slice_begins_a_new_unit() -> None:
    units, _ = _cut(AUD + IDR + AUD + SLICE + SEI + SLICE)
    assert [u.data for u in units] == [AUD + IDR, AUD + SLICE, SEI + SLICE]
    assert [u.key for u in units] == [True, False, False]


def test_a_unit_is_handed_out_only_when_the_next_one_begins() -> None:
    cutter = AccessUnits()
    assert cutter.feed(SPS + PPS + IDR) == []
    assert cutter.feed(SLICE) == []  # the IDR's end was not certain until this start code
    assert cutter.feed(SLICE) == [AccessUnit(SPS + PPS + IDR, True)]
    assert cutter.flush() == [AccessUnit(SLICE, False), AccessUnit(SLICE, False)]
    assert cutter.flush() == []


def test_junk_before_the_first_start_code_is_dropped_and_counted() -> None:
    units, cutter = _cut(b"junk!" + IDR + SLICE)
    assert [u.data for u in units] == [IDR, SLICE] and cutter.dropped_bytes == 5
    lone, alone = _cut(SPS + PPS)  # parameter sets without a picture make no unit
    assert lone == [] and alone.units == 0


def test_a_stream_without_start_codes_is_bounded() -> None:
    cutter = AccessUnits()
    assert cutter.feed(b"\x02" * h264.MAX_NAL_BYTES) == []
    assert cutter.dropped_bytes == 0
    assert cutter.feed(b"\x02") == []
    assert cutter.dropped_bytes == h264.MAX_NAL_BYTES + 1
    assert cutter.feed(IDR + SLICE) == [] and cutter.flush() == [
        AccessUnit(IDR, True),
        AccessUnit(SLICE, False),
    ]


def test_nal_units_and_the_codec_string() -> None:
    assert nal_units(SPS + PPS + IDR) == [SPS[4:], PPS[4:], IDR[3:]]
    assert codec_string(SPS + PPS + IDR) == "avc1.42c01f"
    assert codec_string(IDR) is None
    assert codec_string(b"\x00\x00\x01\x67\x42") is None  # an SPS too short to tell


def test_sizes_are_even_and_fit_the_longer_side() -> None:
    assert (even(7), even(8), even(1), even(0)) == (6, 8, 2, 2)
    assert fit(1080, 2400, 1280) == (576, 1280)
    assert fit(2400, 1080, 1280) == (1280, 576)
    assert fit(300, 201, 1280) == (300, 200)  # never scaled up, made even
    assert fit(0, 0, 1280) == (2, 2)


def test_the_encoder_output_cuts_back_into_its_own_units_with_key_frames() -> None:
    encoder = H264Encoder(97, 161, fps=30, keyint=4)
    assert (encoder.width, encoder.height) == (96, 160)
    units: list[AccessUnit] = []
    for i in range(6):
        image = Image.new("RGB", (97, 161), (240, 240, 240))
        ImageDraw.Draw(image).rectangle((5, 5 + 20 * i, 60, 20 + 20 * i), fill=(30, 90, 200))
        units += encoder.encode_image(image, i * 33, key=(i == 3))
    assert encoder.frames == 6 and len(units) == 6
    assert units[0].key and units[3].key and not units[1].key
    assert codec_string(units[0].data) is not None
    recut, _ = _cut(b"".join(u.data for u in units), 977)
    assert recut == units
    rgb = encoder.encode_rgb(2, 2, bytes(12), 500, key=True)
    assert len(rgb) == 1 and rgb[0].key


def test_dropped_bytes_add_up_over_the_stream() -> None:
    cutter = AccessUnits()
    cutter.feed(b"ab" + IDR)  # 2 bytes of junk before the first start code
    cutter.feed(SLICE)
    assert cutter.dropped_bytes == 2
    flood = AccessUnits()
    flood.feed(b"x")  # one byte: not yet past the bound, kept
    assert flood.dropped_bytes == 0
    flood.feed(b"\x02" * h264.MAX_NAL_BYTES)
    flood.feed(b"\x02" * (h264.MAX_NAL_BYTES + 1))
    assert flood.dropped_bytes == 2 * h264.MAX_NAL_BYTES + 2


def test_a_nal_unit_past_the_buffer_bound_after_a_start_code_is_dropped() -> None:
    cutter = AccessUnits()
    cutter.feed(IDR)
    cutter.feed(b"\x02" * h264.MAX_NAL_BYTES)  # the IDR's body grows past the bound
    assert cutter.dropped_bytes == len(IDR) + h264.MAX_NAL_BYTES
    exact = AccessUnits()
    exact.feed(IDR[:3] + b"\x02" * (h264.MAX_NAL_BYTES - 3))  # exactly at the bound: kept
    assert exact.dropped_bytes == 0


def test_inner_nal_units_lose_the_zero_of_a_four_byte_start_code_and_the_last_keeps_its_bytes() -> (
    None
):
    stream = SPS + SPS + b"\x00\x00\x01\x65\x00"
    assert nal_units(stream) == [SPS[4:], SPS[4:], b"\x65\x00"]
    assert nal_units(b"junk") == []


def test_the_codec_string_needs_the_three_bytes_after_the_sps_header() -> None:
    assert codec_string(b"\x00\x00\x01\x67\x64\x00\x28") == "avc1.640028"
    assert codec_string(b"\x00\x00\x01\x67\x64\x00") is None
