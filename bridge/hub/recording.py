"""``record.start`` / ``record.stop`` / ``record.read``: screen recordings held by the hub.

A recording runs in the task of its ``record.start`` request, which answers at once (state
``recording``) and keeps running until ``record.stop``, its ``seconds``, its size cap, or the
session's end. Its recorder is the device layer's own (Android ``screenrecord``, Simulator
``simctl io recordVideo``) or, for any device whose agent offers ``screenshot``, screenshots
at ``fps`` encoded on the hub (``ScreenshotRecorder``, PyAV's H.264 in a worker thread).

Bounds: ``MAX_PER_SESSION`` recordings per session (running or unread), the ledger's
``RECORDINGS`` bound on running ones (per session and per hub), every recording at most its
``maxBytes`` (default ``DEFAULT_MAX_BYTES``), and the sum of the caps of running
recordings plus the bytes of finished ones at most ``MAX_HELD_BYTES`` (a start past any of
them is refused, and counted). A frame is checked
(``png_check``, at most ``MAX_FRAME_PIXELS``) before it is decoded, off the event loop. A
recording is dropped when it is read to its end, or when its session closes however it
closes: its recorder is stopped and its encoder released (threads and buffers) even when the
request task is cancelled.

A device layer's own recorder films the screen unmasked. While it runs, the hub notes every
``WATCH_S`` what the screen's secrets need (``pixel_secrets.mask_plan`` into a
``SecretTimeline``); when a secret showed (or was being typed) at any time, the device's file
is decoded and re-encoded with those fields black (``bridge.core.video_mask``, a worker
thread) and its ``source`` says ``masked by the hub``; when that cannot be done (no PyAV, a
file the hub does not read) the file is dropped and ``reason`` says why. A file no secret
could be in is handed over as the device made it.

PyAV (the ``media`` extra) is imported only when a screenshot recording starts, so a hub that
never records never loads it (a test lists what ``serve`` imports); without it such a start
is refused ACTION_UNSUPPORTED naming the extra.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from bridge.core.media import Recording
from bridge.core.png_check import PngRefused, check_png
from bridge.core.resource_ledger import ResourceLedger
from bridge.core.secret_timeline import SecretTimeline
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, offline, refusal
from bridge.hub.media_sources import DeviceMedia, Recorder
from bridge.hub.memory_bounds import display_size
from bridge.hub.pixel_secrets import mask_picture, mask_plan
from bridge.hub.resources import RECORDINGS, new_ledger, take
from bridge.net.agent_link import AgentLost, decode_reply_png
from bridge.net.client_server import Session
from bridge.wire.agent_link import ScreenshotCommand
from bridge.wire.client_protocol import ResultMessage
from bridge.wire.device_media import (
    MAX_RECORD_SECONDS,
    RecordingResult,
    RecordRead,
    RecordReadResult,
    RecordStart,
)
from bridge.wire.enums import ErrorCode, ProtocolErrorCode

if TYPE_CHECKING:  # PyAV loads only when a recording starts
    from bridge.core.mp4_encoder import Mp4Encoder

DEFAULT_MAX_BYTES = 64 << 20
MAX_HELD_BYTES = 192 << 20
MAX_PER_SESSION = 2
"""Recordings a session holds, running or unread (running ones are also in the ledger:
``resources.BOUNDS[RECORDINGS]``, at most 4 on the hub: each holds an H.264 encoder, its
threads and frame buffers, tens of MB, so a count bounds what the bytes cap cannot)."""
MAX_FRAME_PIXELS = 16_000_000
"""A recorded frame past this many pixels is refused before it is decoded (a 4K screen is
8.3 million)."""


MEDIA_HINT = (
    "install the media extra: in a checkout `MOBRIDGE_EXTRAS=media scripts/run`, "
    "else pip install 'mobridge[media]'"
)


def media_extra_missing() -> str | None:
    """None when PyAV can be imported (without importing it); else why, in words."""
    import importlib.util

    if importlib.util.find_spec("av") is None:
        return "PyAV (the media extra) is not installed on this hub"
    return None


class ScreenshotRecorder:
    """Screenshots over the agent link at ``fps``, encoded to H.264 on the hub; each frame
    with the fields holding a secret blacked out (``pixel_secrets``). A device layer's own
    recorder (``screenrecord``, ``simctl``) films on the device: its file is masked after
    (``device_recording``)."""

    name = "screenshots"

    def __init__(self, device: DeviceRuntime, fps: int) -> None:
        self.device = device
        self.fps = fps

    masks_itself = True

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        from bridge.core.mp4_encoder import Mp4Encoder

        encoder = Mp4Encoder(self.fps)
        try:
            return await self._record(encoder, seconds, stop, max_bytes)
        finally:
            # Finished or not (stopped, cancelled with its session, failed), the encoder's
            # threads and buffers go now, off the event loop, even under cancellation.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(encoder.close)

    async def _record(
        self, encoder: Mp4Encoder, seconds: int, stop: anyio.Event, max_bytes: int
    ) -> Recording:
        start = anyio.current_time()
        due = start
        truncated = False
        reason: str | None = None
        display = display_size(self.device)
        skipped = 0  # pictures left out (a secret being typed, not paintable): never unmasked
        while not stop.is_set() and anyio.current_time() - start < seconds:
            link = self.device.link
            if link is None:
                reason = "the device went offline"
                break
            before = mask_plan(self.device)
            try:
                reply = await link.command(lambda cid: ScreenshotCommand(id=cid), timeout_s=10.0)
            except (AgentLost, TimeoutError) as exc:
                reason = f"the device stopped answering: {exc}"
                break
            at_ms = int((anyio.current_time() - start) * 1000)
            png = decode_reply_png(reply) if reply.ok else None
            if png:
                checked = check_png(png, display, max_pixels=MAX_FRAME_PIXELS)
                if isinstance(checked, PngRefused):
                    reason = f"the device sent a frame the hub does not decode: {checked.reason}"
                    break
                masked = await mask_picture(self.device, png, before)  # no secret in a frame
                if masked is None:  # a secret being typed, or a picture Pillow cannot paint
                    skipped += 1
                else:
                    await anyio.to_thread.run_sync(encoder.add_png, masked, at_ms)
                if encoder.size >= max_bytes:
                    truncated, reason = True, f"the recording reached its cap of {max_bytes} bytes"
                    break
            due += 1 / self.fps
            wait = due - anyio.current_time()
            if wait > 0:
                with anyio.move_on_after(wait):
                    await stop.wait()
            else:
                due = anyio.current_time()  # behind: do not try to catch up in a burst
        elapsed = int((anyio.current_time() - start) * 1000)
        data = await anyio.to_thread.run_sync(encoder.finish)
        return Recording(
            data, encoder.frames, encoder.width, encoder.height, elapsed, truncated, reason
        )


WATCH_S = 0.05
"""How often the screen's secrets are noted while a device's own recorder runs."""


async def device_recording(
    recorder: Recorder,
    device: DeviceRuntime,
    seconds: int,
    stop: anyio.Event,
    cap: int,
    fps: int,
) -> tuple[Recording, bool]:
    """Run a device layer's own ``recorder`` and mask its file where a secret showed (module
    docstring); the recording, and whether the hub re-encoded it."""
    timeline = SecretTimeline()
    start = anyio.current_time()

    def now_ms() -> int:
        return int((anyio.current_time() - start) * 1000)

    async with anyio.create_task_group() as tg:

        async def watch() -> None:
            while True:
                timeline.note(now_ms(), mask_plan(device))
                await anyio.sleep(WATCH_S)

        tg.start_soon(watch)
        made = await recorder.record(seconds, stop, cap)
        timeline.note(now_ms(), mask_plan(device))
        tg.cancel_scope.cancel()
    if not timeline or not made.data:
        return made, False

    def dropped(why: str) -> tuple[Recording, bool]:
        reason = (
            f"a secret was on screen during the recording and {why}; the device's file was dropped"
        )
        return Recording(b"", 0, 0, 0, made.duration_ms, made.truncated, reason), False

    if (missing := media_extra_missing()) is not None:
        return dropped(f"{missing}, so the hub cannot mask it ({MEDIA_HINT})")
    from bridge.core.video_mask import mask_video

    try:
        with anyio.CancelScope(shield=True):  # the worker thread runs to its end regardless
            video = await anyio.to_thread.run_sync(
                lambda: mask_video(
                    made.data, timeline, max(1, fps), max_pixels=MAX_FRAME_PIXELS, max_bytes=cap
                )
            )
    except ValueError as exc:
        return dropped(f"the hub could not mask it: {exc}")
    truncated, reason = made.truncated, made.reason
    if len(video.data) > cap:
        return dropped(f"the masked file passed the cap of {cap} bytes")
    return (
        Recording(
            video.data, video.frames, video.width, video.height, made.duration_ms, truncated, reason
        ),
        True,
    )


@dataclass
class HeldRecording:
    id: str
    session: Session
    device: str
    source: str
    max_bytes: int
    stop: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    made: Recording | None = None

    def result(self) -> RecordingResult:
        made = self.made
        if made is None:
            return RecordingResult(
                recording=self.id, device=self.device, state="recording", source=self.source
            )
        return RecordingResult(
            recording=self.id,
            device=self.device,
            state="stopped",
            bytes=len(made.data),
            frames=made.frames,
            duration_ms=made.duration_ms,
            width=made.width,
            height=made.height,
            source=self.source,
            truncated=made.truncated,
            reason=made.reason,
        )


class Recordings:
    """Every recording of the hub (module docstring)."""

    def __init__(
        self, ledger: ResourceLedger | None = None, max_held_bytes: int = MAX_HELD_BYTES
    ) -> None:
        self.max_held_bytes = max_held_bytes
        self.held: dict[str, HeldRecording] = {}
        self._ids = itertools.count(1)
        self.ledger = ledger if ledger is not None else new_ledger()
        """Counts running recordings (``RECORDINGS``: per session and per hub)."""
        self.refused = 0

    def held_bytes(self) -> int:
        return sum(r.max_bytes if r.made is None else len(r.made.data) for r in self.held.values())

    def recorder_for(self, device: DeviceRuntime, media: DeviceMedia | None, fps: int) -> Recorder:
        if media is not None:
            own = media.recorder(fps)
            if own is not None:
                return own
        if "screenshot" in device.capabilities:
            if (missing := media_extra_missing()) is not None:
                raise refusal(
                    ErrorCode.ACTION_UNSUPPORTED,
                    f"device {device.id} is recorded from screenshots encoded on the hub, "
                    f"and {missing}",
                    (MEDIA_HINT, "restart the hub after installing it"),
                )
            return ScreenshotRecorder(device, fps)
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"device {device.id} cannot be recorded: its agent takes no screenshots and the hub "
            "has no device layer that records it",
            ("record with the platform's own tools", "use another device"),
        )

    async def run(
        self,
        session: Session,
        request_id: object,
        device: DeviceRuntime,
        msg: RecordStart,
        media: DeviceMedia | None,
    ) -> None:
        """Answer ``msg`` and record until the recording ends (module docstring)."""
        if device.link is None or not device.online:
            raise offline(device.id, device.offline_reason)
        mine = sum(1 for r in self.held.values() if r.session is session)
        if mine >= MAX_PER_SESSION:
            self.refused += 1
            raise BadRequest(
                ProtocolErrorCode.RATE_LIMITED,
                f"this session holds {mine} recordings (at most {MAX_PER_SESSION}); stop and "
                "read one first",
            )
        cap = msg.max_bytes or DEFAULT_MAX_BYTES
        if self.held_bytes() + cap > self.max_held_bytes:
            self.refused += 1
            raise refusal(
                ErrorCode.POLICY_BLOCKED,
                f"the hub holds {self.held_bytes()} bytes of recordings; a cap of {cap} more "
                f"would pass its limit of {self.max_held_bytes}",
                ("read or stop other recordings first", "ask for a smaller maxBytes"),
            )
        recorder = self.recorder_for(device, media, msg.fps)
        take(self.ledger, RECORDINGS, session.id)  # running ones, per session and per hub
        try:
            await self._record(session, request_id, recorder, device, msg, cap)
        finally:
            self.ledger.give(RECORDINGS, session.id)

    async def _record(
        self,
        session: Session,
        request_id: object,
        recorder: Recorder,
        device: DeviceRuntime,
        msg: RecordStart,
        cap: int,
    ) -> None:
        held = HeldRecording(
            id=f"r_{next(self._ids)}{secrets.token_hex(3)}",
            session=session,
            device=device.id,
            source=recorder.name,
            max_bytes=cap,
        )
        self.held[held.id] = held
        session.respond(ResultMessage(id=request_id, result=held.result()))  # type: ignore[arg-type]
        seconds = msg.seconds or MAX_RECORD_SECONDS
        try:
            if getattr(recorder, "masks_itself", False):
                held.made = await recorder.record(seconds, held.stop, cap)
            else:
                held.made, masked = await device_recording(
                    recorder, device, seconds, held.stop, cap, msg.fps
                )
                if masked:
                    held.source = f"{recorder.name}, masked by the hub"
        except BaseException:
            self.held.pop(held.id, None)
            raise
        finally:
            held.done.set()

    def _mine(self, session: Session, recording: str) -> HeldRecording:
        held = self.held.get(recording)
        if held is None or held.session is not session:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                f"no recording {recording} of this session (start one with record.start)",
            )
        return held

    async def stop(self, session: Session, recording: str) -> RecordingResult:
        held = self._mine(session, recording)
        held.stop.set()
        await held.done.wait()
        if held.made is None:
            raise refusal(
                ErrorCode.ACTION_REJECTED,
                f"recording {recording} failed",
                ("start a new recording",),
            )
        return held.result()

    def read(self, session: Session, msg: RecordRead) -> RecordReadResult:
        held = self._mine(session, msg.recording)
        if held.made is None:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                f"recording {msg.recording} is still running; stop it first (record.stop)",
            )
        data = held.made.data
        chunk = data[msg.offset : msg.offset + msg.length]
        eof = msg.offset + len(chunk) >= len(data)
        if eof:
            self.held.pop(held.id, None)
        return RecordReadResult(
            recording=held.id, offset=msg.offset, data=chunk, total=len(data), eof=eof
        )

    def drop_session(self, session: Session) -> None:
        for held in list(self.held.values()):
            if held.session is session:
                held.stop.set()
                self.held.pop(held.id, None)

    def statistics(self) -> dict[str, object]:
        return {
            "recordings": len(self.held),
            "running": sum(1 for r in self.held.values() if r.made is None),
            "held_bytes": self.held_bytes(),
            "refused": self.refused,
        }
