"""Heartbeats that scale (no I/O): changes instead of full lists, a digest, and a resync
when a receiver's view does not fit."""

from __future__ import annotations

import msgspec

from bridge.farm.announcer import Announcer
from bridge.farm.registry import Heard, Registry, Resync
from bridge.wire.client_protocol import DeviceSummary, LeaseInfo
from bridge.wire.enums import Platform

ENCODE = msgspec.msgpack.Encoder().encode


def phones(n: int) -> list[DeviceSummary]:
    return [
        DeviceSummary(id=f"p{i}", platform=Platform.ANDROID, online=True, model="Pixel 8",
                      os_version="14", owner="H")
        for i in range(n)
    ]  # fmt: skip


def test_an_unchanged_hub_sends_a_small_heartbeat_whatever_its_device_count() -> None:
    sender = Announcer("H", "r1", 1000)
    devices = phones(256)
    first = sender.next(devices, ())
    assert not first.partial and len(first.devices) == 256 and first.seq == 1
    beat = sender.next(devices, ())
    assert beat.partial and beat.devices == () and beat.digest == first.digest
    assert len(ENCODE(beat)) < 120 < 15_000 < len(ENCODE(first))
    leased = msgspec.structs.replace(
        devices[7], lease=LeaseInfo(mode="exclusive", holders=("s",), idle_ms=1234)
    )
    change = sender.next([*devices[:7], leased, *devices[8:]], ())
    assert [d.id for d in change.devices] == ["p7"] and change.digest != first.digest
    assert change.devices[0].lease is not None and change.devices[0].lease.idle_ms == 0


def test_a_receiver_applies_changes_and_resyncs_on_a_gap_or_a_bad_digest() -> None:
    sender = Announcer("H", "r1", 1000)
    devices = phones(4)
    reg = Registry("A", offline_after_ms=3000)
    assert isinstance(reg.heard(sender.next(devices, ()), 0), Heard)
    removed = sender.next(devices[:3], ())
    heard = reg.heard(removed, 100)
    assert isinstance(heard, Heard) and sorted(heard.record.devices) == ["p0", "p1", "p2"]
    lost = sender.next(devices[:2], ())  # never delivered
    assert lost.removed == ("p2",)
    gap = reg.heard(sender.next(devices[:2], ()), 200)
    assert isinstance(gap, Resync) and "missed" in gap.reason
    assert isinstance(reg.heard(sender.whole(), 250), Heard)
    assert sorted(reg.hubs["H"].devices) == ["p0", "p1"]
    beat = sender.next(devices[:2], ())
    forged = msgspec.structs.replace(beat, digest="0" * 16)
    assert isinstance(reg.heard(forged, 300), Resync)
    assert reg.heard(beat, 300) is not None  # the true one still applies
    # a heartbeat of a run this receiver never saw whole: ask for it
    other = Registry("B", offline_after_ms=3000)
    unknown = other.heard(sender.next(devices[:2], ()), 0)
    assert isinstance(unknown, Resync) and unknown.hub == "H"


def test_partial_heartbeats_cannot_grow_a_hub_past_one_whole_announcement() -> None:
    """A hub adding devices a partial at a time (each within the wire's cap) is asked for its
    whole list once the sum passes what one announcement may carry; nothing is applied."""
    sender = Announcer("H", "r1", 1000)
    reg = Registry("A", offline_after_ms=3000)
    devices = phones(200)
    assert isinstance(reg.heard(sender.next(devices, ()), 0), Heard)
    grown = sender.next(phones(300), ())  # 100 more in one partial (the sender does not cap)
    assert grown.partial and len(grown.devices) == 100
    refused = reg.heard(grown, 100)
    assert isinstance(refused, Resync) and "more devices" in refused.reason
    assert len(reg.hubs["H"].devices) == 200
