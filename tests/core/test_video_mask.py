"""``mask_video``: a device's own recording re-encoded with its secrets black; the work stops
as soon as the output passes the caller's byte cap (not after the whole file was encoded)."""

from __future__ import annotations

import os

import pytest
from PIL import Image

from bridge.core.pixel_mask import MaskPlan
from bridge.core.secret_timeline import SecretTimeline
from bridge.core.video_mask import mask_video

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
