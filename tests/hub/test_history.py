"""``history``: a client that connects late sees the device's recent events, oldest first."""

from __future__ import annotations

import pytest

from bridge.client import AmbiguousError, build_query, connect
from bridge.hub.device import DeviceRuntime
from bridge.wire.client_protocol import MAX_HISTORY, ActionEvent, DeviceEvent, LeaseEvent
from bridge.wire.enums import ErrorCode, Platform
from bridge.wire.query import SemanticQuery, TextMatch
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def test_a_late_observer_gets_successes_refusals_and_leases_with_their_age() -> None:
    async with running_hub(sim_scene="ambiguous") as rh:
        async with connect(rh.url, token=CONTROLLER, name="early-bird") as actor:
            dev = actor.device(rh.device_id)
            async with dev.watch():  # events go to watchers; history keeps them anyway
                with pytest.raises(AmbiguousError):
                    await dev.tap(build_query(text="Continue"))
                await dev.acquire_lease()
                await dev.tap(SemanticQuery(text=TextMatch(value="Continue"), nth=0))
        async with connect(rh.url, token=OBSERVER, name="late") as late:
            history = await late.device(rh.device_id).history()
            short = await late.device(rh.device_id).history(limit=1)
    kinds = [type(e.event).__name__ for e in history.entries]
    assert kinds[-4:] == ["ActionEvent", "LeaseEvent", "ActionEvent", "LeaseEvent"]
    refused, lease, done, released = (e.event for e in history.entries[-4:])
    assert isinstance(refused, ActionEvent) and refused.error is ErrorCode.AMBIGUOUS_MATCH
    assert refused.client == "early-bird"
    assert isinstance(lease, LeaseEvent) and lease.change == "acquired"
    assert isinstance(done, ActionEvent) and done.result is not None and done.error is None
    assert isinstance(released, LeaseEvent) and released.change == "released"
    ages = [e.age_ms for e in history.entries]
    assert ages == sorted(ages, reverse=True)  # oldest first
    assert len(short.entries) == 1 and short.entries[0].event == released


def test_the_hub_keeps_a_bounded_number_of_recent_events() -> None:
    device = DeviceRuntime(
        "d1", Platform.ANDROID, run_prefix="t", clock_ms=lambda: 5, takeover_after_ms=1
    )
    for i in range(MAX_HISTORY + 50):
        device.broadcast_event(DeviceEvent(device="d1", online=i % 2 == 0))
    assert len(device.recent) == MAX_HISTORY
