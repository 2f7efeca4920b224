"""Announcer: what a hub's heartbeat says — changes, not full lists (pure; no I/O, no clock).

Each ``next`` returns the ``HubAnnounce`` to publish now:
- the first one of a run is whole (``partial`` false); after that only the device summaries
  that changed since the last message and the ids removed (``partial`` true), and the relays
  only when they changed; an unchanged hub's heartbeat carries no device at all;
- every message carries ``seq`` (one more each time) and ``digest``, a 64-bit BLAKE2b of the
  whole device list (summaries sorted by id, MessagePack): a receiver that missed a message
  (a ``seq`` gap) or whose view hashes differently asks the hub for the whole list
  (``whole``; FarmRequest ``announce.get``) instead of waiting for it;
- lease ``idleMs`` is not announced (always 0 on other hubs): it changes every second and
  would make every heartbeat of a leased device a change.

``always_whole`` sends the whole list every time (the pre-issue-25 behaviour; for the bench).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import msgspec

from bridge.wire.client_protocol import DeviceSummary
from bridge.wire.farm import FARM_PROTOCOL, HubAnnounce, RelayInterest

_encoder = msgspec.msgpack.Encoder()


def announced(summary: DeviceSummary) -> DeviceSummary:
    """The summary as other hubs get it (no lease idle time)."""
    if summary.lease is not None and summary.lease.idle_ms:
        return msgspec.structs.replace(
            summary, lease=msgspec.structs.replace(summary.lease, idle_ms=0)
        )
    return summary


def digest(summaries: Iterable[DeviceSummary]) -> str:
    h = hashlib.blake2b(digest_size=8)
    for summary in sorted(summaries, key=lambda s: s.id):
        h.update(_encoder.encode(summary))
    return h.hexdigest()


class Announcer:
    def __init__(self, hub: str, run: str, interval_ms: int, *, always_whole: bool = False) -> None:
        self.hub = hub
        self.run = run
        self.interval_ms = interval_ms
        self.always_whole = always_whole
        self.seq = 0
        self._sent: dict[str, DeviceSummary] = {}
        self._relays: tuple[RelayInterest, ...] = ()
        self._digest = digest(())
        self._started = False

    def next(
        self,
        devices: Sequence[DeviceSummary],
        relays: Sequence[RelayInterest],
        *,
        leaving: bool = False,
    ) -> HubAnnounce:
        now = {s.id: announced(s) for s in devices}
        relays_now = tuple(relays)
        changed = tuple(s for i, s in now.items() if self._sent.get(i) != s)
        removed = tuple(i for i in self._sent if i not in now)
        if changed or removed or not self._started:
            self._digest = digest(now.values())
        relays_changed = relays_now != self._relays
        self._sent, self._relays = now, relays_now
        self.seq += 1
        if not self._started or self.always_whole or leaving:
            self._started = True
            return self._whole(leaving)
        return HubAnnounce(
            protocol=FARM_PROTOCOL,
            hub=self.hub,
            run=self.run,
            interval_ms=self.interval_ms,
            devices=changed,
            relays=relays_now if relays_changed else (),
            seq=self.seq,
            digest=self._digest,
            partial=True,
            removed=removed,
            relays_changed=relays_changed,
        )

    def whole(self) -> HubAnnounce:
        """The whole list as last announced (``announce.get``), at the current ``seq``."""
        return self._whole(False)

    def _whole(self, leaving: bool) -> HubAnnounce:
        return HubAnnounce(
            protocol=FARM_PROTOCOL,
            hub=self.hub,
            run=self.run,
            interval_ms=self.interval_ms,
            devices=tuple(self._sent.values()),
            relays=self._relays,
            leaving=leaving,
            seq=self.seq,
            digest=self._digest,
        )
