"""Mirrors: a device's live screen, encoded once and fanned out to every viewer.

A viewer opens the websocket ``/v1/mirror?device=ID&fps=N`` (``bridge.wire.pictures``; the
server authenticates it and hands it to ``serve``). Rules:

- one source per device, whatever the number of viewers: it starts with the first viewer and
  stops when the last one leaves. The source is the device layer's own when it has one
  (``mirror_source``: the simulated device's frames, Android's ``screenrecord``), else the
  agent's screenshots encoded on the hub (``bridge.hub.mirror_shots``). It runs at the rate
  its first viewer asked for (at most ``MAX_MIRROR_FPS``);
- each access unit is framed once (a server's websocket frames are not masked) and the very
  same bytes are written to every viewer's socket; the config message likewise;
- the frames since the last key frame are kept (at most ``gop_bytes``): a viewer that joins,
  or that catches up after falling behind, gets the config and those frames at once and
  decodes from there; past the bound they are dropped and the source is asked for a key frame;
- per viewer, the bytes waiting in its socket are bounded (``viewer_bytes``): a frame that
  would pass the bound is dropped for that viewer alone, which then waits for its socket to
  drain below half the bound and restarts from the kept frames (never a half-decodable
  stream); a viewer that stays over its bound for ``cut_after_s`` is cut off (its socket
  aborted). Nothing a viewer does makes any other viewer wait or lose a frame;
- no secret reaches a viewer: a source that encodes on the hub paints the fields holding a
  secret black and sends nothing while one is being typed (``MirrorSink.mask_plan``); a
  source that passes the device's encoding through runs only while no secret shows
  (``bridge.hub.mirror_secrets``);
- at most ``MAX_VIEWERS`` viewers per device and ``MAX_HUB_VIEWERS`` per hub, so the bytes
  held for viewers stay under ``MAX_HUB_VIEWERS`` x ``viewer_bytes`` plus ``gop_bytes`` a
  device (all in ``/v1/stats`` ``mirror``); a source that fails tells its viewers
  (``mirror.closed``) and closes them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

import anyio
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from bridge.core.h264 import AccessUnit, MirrorSink, codec_string
from bridge.core.pixel_mask import MaskPlan
from bridge.hub.device import DeviceRuntime
from bridge.hub.mirror_secrets import SecretSwitch
from bridge.hub.mirror_shots import ScreenshotFrames
from bridge.hub.pixel_secrets import mask_plan
from bridge.net.auth import Principal
from bridge.net.frames import frame
from bridge.wire.codec import encode
from bridge.wire.pictures import (
    MAX_MIRROR_FPS,
    MIRROR_HEADER,
    MIRROR_KEY,
    MirrorClosed,
    MirrorConfig,
)

VIEWER_BYTES: Final = 2 << 20
CUT_AFTER_S: Final = 5.0
GOP_BYTES: Final = 8 << 20
MAX_VIEWERS: Final = 64
MAX_HUB_VIEWERS: Final = 256


class MirrorSource(Protocol):
    name: Any

    async def run(self, sink: MirrorSink) -> None: ...


@runtime_checkable
class HasMirror(Protocol):
    """A device layer's media that offers a live mirror of its own."""

    def mirror_source(self, fps: int) -> MirrorSource | None: ...


@dataclass(eq=False)
class Viewer:
    ws: ServerConnection
    name: str
    waiting: bool = True
    """Waits to (re)start from the kept frames (joined, or fell behind)."""
    config: bytes | None = None
    """The config frame this viewer last got."""
    over_since: float | None = None
    sent: int = 0
    dropped: int = 0
    restarts: int = 0
    cut: str | None = None
    done: anyio.Event = field(default_factory=anyio.Event)

    def buffered(self) -> int:
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def open(self) -> bool:
        transport = self.ws.transport
        return (
            self.cut is None
            and self.ws.protocol.state is State.OPEN
            and transport is not None
            and not transport.is_closing()
        )


@dataclass
class MirrorCounts:
    source_starts: int = 0
    frames: int = 0
    key_frames: int = 0
    bytes: int = 0
    viewers_total: int = 0
    cut_off: int = 0
    source_failures: int = 0
    secret_holds: int = 0
    """Looks at the screen's secrets that said: send no picture (one is being typed)."""
    secret_masked: int = 0
    """Looks that said: paint the fields holding a secret black."""


class Mirror(MirrorSink):
    """One device's mirror (module rules)."""

    def __init__(
        self,
        device: DeviceRuntime,
        *,
        viewer_bytes: int = VIEWER_BYTES,
        cut_after_s: float = CUT_AFTER_S,
        gop_bytes: int = GOP_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = device
        self.viewer_bytes = viewer_bytes
        self.cut_after_s = cut_after_s
        self.gop_bytes = gop_bytes
        self.clock = clock
        self.viewers: set[Viewer] = set()
        self.source_name: str | None = None
        self.source: Any = None
        self.fps = 0
        self.scope: anyio.CancelScope | None = None
        self._config: MirrorConfig | None = None
        self._config_frame: bytes | None = None
        self._gop: list[bytes] = []
        self._gop_bytes = 0
        self._want_key = True
        self.counts = MirrorCounts()

    # ---- MirrorSink -------------------------------------------------------------------------

    def key_wanted(self) -> bool:
        wanted, self._want_key = self._want_key, False
        return wanted

    def mask_plan(self) -> MaskPlan:
        plan = mask_plan(self.device)
        if plan.hold:
            self.counts.secret_holds += 1
        elif plan.regions:
            self.counts.secret_masked += 1
        return plan

    def emit(self, unit: AccessUnit, at_ms: int, width: int, height: int) -> None:
        self.counts.frames += 1
        self.counts.bytes += len(unit.data)
        if unit.key:
            self.counts.key_frames += 1
            codec = codec_string(unit.data) or (self._config.codec if self._config else None)
            if codec is not None:
                config = MirrorConfig(
                    device=self.device.id,
                    codec=codec,
                    width=width,
                    height=height,
                    fps=self.fps,
                    source=getattr(self.source, "showing", None)  # type: ignore[arg-type]
                    or self.source_name
                    or "frames",
                )
                if config != self._config:
                    self._config = config
                    self._config_frame = frame(encode(config), text=True)
            self._gop, self._gop_bytes = [], 0
        flags = MIRROR_KEY if unit.key else 0
        data = frame(MIRROR_HEADER.pack(flags, max(0, at_ms) * 1000) + unit.data, text=False)
        if self._gop or unit.key:
            if self._gop_bytes + len(data) > self.gop_bytes:
                self._gop, self._gop_bytes = [], 0
                self._want_key = True
            else:
                self._gop.append(data)
                self._gop_bytes += len(data)
        now = self.clock()
        for viewer in list(self.viewers):
            self._offer(viewer, data, unit.key, now)

    # ---- fan-out ----------------------------------------------------------------------------

    def _offer(self, viewer: Viewer, data: bytes, key: bool, now: float) -> None:
        if not viewer.open():
            return
        if viewer.waiting:
            if viewer.buffered() < self.viewer_bytes // 2 and self._restart(viewer):
                return  # the kept frames end with this one
            viewer.dropped += 1
            self._check_stall(viewer, now)
            return
        if viewer.buffered() + len(data) > self.viewer_bytes:
            viewer.dropped += 1
            viewer.waiting = True
            self._check_stall(viewer, now)
            return
        viewer.over_since = None
        if key and self._config_frame is not None and viewer.config is not self._config_frame:
            self._write(viewer, self._config_frame, counted=False)  # the source changed
            viewer.config = self._config_frame
        self._write(viewer, data)

    def _restart(self, viewer: Viewer) -> bool:
        """Send ``viewer`` the config and the frames since the last key frame; False when
        none are kept yet (then a key frame is asked for)."""
        if not self._gop or self._config_frame is None:
            self._want_key = True
            return False
        if viewer.config is not self._config_frame:
            self._write(viewer, self._config_frame, counted=False)
            viewer.config = self._config_frame
        for data in self._gop:
            self._write(viewer, data)
        viewer.waiting = False
        viewer.over_since = None
        viewer.restarts += 1
        return True

    def _write(self, viewer: Viewer, data: bytes, counted: bool = True) -> None:
        transport = viewer.ws.transport
        if transport is not None:
            transport.write(data)
            if counted:
                viewer.sent += 1

    def _check_stall(self, viewer: Viewer, now: float) -> None:
        if viewer.over_since is None:
            viewer.over_since = now
        elif now - viewer.over_since >= self.cut_after_s:
            self.cut(
                viewer,
                f"the viewer read nothing for {self.cut_after_s:g} s while over its "
                f"{self.viewer_bytes} byte bound",
            )

    def cut(self, viewer: Viewer, reason: str) -> None:
        """Drop ``viewer`` at once: its socket is aborted (it reads nothing, so a close
        handshake would never end)."""
        if viewer.cut is not None:
            return
        viewer.cut = reason
        self.counts.cut_off += 1
        self.viewers.discard(viewer)
        transport = viewer.ws.transport
        if transport is not None:
            transport.abort()
        viewer.done.set()

    def statistics(self) -> dict[str, Any]:
        return {
            "source": self.source_name,
            "running": self.scope is not None,
            "fps": self.fps,
            **vars(self.counts),
            "kept_frames": len(self._gop),
            "kept_bytes": self._gop_bytes,
            "viewers": {
                v.name: {
                    "sent": v.sent,
                    "dropped": v.dropped,
                    "restarts": v.restarts,
                    "buffered": v.buffered(),
                }
                for v in self.viewers
            },
            "buffered_bytes": sum(v.buffered() for v in self.viewers),
        }


class Mirrors:
    """Every device's mirror, and the websocket handler of ``/v1/mirror``."""

    def __init__(self, devices: dict[str, DeviceRuntime], media: dict[str, Any]) -> None:
        self.devices = devices
        self.media = media
        self.mirrors: dict[str, Mirror] = {}
        self.spawn: Callable[..., Any] | None = None
        """Starts a task in the hub's task group (the composition root sets it)."""
        self.log: Any = None
        self.limits: dict[str, Any] = {}
        """Overrides of ``Mirror``'s bounds (tests shorten ``cut_after_s``)."""
        self._names = 0

    def source_for(self, device: DeviceRuntime, fps: int) -> MirrorSource | None:
        media = self.media.get(device.id)
        if isinstance(media, HasMirror):
            own = media.mirror_source(fps)
            if own is not None and getattr(own, "passthrough", False):
                shots = (
                    ScreenshotFrames(device, fps) if "screenshot" in device.capabilities else None
                )
                return SecretSwitch(own, shots)  # never the device's frames while a secret shows
            if own is not None:
                return own
        if "screenshot" in device.capabilities:
            return ScreenshotFrames(device, fps)
        return None

    async def serve(
        self, ws: ServerConnection, principal: Principal, params: dict[str, str]
    ) -> None:
        """One viewer, from its socket's opening until it closes or is cut off."""
        device = self.devices.get(params.get("device", ""))
        fps_text = params.get("fps", str(MAX_MIRROR_FPS))
        fps = min(MAX_MIRROR_FPS, max(1, int(fps_text))) if fps_text.isdigit() else 0
        if device is None or fps == 0:
            await ws.close(1008, "name an attached device (device=ID) and fps=1..30")
            return
        mirror = self.mirrors.get(device.id)
        if mirror is None:
            mirror = self.mirrors[device.id] = Mirror(device, **self.limits)
        if len(mirror.viewers) >= MAX_VIEWERS or self.viewers() >= MAX_HUB_VIEWERS:
            await ws.close(
                1013,
                f"at most {MAX_VIEWERS} viewers per device and {MAX_HUB_VIEWERS} per hub; "
                "try again later",
            )
            return
        if mirror.scope is None:
            source = self.source_for(device, fps)
            if source is None:
                await ws.close(1008, f"device {device.id} offers no live mirror")
                return
            self._start(mirror, source, fps)
        self._names += 1
        viewer = Viewer(ws, f"v{self._names}:{principal.name}")
        mirror.viewers.add(viewer)
        mirror.counts.viewers_total += 1
        mirror._restart(viewer)
        try:
            async with anyio.create_task_group() as tg:

                async def read() -> None:
                    with contextlib.suppress(ConnectionClosed):
                        async for _ in ws:  # a viewer says nothing the hub uses
                            pass
                    tg.cancel_scope.cancel()

                tg.start_soon(read)
                await viewer.done.wait()
                tg.cancel_scope.cancel()
        finally:
            mirror.viewers.discard(viewer)
            if not mirror.viewers and mirror.scope is not None:
                mirror.scope.cancel()
                mirror.scope = None

    def _start(self, mirror: Mirror, source: MirrorSource, fps: int) -> None:
        scope = anyio.CancelScope()
        mirror.scope = scope
        mirror.source_name = str(source.name)
        mirror.source = source
        mirror.fps = fps
        mirror.counts.source_starts += 1
        mirror._want_key = True

        async def run() -> None:
            reason = "the mirror's source ended"
            with scope:
                try:
                    await source.run(mirror)
                except Exception as exc:
                    mirror.counts.source_failures += 1
                    reason = f"the mirror's source failed: {exc}"[:200]
                    if self.log is not None:
                        self.log.warning("mirror_failed", device=mirror.device.id, error=reason)
                closed = frame(
                    encode(MirrorClosed(device=mirror.device.id, reason=reason)), text=True
                )
                for viewer in list(mirror.viewers):
                    if viewer.open():
                        mirror._write(viewer, closed, counted=False)
                    viewer.done.set()
            if mirror.scope is scope:
                mirror.scope = None

        if self.spawn is None:
            raise RuntimeError("the hub is not running")
        self.spawn(run)

    def viewers(self) -> int:
        return sum(len(m.viewers) for m in self.mirrors.values())

    def statistics(self) -> dict[str, Any]:
        return {device: m.statistics() for device, m in self.mirrors.items()}
