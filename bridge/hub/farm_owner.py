"""The owner side of the farm: answering other hubs' requests about this hub's devices.

- ``forward``: only with a proof of one of this hub's farm tokens (``bridge.farm.proof``),
  whose principal (role, scope) the session takes; the client's request runs through
  ``HubService.handle`` exactly as if the client were connected here, as a
  ``ForwardedSession`` named ``<origin hub>/<session id>`` carrying the client's name and
  kind (so this hub's log, action events, lease holders and objections name the real
  client). One forwarded session per origin session, kept until
  the origin reports it closed (``sessions.closed``), the origin hub restarts (a new run) or
  disappears; then ``HubService.session_closed`` releases its leases like a disconnect;
- ``relay.join``: a ``RelayMember`` (one per stream and format, whatever the number of hubs
  asking) joins the device's stream like a subscriber; everything the stream sends it —
  the same bytes local members of that format get — is published once on the stream's
  subject. The member leaves when no hub wants the stream any more (``relay.leave``, the hub
  gone, or its announcements no longer listing it for ``INTEREST_GRACE_MS``);
- ``capture.read``: chunks of a stored screenshot (the remote hub stores its own copy);
- every device, lease and action event of a device here is published once on this hub's
  events subject, and a device or lease change announces the hub's devices right away.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from bridge.farm.link import FarmLink
from bridge.farm.proof import proof_message, verify
from bridge.net.auth import Authenticator, Principal
from bridge.net.client_server import Session
from bridge.net.frames import Outgoing
from bridge.wire.client_protocol import (
    DeviceEvent,
    ErrorMessage,
    Hello,
    LeaseEvent,
    ProtocolError,
    ResultMessage,
    Subscribe,
    SubscribeResult,
)
from bridge.wire.codec import WireFormat, convert
from bridge.wire.enums import ProtocolErrorCode
from bridge.wire.farm import (
    Ack,
    CaptureData,
    CaptureRead,
    FarmEventRelay,
    FarmOrigin,
    FarmReply,
    FarmRequest,
    Forward,
    Forwarded,
    Refused,
    RelayJoin,
    RelayJoined,
    RelayLeave,
    SessionsClosed,
)

if TYPE_CHECKING:
    from bridge.farm.registry import HubRecord
    from bridge.hub.device import DeviceRuntime
    from bridge.hub.service import HubService

MAX_FORWARDED_SESSIONS = 4096
"""Forwarded sessions kept per origin hub; past it new ones are refused (RATE_LIMITED)."""
INTEREST_GRACE_MS = 3000
"""An interest its hub's announcements stopped listing is dropped after this long (an
announcement sent before the join may arrive after it)."""


@dataclass(eq=False)
class ForwardedSession(Session):
    """A client of another hub, as this hub sees it: answers are kept, not sent."""

    farm_forwarded: bool = True
    origin_hub: str = ""
    origin_run: str = ""
    answer: Any = None

    def respond(self, message: Any) -> None:
        self.answer = message

    def push_event(self, stream: str | None, event: bytes | Outgoing) -> None:
        return None  # a forwarded session is never a stream member


@dataclass(eq=False)
class RelayMember(Session):
    """The farm as one member of a stream: stream bytes go to NATS, once."""

    farm_forwarded: bool = True
    publish: Callable[[bytes], object] = field(default=lambda data: None)
    answer: Any = None
    hubs: dict[str, int] = field(default_factory=dict)
    """Hub name -> when it last showed interest (ms)."""

    def respond(self, message: Any) -> None:
        self.answer = message

    def push_event(self, stream: str | None, event: bytes | Outgoing) -> None:
        if stream is not None:  # device/lease/action events travel on the events subject
            self.publish(event.payload(self.format) if isinstance(event, Outgoing) else event)


class FarmOwner:
    def __init__(
        self,
        service: HubService,
        link: FarmLink,
        *,
        spawn: Callable[[Callable[[], Awaitable[None]]], None],
        clock_ms: Callable[[], int],
        auth: Authenticator | None = None,
    ) -> None:
        self.service = service
        self.auth = auth
        """This hub's tokens: a forward counts only with a proof of one of its farm tokens."""
        self.link = link
        self.spawn = spawn
        self.clock_ms = clock_ms
        self.sessions: dict[str, ForwardedSession] = {}
        self.relays: dict[tuple[str, WireFormat], RelayMember] = {}

    # ---- requests ---------------------------------------------------------------------------

    async def handle(self, request: FarmRequest) -> FarmReply:
        match request:
            case Forward(origin=origin, request=inner):
                if isinstance(inner, (Hello, Subscribe)):
                    return Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.INVALID_PARAMS,
                            message=f"{type(inner).__name__} is not forwarded between hubs",
                            id=inner.id,
                        )
                    )
                principal = self._proven(origin, inner)
                if principal is None:  # the origin checks too; never trust one side
                    return Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.FORBIDDEN,
                            message=f"a client of hub {origin.hub} without a farm token this "
                            f"hub knows cannot act on hub {self.link.config.hub}'s devices",
                            id=inner.id,
                        )
                    )
                session = self._session(origin, principal)
                if session is None:
                    return Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.RATE_LIMITED,
                            message=f"hub {origin.hub} has more than {MAX_FORWARDED_SESSIONS} "
                            "forwarded sessions here",
                            id=inner.id,
                        )
                    )
                session.answer = None
                await self.service.handle(session, inner)
                answer = session.answer
                if answer is None:  # every request is answered; defensive
                    answer = ProtocolError(
                        code=ProtocolErrorCode.INTERNAL, message="no answer", id=inner.id
                    )
                return Forwarded(message=answer)
            case RelayJoin():
                return await self._join(request)
            case RelayLeave(hub=hub, stream=stream, format=fmt):
                member = self.relays.get((stream, WireFormat(fmt)))
                if member is not None:
                    member.hubs.pop(hub, None)
                    self._prune(member)
                return Ack()
            case SessionsClosed(hub=hub, sessions=ids):
                for sid in ids:
                    forwarded = self.sessions.get(f"{hub}/{sid}")
                    if forwarded is not None:
                        await self._close(forwarded)
                return Ack()
            case CaptureRead(capture=capture, offset=offset, length=length):
                png = self.service.captures.get(capture)
                if png is None:
                    return Refused(
                        message=ProtocolError(
                            code=ProtocolErrorCode.INVALID_PARAMS,
                            message=f"no capture {capture!r} (captures are kept for a while)",
                        )
                    )
                return CaptureData(total=len(png), data=png[offset : offset + length])
        return Refused(
            message=ProtocolError(code=ProtocolErrorCode.UNKNOWN_TYPE, message="unknown request")
        )

    def _proven(self, origin: FarmOrigin, inner: Any) -> Principal | None:
        """The farm-scoped principal of this hub whose token proves ``origin`` (its role and
        scope are what count, not those the origin wrote), or None (``bridge.farm.proof``)."""
        proof = origin.proof
        if proof is None or origin.scope != "farm" or self.auth is None:
            return None
        message = proof_message(
            origin.hub,
            origin.run,
            origin.session,
            self.link.config.hub,
            inner.id,
            type(inner).__struct_config__.tag,
        )
        return self.auth.farm_principal(lambda key: verify(key, message, proof))

    def _session(self, origin: FarmOrigin, principal: Principal) -> ForwardedSession | None:
        sid = f"{origin.hub}/{origin.session}"
        session = self.sessions.get(sid)
        if session is not None and session.origin_run == origin.run:
            session.client_name = origin.client
            session.principal = principal
            return session
        if session is not None:  # the origin restarted and reused an id: the old one is gone
            self.spawn(partial(self._close, session))
        if sum(1 for s in self.sessions.values() if s.origin_hub == origin.hub) >= (
            MAX_FORWARDED_SESSIONS
        ):
            return None
        session = ForwardedSession(
            id=sid,
            format=WireFormat.MSGPACK,
            principal=principal,
            client_name=origin.client,
            client_kind=origin.kind,
            peer=f"farm:{origin.hub}",
            origin_hub=origin.hub,
            origin_run=origin.run,
        )
        self.sessions[sid] = session
        return session

    async def _close(self, session: ForwardedSession) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
        session.closed = True
        await self.service.session_closed(session)

    async def _join(self, request: RelayJoin) -> FarmReply:
        fmt = WireFormat(request.format)
        kind = ("compact" if request.compact else "full") + (":settled" if request.settled else "")
        key = (f"{request.device}:{kind}", fmt)
        member = self.relays.get(key)
        fresh = member is None
        if member is None:
            subject = self.link.stream_subject(key[0], request.format)
            member = RelayMember(
                id=f"farm:{key[0]}:{request.format}",
                format=fmt,
                principal=Principal("observer", "farm"),
                client_name="farm relay",
                peer="farm",
                publish=partial(self.link.publish_nowait, subject),
            )
        member.answer = None
        await self.service.handle(
            member,
            Subscribe(
                id=0, device=request.device, compact=request.compact, settled=request.settled
            ),
        )
        answer = member.answer
        if isinstance(answer, ResultMessage):
            result = answer.result
            if not isinstance(result, SubscribeResult):
                result = convert(result, SubscribeResult)
            member.hubs[request.hub] = self.clock_ms()
            self.relays[key] = member
            return RelayJoined(result=result)
        if fresh:
            self._leave_streams(member)
        if isinstance(answer, (ErrorMessage, ProtocolError)):
            return Refused(message=answer)
        return Refused(message=ProtocolError(code=ProtocolErrorCode.INTERNAL, message="no answer"))

    def _prune(self, member: RelayMember) -> None:
        if member.hubs:
            return
        for key, known in list(self.relays.items()):
            if known is member:
                del self.relays[key]
        self._leave_streams(member)

    def _leave_streams(self, member: RelayMember) -> None:
        for device in self.service.devices.values():
            for stream in device.all_streams():
                stream.leave(member)

    # ---- the registry's news --------------------------------------------------------------

    def hub_heard(self, record: HubRecord, restarted: bool, previous_run: str | None) -> None:
        """Refresh relay interest from the hub's announcement; a restarted hub's old
        sessions are closed."""
        now = self.clock_ms()
        wanted = {
            (r.stream, WireFormat(r.format))
            for r in record.relays
            if r.owner == self.link.config.hub
        }
        for key, member in list(self.relays.items()):
            if key in wanted:
                member.hubs[record.name] = now
            elif record.name in member.hubs and now - member.hubs[record.name] > INTEREST_GRACE_MS:
                del member.hubs[record.name]
                self._prune(member)
        if restarted and previous_run is not None:
            for session in list(self.sessions.values()):
                if session.origin_hub == record.name and session.origin_run == previous_run:
                    self.spawn(partial(self._close, session))

    def hub_gone(self, record: HubRecord) -> None:
        """Everything the hub held here ends: its sessions (leases) and its relays."""
        for session in list(self.sessions.values()):
            if session.origin_hub == record.name:
                self.spawn(partial(self._close, session))
        for member in list(self.relays.values()):
            if member.hubs.pop(record.name, None) is not None:
                self._prune(member)

    # ---- events of local devices ----------------------------------------------------------

    def on_device_event(self, device: DeviceRuntime, event: Any) -> None:
        """``DeviceRuntime.on_event``: publish once; announce when health or lease changed."""
        self.link.publish_event(FarmEventRelay(device=device.id, event=event))
        if isinstance(event, (DeviceEvent, LeaseEvent)):
            self.link.announce_soon()

    def statistics(self) -> dict[str, Any]:
        return {
            "forwarded_sessions": len(self.sessions),
            "relays": {f"{k[0]}/{k[1].value}": sorted(m.hubs) for k, m in self.relays.items()},
        }
