"""Registry rules (no I/O): online on announce, gone on silence / goodbye / no responder,
restarts seen by run id, device ids first come first served."""

from __future__ import annotations

from bridge.farm.registry import Heard, Registry
from bridge.wire.client_protocol import DeviceSummary
from bridge.wire.enums import Platform
from bridge.wire.farm import FARM_PROTOCOL, HubAnnounce


def announce(hub: str, run: str = "r1", *devices: str, leaving: bool = False) -> HubAnnounce:
    return HubAnnounce(
        protocol=FARM_PROTOCOL,
        hub=hub,
        run=run,
        interval_ms=1000,
        devices=tuple(DeviceSummary(id=d, platform=Platform.ANDROID, online=True) for d in devices),
        leaving=leaving,
    )


def test_silence_longer_than_the_bound_marks_a_hub_gone_and_its_devices_offline() -> None:
    reg = Registry("A", offline_after_ms=3000)
    heard = reg.heard(announce("C", "r1", "sim-c"), now_ms=0)
    assert isinstance(heard, Heard) and heard.came_online and not heard.restarted
    assert [(s.id, s.owner, s.online) for s in reg.summaries()] == [("sim-c", "C", True)]
    assert reg.sweep(3000) == []  # exactly at the bound: still online
    gone = reg.sweep(3001)
    assert [r.name for r in gone] == ["C"]
    (summary,) = reg.summaries()
    assert (summary.online, summary.health) == (False, "offline")
    assert summary.reason is not None and "C stopped heartbeating" in summary.reason
    assert reg.sweep(5000) == []  # reported once
    back = reg.heard(announce("C", "r2", "sim-c"), now_ms=6000)
    assert (
        isinstance(back, Heard)
        and back.came_online
        and back.restarted
        and back.previous_run == "r1"
    )
    assert reg.summaries()[0].online


def test_goodbye_and_no_responder_mark_gone_at_once() -> None:
    reg = Registry("A", offline_after_ms=3000)
    reg.heard(announce("B", "r1", "sim-b"), 0)
    reg.heard(announce("B", "r1", "sim-b", leaving=True), 10)
    assert not reg.summaries()[0].online
    reg.heard(announce("B", "r1", "sim-b"), 20)
    assert reg.mark_gone("B", "no responder", 30) is not None
    assert reg.mark_gone("B", "again", 40) is None
    assert reg.summary("sim-b") is not None and reg.summary("sim-b").reason == "no responder"  # type: ignore[union-attr]


def test_own_announcements_and_duplicate_device_ids_are_not_taken() -> None:
    reg = Registry("A", offline_after_ms=3000)
    assert reg.heard(announce("A", "r1", "sim-a"), 0) is None
    reg.heard(announce("B", "r1", "phone-1"), 0)
    clash = reg.heard(announce("C", "r1", "phone-1", "sim-c"), 0)
    assert isinstance(clash, Heard) and clash.conflicts == ("phone-1",)
    owner = reg.owner_of("phone-1")
    assert owner is not None and owner.name == "B"
    assert sorted(s.id for s in reg.summaries()) == ["phone-1", "sim-c"]
    # once B is gone, C's claim is taken on its next announcement
    reg.sweep(10_000)
    reg.heard(announce("C", "r1", "phone-1", "sim-c"), 10_001)
    owner = reg.owner_of("phone-1")
    assert owner is not None and owner.name == "C"
