"""The remote side of the farm: serving clients of this hub the devices other hubs own.

``HubService`` consults ``RemoteDevices.claims`` before answering a request: a request that
names a device this hub does not have but the farm registry lists goes here instead.

- ``subscribe`` joins a ``RelayFeed`` (one per stream and format on this hub, however many
  local members): the first member makes the hub follow the stream's subject and ask the
  owner to relay it (``relay.join``); members get the owner's bytes as they are, and their
  answer and resyncs come from the feed's mirror, so ``seq``, resyncs and settled streams
  behave as for a local device. A gap (lost message, owner restart) re-joins and resyncs
  every member with a ``snapshot`` event; the last member leaving ends the relay.
- ``find`` / ``resolve`` / ``act`` / ``global`` / ``app`` / ``wait`` / ``lease.*`` /
  ``screenshot`` / ``history`` / ``snapshot.get`` / ``unsubscribe`` of a relayed stream and
  ``cancel`` of a forwarded request are forwarded to the owner with the client's identity
  and answered with the owner's answer (a screenshot is copied here first, so its URL is
  this hub's). A device whose owner is gone answers DEVICE_OFFLINE at once; pending
  forwarded requests to a hub that disappears are answered DEVICE_OFFLINE too.
- The owner's device, lease and action events go to this hub's members of that device's
  feeds; when the owner disappears they get an offline ``device`` event, and when it comes
  back an online one and a resync.
"""

from __future__ import annotations

import secrets as random_ids
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from bridge.farm.link import FarmLink, Following, Unreachable
from bridge.farm.proof import proof_message, sign
from bridge.farm.registry import Heard, HubRecord
from bridge.farm.relay import Accepted, RelayFeed
from bridge.hub.errors import offline
from bridge.net.client_server import Session
from bridge.wire.client_protocol import (
    Act,
    App,
    Cancel,
    ClientToHub,
    DeviceEvent,
    DevicesList,
    DeviceSummary,
    ErrorMessage,
    Global,
    Hello,
    LeaseAcquire,
    Ping,
    ProtocolError,
    ResultMessage,
    Screenshot,
    ScreenshotResult,
    Subscribe,
    Unsubscribe,
    UnsubscribeResult,
    Wait,
)
from bridge.wire.codec import WireFormat, convert, encode
from bridge.wire.device_capabilities import CAPABILITY_ACTIONS
from bridge.wire.device_control import DEVICE_ACTIONS
from bridge.wire.device_network import NetworkSet
from bridge.wire.enums import ProtocolErrorCode
from bridge.wire.farm import (
    CaptureData,
    CaptureRead,
    FarmEventRelay,
    FarmOrigin,
    FormatName,
    Forward,
    Forwarded,
    Refused,
    RelayInterest,
    RelayJoin,
    RelayJoined,
    RelayLeave,
    SessionsClosed,
)

if TYPE_CHECKING:
    from bridge.hub.service import HubService

RELAY_TIMEOUT_S = 10.0
ACT_TIMEOUT_S = 180.0
"""Forwarded act/global/app: the verify cap (60 s) plus time queued behind other actions."""
OTHER_TIMEOUT_S = 30.0
SYNC_ATTEMPTS = 3
CAPTURE_CHUNK = 512 * 1024


class RemoteDevices:
    def __init__(
        self,
        service: HubService,
        link: FarmLink,
        *,
        spawn: Callable[[Callable[[], Awaitable[None]]], None],
        log: Any,
    ) -> None:
        self.service = service
        self.link = link
        self.spawn = spawn
        self.log = log
        self.feeds: dict[tuple[str, WireFormat], RelayFeed] = {}
        self._subs: dict[tuple[str, WireFormat], Following] = {}
        self._syncing: dict[tuple[str, WireFormat], anyio.Event] = {}
        self._again: set[tuple[str, WireFormat]] = set()
        """Feeds asked to sync again while a sync of theirs ran (bounded by ``feeds``)."""
        self._refusals: dict[tuple[str, WireFormat], Any] = {}
        self.pending: dict[tuple[str, object], tuple[str, anyio.CancelScope]] = {}
        """(session id, request id) -> (owner hub, scope) of forwarded requests in flight."""
        self.forwarded_to: dict[str, set[str]] = {}
        """Session id -> owner hubs that hold a forwarded session for it."""
        self.forwards = 0

    # ---- what the service asks ------------------------------------------------------------

    def claims(self, session: Session, request: ClientToHub) -> bool:
        """True when ``request`` is about a device another hub of the farm owns."""
        if getattr(session, "farm_forwarded", False):
            return False  # already forwarded to us: never forward again
        match request:
            case Hello() | DevicesList() | Ping():
                return False
            case Unsubscribe(subscription=sub):
                return sub.split(":", 1)[0] not in self.service.devices and any(
                    key[0] == sub for key in self.feeds
                )
            case Cancel(request=target):
                return (session.id, target) in self.pending
        device = getattr(request, "device", None)
        return (
            isinstance(device, str)
            and device not in self.service.devices
            and self.link.registry.owner_of(device) is not None
        )

    def summaries(self) -> Sequence[DeviceSummary]:
        return self.link.registry.summaries()

    def candidates(self, session: Session) -> Sequence[DeviceSummary]:
        """Other hubs' devices ``devices.acquire`` may lease for ``session`` (none without
        the farm scope)."""
        return self.summaries() if farm_scoped(session) else ()

    async def lease(self, session: Session, device: DeviceSummary, request_id: Any) -> str | None:
        """Lease another hub's device for ``session`` (its owner decides); None when granted,
        else why not."""
        record = self.link.registry.owner_of(device.id)
        if record is None or not record.online or not farm_scoped(session):
            return f"device {device.id} is not reachable"
        answer = await self._forward(
            session, LeaseAcquire(id=request_id, device=device.id), record.name, device.id
        )
        if isinstance(answer, ResultMessage):
            return None
        if isinstance(answer, ErrorMessage):
            return answer.error.message
        if isinstance(answer, ProtocolError):
            return answer.message
        return "no answer"

    def resync(self, session: Session, stream_id: str) -> Any | None:
        feed = self.feeds.get((stream_id, session.format))
        return feed.resync_event() if feed is not None and session in feed.members else None

    def relays(self) -> list[RelayInterest]:
        return [
            RelayInterest(owner=f.owner, stream=f.stream, format=_fmt(f.format))
            for f in self.feeds.values()
        ]

    async def session_closed(self, session: Session) -> None:
        for key, feed in list(self.feeds.items()):
            if session in feed.members:
                feed.members.discard(session)
                self._maybe_drop(key, feed)
        owners = self.forwarded_to.pop(session.id, set())
        for owner in owners:
            message = SessionsClosed(
                hub=self.link.config.hub, run=self.link.run_id, sessions=(session.id,)
            )
            self.spawn(partial(self._fire, owner, message))

    async def _fire(self, owner: str, message: Any) -> None:
        await self.link.request(owner, message, RELAY_TIMEOUT_S)

    # ---- requests ---------------------------------------------------------------------------

    async def handle(self, session: Session, request: ClientToHub) -> None:
        """Answer ``request`` (claimed) for ``session``: exactly one response. A token
        without the farm scope reaches no other hub's device (FORBIDDEN, nothing sent)."""
        if not farm_scoped(session) and not isinstance(request, (Unsubscribe, Cancel)):
            device = str(getattr(request, "device", ""))
            record = self.link.registry.owner_of(device)
            owner = record.name if record is not None else "another hub"
            session.respond(
                ProtocolError(
                    code=ProtocolErrorCode.FORBIDDEN,
                    message=f"device {device} is on hub {owner}: this token reaches only hub "
                    f"{self.link.config.hub}'s devices (a farm token reaches the farm: serve "
                    "--farm-controller-token)",
                    id=request.id,
                )
            )
            return
        match request:
            case Subscribe():
                session.respond(await self._subscribe(session, request))
            case Unsubscribe(subscription=sub):
                feed = self.feeds.get((sub, session.format))
                if feed is None or session not in feed.members:
                    session.respond(
                        ProtocolError(
                            code=ProtocolErrorCode.UNKNOWN_SUBSCRIPTION,
                            message=f"not subscribed to {sub!r}",
                            id=request.id,
                        )
                    )
                    return
                feed.members.discard(session)
                session.forget_stream(sub)
                self._maybe_drop((sub, session.format), feed)
                session.respond(
                    ResultMessage(id=request.id, result=UnsubscribeResult(subscription=sub))
                )
            case Cancel(request=target):
                owner, _ = self.pending[(session.id, target)]
                session.respond(await self._forward(session, request, owner, None))
            case _:
                device = str(getattr(request, "device", ""))
                record = self.link.registry.owner_of(device)
                if record is None or not record.online:
                    reason = record.gone_reason if record is not None else "unknown owner"
                    session.respond(self._offline(request, device, reason))
                    return
                session.respond(await self._forward(session, request, record.name, device))

    def _offline(self, request: ClientToHub, device: str, reason: str | None) -> ErrorMessage:
        return ErrorMessage(id=request.id, error=offline(device, reason).envelope)

    async def _forward(
        self, session: Session, request: ClientToHub, owner: str, device: str | None
    ) -> Any:
        principal = session.principal
        proof = None
        if principal is not None and principal.proof_key:
            signed = proof_message(
                self.link.config.hub,
                self.link.run_id,
                session.id,
                owner,
                request.id,
                type(request).__struct_config__.tag,  # type: ignore[arg-type]
            )
            proof = sign(principal.proof_key, signed)
        origin = FarmOrigin(
            hub=self.link.config.hub,
            run=self.link.run_id,
            session=session.id,
            client=(session.client_name or "?")[:128],
            role=principal.role if principal is not None else "observer",
            principal=principal.name[:128] if principal is not None else "?",
            kind=session.client_kind[:128] if session.client_kind else None,
            scope=principal.scope if principal is not None else "hub",
            proof=proof,
        )
        self.forwarded_to.setdefault(session.id, set()).add(owner)
        self.forwards += 1
        key = (session.id, request.id)
        reply: Any = None
        with anyio.CancelScope() as scope:
            if not isinstance(request, Cancel):
                self.pending[key] = (owner, scope)
            try:
                reply = await self.link.request(
                    owner, Forward(origin=origin, request=request), _timeout(request)
                )
            finally:
                held = self.pending.get(key)
                if held is not None and held[1] is scope:
                    del self.pending[key]
        if scope.cancelled_caught or reply is None:
            record = self.link.registry.hubs.get(owner)
            return self._offline(
                request, device or "?", record.gone_reason if record else f"hub {owner} is gone"
            )
        match reply:
            case Forwarded(message=message):
                if isinstance(request, Screenshot) and isinstance(message, ResultMessage):
                    return await self._copy_capture(request, owner, message)
                return message
            case Refused(message=message):
                return _with_id(message, request.id)
            case Unreachable(reason=reason, nobody=nobody):
                if nobody:
                    self.link.mark_gone(owner, reason)
                return self._offline(request, device or "?", reason)
        return ProtocolError(
            code=ProtocolErrorCode.INTERNAL, message="unexpected farm answer", id=request.id
        )

    async def _copy_capture(
        self, request: Screenshot, owner: str, message: ResultMessage
    ) -> ResultMessage | ErrorMessage | ProtocolError:
        shot = convert(message.result, ScreenshotResult)
        chunk = CAPTURE_CHUNK
        max_payload = self.link.max_payload()
        if max_payload is not None:
            chunk = max(1024, min(chunk, max_payload - 4096))
        data = bytearray()
        while True:
            reply = await self.link.request(
                owner,
                CaptureRead(capture=shot.capture, offset=len(data), length=chunk),
                OTHER_TIMEOUT_S,
            )
            if not isinstance(reply, CaptureData):
                reason = reply.reason if isinstance(reply, Unreachable) else "capture refused"
                return self._offline(request, request.device, f"screenshot copy failed: {reason}")
            data += reply.data
            if len(data) > self.service.captures.per_device_bytes:
                return self._offline(
                    request, request.device, "screenshot copy failed: past the capture budget"
                )
            if len(data) >= reply.total or not reply.data:
                break
        png = bytes(data)
        capture = f"cap_{random_ids.token_hex(8)}"
        if not self.service.captures.put(request.device, capture, png):
            return self._offline(request, request.device, "screenshot past the capture budget")
        local = msgspec.structs.replace(
            shot,
            capture=capture,
            url=f"{self.service.public_http()}/v1/captures/{capture}.png",
        )
        return ResultMessage(id=message.id, result=local)

    # ---- relayed streams --------------------------------------------------------------------

    async def _subscribe(self, session: Session, request: Subscribe) -> Any:
        device = request.device
        record = self.link.registry.owner_of(device)
        if record is None or not record.online:
            return self._offline(request, device, record.gone_reason if record else None)
        kind = ("compact" if request.compact else "full") + (":settled" if request.settled else "")
        stream = f"{device}:{kind}"
        key = (stream, session.format)
        for _ in range(SYNC_ATTEMPTS):
            feed = self.feeds.get(key)
            if feed is None:
                feed = RelayFeed(
                    owner=record.name,
                    device=device,
                    stream=stream,
                    compact=request.compact,
                    settled=request.settled,
                    format=session.format,
                )
                self.feeds[key] = feed
                await self._sync(key, feed, announce=False)
            elif key in self._syncing:
                await self._syncing[key].wait()
            elif not feed.in_sync:
                await self._sync(key, feed, announce=True)
            if self.feeds.get(key) is not feed:
                continue  # dropped meanwhile: start again
            result = feed.subscribe_result()
            if result is None:
                refusal = self._refusals.get(key)
                if not feed.members:
                    self._maybe_drop(key, feed)
                if isinstance(refusal, (ErrorMessage, ProtocolError)):
                    return _with_id(refusal, request.id)
                return self._offline(request, device, str(refusal or "the owner did not relay"))
            feed.members.add(session)
            feed.joined()
            session.streams.add(stream)
            return ResultMessage(id=request.id, result=result)
        return self._offline(request, device, "the relayed stream kept changing hands")

    async def _sync(self, key: tuple[str, WireFormat], feed: RelayFeed, *, announce: bool) -> None:
        """(Re)join the owner's relay of ``feed``; with ``announce``, resync the members.

        One sync per feed runs at a time. A call that arrives while one runs asks for one more
        attempt after it and returns when that one is done: the news behind the later call
        (the owner came back, the farm reconnected) may postdate the attempt in flight, which
        can still fail on the old state (the owner not yet answering) — deduplicating it away
        would leave the members stale until the next change."""
        if key in self._syncing:
            self._again.add(key)
            await self._syncing[key].wait()
            return
        done = self._syncing[key] = anyio.Event()
        try:
            while True:
                self._again.discard(key)
                await self._sync_once(key, feed, announce=announce)
                if key not in self._again or self.feeds.get(key) is not feed:
                    return
                announce = True
        finally:
            self._again.discard(key)
            self._syncing.pop(key, None)
            done.set()

    async def _sync_once(
        self, key: tuple[str, WireFormat], feed: RelayFeed, *, announce: bool
    ) -> None:
        if key not in self._subs:
            subject = self.link.stream_subject(feed.stream, feed.format.value, feed.owner)
            sub = await self.link.follow(subject, lambda data: self._on_data(key, data))
            if sub is None:
                self._refusals[key] = "this hub is not connected to the farm"
                feed.abandon_sync()
                return
            self._subs[key] = sub
        for _ in range(SYNC_ATTEMPTS):
            feed.begin_sync()
            reply = await self.link.request(
                feed.owner,
                RelayJoin(
                    hub=self.link.config.hub,
                    device=feed.device,
                    compact=feed.compact,
                    settled=feed.settled,
                    format=_fmt(feed.format),
                ),
                RELAY_TIMEOUT_S,
            )
            if isinstance(reply, RelayJoined):
                self._refusals.pop(key, None)
                if feed.synced(reply.result) is Accepted.GAP:
                    continue
                if announce and (feed.resync_wanted or not feed.members_current()):
                    feed.resync_members()  # once per news: an overlapping sync sends none
                return
            feed.abandon_sync()
            if isinstance(reply, Refused):
                self._refusals[key] = reply.message
            elif isinstance(reply, Unreachable):
                self._refusals[key] = reply.reason
            return
        feed.abandon_sync()

    def _on_data(self, key: tuple[str, WireFormat], data: bytes) -> None:
        feed = self.feeds.get(key)
        if feed is None:
            return
        if feed.accept(data) is Accepted.GAP:
            self.log.info("farm_relay_gap", stream=feed.stream, owner=feed.owner)
            self.spawn(lambda: self._sync(key, feed, announce=True))

    def _maybe_drop(self, key: tuple[str, WireFormat], feed: RelayFeed) -> None:
        if feed.members or self.feeds.get(key) is not feed or key in self._syncing:
            return
        del self.feeds[key]
        self._refusals.pop(key, None)
        sub = self._subs.pop(key, None)
        if sub is not None:
            self.spawn(lambda: self.link.unfollow(sub))
        leave = RelayLeave(hub=self.link.config.hub, stream=feed.stream, format=_fmt(feed.format))
        self.spawn(lambda: self._fire(feed.owner, leave))

    def _watchers(self, owner: str, device: str | None = None) -> dict[WireFormat, set[Session]]:
        out: dict[WireFormat, set[Session]] = {}
        for feed in self.feeds.values():
            if feed.owner == owner and (device is None or feed.device == device):
                out.setdefault(feed.format, set()).update(feed.members)  # type: ignore[arg-type]
        return out

    def _tell(self, owner: str, device: str, event: Any) -> None:
        for fmt, members in self._watchers(owner, device).items():
            data = encode(event, fmt)
            for member in members:
                member.push_event(None, data)

    # ---- the registry's news ----------------------------------------------------------------

    def hub_heard(self, heard: Heard) -> None:
        """A hub's heartbeat. News (it came online, restarted) resyncs every feed of its;
        any plain heartbeat retries the feeds of its whose last sync failed (NATS blinked
        and the owner was not back yet when this hub asked): one sync per feed at a time,
        so at most one request per feed per heartbeat."""
        record = heard.record
        if not (heard.came_online or heard.restarted):
            for key, feed in list(self.feeds.items()):
                if (
                    feed.owner == record.name
                    and (not feed.in_sync or feed.resync_wanted)
                    and key not in self._syncing
                ):
                    self.spawn(partial(self._sync, key, feed, announce=True))
            return
        if heard.restarted:  # a new run's stream: members must start over
            for feed in self.feeds.values():
                if feed.owner == record.name:
                    feed.resync_wanted = True
        for device, summary in record.devices.items():
            self._tell(
                record.name,
                device,
                DeviceEvent(
                    device=device,
                    online=summary.online,
                    reason=summary.reason,
                    health=summary.health,
                ),
            )
        self._resync_owner(record.name)

    def hub_gone(self, record: HubRecord) -> None:
        for key, (owner, scope) in list(self.pending.items()):
            if owner == record.name:
                scope.cancel()
                self.pending.pop(key, None)
        for feed in self.feeds.values():
            if feed.owner == record.name:
                feed.in_sync = False
                feed.resync_wanted = True
        for device in record.devices:
            self._tell(
                record.name,
                device,
                DeviceEvent(
                    device=device, online=False, reason=record.gone_reason, health="offline"
                ),
            )

    def device_event(self, owner: str, relay: FarmEventRelay) -> None:
        record = self.link.registry.owner_of(relay.device)
        if record is None or record.name != owner:
            return
        self._tell(owner, relay.device, relay.event)

    def farm_connected(self, again: bool) -> None:
        if again:
            for feed in self.feeds.values():
                feed.resync_wanted = True
            for owner in {feed.owner for feed in self.feeds.values()}:
                self._resync_owner(owner)

    def _resync_owner(self, owner: str) -> None:
        for key, feed in list(self.feeds.items()):
            if feed.owner == owner:
                self.spawn(partial(self._sync, key, feed, announce=True))

    def statistics(self) -> dict[str, Any]:
        return {
            "relays": {
                f"{k[0]}/{k[1].value}": {
                    "owner": f.owner,
                    "members": len(f.members),
                    "seq": f.seq,
                    "in_sync": f.in_sync,
                    "passed": f.passed,
                    "gaps": f.gaps,
                }
                for k, f in self.feeds.items()
            },
            "forwarded_requests": self.forwards,
            "pending": len(self.pending),
        }


def farm_scoped(session: Session) -> bool:
    """Whether ``session``'s token reaches the whole farm."""
    return session.principal is not None and session.principal.scope == "farm"


def _timeout(request: ClientToHub) -> float:
    match request:
        case Wait(timeout_ms=ms):
            return (ms if ms is not None else 10_000) / 1000 + 10
        case Act() | Global() | App():
            return ACT_TIMEOUT_S
    if isinstance(request, (*DEVICE_ACTIONS, *CAPABILITY_ACTIONS, NetworkSet)):  # gestures, ...
        return ACT_TIMEOUT_S
    return OTHER_TIMEOUT_S


def _fmt(fmt: WireFormat) -> FormatName:
    return "json" if fmt is WireFormat.JSON else "msgpack"


def _with_id(message: Any, request_id: Any) -> Any:
    if isinstance(message, (ErrorMessage, ProtocolError)):
        return msgspec.structs.replace(message, id=request_id)
    return message
