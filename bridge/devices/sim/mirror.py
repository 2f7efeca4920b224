"""The simulated device's live mirror: its own frames, encoded once on the hub.

At ``fps`` a second the source looks at the scene the device shows; a scene that changed is
painted (``paint_scene``, at half the device's resolution) and every tick is encoded with
libx264 (``bridge.core.h264_encoder``) in a worker thread, so an unchanged screen costs one
cheap skip frame, not a paint. The device's frames never pass through PNG. A key frame comes
every two seconds and whenever a viewer waits for one.

Secrets (``MirrorSink.mask_plan``): the plan is read before the scene and after the paint; a
tick where either holds sends nothing (viewers keep the last picture), otherwise the union of
their secret-holding fields is painted black before the frame is encoded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from bridge.core.h264 import AccessUnit, MirrorSink
from bridge.core.h264_encoder import H264Encoder, fit
from bridge.core.pixel_mask import MaskPlan, black_out_rgb
from bridge.devices.sim.views import Scene

MAX_SIDE = 1280
PAINT_SCALE = 2


class SimFrames:
    name = "frames"

    def __init__(self, scene: Callable[[], Scene], fps: int) -> None:
        self.scene = scene
        self.fps = max(1, fps)
        self._due = 0.0

    async def run(self, sink: MirrorSink) -> None:
        """Encode the device's frames into ``sink`` until cancelled."""
        from bridge.devices.sim.paint import paint_scene

        encoder: H264Encoder | None = None
        last: Scene | None = None
        frame: tuple[int, int, bytes] | None = None
        start = self._due = anyio.current_time()
        masked: tuple[object, MaskPlan, bytes] | None = None
        while True:
            before = sink.mask_plan()
            scene = self.scene()
            if frame is None or scene != last:
                frame = await anyio.to_thread.run_sync(paint_scene, scene, PAINT_SCALE)
                last = scene
            width, height, rgb = frame
            plan = before.union(sink.mask_plan())
            if plan.hold:  # a secret is being typed: viewers keep the last picture
                await self._tick_wait()
                continue
            if plan.regions:
                if masked is None or masked[0] is not frame or masked[1] != plan:
                    painted = await anyio.to_thread.run_sync(
                        black_out_rgb, width, height, rgb, plan.regions, plan.screen
                    )
                    masked = (frame, plan, painted)
                rgb = masked[2]
            if encoder is None or (encoder.width, encoder.height) != fit(width, height, MAX_SIDE):
                w, h = fit(width, height, MAX_SIDE)
                encoder = H264Encoder(w, h, self.fps, keyint=2 * self.fps)
                key = True
            else:
                key = sink.key_wanted()
            at_ms = int((anyio.current_time() - start) * 1000)
            units: list[AccessUnit] = await anyio.to_thread.run_sync(
                _encode, encoder, width, height, rgb, at_ms, key
            )
            for unit in units:
                sink.emit(unit, at_ms, encoder.width, encoder.height)
            await self._tick_wait()

    async def _tick_wait(self) -> None:
        self._due += 1 / self.fps
        wait = self._due - anyio.current_time()
        if wait > 0:
            await anyio.sleep(wait)
        else:
            self._due = anyio.current_time()  # behind: never catch up in a burst


def _encode(encoder: H264Encoder, w: int, h: int, rgb: Any, at_ms: int, key: bool) -> Any:
    return encoder.encode_rgb(w, h, rgb, at_ms, key)
