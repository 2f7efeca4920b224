"""Screen frames (RGB) to H.264 access units for the live mirror, with PyAV's libx264.

Invariants: the output is Annex B, baseline profile (what every WebCodecs decoder takes),
with SPS and PPS in band before every key frame, no B-frames and no encoder delay
(``zerolatency``): each frame in gives its access unit at once. A key frame comes every
``keyint`` frames and whenever ``encode`` is asked for one (a viewer joined late). Frames are
scaled to ``width`` x ``height`` (both even). PyAV is imported when an encoder is made, never
at import time. Not thread-safe: one encoder is fed from one thread at a time.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bridge.core.h264 import AccessUnit, AccessUnits


def even(n: int) -> int:
    return max(2, n - n % 2)


def fit(width: int, height: int, max_side: int) -> tuple[int, int]:
    """``width`` x ``height`` scaled so the longer side is at most ``max_side``, both even."""
    scale = min(1.0, max_side / max(width, height, 1))
    return even(int(width * scale)), even(int(height * scale))


class H264Encoder:
    def __init__(self, width: int, height: int, fps: int, keyint: int) -> None:
        import av

        self.width, self.height = even(width), even(height)
        self._av: Any = av
        ctx: Any = av.CodecContext.create("libx264", "w")
        ctx.width, ctx.height = self.width, self.height
        ctx.pix_fmt = "yuv420p"
        ctx.time_base = Fraction(1, 1000)
        ctx.framerate = Fraction(max(1, fps), 1)
        ctx.options = {
            "preset": "ultrafast",
            "tune": "zerolatency",
            "profile": "baseline",
            "x264-params": f"keyint={keyint}:min-keyint={keyint}:scenecut=0:repeat-headers=1",
        }
        self._ctx = ctx
        self._cut = AccessUnits()
        self._last_pts = -1
        self.frames = 0

    def encode_rgb(
        self, width: int, height: int, rgb: bytes, at_ms: int, key: bool
    ) -> list[AccessUnit]:
        """Encode one RGB24 frame (row-major, 3 bytes a pixel) shown from ``at_ms``."""
        from PIL import Image

        image = Image.frombuffer("RGB", (width, height), rgb, "raw", "RGB", 0, 1)
        return self.encode_image(image, at_ms, key)

    def encode_image(self, image: Any, at_ms: int, key: bool) -> list[AccessUnit]:
        """Encode one Pillow image (any mode Pillow converts to RGB)."""
        frame = self._av.VideoFrame.from_image(image.convert("RGB"))
        frame = frame.reformat(width=self.width, height=self.height, format="yuv420p")
        pts = max(at_ms, self._last_pts + 1)
        self._last_pts = pts
        frame.pts = pts
        frame.time_base = Fraction(1, 1000)
        if key:
            frame.pict_type = self._av.video.frame.PictureType.I
        out: list[AccessUnit] = []
        for packet in self._ctx.encode(frame):
            data = bytes(packet)
            out.extend(self._cut.feed(data))
            out.extend(self._cut.flush())
        self.frames += 1
        return out
