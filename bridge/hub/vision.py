"""The hub's vision fallback: read the blind regions of a device's settled screen.

Per device (one ``watch`` task beside its ingest loop, only when the hub serves with vision):

- wait until the screen settles: the agent said stable and no new generation arrived for
  ``SETTLE_MS``; then look at the blind regions (``bridge.vision.regions``) of the newest
  capture. None: drop any overlay and wait for the next change;
- take one screenshot, check its size before decoding it (``png_check``: the device's
  display, at most ``MAX_PIXELS``; refused ones are counted), decode it in a worker thread,
  and there (one OCR at a time for the whole hub) crop each region, hash it and read only
  what the cache does not know (``bridge.vision.reader``);
- when what was read differs from the device's overlay, set it and hand the device's last push
  back to its ingest (``offer``: only when no newer push waits), so the vision nodes arrive as
  one more generation, after the accessible content's own: a delta of accessible content is
  never held for OCR;
- no text is an answer (no vision nodes), and a failure of any step (screenshot, decoding,
  the engine) is counted, logged once per kind and answered as nothing read: this task runs
  in the device's link task group and never ends it;
- while blind regions are shown, look again every ``RECHECK_S`` (a canvas can change without
  its tree changing): a screenshot and hashes, and OCR only for pixels not seen before.

Vision nodes are weaker evidence than accessibility: an action on one is a coordinate tap at
its centre (``tap_command``), reported as a VISION_COORDINATE fallback (``as_vision_dispatch``).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from bridge.core.png_check import PngInfo, check_png
from bridge.core.resource_ledger import ResourceLedger
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import refusal
from bridge.hub.memory_bounds import display_size
from bridge.hub.resources import VISION_READS, hold
from bridge.net.agent_link import AgentLost, decode_reply_png
from bridge.vision.overlay import Overlay
from bridge.vision.regions import Region, blind_regions
from bridge.wire.action import Dispatch
from bridge.wire.agent_link import GestureCommand, Point, ScreenshotCommand
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    DispatchStatus,
    ErrorCode,
    FallbackType,
    Source,
)
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawTree

if TYPE_CHECKING:  # Pillow and the engine load with vision, not with the hub
    from PIL import Image

    from bridge.vision.engine import OcrEngine

SETTLE_MS = 300
RECHECK_S = 2.0
SCREENSHOT_TIMEOUT_S = 10.0
LOGGED_KINDS = 32
MAX_PIXELS = 16_000_000
"""A screenshot past this many pixels (or past the device's display, ``png_check``) is never
decoded for reading: a 4K screen is 8.3 million; 13,000 x 13,000 would take 500 MB."""
TAP_VERBS = {ActionVerb.CLICK: "tap", ActionVerb.LONG_CLICK: "long_press"}


@dataclass
class VisionCounts:
    readings: int = 0
    """Settled screens whose blind regions were looked at (one screenshot each)."""
    overlays: int = 0
    """Readings that changed what the snapshot shows."""
    failures: int = 0
    """Readings that failed (no screenshot, an undecodable one, or a fault while reading);
    each leaves the device linked and its overlay as it was."""
    refused: int = 0
    """Screenshots refused before decoding: not a PNG, or past the display or ``MAX_PIXELS``."""


class VisionService:
    """One OCR engine and result cache for the hub; ``watch`` one task per device."""

    def __init__(self, engine: OcrEngine, log: Any = None) -> None:
        from bridge.vision.cache import ResultCache
        from bridge.vision.reader import RegionReader

        self.reader = RegionReader(engine, ResultCache())
        self.limiter = anyio.CapacityLimiter(1)
        self.counts = VisionCounts()
        self.log = log
        self._logged: set[str] = set()
        """Kinds of failure already logged (each is logged once; at most LOGGED_KINDS)."""
        self.ledger: ResourceLedger | None = None
        """The hub's resource ledger (set by the service): vision reads are counted there."""

    @classmethod
    def load(cls, log: Any = None) -> VisionService | str:
        """The service, or the one line saying how to enable vision."""
        from bridge.vision.engine import load_engine

        engine = load_engine()
        return engine if isinstance(engine, str) else cls(engine, log)

    def statistics(self) -> dict[str, object]:
        timings = sorted(self.reader.stats.ocr_ms)
        cache = self.reader.cache
        return {
            "engine": self.reader.engine.name,
            "readings": self.counts.readings,
            "overlays": self.counts.overlays,
            "failures": self.counts.failures,
            "engine_failures": self.reader.stats.failures,
            "refused": self.counts.refused,
            "ocr_passes": self.reader.stats.passes,
            "ocr_p50_ms": round(timings[len(timings) // 2], 1) if timings else None,
            "cache_hits": cache.hits,
            "cache_misses": cache.misses,
            "cache_entries": len(cache),
        }

    async def watch(self, device: DeviceRuntime, reingest: Callable[[], None]) -> None:
        """Keep ``device``'s overlay in step with its blind regions (runs until cancelled)."""
        done: tuple[int, tuple[Region, ...]] | None = None
        recheck = False
        while True:
            await self._settled(device)
            current = device.current
            if current is None or not device.online:
                await _next_change(device, None)
                continue
            regions = blind_regions(current.normalized.full.nodes)
            key = (current.capture_no, regions)
            if not regions:
                if device.vision_overlay is not None:
                    device.vision_overlay = None
                    reingest()
                done = key
                await _next_change(device, None)
                continue
            if key != done or recheck:
                overlay = await self._read_safely(device, regions)
                done = key
                if overlay is not None and overlay != device.vision_overlay:
                    device.vision_overlay = overlay
                    self.counts.overlays += 1
                    reingest()
            recheck = not await _next_change(device, RECHECK_S)

    async def _settled(self, device: DeviceRuntime) -> None:
        while True:
            quiet = device.clock_ms() - device.last_change_ms
            if device.agent_stable and quiet >= SETTLE_MS:
                return
            await _next_change(device, max(0.05, (SETTLE_MS - quiet) / 1000))

    async def _read_safely(
        self, device: DeviceRuntime, regions: tuple[Region, ...]
    ) -> Overlay | None:
        """``_read``, with any fault of the screenshot, the decoder or the engine counted,
        logged the first time its kind is seen, and answered as "nothing read": this task
        runs beside the device's link, so it must never end it. Engine faults inside a
        region are counted by the reader (``engine_failures``) and logged here once."""
        engine_failures = self.reader.stats.failures
        try:
            overlay = await self._read(device, regions)
        except Exception as exc:
            self.counts.failures += 1
            self._log_once("vision_read_failed", device, f"{type(exc).__name__}: {exc}")
            return None
        if self.reader.stats.failures > engine_failures:
            self._log_once("vision_engine_failed", device, self.reader.stats.last_failure or "")
        return overlay

    def _log_once(self, event: str, device: DeviceRuntime, error: str) -> None:
        kind = f"{event}:{error.split(':', 1)[0]}"
        if kind in self._logged or len(self._logged) >= LOGGED_KINDS:
            return
        self._logged.add(kind)
        if self.log is not None:
            self.log.warning(event, device=device.id, error=error[:300], logged="once")

    async def _read(self, device: DeviceRuntime, regions: tuple[Region, ...]) -> Overlay | None:
        if self.ledger is None:
            return await self._read_counted(device, regions)
        with hold(self.ledger, VISION_READS, device.id):
            return await self._read_counted(device, regions)

    async def _read_counted(
        self, device: DeviceRuntime, regions: tuple[Region, ...]
    ) -> Overlay | None:
        link = device.link
        push = device.last_push
        if link is None or push is None:
            return None
        self.counts.readings += 1
        try:
            reply = await link.command(
                lambda cid: ScreenshotCommand(id=cid), timeout_s=SCREENSHOT_TIMEOUT_S
            )
        except (AgentLost, TimeoutError):
            self.counts.failures += 1
            return None
        if not reply.ok or not reply.png_base64:
            self.counts.failures += 1  # a secure window: nothing to read
            return None
        data = decode_reply_png(reply)
        checked = check_png(data, display_size(device), max_pixels=MAX_PIXELS) if data else None
        if data is None or not isinstance(checked, PngInfo):  # checked before decoding
            self.counts.failures += 1
            self.counts.refused += 1
            return None
        png = await anyio.to_thread.run_sync(_decode, data, limiter=self.limiter)
        if png is None:
            self.counts.failures += 1
            return None
        scale = png.width / max(1, _screen_width(push.tree, png.width))
        return await anyio.to_thread.run_sync(
            self.reader.read_regions, png, regions, scale, limiter=self.limiter
        )


def _decode(data: bytes) -> Image.Image | None:
    """The decoded picture (a worker thread: decoding is CPU and memory the loop must not
    spend); the caller checked its size first (``check_png``)."""
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return image


def _screen_width(tree: RawTree, fallback: int) -> int:
    if tree.screen is not None:
        return tree.screen.width
    rights = [n.bounds[2] for n in tree.nodes if n.bounds is not None]
    return max(rights, default=fallback)


async def _next_change(device: DeviceRuntime, timeout_s: float | None) -> bool:
    """Wait for the device's next change (True) or ``timeout_s`` (False)."""
    changed = device.changed
    if timeout_s is None:
        await changed.wait()
        return True
    with anyio.move_on_after(timeout_s):
        await changed.wait()
        return True
    return False


def tap_command(node: SemanticNode, verb: ActionVerb) -> Callable[[int], GestureCommand] | None:
    """The coordinate tap an action on a vision node becomes (None: the verb has no
    coordinate form; the caller refuses it)."""
    kind = TAP_VERBS.get(verb)
    if kind is None or node.bounds is None:
        return None
    left, top, right, bottom = node.bounds
    point = Point(x=(left + right) // 2, y=(top + bottom) // 2)
    return lambda cid: GestureCommand(id=cid, kind=kind, points=(point,))


def vision_command(node: SemanticNode, verb: ActionVerb) -> Callable[[int], GestureCommand] | None:
    """None for a node the accessibility tree gave; for a vision node the coordinate tap at its
    centre (raises ACTION_UNSUPPORTED for a verb with no coordinate form, e.g. SET_TEXT)."""
    if node.source is not Source.VISION:
        return None
    command = tap_command(node, verb)
    if command is None:
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"{verb.value} on text read by vision: only CLICK and LONG_CLICK (coordinate taps)",
            ("tap the text, then type into the field the tree shows",),
        )
    return command


def as_vision_dispatch(dispatch: Dispatch) -> Dispatch:
    """A dispatched coordinate tap on a vision node, reported as such."""
    if dispatch.status is not DispatchStatus.DISPATCHED:
        return dispatch
    return Dispatch(
        status=DispatchStatus.DISPATCHED,
        method=ActionMethod.GESTURE_FALLBACK,
        fallback_used=True,
        fallback_type=FallbackType.VISION_COORDINATE,
    )
