"""``record.start`` / ``record.stop`` / ``record.read``: screen recordings held by the hub.

A recording runs in the task of its ``record.start`` request, which answers at once (state
``recording``) and keeps running until ``record.stop``, its ``seconds``, its size cap, or the
session's end. Its recorder is the device layer's own (Android ``screenrecord``, Simulator
``simctl io recordVideo``) or, for any device whose agent offers ``screenshot``, screenshots
at ``fps`` encoded on the hub (``ScreenshotRecorder``, PyAV's H.264 in a worker thread).

Bounds: ``MAX_PER_SESSION`` recordings per session (running or unread), every recording at
most its ``maxBytes`` (default ``DEFAULT_MAX_BYTES``), and the sum of the caps of running
recordings plus the bytes of finished ones at most ``MAX_HELD_BYTES`` (a start past it is
refused). A recording is dropped when it is read to its end, or when its session closes.

PyAV (the ``media`` extra) is imported only when a screenshot recording starts, so a hub that
never records never loads it (a test lists what ``serve`` imports); without it such a start
is refused ACTION_UNSUPPORTED naming the extra.
"""

from __future__ import annotations

import base64
import itertools
import secrets
from dataclasses import dataclass, field

import anyio

from bridge.core.media import Recording
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, offline, refusal
from bridge.hub.media_sources import DeviceMedia, Recorder
from bridge.net.agent_link import AgentLost
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

DEFAULT_MAX_BYTES = 64 << 20
MAX_HELD_BYTES = 512 << 20
MAX_PER_SESSION = 2


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
    """Screenshots over the agent link at ``fps``, encoded to H.264 on the hub."""

    name = "screenshots"

    def __init__(self, device: DeviceRuntime, fps: int) -> None:
        self.device = device
        self.fps = fps

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        from bridge.core.mp4_encoder import Mp4Encoder

        encoder = Mp4Encoder(self.fps)
        start = anyio.current_time()
        due = start
        truncated = False
        reason: str | None = None
        while not stop.is_set() and anyio.current_time() - start < seconds:
            link = self.device.link
            if link is None:
                reason = "the device went offline"
                break
            try:
                reply = await link.command(lambda cid: ScreenshotCommand(id=cid), timeout_s=10.0)
            except (AgentLost, TimeoutError) as exc:
                reason = f"the device stopped answering: {exc}"
                break
            at_ms = int((anyio.current_time() - start) * 1000)
            if reply.ok and reply.png_base64:
                png = base64.b64decode(reply.png_base64)
                await anyio.to_thread.run_sync(encoder.add_png, png, at_ms)
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

    def __init__(self, max_held_bytes: int = MAX_HELD_BYTES) -> None:
        self.max_held_bytes = max_held_bytes
        self.held: dict[str, HeldRecording] = {}
        self._ids = itertools.count(1)

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
            raise BadRequest(
                ProtocolErrorCode.RATE_LIMITED,
                f"this session holds {mine} recordings (at most {MAX_PER_SESSION}); stop and "
                "read one first",
            )
        cap = msg.max_bytes or DEFAULT_MAX_BYTES
        if self.held_bytes() + cap > self.max_held_bytes:
            raise refusal(
                ErrorCode.POLICY_BLOCKED,
                f"the hub holds {self.held_bytes()} bytes of recordings; a cap of {cap} more "
                f"would pass its limit of {self.max_held_bytes}",
                ("read or stop other recordings first", "ask for a smaller maxBytes"),
            )
        recorder = self.recorder_for(device, media, msg.fps)
        held = HeldRecording(
            id=f"r_{next(self._ids)}{secrets.token_hex(3)}",
            session=session,
            device=device.id,
            source=recorder.name,
            max_bytes=cap,
        )
        self.held[held.id] = held
        session.respond(ResultMessage(id=request_id, result=held.result()))  # type: ignore[arg-type]
        try:
            held.made = await recorder.record(msg.seconds or MAX_RECORD_SECONDS, held.stop, cap)
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
        return {"recordings": len(self.held), "held_bytes": self.held_bytes()}
