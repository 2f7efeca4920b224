"""The simulated device's own screen recorder (``SimConfig.device_recorder``): what a phone's
``screenrecord`` or a Simulator's ``simctl io recordVideo`` does, films the screen as it is —
knowing nothing of the hub's secrets — into an H.264 MP4 (PyAV, the ``media`` extra), so the
hub's handling of device-side recordings (``bridge.hub.recording.device_recording``) can be
tested without a phone.

At ``fps`` a second the scene is painted (at half the device's size, only when it changed)
and encoded in a worker thread; it stops at ``stop``, after ``seconds``, or when the file
passes ``max_bytes`` (truncated).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from bridge.core.media import Recording
from bridge.devices.sim.views import Scene

PAINT_SCALE = 2


class SimScreenRecorder:
    name = "device"

    def __init__(self, scene: Callable[[], Scene], fps: int) -> None:
        self.scene = scene
        self.fps = max(1, fps)
        self.frames = 0
        """Frames filmed so far (tests wait on it)."""

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        from bridge.core.mp4_encoder import Mp4Encoder

        encoder = Mp4Encoder(self.fps)
        try:
            return await self._record(encoder, seconds, stop, max_bytes)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(encoder.close)

    async def _record(
        self, encoder: Any, seconds: int, stop: anyio.Event, max_bytes: int
    ) -> Recording:
        from bridge.devices.sim.paint import paint_scene

        start = due = anyio.current_time()
        last: Scene | None = None
        image: Any = None
        truncated = False
        reason: str | None = None
        while not stop.is_set() and anyio.current_time() - start < seconds:
            scene = self.scene()
            if image is None or scene != last:
                image = await anyio.to_thread.run_sync(_picture, paint_scene, scene)
                last = scene
            at_ms = int((anyio.current_time() - start) * 1000)
            await anyio.to_thread.run_sync(encoder.add_image, image, at_ms)
            self.frames = encoder.frames
            if encoder.size >= max_bytes:
                truncated, reason = True, f"the recording reached its cap of {max_bytes} bytes"
                break
            due += 1 / self.fps
            wait = due - anyio.current_time()
            if wait > 0:
                with anyio.move_on_after(wait):
                    await stop.wait()
            else:
                due = anyio.current_time()
        elapsed = int((anyio.current_time() - start) * 1000)
        data = await anyio.to_thread.run_sync(encoder.finish)
        return Recording(
            data, encoder.frames, encoder.width, encoder.height, elapsed, truncated, reason
        )


def _picture(paint: Callable[[Scene, int], tuple[int, int, bytes]], scene: Scene) -> Any:
    from PIL import Image

    width, height, rgb = paint(scene, PAINT_SCALE)
    return Image.frombytes("RGB", (width, height), rgb)
