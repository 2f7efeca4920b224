"""What a screen recorder made (shared by the hub and the device layers that record)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Recording:
    """The MP4's bytes and what it shows. ``truncated``: it stopped at (or passed) the size
    cap; ``reason``: why it ended early, in words."""

    data: bytes
    frames: int
    width: int
    height: int
    duration_ms: int
    truncated: bool = False
    reason: str | None = None


def probe_mp4(data: bytes) -> tuple[int, int, int]:
    """(frames, width, height) of an MP4 as its header tells (zeros when unreadable or when
    PyAV, the media extra, is absent). Reads bytes only (PyAV on memory): no clock, no file."""
    if not data:
        return 0, 0, 0
    import io

    try:
        import av
    except ImportError:  # the media extra is absent: the size is all that is known
        return 0, 0, 0

    try:
        with av.open(io.BytesIO(data)) as container:
            stream = container.streams.video[0]
            return int(stream.frames), stream.codec_context.width, stream.codec_context.height
    except (av.error.FFmpegError, IndexError):
        return 0, 0, 0


class AppNotInstalled(LookupError):
    """A device layer was asked to launch an app the device does not have (``args[0]``: the
    app id). The hub answers with one line naming ``mobridge apps DEVICE``."""


class AppNotRunning(LookupError):
    """A device layer was asked to terminate an app that has no process (``args[0]``: the
    app id). The hub refuses NO_EFFECT: nothing was stopped."""
