"""PNG frames to an MP4 in memory (bridge/core/mp4_encoder.py) and the header probe
(bridge/core/media.py): what a recording's caller is told about the file it gets."""

from __future__ import annotations

import io

from PIL import Image

from bridge.core.media import probe_mp4
from bridge.core.mp4_encoder import MAX_SIDE, Mp4Encoder


def _png(width: int, height: int, shade: int = 0) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (shade, 0, 0)).save(buf, "PNG")
    return buf.getvalue()


def test_frames_become_an_mp4_whose_header_tells_their_count_and_size() -> None:
    encoder = Mp4Encoder(5)
    for i in range(3):
        encoder.add_png(_png(64, 128, i * 60), i * 200)
    assert (encoder.frames, encoder.width, encoder.height) == (3, 64, 128)
    data = encoder.finish()
    assert data[4:8] == b"ftyp" and encoder.size == len(data)
    assert probe_mp4(data) == (3, 64, 128)
    assert encoder.finish() == b""  # idempotent: the file was handed out once


def test_odd_sides_are_made_even_and_large_frames_scaled_to_the_max_side() -> None:
    odd = Mp4Encoder(5)
    odd.add_png(_png(65, 33), 0)
    assert (odd.width, odd.height) == (64, 32)
    assert probe_mp4(odd.finish())[1:] == (64, 32)
    large = Mp4Encoder(5)
    large.add_png(_png(MAX_SIDE * 2, MAX_SIDE // 2 + 1), 0)
    assert (large.width, large.height) == (MAX_SIDE, MAX_SIDE // 4)
    large.close()
    tiny = Mp4Encoder(5)
    tiny.add_png(_png(1, 1), 0)
    assert (tiny.width, tiny.height) == (2, 2)
    tiny.close()


def test_frames_with_the_same_or_earlier_time_still_count_once_each() -> None:
    encoder = Mp4Encoder(10)
    for at_ms in (100, 100, 50, 300):
        encoder.add_png(_png(32, 32), at_ms)
    assert probe_mp4(encoder.finish())[0] == 4


def test_no_frame_makes_no_file_and_close_is_idempotent() -> None:
    empty = Mp4Encoder(5)
    assert empty.finish() == b""
    abandoned = Mp4Encoder(5)
    abandoned.add_png(_png(16, 16), 0)
    abandoned.close()
    abandoned.close()
    assert abandoned.finish() == b""


def test_the_probe_answers_zeros_for_what_is_not_an_mp4() -> None:
    assert probe_mp4(b"") == (0, 0, 0)
    assert probe_mp4(b"not a movie at all") == (0, 0, 0)
    assert probe_mp4(_png(8, 8))[0] == 0  # an image is a stream of no counted frames


def _frame_times_ms(data: bytes) -> list[float]:
    import av

    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        return sorted(
            float(frame.pts * frame.time_base * 1000) for frame in container.decode(stream)
        )


def test_the_file_plays_at_the_pace_the_frames_were_captured() -> None:
    encoder = Mp4Encoder(5)
    for at_ms in (0, 200, 650):
        encoder.add_png(_png(32, 32), at_ms)
    assert _frame_times_ms(encoder.finish()) == [0.0, 200.0, 650.0]
    # a frame no later than the previous one is shown one millisecond after it
    late = Mp4Encoder(5)
    for at_ms in (100, 100, 40):
        late.add_png(_png(32, 32), at_ms)
    assert _frame_times_ms(late.finish()) == [100.0, 101.0, 102.0]


def test_frames_are_stored_in_the_order_they_are_shown_so_a_player_finds_each_one() -> None:
    """No B-frames: every packet's decode time is its show time, so no edit list or
    reordering delay can hide a frame from a player (a loaded CI run once decoded 5 frames of
    a recording that said 6)."""
    import av

    encoder = Mp4Encoder(10)
    at_ms = 350  # the first screenshot comes late, and the gaps between them vary
    for i, gap in enumerate((330, 99, 1, 340, 600, 101, 2, 330, 330)):
        encoder.add_png(_png(64, 128, shade=i * 25), at_ms)
        at_ms += gap
    data = encoder.finish()
    with av.open(io.BytesIO(data)) as container:
        packets = [p for p in container.demux(video=0) if p.size]
    assert len(packets) == encoder.frames == 9
    assert all(p.pts == p.dts for p in packets)
    with av.open(io.BytesIO(data)) as container:
        assert sum(1 for _ in container.decode(video=0)) == 9
