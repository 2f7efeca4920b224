"""The farm protocol: hub <-> hub messages over NATS (MessagePack, one tagged union per use).

A farm is several hubs sharing one NATS server (or cluster). Each hub owns the devices
attached to it; the others reach them through these messages. Subjects and timing live in
``bridge.farm``; this module is data only.

- ``HubAnnounce`` is a hub's heartbeat (every ``intervalMs``) and its announcement after any
  change of its devices: what it owns (``DeviceSummary`` with ``owner`` set) and which of
  the others' streams it relays (``relays``), so an owner can rebuild its relay interest
  from announcements alone. ``leaving`` says goodbye.
- ``FarmRequest`` goes to one hub by request/reply and gets exactly one ``FarmReply``:
  ``forward`` carries a client's request with who sent it (``FarmOrigin``: the client's
  name, kind, role and its session on the origin hub) and is answered with the very
  message the owner would have sent that client; ``relay.join`` / ``relay.leave`` start and
  stop the owner publishing one stream in one format; ``sessions.closed`` reports client
  sessions that ended on the origin hub (their leases end with them); ``capture.read``
  reads a stored screenshot in chunks.
- ``FarmEventRelay`` carries one device, lease or action event of an owned device.

Every decode is strict (unknown fields and tags refused), like the client protocol.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.wire.base import DeviceId, NonNegInt, WireStruct
from bridge.wire.client_protocol import (
    ActionEvent,
    ClientToHub,
    DeviceEvent,
    DeviceSummary,
    HubToClient,
    LeaseEvent,
    Name,
    SessionRole,
    SubscribeResult,
)

FARM_PROTOCOL = "mobridge.farm.v1"
HUB_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}(?!\n)$"
HubName = Annotated[str, msgspec.Meta(pattern=HUB_NAME_PATTERN)]
FormatName = Literal["json", "msgpack"]
MAX_ANNOUNCED_DEVICES = 256
MAX_RELAYS = 4096


class RelayInterest(WireStruct, frozen=True):
    """One stream (``subscription`` id) of ``owner``'s device relayed in ``format``."""

    owner: HubName
    stream: Name
    format: FormatName


class HubAnnounce(WireStruct, frozen=True):
    protocol: str
    hub: HubName
    run: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    """Changes each time the hub starts: a new run means the old one's sessions are gone."""
    interval_ms: NonNegInt
    devices: Annotated[tuple[DeviceSummary, ...], msgspec.Meta(max_length=MAX_ANNOUNCED_DEVICES)]
    relays: Annotated[tuple[RelayInterest, ...], msgspec.Meta(max_length=MAX_RELAYS)] = ()
    leaving: bool = False
    seq: NonNegInt = 0
    """Announcement number within the run: a receiver that sees one missing asks for all."""
    digest: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    """Compact digest of the hub's whole device list after this message
    (``bridge.farm.announcer.digest``); a receiver whose own view differs asks for all."""
    partial: bool = False
    """``devices`` are only the changed ones and ``removed`` the ids gone (the heartbeat of
    an unchanged hub carries none); ``relays`` only when ``relays_changed``."""
    removed: Annotated[tuple[DeviceId, ...], msgspec.Meta(max_length=MAX_ANNOUNCED_DEVICES)] = ()
    relays_changed: bool = False


class FarmOrigin(WireStruct, frozen=True):
    """Who sent a forwarded request: the origin hub (and its run), the client's session id
    there, the name and kind it said hello with, and the principal its token maps to."""

    hub: HubName
    run: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    session: Name
    client: Name
    role: SessionRole
    principal: Name
    kind: Name | None = None
    scope: Literal["hub", "farm"] = "hub"
    """The token's reach on its hub: an owner refuses a forward whose scope is not ``farm``."""
    proof: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}(?!\n)$")] | None = None
    """HMAC-SHA256 proving the client holds a farm token (``bridge.farm.proof``): the owner
    takes role and scope from the farm token that verifies it, not from the fields above."""


class _FarmRequest(WireStruct, tag_field="type", frozen=True):
    pass


class Forward(_FarmRequest, tag="forward", frozen=True):
    origin: FarmOrigin
    request: ClientToHub


class RelayJoin(_FarmRequest, tag="relay.join", frozen=True):
    hub: HubName
    device: DeviceId
    compact: bool
    settled: bool
    format: FormatName


class RelayLeave(_FarmRequest, tag="relay.leave", frozen=True):
    hub: HubName
    stream: Name
    format: FormatName


class SessionsClosed(_FarmRequest, tag="sessions.closed", frozen=True):
    hub: HubName
    run: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    sessions: Annotated[tuple[Name, ...], msgspec.Meta(max_length=4096)]


class CaptureRead(_FarmRequest, tag="capture.read", frozen=True):
    capture: Name
    offset: NonNegInt
    length: Annotated[int, msgspec.Meta(ge=1, le=8 << 20)]


class AnnounceGet(_FarmRequest, tag="announce.get", frozen=True):
    """Ask a hub for its whole announcement (a receiver's digest or seq did not match)."""

    hub: HubName


FarmRequest = Forward | RelayJoin | RelayLeave | SessionsClosed | CaptureRead | AnnounceGet


class _FarmReply(WireStruct, tag_field="type", frozen=True):
    pass


class Forwarded(_FarmReply, tag="forwarded", frozen=True):
    """The owner's answer to a forwarded request: exactly what the client gets."""

    message: HubToClient


class RelayJoined(_FarmReply, tag="relay.joined", frozen=True):
    """The stream's state when the owner started relaying it: ``seq`` is the last event's
    (the next relayed delta is ``seq + 1``)."""

    result: SubscribeResult


class Refused(_FarmReply, tag="refused", frozen=True):
    """The owner refused: ``message`` is the error or protocol_error a client would get."""

    message: HubToClient


class CaptureData(_FarmReply, tag="capture.data", frozen=True):
    total: NonNegInt
    data: bytes


class Ack(_FarmReply, tag="ack", frozen=True):
    pass


class Announced(_FarmReply, tag="announced", frozen=True):
    """The answer to ``announce.get``: the hub's whole announcement (``partial`` false)."""

    announce: HubAnnounce


FarmReply = Forwarded | RelayJoined | Refused | CaptureData | Ack | Announced


class FarmEventRelay(WireStruct, frozen=True):
    device: DeviceId
    event: ActionEvent | LeaseEvent | DeviceEvent
