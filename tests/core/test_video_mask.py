"""``mask_video``: a device's own recording re-encoded with its secrets black; the work stops
as soon as the output passes the caller's byte cap (not after the whole file was encoded)."""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image

from bridge.core.pixel_mask import MaskPlan
from bridge.core.secret_timeline import SecretTimeline
from bridge.core.video_mask import EARLY_MS, LATE_MS, mask_video

av = pytest.importorskip("av", reason="PyAV (the media extra): MOBRIDGE_EXTRAS=media scripts/test")

SIZE = (320, 240)
FRAMES = 40


def _noise_video() -> bytes:
    from bridge.core.mp4_encoder import Mp4Encoder

    encoder = Mp4Encoder(10)
    try:
        for i in range(FRAMES):
            image = Image.frombytes("RGB", SIZE, os.urandom(SIZE[0] * SIZE[1] * 3))
            encoder.add_image(image, i * 100)
        return encoder.finish()
    finally:
        encoder.close()


def _timeline() -> SecretTimeline:
    timeline = SecretTimeline()
    timeline.note(0, MaskPlan(False, ((0, 0, 160, 120),), (0, 0, 320, 240)))
    return timeline


def test_every_frame_is_masked_and_the_cap_stops_the_work_early() -> None:
    data = _noise_video()
    whole = mask_video(data, _timeline(), 10)
    assert whole.frames == FRAMES and whole.masked_frames == FRAMES
    assert (whole.width, whole.height) == SIZE
    cap = len(whole.data) // 4
    with pytest.raises(ValueError, match=f"cap of {cap} bytes"):
        mask_video(data, _timeline(), 10, max_bytes=cap)
    assert mask_video(data, _timeline(), 10, max_bytes=len(whole.data) * 2).frames == FRAMES


# ---- which frames, which pixels, and the refusals ---------------------------------------------

GREY = (200, 200, 200)


def _grey_video(frames: int = 30, fps: int = 10, size: tuple[int, int] = SIZE) -> bytes:
    """A flat light-grey video, one frame every 1000 / fps ms from 0."""
    from bridge.core.mp4_encoder import Mp4Encoder

    encoder = Mp4Encoder(fps)
    try:
        for i in range(frames):
            encoder.add_image(Image.new("RGB", size, GREY), i * 1000 // fps)
        return encoder.finish()
    finally:
        encoder.close()


def _frames(data: bytes) -> list[Image.Image]:
    with av.open(io.BytesIO(data)) as container:
        return [f.to_image() for f in container.decode(video=0)]


def _dark(image: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Whether the middle of ``box`` is black (the encoder blurs edges a little)."""
    x = (box[0] + box[2]) // 2
    y = (box[1] + box[3]) // 2
    r, g, b = image.convert("RGB").getpixel((x, y))  # type: ignore[misc]
    return max(r, g, b) < 60


def test_a_secret_span_masks_the_frames_that_may_have_shown_it_and_only_its_field() -> None:
    # 30 frames at 10 fps: frame i is at i * 100 ms; a field showed a secret from 1000 to 1500 ms
    timeline = SecretTimeline()
    field = (0, 0, 160, 120)
    timeline.note(1000, MaskPlan(False, (field,), (0, 0, 320, 240)))
    timeline.note(1500, MaskPlan())
    out = mask_video(_grey_video(), timeline, 10, early_ms=200, late_ms=300)
    frames = _frames(out.data)
    assert out.frames == len(frames) == 30
    # frame at t was on screen in [t - 200, t + 300]: it meets [1000, 1500] for t in 700..1700
    masked = [i for i, f in enumerate(frames) if _dark(f, field)]
    assert masked == list(range(7, 18))
    assert out.masked_frames == 11
    # only the field: the rest of a masked frame keeps its picture
    assert not any(_dark(f, (160, 120, 320, 240)) for f in frames)


def test_the_default_window_errs_towards_hiding_more() -> None:
    timeline = SecretTimeline()
    timeline.note(1000, MaskPlan(False, ((0, 0, 160, 120),), (0, 0, 320, 240)))
    timeline.note(1100, MaskPlan())
    out = mask_video(_grey_video(frames=50), timeline, 10)
    # defaults: 500 ms early, 3,000 ms late: frames from t = 1000 - 3000 (0) to 1100 + 500
    assert out.masked_frames == 17
    assert (EARLY_MS, LATE_MS) == (500, 3000)


def test_a_hold_blacks_out_the_whole_frame() -> None:
    timeline = SecretTimeline()
    timeline.note(2000, MaskPlan(hold=True))
    timeline.note(2100, MaskPlan())
    out = mask_video(_grey_video(), timeline, 10, early_ms=0, late_ms=0)
    frames = _frames(out.data)
    whole = [
        i
        for i, f in enumerate(frames)
        if _dark(f, (0, 0, 320, 240)) and _dark(f, (300, 200, 320, 240))
    ]
    assert whole == [20, 21] and out.masked_frames == 2


def test_times_count_from_the_first_frame_and_a_clear_timeline_changes_no_pixel() -> None:
    out = mask_video(_grey_video(frames=12), SecretTimeline(), 10)
    assert out.masked_frames == 0 and out.frames == 12
    assert not any(_dark(f, (0, 0, 320, 240)) for f in _frames(out.data))


def test_what_is_not_a_video_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="not a video the hub reads"):
        mask_video(b"not an mp4 at all", SecretTimeline(), 10)


def test_the_frame_and_pixel_bounds_stop_the_work() -> None:
    data = _grey_video(frames=12)
    with pytest.raises(ValueError, match="more than 5 frames"):
        mask_video(data, SecretTimeline(), 10, max_frames=5)
    assert mask_video(data, SecretTimeline(), 10, max_frames=12).frames == 12
    with pytest.raises(ValueError, match="a frame of 320x240 pixels"):
        mask_video(data, SecretTimeline(), 10, max_pixels=320 * 240 - 1)
    assert mask_video(data, SecretTimeline(), 10, max_pixels=320 * 240).frames == 12


def test_a_zero_or_negative_rate_is_read_as_one_frame_a_second() -> None:
    out = mask_video(_grey_video(frames=3), SecretTimeline(), 0)
    assert out.frames == 3
    assert mask_video(_grey_video(frames=3), SecretTimeline(), -5).frames == 3
