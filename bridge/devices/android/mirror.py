"""An Android device's live mirror from its own H.264 encoder, as scrcpy does it.

``screenrecord --output-format=h264 ... -`` writes a raw Annex B stream to its standard
output, which adb's shell carries to the hub (``shell(..., stream=True)``); the hub cuts it
into access units (``bridge.core.h264.AccessUnits``) and hands them on. Nothing is encoded on
the hub. Rules:

- the stream is read in a daemon thread (``adb.pump``), in chunks of ``CHUNK`` bytes; the
  event loop only cuts and fans out;
- ``screenrecord`` stops by itself after ``MAX_SCREENRECORD_S`` (the tool's own cap on most
  versions), or when the display's size changes; the source starts it again while viewers
  remain (each new run begins with SPS, PPS and a key frame);
- the device's encoder makes frames only when the screen changes (a still screen sends
  nothing) and chooses its own key-frame interval: it cannot be asked for a key frame, so
  ``key_wanted`` is ignored and the hub keeps the frames since the last key frame for viewers
  that join (``bridge.hub.mirror``);
- the size is the device's display, scaled so its longer side is at most ``MAX_SIDE``
  (``--size``); the bit rate is ``BIT_RATE``. A run that fails at once (no such option on an
  old Android, a device gone) ends the source with the tool's words.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio

from bridge.core.h264 import AccessUnits, MirrorSink
from bridge.core.h264_encoder import fit
from bridge.devices.android.adb import AdbDeviceLike, blocking, pump, run_shell

CHUNK = 64 * 1024
MAX_SCREENRECORD_S = 180
MAX_SIDE = 1280
BIT_RATE = 4_000_000
QUICK_END_S = 1.0
"""A run that ends sooner than this without a frame is a failure, not the tool's time cap."""


def screenrecord_command(width: int | None, height: int | None) -> str:
    size = f" --size {width}x{height}" if width and height else ""
    return (
        f"screenrecord --output-format=h264 --bit-rate {BIT_RATE}"
        f" --time-limit {MAX_SCREENRECORD_S}{size} -"
    )


def parse_wm_size(text: str) -> tuple[int, int] | None:
    """The display size from ``wm size`` (an override wins over the physical size)."""
    found: tuple[int, int] | None = None
    for line in text.splitlines():
        _, _, value = line.partition(":")
        w, _, h = value.strip().partition("x")
        if w.isdigit() and h.isdigit():
            found = (int(w), int(h))
    return found


class ScreenrecordStream:
    name = "screenrecord"
    passthrough = True
    """The device's own encoding is passed through: the hub cannot paint a secret black in
    it (``bridge.hub.mirror_secrets`` switches away from it while one shows)."""

    def __init__(self, device: AdbDeviceLike, clock: Callable[[], float] = time.monotonic):
        self.device = device
        self.clock = clock
        self.runs = 0

    async def run(self, sink: MirrorSink) -> None:
        """Stream the device's screen into ``sink`` until cancelled (module rules)."""
        size = parse_wm_size(
            (await blocking(run_shell, self.device, "wm size", 10.0)).decode("utf-8", "replace")
        )
        width, height = fit(*size, MAX_SIDE) if size is not None else (0, 0)
        start = self.clock()
        while True:
            self.runs += 1
            began = self.clock()
            frames, said = await self._one_run(sink, width, height, start)
            if frames == 0 and self.clock() - began < QUICK_END_S:
                raise RuntimeError(f"screenrecord ended at once: {said.strip()[:200]!r}")

    async def _one_run(
        self, sink: MirrorSink, width: int, height: int, start: float
    ) -> tuple[int, str]:
        command = screenrecord_command(width, height)
        stream: Any = await blocking(self.device.shell, command, True)

        def produce(emit: Callable[[Any], bool]) -> None:
            try:
                while True:
                    chunk = stream.recv(CHUNK)
                    if not chunk or not emit(chunk):
                        return
            finally:
                stream.close()

        chunks = pump(produce, "mobridge-screenrecord")
        cutter = AccessUnits()
        frames = 0
        first = b""
        try:
            async with chunks:
                async for chunk in chunks:
                    if isinstance(chunk, Exception):
                        raise chunk
                    if frames == 0 and len(first) < 512:
                        first += chunk[:512]
                    for unit in cutter.feed(chunk):
                        frames += 1
                        sink.emit(unit, int((self.clock() - start) * 1000), width, height)
            for unit in cutter.flush():
                frames += 1
                sink.emit(unit, int((self.clock() - start) * 1000), width, height)
        finally:
            with anyio.CancelScope(shield=True):
                await blocking(stream.close)
        return frames, first.decode("utf-8", "replace") if frames == 0 else ""
