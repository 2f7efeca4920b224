"""A device's own recording, masked afterwards: every frame that may have been on screen while
a secret showed has the secret's fields painted black (the whole frame while a secret was
being typed), re-encoded to H.264 MP4 (PyAV, the ``media`` extra). Pure computation on bytes
in memory; CPU-heavy, so the caller runs it in a worker thread.

Times: a frame at ``t`` ms into the device's file was on screen at some time in ``[t - early,
t + late]`` ms of the hub's recording clock (the device's recorder starts after the hub asked
for it — ``adb shell`` and ``screenrecord`` take up to a few seconds — and the two clocks
are not the same); its plan is ``SecretTimeline.plan_for`` that window, so the mask errs on
the side of hiding more. Bounds: a frame past ``max_pixels`` stops the work (ValueError), and
so does a file of more than ``max_frames`` frames, and an output past ``max_bytes`` (checked
after every frame, so the work stops there rather than at the end).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Final

from bridge.core.pixel_mask import paint_black
from bridge.core.secret_timeline import SecretTimeline

EARLY_MS: Final = 500
LATE_MS: Final = 3000
MAX_FRAMES: Final = 20_000


@dataclass(frozen=True)
class MaskedVideo:
    data: bytes
    frames: int
    width: int
    height: int
    masked_frames: int


def mask_video(
    data: bytes,
    timeline: SecretTimeline,
    fps: int,
    *,
    early_ms: int = EARLY_MS,
    late_ms: int = LATE_MS,
    max_pixels: int = 16_000_000,
    max_frames: int = MAX_FRAMES,
    max_bytes: int | None = None,
) -> MaskedVideo:
    """``data`` (an MP4) re-encoded with the timeline's secrets black (module docstring).
    Raises ValueError for a file PyAV cannot read or one past the bounds."""
    import av

    from bridge.core.mp4_encoder import Mp4Encoder

    encoder = Mp4Encoder(max(1, fps))
    masked = 0
    try:
        try:
            container: Any = av.open(io.BytesIO(data), mode="r")
        except av.error.FFmpegError as exc:
            raise ValueError(f"the device's file is not a video the hub reads: {exc}") from exc
        with container:
            if not container.streams.video:
                raise ValueError("the device's file has no video stream")
            first: float | None = None
            for frame in container.decode(video=0):
                if frame.width * frame.height > max_pixels:
                    raise ValueError(f"a frame of {frame.width}x{frame.height} pixels")
                if encoder.frames >= max_frames:
                    raise ValueError(f"more than {max_frames} frames")
                time_s = float(frame.time) if frame.time is not None else 0.0
                first = time_s if first is None else first
                at_ms = int((time_s - first) * 1000)
                plan = timeline.plan_for(at_ms - early_ms, at_ms + late_ms)
                image = frame.to_image()
                if plan.hold:
                    image.paste((0, 0, 0), (0, 0, image.width, image.height))
                    masked += 1
                elif plan.regions:
                    paint_black(image, plan.regions, plan.screen)
                    masked += 1
                encoder.add_image(image, at_ms)
                if max_bytes is not None and encoder.size > max_bytes:
                    raise ValueError(f"the masked file passed the cap of {max_bytes} bytes")
        out = encoder.finish()
        return MaskedVideo(out, encoder.frames, encoder.width, encoder.height, masked)
    finally:
        encoder.close()
