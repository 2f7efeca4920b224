"""``logs.subscribe``: a device's log lines streamed to one subscriber, bounded.

Each subscription runs in the task of its ``logs.subscribe`` request, which answers at once
(the subscription id) and then keeps running until ``logs.unsubscribe``, the session's end or
the device's: a reader (its ``LogSource``) filters and masks lines into the subscription's
``LogBacklog``, a pump sends them as ``logs`` events.

Bounds (per subscription unless named):
- the backlog holds at most ``MAX_BACKLOG_LINES`` lines and ``MAX_BACKLOG_BYTES``; past that
  the oldest go and the next event's ``gap`` counts them (a slow reader costs no more);
- at most ``BYTES_PER_SECOND`` of line text per second are sent (a token bucket);
- nothing is sent while the session has ``SEND_BELOW`` bytes or more queued, or half its
  event queue: lines wait in the backlog instead (and drop there), never in the socket's
  queue, so the session's other streams are not dropped for the log's sake;
- ``MAX_PER_SESSION`` subscriptions per session, ``MAX_TOTAL`` on the hub.

Secrets the hub typed are masked in every line before it is held (``SecretMasker``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from bridge.core.log_lines import LogBacklog, LogFilter, make_filter, mask_line
from bridge.core.resource_ledger import ResourceLedger
from bridge.core.secret_mask import SecretMasker
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, offline, refusal
from bridge.hub.media_sources import DeviceMedia, LogSource
from bridge.hub.resources import BOUNDS, LOG_STREAMS, hold, new_ledger
from bridge.net.client_server import Session
from bridge.wire.client_protocol import ResultMessage
from bridge.wire.device_media import (
    MAX_LOG_BATCH,
    LogLine,
    LogsEvent,
    LogsSubscribe,
    LogsSubscribeResult,
)
from bridge.wire.enums import ErrorCode, ProtocolErrorCode

MAX_BACKLOG_LINES = 2000
MAX_BACKLOG_BYTES = 512 * 1024
BYTES_PER_SECOND = 256 * 1024
SEND_BELOW = 256 * 1024
MAX_PER_SESSION = BOUNDS[LOG_STREAMS].per_session
MAX_TOTAL = BOUNDS[LOG_STREAMS].per_hub
MAX_SECRET_FORM = 4096
"""Characters of a line kept to mask a secret cut between it and the next."""


@dataclass
class LogSubscription:
    id: str
    session: Session
    device: str
    filter: LogFilter
    backlog: LogBacklog
    stop: anyio.Event = field(default_factory=anyio.Event)
    wake: anyio.Event = field(default_factory=anyio.Event)
    sent: int = 0
    events: int = 0
    previous: str = ""
    """The end of the last line's unmasked text (a secret cut across two lines)."""

    def offer(self, lines: Sequence[LogLine], masker: SecretMasker) -> None:
        added = False
        for line in lines:
            # Mask first, then filter: a --grep run on the unmasked text would tell its
            # reader, line by line, whether a guess of the secret matched.
            masked = mask_line(line, masker, self.previous)
            self.previous = line.text[-MAX_SECRET_FORM:]
            if self.filter.keeps(masked):
                self.backlog.add(masked)
                added = True
        if added:
            self.wake.set()


class LogStreams:
    """Every log subscription of the hub (module docstring)."""

    def __init__(self, masker: SecretMasker, ledger: ResourceLedger | None = None) -> None:
        self.masker = masker
        self.ledger = ledger if ledger is not None else new_ledger()
        """Counts subscriptions (``LOG_STREAMS``: per session and per hub)."""
        self.active: dict[str, LogSubscription] = {}
        self._ids = itertools.count(1)
        self.dropped_total = 0

    def source_for(self, device: DeviceRuntime, media: DeviceMedia | None) -> LogSource:
        if media is not None:
            source = media.log_source()
            if source is not None:
                return source
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"device {device.id} offers no log: the hub has no device layer that reads it "
            "(an agent attached by URL only)",
            ("read the log with the platform's own tools", "use another device"),
        )

    async def run(
        self,
        session: Session,
        request_id: object,
        device: DeviceRuntime,
        msg: LogsSubscribe,
        media: DeviceMedia | None,
    ) -> None:
        """Answer ``msg`` and stream until the subscription ends (module docstring)."""
        if not device.online:
            raise offline(device.id, device.offline_reason)
        made = make_filter(msg.app, msg.level, msg.grep)
        if isinstance(made, str):
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, made)
        source = self.source_for(device, media)
        with hold(self.ledger, LOG_STREAMS, session.id):
            await self._run(session, request_id, device, made, source)

    async def _run(
        self,
        session: Session,
        request_id: object,
        device: DeviceRuntime,
        made: LogFilter,
        source: LogSource,
    ) -> None:
        sub = LogSubscription(
            id=f"{device.id}:logs:{next(self._ids)}",
            session=session,
            device=device.id,
            filter=made,
            backlog=LogBacklog(MAX_BACKLOG_LINES, MAX_BACKLOG_BYTES),
        )
        self.active[sub.id] = sub
        try:
            session.respond(
                ResultMessage(
                    id=request_id,  # type: ignore[arg-type]
                    result=LogsSubscribeResult(
                        subscription=sub.id, device=device.id, source=source.name
                    ),
                )
            )
            async with anyio.create_task_group() as tg:
                tg.start_soon(source.run, lambda lines: sub.offer(lines, self.masker))
                tg.start_soon(self._pump, sub)
                await sub.stop.wait()
                tg.cancel_scope.cancel()
        finally:
            self.active.pop(sub.id, None)
            self.dropped_total += sub.backlog.dropped_total

    def stop(self, session: Session, subscription: str) -> bool:
        sub = self.active.get(subscription)
        if sub is None or sub.session is not session:
            return False
        sub.stop.set()
        return True

    def drop_session(self, session: Session) -> None:
        for sub in list(self.active.values()):
            if sub.session is session:
                sub.stop.set()

    def statistics(self) -> dict[str, object]:
        return {
            "subscriptions": len(self.active),
            "held_bytes": sum(s.backlog.bytes for s in self.active.values()),
            "dropped_lines": self.dropped_total
            + sum(s.backlog.dropped_total for s in self.active.values()),
        }

    async def _pump(self, sub: LogSubscription) -> None:
        session = sub.session
        tokens = float(BYTES_PER_SECOND)
        last = anyio.current_time()
        while not session.closed:
            if not sub.backlog.lines:
                sub.wake = anyio.Event()
                with anyio.move_on_after(1.0):
                    await sub.wake.wait()
                continue
            if (
                session.queued_bytes() >= SEND_BELOW
                or session.queue_depth() * 2 >= session.event_limit
            ):
                await anyio.sleep(0.05)
                continue
            now = anyio.current_time()
            tokens = min(float(BYTES_PER_SECOND), tokens + (now - last) * BYTES_PER_SECOND)
            last = now
            if tokens < 1024 and tokens < sub.backlog.bytes:
                await anyio.sleep(0.05)
                continue
            lines, gap = sub.backlog.take(int(tokens), MAX_LOG_BATCH)
            tokens -= sum(len(x.text) for x in lines)
            event = LogsEvent(subscription=sub.id, device=sub.device, lines=tuple(lines), gap=gap)
            session.push_event(None, session.encode(event))
            sub.sent += len(lines)
            sub.events += 1
