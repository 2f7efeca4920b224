"""The hub's side of the journal: answering journal queries and keyed actions across restarts.

The composition root opens the ``Journal`` and hands it to ``HubService.journal`` and to each
``DeviceRuntime.journal``; the device records its frames and events through the narrow
``Recorder`` interface below, the service calls ``answer`` for every journal query (and
``snapshot.get`` with ``at``), and the ``act`` pipeline calls ``keyed_start`` / ``keyed_end``.
With no journal, queries are refused (``WINDOW_UNAVAILABLE``) and keys live in memory only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from bridge.core.compact import compact_nodes
from bridge.core.patch import PatchMismatch, apply_patch
from bridge.core.query import QueryRejected, run_query
from bridge.core.screendiff import screen_diff
from bridge.core.tree import NodeTree
from bridge.hub.errors import BadRequest, Refusal, refusal
from bridge.journal.recorder import DURABLE_WAIT_S, Journal, JournalUnavailable
from bridge.journal.records import (
    FRAME_DELTA,
    KINDS,
    Broken,
    Frame,
    Outcome,
    decode_delta,
    decode_event,
    decode_snapshot,
    parse_time,
    rebuild,
    screen_summary,
    wire_outcome,
)
from bridge.journal.store import JournalReader, QueryTooLong
from bridge.wire.action import ActionResult
from bridge.wire.client_protocol import (
    JournalEntry,
    JournalTimelineResult,
    SnapshotGet,
    SnapshotResult,
)
from bridge.wire.enums import ErrorCode, ProtocolErrorCode
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.journal import (
    JournalAt,
    JournalDiff,
    JournalDiffResult,
    JournalScreenResult,
    JournalTimeline,
    JournalWhen,
    JournalWhenResult,
)
from bridge.wire.snapshot import ScreenSnapshot

if TYPE_CHECKING:
    from bridge.hub.device import DeviceRuntime

MAX_WHEN_FRAMES = 20_000
"""``journal.when`` looks at most at this many frames of its window (the oldest first)."""
WHEN_BATCH = 256
"""Frames ``journal.when`` reads from the database at a time."""
OUTCOME_UNKNOWN = (
    "OUTCOME_UNKNOWN: the hub restarted while this action ran; look at the screen before retrying"
)


class JournalHost(Protocol):
    """What the journal's answers need of the service (``HubService`` implements it)."""

    journal: Journal | None
    public_http: Callable[[], str]

    def device(self, device_id: str) -> DeviceRuntime: ...


class KeyedHost(Protocol):
    """What keyed actions need (``HandlerContext`` has it)."""

    journal: Journal | None


def _journal(svc: JournalHost) -> Journal:
    journal = svc.journal
    if journal is None or not journal.on:
        why = "this hub runs without a journal (--no-journal)"
        if journal is not None:
            why = f"the journal is off ({journal.off_reason})"
        raise refusal(
            ErrorCode.WINDOW_UNAVAILABLE,
            f"no history: {why}",
            ("start the hub with a journal (the default, or --journal PATH)",),
        )
    return journal


def _time(svc: JournalHost, text: str | None, default: int) -> int:
    if text is None:
        return default
    now = _journal(svc).clock_ms()
    parsed = parse_time(text, now)
    if isinstance(parsed, str):
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, parsed)
    return max(0, parsed)


def _screen_at(reader: JournalReader, device: str, at_ms: int) -> tuple[Frame, Any] | None:
    frames = reader.chain_at(device, at_ms)
    if not frames:
        return None
    return frames[-1], rebuild(frames)


async def _rebuilt(svc: JournalHost, device: str, at_ms: int) -> tuple[Frame, ScreenSnapshot]:
    journal = _journal(svc)
    try:
        found = await journal.read(lambda r: _screen_at(r, device, at_ms))
    except JournalUnavailable as exc:
        raise refusal(ErrorCode.WINDOW_UNAVAILABLE, str(exc), ("retry later",)) from exc
    if found is None:
        raise refusal(
            ErrorCode.WINDOW_UNAVAILABLE,
            f"the journal holds no screen of {device} at or before that time",
            ("ask for a later time (journal.timeline shows what is recorded)",),
        )
    frame, snapshot = found
    if isinstance(snapshot, Broken):
        raise refusal(ErrorCode.WINDOW_UNAVAILABLE, snapshot.reason, ("ask for a later time",))
    return frame, snapshot


def _compact(snapshot: ScreenSnapshot) -> ScreenSnapshot:
    nodes, truncated = compact_nodes(snapshot.nodes)
    return msgspec.structs.replace(
        snapshot, nodes=nodes, compact=True, truncated=snapshot.truncated or truncated
    )


async def answer(svc: JournalHost, request: Any) -> Any:
    """The result of a journal query (``request`` is one of ``JournalRequest`` or a
    ``snapshot.get`` with ``at``); raises ``Refusal`` / ``BadRequest``. The caller bounds
    how many run per session and per hub (``resources.HISTORY_QUERIES``); the journal runs
    at most ``READ_THREADS`` at once and stops each after ``READ_TIMEOUT_S``."""
    svc.device(request.device)  # an unknown device is UNKNOWN_DEVICE, as everywhere
    try:
        return await _answer(svc, request)
    except QueryTooLong as exc:
        raise refusal(
            ErrorCode.WINDOW_UNAVAILABLE,
            f"{exc}; nothing of it is returned",
            ("ask for a shorter window (since / until)", "ask a narrower query"),
        ) from exc


async def _answer(svc: JournalHost, request: Any) -> Any:
    journal = _journal(svc)
    now = journal.clock_ms()
    match request:
        case SnapshotGet(device=device, at=at, compact=compact) if at is not None:
            frame, snapshot = await _rebuilt(svc, device, _time(svc, at, now))
            return SnapshotResult(
                generation=frame.generation, snapshot=_compact(snapshot) if compact else snapshot
            )
        case JournalAt(device=device, at=at, compact=compact):
            at_ms = _time(svc, at, now)
            frame, snapshot = await _rebuilt(svc, device, at_ms)
            shot = await journal.read(lambda r: r.screenshot_near(device, at_ms))
            return JournalScreenResult(
                device=device,
                at_ms=at_ms,
                recorded_ms=frame.at_ms,
                generation=frame.generation,
                snapshot=_compact(snapshot) if compact else snapshot,
                screenshot=(
                    f"{svc.public_http()}/v1/captures/j_{shot[1].removesuffix('.png')}.png"
                    if shot is not None
                    else None
                ),
                screenshot_ms=shot[0] if shot is not None else None,
            )
        case JournalDiff(device=device, since=since, until=until):
            a_ms, b_ms = _time(svc, since, now), _time(svc, until, now)
            _, a = await _rebuilt(svc, device, a_ms)
            _, b = await _rebuilt(svc, device, b_ms)
            return JournalDiffResult(
                device=device, since_ms=a_ms, until_ms=b_ms, diff=screen_diff(a, b)
            )
        case JournalTimeline():
            return await _timeline(svc, journal, request, now)
        case JournalWhen():
            return await _when(svc, journal, request, now)
    raise BadRequest(ProtocolErrorCode.UNKNOWN_TYPE, f"not a journal query: {type(request)}")


async def _timeline(
    svc: JournalHost, journal: Journal, req: JournalTimeline, now: int
) -> JournalTimelineResult:
    since = _time(svc, req.since, 0)
    until = _time(svc, req.until, now)
    kinds = tuple(req.kinds) or KINDS
    limit = req.limit
    base = svc.public_http()

    def query(r: JournalReader) -> tuple[list[JournalEntry], bool]:
        entries: list[JournalEntry] = []
        other = tuple(k for k in kinds if k != "screen")
        if other:
            for at_ms, kind, client, summary, body in r.events(
                req.device, since, until, other, req.client, limit + 1
            ):
                r.check()
                event = decode_event(body) if body is not None and kind != "screenshot" else None
                shot = None
                if kind == "screenshot" and body is not None:
                    shot = f"{base}/v1/captures/j_{body.decode().removesuffix('.png')}.png"
                entries.append(
                    JournalEntry(
                        at_ms=at_ms,
                        kind=kind,  # type: ignore[arg-type]
                        summary=summary,
                        client=client,
                        event=event,
                        screenshot=shot,
                    )
                )
        if "screen" in kinds and req.client is None:
            for at_ms, generation, body in r.screen_changes(req.device, since, until, limit + 1):
                r.check()
                entries.append(
                    JournalEntry(
                        at_ms=at_ms,
                        kind="screen",
                        summary=screen_summary(decode_snapshot(body)),
                        generation=generation,
                    )
                )
        entries.sort(key=lambda e: e.at_ms, reverse=True)
        return entries[:limit], len(entries) > limit

    try:
        entries, truncated = await journal.read(query)
    except JournalUnavailable as exc:
        raise refusal(ErrorCode.WINDOW_UNAVAILABLE, str(exc), ("retry later",)) from exc
    return JournalTimelineResult(
        device=req.device,
        since_ms=since,
        until_ms=until,
        entries=tuple(entries),
        truncated=truncated,
    )


async def _when(
    svc: JournalHost, journal: Journal, req: JournalWhen, now: int
) -> JournalWhenResult:
    since = _time(svc, req.since, 0)
    until = _time(svc, req.until, now)
    probe = run_query(NodeTree(()), req.query)
    if isinstance(probe, QueryRejected):
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, probe.reason)

    def query(r: JournalReader) -> JournalWhenResult:
        first: int | None = None
        last: int | None = None
        matched = checked = 0

        def look(at_ms: int, shown: ScreenSnapshot) -> None:
            nonlocal first, last, matched, checked
            checked += 1
            if _matches(shown, req):
                matched += 1
                first = at_ms if first is None else first
                last = at_ms

        chain = r.chain_at(req.device, since)
        snap: ScreenSnapshot | Broken | None = rebuild(chain) if chain else None
        if isinstance(snap, ScreenSnapshot):
            look(since, snap)
        after = chain[-1].id if chain else 0
        seen = 0
        truncated = False
        while True:  # a batch of frames at a time: memory is one batch, not the window
            frames = r.frames_after(req.device, after, until, WHEN_BATCH)
            for frame in frames:
                if seen >= MAX_WHEN_FRAMES:
                    truncated = True
                    break
                r.check()
                seen += 1
                if frame.keyframe != FRAME_DELTA:
                    snap = decode_snapshot(frame.body)
                elif isinstance(snap, ScreenSnapshot):
                    snap = rebuild_next(snap, frame)
                if isinstance(snap, ScreenSnapshot):
                    look(frame.at_ms, snap)
            if truncated or len(frames) < WHEN_BATCH:
                break
            after = frames[-1].id
        return JournalWhenResult(
            device=req.device,
            first_ms=first,
            last_ms=last,
            matched=matched,
            checked=checked,
            truncated=truncated,
        )

    try:
        return await journal.read(query)
    except JournalUnavailable as exc:
        raise refusal(ErrorCode.WINDOW_UNAVAILABLE, str(exc), ("retry later",)) from exc


def rebuild_next(snapshot: ScreenSnapshot, frame: Frame) -> ScreenSnapshot | Broken:
    """``snapshot`` advanced by one delta frame."""
    applied = apply_patch(snapshot, decode_delta(frame.body))
    return Broken(applied.reason) if isinstance(applied, PatchMismatch) else applied


def _matches(snapshot: ScreenSnapshot, req: JournalWhen) -> bool:
    root = snapshot.nodes[0].bounds if snapshot.nodes else None
    outcome = run_query(NodeTree(snapshot.nodes), req.query, viewport=root)
    return not isinstance(outcome, QueryRejected) and bool(outcome.items)


# ---- keyed actions across restarts -----------------------------------------------------------


def recorded_outcome(svc: KeyedHost, device: str, key: str, digest: str) -> ActionResult | None:
    """The answer to a key an earlier run of the hub recorded: its result (returned), its
    refusal or error (raised), or — when its end was never recorded — an OUTCOME_UNKNOWN
    refusal (raised). None: the key is new."""
    journal = svc.journal
    if journal is None:
        return None
    found = journal.recorded(device, key)
    if found is None:
        return None
    if found.digest != digest:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            "idempotency key reused with a different request "
            "(keys are per device; use a new key for a new action)",
        )
    outcome = found.outcome
    if outcome is None:
        raise refusal(
            ErrorCode.ACTION_REJECTED,
            OUTCOME_UNKNOWN,
            (
                "look at the screen (snapshot.get) to see whether the action took effect",
                "retry with a new idempotency key only if it did not",
            ),
        )
    if outcome.result is not None:
        return msgspec.msgpack.decode(outcome.result, type=ActionResult)
    if outcome.envelope is not None:
        raise Refusal(msgspec.msgpack.decode(outcome.envelope, type=ErrorEnvelope))
    raise BadRequest(
        ProtocolErrorCode(outcome.code or "INTERNAL"), outcome.message or "the action failed"
    )


class KeyNotRecorded(Refusal):
    """A keyed action refused before it ran: its key could not be recorded durably (the
    journal's disk hangs or fails). The caller forgets the key (a retry may run it) and
    records no outcome for it."""


JOURNAL_UNAVAILABLE = (
    "JOURNAL_UNAVAILABLE: the journal did not record this action's idempotency key within "
    "{wait:g} s (its disk is slow or failing), so the action was not run: running it without "
    "the key on disk could run it twice after a restart"
)


async def keyed_start(svc: KeyedHost, device: str, key: str, digest: str) -> None:
    """Record, durably, that the keyed action starts, before it runs. Without a journal (or
    with one already off) keys live in memory only and this is a no-op; with a journal that
    does not record the key within ``DURABLE_WAIT_S`` it raises ``KeyNotRecorded``: the
    action must not run."""
    journal = svc.journal
    if journal is None or not journal.on:
        return
    if not await journal.begin_key(device, key, digest):
        raise KeyNotRecorded(
            ErrorEnvelope(
                error=ErrorCode.ACTION_REJECTED,
                message=JOURNAL_UNAVAILABLE.format(wait=DURABLE_WAIT_S),
                recovery=(
                    "retry with the same key later (nothing ran)",
                    "ask the operator to check the journal's disk",
                ),
            )
        )


async def keyed_end(
    svc: KeyedHost, device: str, key: str, result: ActionResult | None, error: Exception | None
) -> None:
    """Record the keyed action's outcome, durably, before its caller is answered."""
    journal = svc.journal
    if journal is None:
        return
    if result is not None:
        outcome = wire_outcome(result=result)
    elif isinstance(error, Refusal):
        outcome = wire_outcome(envelope=error.envelope)
    elif isinstance(error, BadRequest):
        outcome = Outcome(code=error.code.value, message=error.message)
    else:
        outcome = Outcome(code="INTERNAL", message="the action failed inside the hub")
    await journal.end_key(device, key, outcome)
