"""The live mirror of a device with no encoder of its own: its agent's screenshots, encoded on
the hub (what an iOS device offers; see docs/mirror.md).

One screenshot in flight at a time, at most ``fps`` a second (a slower agent sets the pace);
each PNG is decoded and encoded to H.264 (``bridge.core.h264_encoder``) in a worker thread.
A screenshot the agent refuses (a secure window) is skipped; a link that drops ends the
source. Secrets (``MirrorSink.mask_plan``, read before the screenshot is asked for and after
it arrived): a screenshot taken while either holds is not sent; otherwise the union of their
secret-holding fields is painted black before it is encoded.
"""

from __future__ import annotations

import io
from typing import Any

import anyio
import anyio.to_thread

from bridge.core.h264 import AccessUnit, MirrorSink
from bridge.core.h264_encoder import H264Encoder, fit
from bridge.core.pixel_mask import MaskPlan, paint_black
from bridge.core.png_check import PngRefused, check_png
from bridge.hub.device import DeviceRuntime
from bridge.hub.memory_bounds import display_size
from bridge.net.agent_link import decode_reply_png
from bridge.wire.agent_link import ScreenshotCommand

MAX_SIDE = 1280


class ScreenshotFrames:
    name = "screenshots"

    def __init__(self, device: DeviceRuntime, fps: int) -> None:
        self.device = device
        self.fps = max(1, fps)

    async def run(self, sink: MirrorSink) -> None:
        encoder: list[H264Encoder] = []
        start = anyio.current_time()
        due = start
        while True:
            link = self.device.link
            if link is None:
                raise RuntimeError(f"device {self.device.id} went offline")
            before = sink.mask_plan()
            reply = await link.command(lambda cid: ScreenshotCommand(id=cid), timeout_s=10.0)
            png = decode_reply_png(reply) if reply.ok else None
            del reply
            plan = before.union(sink.mask_plan())
            if png is not None and not plan.hold:
                if isinstance(check_png(png, display_size(self.device)), PngRefused):
                    raise RuntimeError(f"device {self.device.id} sent a picture the hub refuses")
                at_ms = int((anyio.current_time() - start) * 1000)
                key = sink.key_wanted()
                units, size = await anyio.to_thread.run_sync(
                    _encode, encoder, png, at_ms, key, plan
                )
                for unit in units:
                    sink.emit(unit, at_ms, *size)
            due += 1 / self.fps
            wait = due - anyio.current_time()
            if wait > 0:
                await anyio.sleep(wait)
            else:
                due = anyio.current_time()


def _encode(
    encoder: list[H264Encoder], png: bytes, at_ms: int, key: bool, plan: MaskPlan
) -> tuple[list[AccessUnit], tuple[int, int]]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        picture: Any = image.convert("RGB")
    if plan.regions:
        paint_black(picture, plan.regions, plan.screen)
    size = fit(picture.width, picture.height, MAX_SIDE)
    if not encoder or (encoder[0].width, encoder[0].height) != size:
        encoder[:] = [H264Encoder(*size, fps=30, keyint=60)]
        key = True
    return encoder[0].encode_image(picture, at_ms, key), size
