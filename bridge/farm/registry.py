"""Registry: which hubs are in the farm, what they own, and which are gone (no I/O, no clock:
callers pass ``now_ms``).

Rules:
- a hub is *online* from its first announcement until it says goodbye (``leaving``), is
  marked gone (``mark_gone``: NATS said nobody answers its subject), or is not heard for
  ``offline_after_ms`` (``sweep``); then every device it announced is reported offline
  (``online`` false, ``health`` offline, the reason naming the hub) until it is heard again;
- a new ``run`` from the same hub name is a restart: ``Heard.restarted`` tells the caller to
  drop what belonged to the old run (forwarded sessions, relay state);
- a device id belongs to the first online hub that announces it; another hub announcing the
  same id is reported in ``Heard.conflicts`` and not listed (never a silent takeover);
- at most ``MAX_HUBS`` hubs are tracked; hubs gone for ``FORGET_AFTER_MS`` are forgotten;
- heartbeats carry changes (``bridge.farm.announcer``): a partial announcement applies only
  on top of the same run's previous ``seq``, and the result must hash to its ``digest``;
  otherwise nothing is applied and ``heard`` answers ``Resync`` — the caller asks that hub
  for its whole announcement (``announce.get``) and hands the answer to ``heard`` again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from bridge.farm.announcer import digest
from bridge.wire.client_protocol import DeviceSummary
from bridge.wire.farm import MAX_ANNOUNCED_DEVICES, HubAnnounce, RelayInterest

MAX_HUBS = 256
FORGET_AFTER_MS = 10 * 60 * 1000


@dataclass
class HubRecord:
    name: str
    run: str
    last_seen_ms: int
    devices: dict[str, DeviceSummary] = field(default_factory=dict)
    relays: tuple[RelayInterest, ...] = ()
    online: bool = True
    gone_reason: str | None = None
    gone_at_ms: int | None = None
    seq: int = 0
    digest: str | None = None
    announced: dict[str, DeviceSummary] = field(default_factory=dict)
    """Every summary the hub announced (``devices`` minus id conflicts), as sent."""


@dataclass(frozen=True)
class Heard:
    record: HubRecord
    came_online: bool
    """The hub was unknown or gone before this announcement."""
    restarted: bool
    """The hub was known under another run (its old sessions and relays are gone)."""
    previous_run: str | None
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resync:
    """A partial announcement could not be applied: ask ``hub`` for its whole list."""

    hub: str
    reason: str


class Registry:
    def __init__(self, me: str, offline_after_ms: int) -> None:
        self.me = me
        self.offline_after_ms = offline_after_ms
        self.hubs: dict[str, HubRecord] = {}
        self._owner: dict[str, str] = {}
        """Device id -> the hub whose announcement lists it (first come)."""

    # ---- updates ----------------------------------------------------------------------------

    def heard(self, announce: HubAnnounce, now_ms: int) -> Heard | Resync | None:
        """Take an announcement of another hub; None when it is ignored (ours, stale, or the
        table is full); ``Resync`` when a partial one does not fit what is known."""
        if announce.hub == self.me:
            return None
        record = self.hubs.get(announce.hub)
        same_run = record is not None and record.run == announce.run
        if announce.partial and not announce.leaving:
            if record is None or not same_run:
                return Resync(announce.hub, "a heartbeat of a run not known here")
            if announce.seq <= record.seq:
                return None  # a duplicate or older message
            if announce.seq != record.seq + 1:
                return Resync(announce.hub, f"heartbeat {record.seq + 1} missed")
            view = record.announced
            if announce.devices or announce.removed:
                view = dict(view)
                for summary in announce.devices:
                    view[summary.id] = summary
                for gone in announce.removed:
                    view.pop(gone, None)
                if len(view) > MAX_ANNOUNCED_DEVICES:  # partials must not grow past a whole list
                    return Resync(announce.hub, "more devices than one announcement may carry")
                if digest(view.values()) != announce.digest:
                    return Resync(announce.hub, "the device list does not match its digest")
            elif announce.digest != record.digest:
                return Resync(announce.hub, "the digest changed without a change")
            relays = announce.relays if announce.relays_changed else record.relays
            return self._take(announce, record, view, relays, now_ms)
        if same_run and record is not None and announce.seq and announce.seq < record.seq:
            return None  # an older whole list (an answer overtaken by a heartbeat)
        view = {s.id: s for s in announce.devices}
        if record is None:
            if len(self.hubs) >= MAX_HUBS:
                return None
            record = self.hubs[announce.hub] = HubRecord(announce.hub, announce.run, now_ms)
            came_online, restarted, previous = True, False, None
        else:
            came_online = not record.online
            restarted = record.run != announce.run
            previous = record.run if restarted else None
        if announce.leaving:
            record.run = announce.run
            self._gone(record, f"hub {announce.hub} left the farm", now_ms)
            return Heard(record, False, restarted, previous)
        return self._take(
            announce, record, view, announce.relays, now_ms, came_online, restarted, previous
        )

    def _take(
        self,
        announce: HubAnnounce,
        record: HubRecord,
        view: dict[str, DeviceSummary],
        relays: tuple[RelayInterest, ...],
        now_ms: int,
        came_online: bool | None = None,
        restarted: bool = False,
        previous: str | None = None,
    ) -> Heard:
        if came_online is None:
            came_online = not record.online
        unchanged = view is record.announced and not came_online
        record.run = announce.run
        record.last_seen_ms = now_ms
        record.online = True
        record.gone_reason = record.gone_at_ms = None
        record.relays = relays
        record.seq = announce.seq
        record.digest = announce.digest
        record.announced = view
        if unchanged:  # a plain heartbeat: O(1), whatever the number of devices
            return Heard(record, came_online, restarted, previous)
        conflicts: list[str] = []
        devices: dict[str, DeviceSummary] = {}
        for summary in view.values():
            owner = self._owner.get(summary.id)
            if owner is not None and owner != record.name and self._holds(owner):
                conflicts.append(summary.id)
                continue
            self._owner[summary.id] = record.name
            devices[summary.id] = msgspec.structs.replace(summary, owner=record.name)
        for gone in set(record.devices) - set(devices):
            if self._owner.get(gone) == record.name:
                del self._owner[gone]
        record.devices = devices
        return Heard(record, came_online, restarted, previous, tuple(conflicts))

    def _holds(self, hub: str) -> bool:
        record = self.hubs.get(hub)
        return record is not None and record.online

    def mark_gone(self, hub: str, reason: str, now_ms: int) -> HubRecord | None:
        """Mark ``hub`` gone now; returns its record when it was online."""
        record = self.hubs.get(hub)
        if record is None or not record.online:
            return None
        self._gone(record, reason, now_ms)
        return record

    def _gone(self, record: HubRecord, reason: str, now_ms: int) -> None:
        record.online = False
        record.gone_reason = reason
        record.gone_at_ms = now_ms

    def sweep(self, now_ms: int) -> list[HubRecord]:
        """Hubs silent for longer than the bound become gone (returned, newly gone only);
        hubs gone for ``FORGET_AFTER_MS`` are forgotten."""
        newly: list[HubRecord] = []
        for record in list(self.hubs.values()):
            if record.online and now_ms - record.last_seen_ms > self.offline_after_ms:
                silent = (now_ms - record.last_seen_ms) / 1000
                self._gone(
                    record, f"hub {record.name} stopped heartbeating ({silent:.1f} s)", now_ms
                )
                newly.append(record)
            elif (
                not record.online
                and record.gone_at_ms is not None
                and now_ms - record.gone_at_ms > FORGET_AFTER_MS
            ):
                del self.hubs[record.name]
                for device in record.devices:
                    if self._owner.get(device) == record.name:
                        del self._owner[device]
        return newly

    def mark_all_gone(self, reason: str, now_ms: int) -> list[HubRecord]:
        """Every online hub becomes gone (this hub lost NATS for longer than the bound)."""
        out = []
        for record in self.hubs.values():
            if record.online:
                self._gone(record, reason, now_ms)
                out.append(record)
        return out

    # ---- reading ----------------------------------------------------------------------------

    def owner_of(self, device: str) -> HubRecord | None:
        hub = self._owner.get(device)
        return self.hubs.get(hub) if hub is not None else None

    def summary(self, device: str) -> DeviceSummary | None:
        record = self.owner_of(device)
        if record is None:
            return None
        summary = record.devices.get(device)
        if summary is None or record.online:
            return summary
        return msgspec.structs.replace(
            summary, online=False, health="offline", reason=record.gone_reason, lease=None
        )

    def summaries(self) -> list[DeviceSummary]:
        out = []
        for record in self.hubs.values():
            for device in record.devices:
                if self._owner.get(device) == record.name:
                    summary = self.summary(device)
                    if summary is not None:
                        out.append(summary)
        return out

    def online_hubs(self) -> list[HubRecord]:
        return [r for r in self.hubs.values() if r.online]
