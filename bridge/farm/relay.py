"""RelayFeed: one remote stream in one format, as a hub that does not own the device holds it.

The owner publishes every event of the stream (``delta`` / ``snapshot``) once on the stream's
subject; each other hub subscribes once per (stream, format) it has local members for and
passes the very same bytes to each of them. The feed also keeps a *mirror* (seq, generation,
snapshot) by applying the deltas, so it answers a new local member and a lagging one's resync
exactly as the owner would, without asking it.

Rules:
- ``begin_sync`` (before asking the owner to relay) starts buffering what arrives; ``synced``
  with the owner's answer (``RelayJoined.result``: the state at ``seq``) drops buffered events
  up to ``seq`` and applies the rest in order; members get nothing while it is not in sync;
- a ``delta`` applies only when its ``seq`` is the mirror's + 1 and its base is the mirror's
  snapshot; an older one is a duplicate and dropped; anything else (a gap: NATS lost a
  message, the owner restarted) answers ``GAP``: the caller must ``begin_sync`` and ask the
  owner again, then ``resync_members``;
- a ``snapshot`` event (the owner resynced its members, e.g. after its agent reconnected)
  replaces the mirror and is passed on;
- the sync buffer is bounded (``MAX_BUFFERED`` events): past it the feed gives up the buffer
  and reports ``GAP`` once synced;
- the feed remembers the state its members last got whole (``members_current``): a re-sync
  that ends where they already are (NATS restarted, nothing changed) needs no resync event,
  so a NATS restart never sends members a second, redundant snapshot.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from bridge.core.patch import Patch, PatchMismatch, apply_patch
from bridge.wire.client_protocol import DeltaEvent, SnapshotEvent, SubscribeResult
from bridge.wire.codec import HUB_TO_CLIENT, DecodeFailure, WireFormat, encode
from bridge.wire.snapshot import ScreenSnapshot

MAX_BUFFERED = 512


class Member(Protocol):
    """A local subscriber (the hub's ``Session`` fits)."""

    @property
    def format(self) -> WireFormat: ...

    def push_event(self, stream: str | None, data: bytes) -> None: ...


class Accepted(enum.Enum):
    PASSED = "passed"
    """Applied (or a snapshot taken) and passed to every member."""
    DROPPED = "dropped"
    """A duplicate, or buffered while syncing."""
    GAP = "gap"
    """Out of order, unappliable or undecodable: resync from the owner."""


class _Head(msgspec.Struct):
    type: str = ""
    seq: int = -1


_HEAD_JSON = msgspec.json.Decoder(_Head)
_HEAD_MSGPACK = msgspec.msgpack.Decoder(_Head)


@dataclass(eq=False)
class RelayFeed:
    owner: str
    device: str
    stream: str
    compact: bool
    settled: bool
    format: WireFormat
    members: set[Member] = field(default_factory=set)
    seq: int = 0
    generation: int = 0
    snapshot: ScreenSnapshot | None = None
    in_sync: bool = False
    syncing: bool = False
    passed: int = 0
    gaps: int = 0
    _buffer: list[bytes] = field(default_factory=list)
    _overflow: bool = False
    _told: tuple[int, int, ScreenSnapshot | None] = (0, 0, None)
    """(seq, generation, snapshot) every member has, as far as the feed knows."""
    resync_wanted: bool = False
    """Members must get a resync at the next sync even if their state is current (the farm
    link came back, the owner went away): set by the caller, cleared by ``resync_members``."""

    # ---- sync ---------------------------------------------------------------------------

    def begin_sync(self) -> None:
        """Start buffering (call before asking the owner to relay)."""
        self.in_sync = False
        self.syncing = True
        self._buffer.clear()
        self._overflow = False

    def abandon_sync(self) -> None:
        """The owner could not be asked (offline, refused): stay out of sync."""
        self.syncing = False
        self._buffer.clear()

    def synced(self, result: SubscribeResult) -> Accepted:
        """Take the owner's state; replays what was buffered since ``begin_sync``. ``GAP``
        means the buffer overflowed or did not follow on: sync again."""
        self.seq = result.seq
        self.generation = result.generation
        self.snapshot = result.snapshot
        self.in_sync = True
        self.syncing = False
        buffered, self._buffer = self._buffer, []
        if self._overflow:
            self._overflow = False
            return Accepted.GAP
        for data in buffered:
            if self.accept(data) is Accepted.GAP:
                return Accepted.GAP
        return Accepted.PASSED

    # ---- events -------------------------------------------------------------------------

    def accept(self, data: bytes) -> Accepted:
        """One event from the owner's stream subject (see the module rules)."""
        if self.syncing:
            if len(self._buffer) >= MAX_BUFFERED:
                self._overflow = True
            else:
                self._buffer.append(data)
            return Accepted.DROPPED
        if not self.in_sync or self.snapshot is None:
            return Accepted.DROPPED
        try:
            head = (
                _HEAD_JSON.decode(data)
                if self.format is WireFormat.JSON
                else _HEAD_MSGPACK.decode(data)
            )
        except (msgspec.DecodeError, RecursionError):
            return self._gap()
        if head.type == "snapshot":
            event = HUB_TO_CLIENT.decode(data, self.format)
            if not isinstance(event, SnapshotEvent):
                return self._gap()
            self.seq, self.generation, self.snapshot = event.seq, event.generation, event.snapshot
            self._pass(data)
            self._told = (self.seq, self.generation, self.snapshot)
            return Accepted.PASSED
        if head.type != "delta":
            return Accepted.DROPPED
        if head.seq <= self.seq:
            return Accepted.DROPPED
        if head.seq != self.seq + 1:
            return self._gap()
        delta = HUB_TO_CLIENT.decode(data, self.format)
        if isinstance(delta, DecodeFailure) or not isinstance(delta, DeltaEvent):
            return self._gap()
        after = apply_patch(
            self.snapshot,
            Patch(delta.base, delta.meta, delta.remove, delta.upsert, delta.order),
        )
        if isinstance(after, PatchMismatch):
            return self._gap()
        told = self._told
        follows = told[0] == self.seq and told[1] == self.generation and told[2] is self.snapshot
        self.seq, self.generation, self.snapshot = delta.seq, delta.generation, after
        self._pass(data)
        if follows:
            self._told = (self.seq, self.generation, self.snapshot)
        return Accepted.PASSED

    def _gap(self) -> Accepted:
        self.in_sync = False
        self.gaps += 1
        return Accepted.GAP

    def _pass(self, data: bytes) -> None:
        self.passed += 1
        for member in list(self.members):
            member.push_event(self.stream, data)

    # ---- answers --------------------------------------------------------------------------

    def subscribe_result(self) -> SubscribeResult | None:
        """What a new member gets (None while out of sync)."""
        if not self.in_sync or self.snapshot is None:
            return None
        return SubscribeResult(
            subscription=self.stream,
            seq=self.seq,
            generation=self.generation,
            snapshot=self.snapshot,
        )

    def resync_event(self) -> SnapshotEvent | None:
        """The ``snapshot`` event of a resync (None while out of sync)."""
        if not self.in_sync or self.snapshot is None:
            return None
        return SnapshotEvent(
            subscription=self.stream,
            seq=self.seq,
            generation=self.generation,
            snapshot=self.snapshot,
        )

    def members_current(self) -> bool:
        """Whether every member already has the mirror's state (no resync needed)."""
        seq, generation, snapshot = self._told
        return (
            self.in_sync
            and snapshot is not None
            and (seq, generation) == (self.seq, self.generation)
            and (snapshot is self.snapshot or snapshot == self.snapshot)
        )

    def joined(self) -> None:
        """A member joined with ``subscribe_result`` (call after adding it): every member
        has the mirror's state if it is the only one or the others had it too."""
        if len(self.members) == 1 or self.members_current():
            self._told = (self.seq, self.generation, self.snapshot)

    def resync_members(self) -> int:
        """Send every member the current state (encoded once); returns how many got it."""
        event = self.resync_event()
        if event is None:
            return 0
        self._told = (self.seq, self.generation, self.snapshot)
        self.resync_wanted = False
        if not self.members:
            return 0
        data = encode(event, self.format)
        for member in list(self.members):
            member.push_event(self.stream, data)
        return len(self.members)
