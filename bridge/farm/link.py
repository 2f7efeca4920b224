"""FarmLink: this hub's connection to the farm (one NATS connection, nats-py).

Lifecycle (``run``, until cancelled): connect (retrying with back-off 0.5 s doubling to 5 s
while NATS is unreachable; the hub serves its own devices meanwhile) -> subscribe to
announcements, discovery, this hub's request subject and every hub's events -> ask everyone
to announce (``discover``) and announce itself -> heartbeat every ``heartbeat_s`` and sweep
the registry every quarter of it. nats-py reconnects by itself after NATS restarts (it
re-subscribes); on reconnection the link announces and asks for announcements again and
tells the listener (``farm_connected(again=True)``), which resyncs what it relays.

What the link does *not* do is decide anything about devices: the listener (the hub) answers
requests, keeps relays and turns registry changes into device events.

Bounds: requests handled at once (``MAX_INFLIGHT``; further ones wait in nats-py's bounded
subscription queue); the publish queue for events and relayed streams (``MAX_QUEUED_BYTES``;
past it, stream bytes are dropped and the receivers see a gap and resync); payloads above the
server's ``max_payload`` are refused at the sender.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import anyio
import anyio.abc
import msgspec
import nats
import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from bridge.farm.announcer import Announcer
from bridge.farm.config import FarmConfig
from bridge.farm.registry import Heard, HubRecord, Registry, Resync
from bridge.farm.subjects import Subjects
from bridge.wire.client_protocol import DeviceSummary, ProtocolError
from bridge.wire.enums import ProtocolErrorCode
from bridge.wire.farm import (
    FARM_PROTOCOL,
    Announced,
    AnnounceGet,
    CaptureRead,
    FarmEventRelay,
    FarmReply,
    FarmRequest,
    Forward,
    HubAnnounce,
    Refused,
    RelayInterest,
)

MAX_INFLIGHT = 256
MAX_QUEUED_BYTES = 16 << 20
ANNOUNCE_DEBOUNCE_S = 0.05

_encoder = msgspec.msgpack.Encoder()
_requests = msgspec.msgpack.Decoder(FarmRequest)
_replies = msgspec.msgpack.Decoder(FarmReply)
_announces = msgspec.msgpack.Decoder(HubAnnounce)
_events = msgspec.msgpack.Decoder(FarmEventRelay)


Following = Subscription
"""A followed stream subject (from ``follow``; hand it back to ``unfollow``). Users of the
link name this type, never nats-py's."""


class FarmListener(Protocol):
    """What the hub answers for the link."""

    def announcement(self) -> tuple[Sequence[DeviceSummary], Sequence[RelayInterest]]:
        """This hub's devices (``owner`` set) and the remote streams it relays."""
        ...

    async def handle_request(self, request: FarmRequest) -> FarmReply: ...

    def hub_online(self, heard: Heard) -> None:
        """Another hub announced (every heartbeat; ``heard`` says whether it is news)."""
        ...

    def hub_gone(self, record: HubRecord) -> None: ...

    def device_event(self, owner: str, relay: FarmEventRelay) -> None: ...

    def farm_connected(self, again: bool) -> None: ...


@dataclass(frozen=True)
class Unreachable:
    """A request got no answer: ``nobody`` when NATS said no hub listens on the subject."""

    reason: str
    nobody: bool = False


LinkState = Literal["connecting", "connected", "unauthorized", "reconnecting"]
"""The farm link as ``/healthz`` and ``devices.list`` show it: ``connecting`` (never joined
yet), ``connected``, ``unauthorized`` (NATS refused this hub's credentials or permissions —
retrying will not help until an operator fixes them), ``reconnecting`` (NATS unreachable or
the connection was lost; ``reason`` says which)."""


def claimed_hub(request: FarmRequest) -> str | None:
    """The hub a request says it comes from (checked against its subject's sender; None:
    it names none, as ``capture.read``, whose capture id is the secret)."""
    if isinstance(request, Forward):
        return request.origin.hub
    if isinstance(request, CaptureRead):
        return None
    return request.hub


def is_auth_failure(text: str) -> bool:
    lowered = text.lower()
    return "authorization violation" in lowered or "authentication" in lowered


@dataclass
class LinkStats:
    connects: int = 0
    disconnects: int = 0
    announces_sent: int = 0
    announces_heard: int = 0
    requests_in: int = 0
    requests_out: int = 0
    forged: int = 0
    """Requests whose payload named another hub than the one their subject says sent it."""
    published: int = 0
    dropped_bytes: int = 0
    bad_messages: int = 0
    announce_bytes: int = 0
    resyncs: int = 0
    """Whole announcements asked for (a heartbeat's seq or digest did not fit)."""
    last_error: str | None = None
    connected: bool = False
    state: LinkState = "connecting"
    reason: str | None = None
    outbox: dict[str, int] = field(default_factory=dict)


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class FarmLink:
    def __init__(
        self,
        config: FarmConfig,
        listener: FarmListener,
        *,
        log: Callable[..., None],
        clock_ms: Callable[[], int] = monotonic_ms,
    ) -> None:
        self.config = config
        self.listener = listener
        self.log = log
        self.clock_ms = clock_ms
        self.run_id = secrets.token_hex(6)
        self.subjects = Subjects(config.prefix)
        self.registry = Registry(config.hub, int(config.offline_after_s * 1000))
        self.announcer = Announcer(config.hub, self.run_id, int(config.heartbeat_s * 1000))
        self._fetching: set[str] = set()
        """Hubs whose whole announcement was asked for and not answered yet."""
        self.stats = LinkStats()
        self.nc: NatsClient | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._announce_now = anyio.Event()
        self._outbox: deque[tuple[str, bytes]] = deque()
        self._outbox_bytes = 0
        self._outbox_wake = anyio.Event()
        self._inflight = anyio.Semaphore(MAX_INFLIGHT)
        self._closed = anyio.Event()

    # ---- lifecycle --------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.nc is not None and self.nc.is_connected

    async def run(self) -> None:
        """Join the farm and stay in it until cancelled (see the module docstring)."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._sweeper)
            backoff = 0.5
            while True:
                try:
                    nc = await self._connect()
                except Exception as exc:  # unreachable or refused: keep serving locally
                    self.stats.last_error = _describe(exc)
                    self._set_state(None, _describe(exc))
                    self.log(
                        "farm_connect_failed", url=self.config.redacted_url(), error=_describe(exc)
                    )
                    await anyio.sleep(backoff)
                    backoff = min(5.0, backoff * 2)
                    continue
                backoff = 0.5
                try:
                    await self._serve(nc)
                finally:
                    self.nc = None
                    self.stats.connected = False
                    self._set_state("reconnecting", "the NATS connection was closed")
                    with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                        await self._goodbye(nc)

    async def _connect(self) -> NatsClient:
        cfg = self.config
        self._closed = anyio.Event()

        async def on_disconnect() -> None:
            self.stats.disconnects += 1
            self.stats.connected = False
            self._set_state("reconnecting", "lost the NATS connection")
            self.log("farm_disconnected", url=cfg.redacted_url())

        async def on_reconnect() -> None:
            self.stats.connects += 1
            self.stats.connected = True
            self._set_state("connected", None)
            self.log("farm_reconnected", url=cfg.redacted_url())
            await self._hello()
            self.listener.farm_connected(True)

        async def on_closed() -> None:
            self._closed.set()

        async def on_error(exc: Exception) -> None:
            # nats-py keeps retrying (also a refused first connection); log each new error
            # once, not once per attempt
            text = _describe(exc)
            if text != self.stats.last_error:
                self.log("farm_error", url=cfg.redacted_url(), error=text)
            self.stats.last_error = text
            if not self.stats.connected or is_auth_failure(text):
                self._set_state(None, text)

        options: dict[str, Any] = {}
        if cfg.user is not None:
            options["user"] = cfg.user
        if cfg.password is not None:
            options["password"] = cfg.password
        if cfg.token is not None:
            options["token"] = cfg.token
        tls = cfg.ssl_context()
        if tls is not None:
            options["tls"] = tls
        nc = await nats.connect(
            servers=[cfg.url],
            name=f"mobridge-{cfg.hub}",
            inbox_prefix=cfg.inbox_prefix,
            connect_timeout=5,
            allow_reconnect=True,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            ping_interval=5,
            max_outstanding_pings=2,
            disconnected_cb=on_disconnect,
            reconnected_cb=on_reconnect,
            error_cb=on_error,
            closed_cb=on_closed,
            **options,
        )
        self.stats.connects += 1
        self.stats.connected = True
        self._set_state("connected", None)
        self.log("farm_connected", url=cfg.redacted_url(), hub=cfg.hub, run=self.run_id)
        return nc

    async def _serve(self, nc: NatsClient) -> None:
        s = self.subjects
        subs = [
            await nc.subscribe(s.any_announce, cb=self._on_announce),
            await nc.subscribe(s.discover, cb=self._on_discover),
            await nc.subscribe(s.any_events, cb=self._on_event),
            await nc.subscribe(s.requests_to(self.config.hub), cb=self._on_request),
        ]
        self.nc = nc
        await self._hello()
        self.listener.farm_connected(False)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._heartbeat, nc)
            tg.start_soon(self._publisher, nc)
            await self._closed.wait()  # nats-py reconnects forever: only a close ends this
            tg.cancel_scope.cancel()
        del subs

    async def _hello(self) -> None:
        nc = self.nc
        if nc is None:
            return
        with _quiet():
            await nc.publish(self.subjects.discover, b"")
        await self._announce(nc)

    async def _goodbye(self, nc: NatsClient) -> None:
        with _quiet():
            if nc.is_connected:
                await self._announce(nc, leaving=True)
                await nc.flush(timeout=1)
        with _quiet():
            await nc.close()

    def _set_state(self, state: LinkState | None, reason: str | None) -> None:
        """Record the link's state; ``None``: a failure, classified from ``reason``."""
        if state is None:
            if reason is not None and is_auth_failure(reason):
                state = "unauthorized"
            elif self.stats.state == "unauthorized":
                return  # nats-py's follow-up errors ("no servers available") say less
            else:
                state = "connecting" if self.stats.connects == 0 else "reconnecting"
        self.stats.state = state
        self.stats.reason = reason

    # ---- announcing -------------------------------------------------------------------------

    def announce_soon(self) -> None:
        """Announce before the next heartbeat (a device's health or lease changed)."""
        self._announce_now.set()

    async def _heartbeat(self, nc: NatsClient) -> None:
        while True:
            wake = self._announce_now
            with anyio.move_on_after(self.config.heartbeat_s):
                await wake.wait()
            if wake.is_set():
                self._announce_now = anyio.Event()
            await self._announce(nc)
            await anyio.sleep(ANNOUNCE_DEBOUNCE_S)

    async def _announce(self, nc: NatsClient, *, leaving: bool = False) -> None:
        devices, relays = self.listener.announcement()
        message = self.announcer.next(devices, relays, leaving=leaving)
        data = _encoder.encode(message)
        with _quiet():
            await nc.publish(self.subjects.announce(self.config.hub), data)
            self.stats.announces_sent += 1
            self.stats.announce_bytes += len(data)

    async def _sweeper(self) -> None:
        while True:
            await anyio.sleep(self.config.heartbeat_s / 4)
            for record in self.registry.sweep(self.clock_ms()):
                self.log("farm_hub_gone", hub=record.name, reason=record.gone_reason)
                self.listener.hub_gone(record)

    def mark_gone(self, hub: str, reason: str) -> None:
        """NATS said no hub listens on ``hub``'s subject: it is gone now."""
        record = self.registry.mark_gone(hub, reason, self.clock_ms())
        if record is not None:
            self.log("farm_hub_gone", hub=hub, reason=reason)
            self.listener.hub_gone(record)

    # ---- inbound ----------------------------------------------------------------------------

    async def _on_announce(self, msg: Msg) -> None:
        try:
            announce = _announces.decode(msg.data)
        except (msgspec.DecodeError, RecursionError) as exc:
            self._bad("announce", msg.subject, exc)
            return
        if announce.protocol != FARM_PROTOCOL or self.subjects.hub_of(msg.subject) != announce.hub:
            self._bad("announce", msg.subject, f"protocol {announce.protocol!r} or wrong subject")
            return
        if announce.hub == self.config.hub:
            if announce.run != self.run_id:
                self.log("farm_name_clash", hub=announce.hub, other_run=announce.run)
            return
        self.stats.announces_heard += 1
        self._heard(announce)

    def _heard(self, announce: HubAnnounce) -> None:
        heard = self.registry.heard(announce, self.clock_ms())
        if heard is None:
            return
        if isinstance(heard, Resync):
            self._fetch_whole(heard)
            return
        if heard.came_online or heard.restarted:
            self.log(
                "farm_hub_online",
                hub=announce.hub,
                run=announce.run,
                restarted=heard.restarted,
                devices=sorted(heard.record.devices),
            )
        for device in heard.conflicts:
            self.log("farm_device_id_conflict", device=device, hub=announce.hub)
        if announce.leaving:
            self.listener.hub_gone(heard.record)
        else:
            self.listener.hub_online(heard)

    def _fetch_whole(self, resync: Resync) -> None:
        """Ask ``resync.hub`` for its whole announcement (one request per hub at a time)."""
        if resync.hub in self._fetching or self._tg is None:
            return
        self._fetching.add(resync.hub)
        self.stats.resyncs += 1

        async def fetch() -> None:
            try:
                reply = await self.request(resync.hub, AnnounceGet(hub=self.config.hub), 5.0)
                if isinstance(reply, Announced) and reply.announce.hub == resync.hub:
                    self._heard(reply.announce)
            finally:
                self._fetching.discard(resync.hub)

        self._tg.start_soon(fetch)

    async def _on_discover(self, msg: Msg) -> None:
        self.announce_soon()

    async def _on_event(self, msg: Msg) -> None:
        owner = self.subjects.hub_of(msg.subject)
        if owner == self.config.hub:
            return
        try:
            relay = _events.decode(msg.data)
        except (msgspec.DecodeError, RecursionError) as exc:
            self._bad("event", msg.subject, exc)
            return
        self.listener.device_event(owner, relay)

    async def _on_request(self, msg: Msg) -> None:
        self.stats.requests_in += 1
        await self._inflight.acquire()
        if self._tg is None:
            self._inflight.release()
            return
        self._tg.start_soon(self._answer, msg)

    async def _answer(self, msg: Msg) -> None:
        try:
            try:
                request = _requests.decode(msg.data)
            except (msgspec.DecodeError, RecursionError) as exc:
                self._bad("request", msg.subject, exc)
                reply: FarmReply = Refused(
                    message=ProtocolError(
                        code=ProtocolErrorCode.MALFORMED, message=f"bad farm request: {exc}"
                    )
                )
            else:
                sender = self.subjects.sender_of(msg.subject)
                claimed = claimed_hub(request)
                if (
                    claimed is not None and claimed != sender
                ):  # the payload names another hub than NATS let speak
                    self.stats.forged += 1
                    self._bad("request", msg.subject, f"sent by {sender}, claims {claimed}")
                    reply = Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.FORBIDDEN,
                            message=f"a request from hub {sender} cannot speak for hub {claimed}",
                        )
                    )
                elif isinstance(request, AnnounceGet):
                    reply = Announced(announce=self.announcer.whole())
                else:
                    reply = await self.listener.handle_request(request)
            data = _encoder.encode(reply)
            nc = self.nc
            if nc is None or not msg.reply:
                return
            if len(data) > nc.max_payload:
                data = _encoder.encode(
                    Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.TOO_LARGE,
                            message=f"the answer ({len(data)} bytes) exceeds the farm's NATS "
                            f"max_payload ({nc.max_payload}); raise max_payload",
                        )
                    )
                )
            with _quiet():
                await nc.publish(msg.reply, data)
        finally:
            self._inflight.release()

    def _bad(self, what: str, subject: str, problem: object) -> None:
        self.stats.bad_messages += 1
        self.log("farm_bad_message", what=what, subject=subject, problem=str(problem)[:200])

    # ---- outbound ---------------------------------------------------------------------------

    async def request(
        self, hub: str, message: FarmRequest, timeout_s: float
    ) -> FarmReply | Unreachable:
        """One request to ``hub``; the answer, or why there is none."""
        nc = self.nc
        if nc is None or not nc.is_connected:
            return Unreachable("this hub is not connected to the farm's NATS server")
        data = _encoder.encode(message)
        if len(data) > nc.max_payload:
            return Unreachable(
                f"the request ({len(data)} bytes) exceeds the farm's NATS max_payload "
                f"({nc.max_payload})"
            )
        self.stats.requests_out += 1
        try:
            answer = await nc.request(
                self.subjects.request(hub, self.config.hub), data, timeout=timeout_s
            )
        except nats.errors.NoRespondersError:
            return Unreachable(f"hub {hub} is not in the farm (no responder)", nobody=True)
        except nats.errors.TimeoutError:
            return Unreachable(f"hub {hub} did not answer within {timeout_s:g} s")
        except nats.errors.Error as exc:
            return Unreachable(f"the farm link failed: {_describe(exc)}")
        try:
            return _replies.decode(answer.data)
        except (msgspec.DecodeError, RecursionError) as exc:
            self._bad("reply", hub, exc)
            return Unreachable(f"hub {hub} sent an answer this hub cannot read: {exc}")

    def publish_nowait(self, subject: str, data: bytes) -> bool:
        """Queue ``data`` for ``subject`` (from synchronous code); False when dropped (the
        queue is over its byte budget, or not connected)."""
        if self.nc is None or len(data) > self.nc.max_payload:
            self.stats.dropped_bytes += len(data)
            return False
        if self._outbox_bytes + len(data) > MAX_QUEUED_BYTES:
            self.stats.dropped_bytes += len(data)
            return False
        self._outbox.append((subject, data))
        self._outbox_bytes += len(data)
        self._outbox_wake.set()
        return True

    def publish_event(self, relay: FarmEventRelay) -> None:
        self.publish_nowait(self.subjects.events(self.config.hub), _encoder.encode(relay))

    def stream_subject(self, stream: str, fmt: str, owner: str | None = None) -> str:
        return self.subjects.stream(owner or self.config.hub, stream, fmt)

    async def _publisher(self, nc: NatsClient) -> None:
        while True:
            while not self._outbox:
                self._outbox_wake = anyio.Event()
                await self._outbox_wake.wait()
            subject, data = self._outbox.popleft()
            self._outbox_bytes -= len(data)
            try:
                await nc.publish(subject, data)
                self.stats.published += 1
            except nats.errors.Error as exc:  # reconnecting with a full buffer, ...
                self.stats.dropped_bytes += len(data)
                self.stats.last_error = _describe(exc)

    def max_payload(self) -> int | None:
        """The NATS server's largest message, while connected (None otherwise)."""
        return self.nc.max_payload if self.nc is not None else None

    async def follow(self, subject: str, on_data: Callable[[bytes], None]) -> Following | None:
        """Subscribe to a stream subject; ``on_data`` gets each message's bytes in order."""
        nc = self.nc
        if nc is None or nc.is_closed:
            return None

        async def deliver(msg: Msg) -> None:
            on_data(msg.data)

        return await nc.subscribe(subject, cb=deliver)

    async def unfollow(self, sub: Following) -> None:
        with _quiet():
            await sub.unsubscribe()

    def statistics(self) -> dict[str, Any]:
        stats = dict(vars(self.stats))
        stats["outbox"] = {"messages": len(self._outbox), "bytes": self._outbox_bytes}
        stats["hub"] = self.config.hub
        stats["run"] = self.run_id
        stats["hubs"] = {
            r.name: {"online": r.online, "devices": sorted(r.devices), "reason": r.gone_reason}
            for r in self.registry.hubs.values()
        }
        return stats


class _quiet:
    """Swallow nats-py's errors for fire-and-forget sends (the next heartbeat repairs)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        return isinstance(exc, (nats.errors.Error, OSError, TimeoutError))


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]
