"""The network state action of issue 35 (``network.set`` / ``network.get``) over real sockets
against the simulated device: airplane mode turns the radios off and back as they were, Wi-Fi
and data switch alone, observers read but never switch, each switch is an ``action`` event,
and a device whose agent cannot (an iPhone) refuses with one line saying why."""

from __future__ import annotations

import pytest

from bridge.client import ActionUnsupported, HubError, ProtocolFailure
from bridge.wire.enums import Platform
from tests.hub.hubfixture import running_hub
from tests.hub.test_device_actions import FAST, next_action, watched

pytestmark = pytest.mark.anyio


async def test_airplane_mode_wifi_and_data_on_the_simulated_device() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, observer, events):
        dev = actor.device(rh.device_id)
        seen = observer.device(rh.device_id)
        first = await seen.network_state()  # a read: observers may
        assert (first.airplane, first.wifi, first.data) == (False, True, True)
        await dev.network(wifi=False)
        done = await next_action(events)
        assert (done.verb, done.action, done.message) == ("network", "NETWORK_SET", "Wi-Fi off")
        await dev.network(airplane=True)
        flying = await seen.network_state()
        assert (flying.airplane, flying.wifi, flying.data) == (True, False, False)
        await dev.network(airplane=False)  # the radios come back as they were before
        landed = await dev.network_state()
        assert (landed.airplane, landed.wifi, landed.data) == (False, False, True)
        with pytest.raises(ProtocolFailure, match="needs a controller token"):
            await seen.network(airplane=True)  # an observer never switches anything
        with pytest.raises(ValueError):
            await dev.network()  # nothing to switch


async def test_a_device_whose_agent_cannot_refuses_with_the_reason() -> None:
    options = {**FAST, "without": ("network",)}
    async with (
        running_hub(sim_options=options, sim_platform=Platform.IOS) as rh,
        watched(rh) as (
            actor,
            _,
            _events,
        ),
    ):
        dev = actor.device(rh.device_id)
        with pytest.raises(ActionUnsupported) as refused:
            await dev.network(airplane=True)
        assert "an iPhone lets no test runner switch airplane mode" in str(refused.value)
        with pytest.raises(HubError) as read:
            await dev.network_state()
        assert "no test runner" in str(read.value)
