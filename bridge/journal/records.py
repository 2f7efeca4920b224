"""The journal's record shapes and the pure logic around them (sans-I/O: no clock, no disk).

Invariants:
- a device's frames form chains: a chain starts at a keyframe (a whole full snapshot) and
  each later frame is a delta (``DeltaBody``) whose ``base`` is the previous frame's
  snapshot id; ``rebuild`` applies a chain and answers ``Broken`` when a link is missing
  (retention cut it, or a frame was dropped) instead of guessing;
- a keyframe is written for the first frame of a device in a hub run, after any dropped
  frame, on every screen change (``screen_key`` differs) and at least every ``KEYFRAME_EVERY``
  deltas, so a rebuild applies at most that many deltas;
- bodies are MessagePack, zlib-compressed; snapshots are stored exactly as the hub serves them
  to clients (password values already removed by normalization, typed secrets masked);
- times are wall-clock milliseconds since the epoch; ``parse_time`` takes "now" from its caller.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

import msgspec

from bridge.core.patch import Patch, PatchMismatch, apply_patch
from bridge.wire.client_protocol import ActionEvent, DeviceEvent, LeaseEvent
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

KEYFRAME_EVERY = 64
"""At most this many deltas between two keyframes of one device."""
FRAME_DELTA, FRAME_PERIODIC, FRAME_SCREEN = 0, 1, 2
"""``frames.keyframe``: a delta; a keyframe by count (or after a gap); a keyframe because the
screen changed (or the device's first frame of a run): these are the timeline's ``screen``."""

Kind = Literal["screen", "action", "refusal", "lease", "device", "gap", "screenshot"]
KINDS: tuple[str, ...] = ("screen", "action", "refusal", "lease", "device", "gap", "screenshot")


class Recorder(Protocol):
    """What a device runtime tells the journal (``bridge.journal.recorder.Journal``)."""

    def frame(
        self,
        device: str,
        generation: int,
        snapshot: ScreenSnapshot,
        base: str | None = None,
        changed: tuple[str, ...] | None = None,
    ) -> None: ...
    def event(self, device: str, event: ActionEvent | LeaseEvent | DeviceEvent) -> None: ...


class DeltaBody(msgspec.Struct, array_like=True, frozen=True):
    """A stored delta: ``bridge.core.patch.Patch`` as a struct."""

    base: str
    meta: ScreenSnapshot
    remove: tuple[str, ...]
    upsert: tuple[SemanticNode, ...]
    order: dict[str, tuple[str, ...]]


class Outcome(msgspec.Struct, array_like=True, frozen=True):
    """A keyed action's recorded end: a result (``result``, an encoded ``ActionResult``), a
    refusal (``envelope``, an encoded ``ErrorEnvelope``) or a protocol error (``code`` and
    ``message``)."""

    result: bytes | None = None
    envelope: bytes | None = None
    code: str | None = None
    message: str | None = None


_snapshot_decoder = msgspec.msgpack.Decoder(ScreenSnapshot)
_delta_decoder = msgspec.msgpack.Decoder(DeltaBody)
_event_decoder = msgspec.msgpack.Decoder(ActionEvent | LeaseEvent | DeviceEvent)
_encoder = msgspec.msgpack.Encoder()


def encode_snapshot(snapshot: ScreenSnapshot) -> bytes:
    return zlib.compress(_encoder.encode(snapshot), 3)


def decode_snapshot(body: bytes) -> ScreenSnapshot:
    return _snapshot_decoder.decode(zlib.decompress(body))


def encode_delta(p: Patch) -> bytes:
    body = DeltaBody(p.base, p.meta, p.remove, p.upsert, p.order)
    return zlib.compress(_encoder.encode(body), 3)


def decode_delta(body: bytes) -> Patch:
    d = _delta_decoder.decode(zlib.decompress(body))
    return Patch(d.base, d.meta, d.remove, d.upsert, dict(d.order))


def encode_event(event: ActionEvent | LeaseEvent | DeviceEvent) -> bytes:
    return _encoder.encode(event)


def decode_event(body: bytes) -> ActionEvent | LeaseEvent | DeviceEvent:
    event: ActionEvent | LeaseEvent | DeviceEvent = _event_decoder.decode(body)
    return event


def encode_outcome(outcome: Outcome) -> bytes:
    return _encoder.encode(outcome)


def decode_outcome(body: bytes) -> Outcome:
    return msgspec.msgpack.decode(body, type=Outcome)


def screen_key(snapshot: ScreenSnapshot) -> str:
    """What "the same screen" means for keyframes: the app and the coarse screen state."""
    return f"{snapshot.package_name}|{snapshot.screen_state_id}"


@dataclass(frozen=True)
class Frame:
    """One stored frame as read back: ``keyframe`` is one of the ``FRAME_*`` values."""

    id: int
    at_ms: int
    generation: int
    keyframe: int
    body: bytes


@dataclass(frozen=True)
class Broken:
    """The frames asked for cannot be rebuilt (``reason`` says why)."""

    reason: str


def rebuild(frames: Iterable[Frame]) -> ScreenSnapshot | Broken:
    """The snapshot the last of ``frames`` stands for: ``frames`` start at a keyframe and
    continue, in order, with that chain's deltas."""
    current: ScreenSnapshot | None = None
    for frame in frames:
        if frame.keyframe != FRAME_DELTA:
            current = decode_snapshot(frame.body)
            continue
        if current is None:
            return Broken("the keyframe before this moment is no longer in the journal")
        applied = apply_patch(current, decode_delta(frame.body))
        if isinstance(applied, PatchMismatch):
            return Broken(f"a delta does not apply ({applied.reason})")
        current = applied
    if current is None:
        return Broken("nothing recorded")
    return current


def event_kind(event: ActionEvent | LeaseEvent | DeviceEvent) -> Kind:
    if isinstance(event, ActionEvent):
        return "refusal" if event.error is not None else "action"
    return "lease" if isinstance(event, LeaseEvent) else "device"


def event_summary(event: ActionEvent | LeaseEvent | DeviceEvent) -> tuple[str | None, str]:
    """(who, a one-line summary) of an event, for the timeline; never a typed value."""
    if isinstance(event, ActionEvent):
        target = ""
        if event.target is not None and event.target.label:
            target = f' "{event.target.label[:60]}"'
        elif event.query is not None:
            target = " (by query)"
        if event.error is not None:
            why = f": {event.message[:160]}" if event.message else ""
            return event.client, f"{event.action}{target} refused {event.error.value}{why}"
        result = event.result
        status = result.dispatch.status.value if result is not None else "?"
        changed = ", screen changed" if result and result.observation.screen_changed else ""
        extra = f" ({event.message[:120]})" if event.message else ""
        return event.client, f"{event.action}{target}{extra}: {status}{changed}"
    if isinstance(event, LeaseEvent):
        return event.client, event.change
    reason = f": {event.reason[:160]}" if event.reason else ""
    return None, f"{event.health}{reason}"


def screen_summary(snapshot: ScreenSnapshot) -> str:
    """A screen change's summary: its markers (``__screen_NAME``), else its app."""
    names: list[str] = []
    for node in snapshot.nodes:
        for ident in (node.resource_id, node.automation_id):
            if ident and "__screen_" in ident:
                name = ident.rsplit("__screen_", 1)[1]
                if name not in names:
                    names.append(name)
    title = "+".join(names) if names else (snapshot.app_id or snapshot.package_name)
    return f"{title} ({len(snapshot.nodes)} nodes)"


_RELATIVE = re.compile(r"^\s*-\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$")
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def parse_time(text: str, now_ms: int) -> int | str:
    """Epoch milliseconds for ``text``: ``now``; a relative ``-5m`` / ``-30s`` / ``-2h`` /
    ``-1d`` / ``-250ms`` (also written ``now-5m``); ISO-8601 with or without a zone (none:
    UTC); or epoch milliseconds. Otherwise a message saying what is accepted."""
    parsed = _parse_time(text.strip(), now_ms)
    if isinstance(parsed, int) and not -MAX_TIME_MS <= parsed <= MAX_TIME_MS:
        return f"{text!r} is outside the times the journal can hold (year 1 to 9999)"
    return parsed


MAX_TIME_MS = 253_402_300_799_999
"""The end of year 9999 in epoch ms: times past it (2^63 ms, say) are refused, never passed
on to SQLite's 64-bit integers or to ``datetime``."""


def _parse_time(value: str, now_ms: int) -> int | str:
    if value == "now":
        return now_ms
    if value.startswith("now-"):
        value = value[3:]
    rel = _RELATIVE.match(value)
    try:
        if rel is not None:
            return now_ms - int(float(rel.group(1)) * _UNITS[rel.group(2)])
        if value.isdigit() and len(value) >= 10:
            return int(value) if len(value) <= 20 else MAX_TIME_MS + 1
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return int(moment.timestamp() * 1000)
    except (ValueError, OverflowError):
        return (
            f"{value!r} is not a time: use ISO-8601 (2026-12-02T14:03:07Z), "
            "a relative time (-5m, -30s, -2h), 'now' or epoch milliseconds"
        )


def iso(at_ms: int) -> str:
    """``at_ms`` as ISO-8601 UTC with milliseconds (``2026-12-02T14:03:07.123Z``)."""
    moment = datetime.fromtimestamp(at_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at_ms % 1000:03d}Z"


def wire_outcome(result: Any = None, envelope: Any = None) -> Outcome:
    """An ``Outcome`` of a result or a refusal envelope (msgspec structs)."""
    return Outcome(
        result=_encoder.encode(result) if result is not None else None,
        envelope=_encoder.encode(envelope) if envelope is not None else None,
    )
