"""Screen frames (PNG) to an H.264 MP4 in memory, with PyAV (FFmpeg inside its wheel).

Frames carry their own time (ms since the recording began), so the file plays at the pace the
screen was captured even when the device delivered fewer frames than asked. Frames are
scaled so the longer side is at most ``MAX_SIDE`` pixels and both sides are even (H.264's
4:2:0 needs them so). No B-frames: each frame is stored in the order it is shown (decode time
equals show time), so no reordering delay or edit list can hide a frame from a player of a
file whose frame gaps vary (a loaded run once decoded 5 frames of a recording that counted 6);
on screen content the file is no larger. Not thread-safe: one encoder is fed from one worker
thread at a time.
``size`` is what the file holds so far; the caller stops feeding when it passes its cap.
Every encoder must end in ``finish`` or ``close`` (both idempotent): the H.264 encoder holds
worker threads and frame buffers that a dropped reference does not free at once.
"""

from __future__ import annotations

import contextlib
import io
from fractions import Fraction
from typing import Any

import av

MAX_SIDE = 1280
CRF = "30"


def _even(n: int) -> int:
    return max(2, n - n % 2)


class Mp4Encoder:
    def __init__(self, fps: int) -> None:
        self.fps = fps
        self._out = io.BytesIO()
        self._container: Any = av.open(self._out, mode="w", format="mp4")
        self._stream: Any = None
        self._png: Any = av.CodecContext.create("png", "r")
        self.frames = 0
        self.width = 0
        self.height = 0
        self._last_pts = -1
        self._closed = False

    @property
    def size(self) -> int:
        return self._out.tell()

    def add_png(self, png: bytes, at_ms: int) -> None:
        """Decode ``png`` and encode it as the frame shown from ``at_ms`` on."""
        for decoded in self._png.decode(av.Packet(png)):
            self._add(decoded, at_ms)

    def add_image(self, image: Any, at_ms: int) -> None:
        """Encode the Pillow ``image`` (RGB) as the frame shown from ``at_ms`` on."""
        self._add(av.VideoFrame.from_image(image), at_ms)  # type: ignore[no-untyped-call]

    def _add(self, frame: Any, at_ms: int) -> None:
        if self._stream is None:
            w, h = frame.width, frame.height
            scale = min(1.0, MAX_SIDE / max(w, h))
            self.width, self.height = _even(int(w * scale)), _even(int(h * scale))
            stream = self._container.add_stream("libx264", rate=self.fps)
            stream.width, stream.height = self.width, self.height
            stream.pix_fmt = "yuv420p"
            stream.time_base = Fraction(1, 1000)
            stream.codec_context.time_base = Fraction(1, 1000)
            stream.options = {"preset": "veryfast", "crf": CRF, "tune": "stillimage", "bf": "0"}
            self._stream = stream
        pts = max(at_ms, self._last_pts + 1)
        self._last_pts = pts
        out = frame.reformat(width=self.width, height=self.height, format="yuv420p")
        out.pts = pts
        out.time_base = Fraction(1, 1000)
        for packet in self._stream.encode(out):
            self._container.mux(packet)
        self.frames += 1

    def finish(self) -> bytes:
        """Flush the encoder and close the file; its bytes (empty when no frame came)."""
        if self._closed:
            return b""
        if self._stream is not None:
            for packet in self._stream.encode(None):
                self._container.mux(packet)
        if self.frames == 0:
            self.close()
            return b""
        self._container.close()
        self._closed = True
        self._stream = None
        self._png = None
        return self._out.getvalue()

    def close(self) -> None:
        """Release the encoder, its threads and buffers without making a file (a recording
        abandoned or cancelled). Idempotent; after it the encoder takes no frame."""
        if self._closed:
            return
        self._closed = True
        # an unfinished stream may refuse its trailer; its codec is freed all the same
        with contextlib.suppress(Exception):
            self._container.close()
        self._stream = None
        self._png = None
        self._out = io.BytesIO()
