"""``HubConfig.sim_count``: several simulated devices in one hub, each with its own id and
its own screen (an action on one leaves the other where it was)."""

from __future__ import annotations

import pytest

from bridge.client import build_query, connect
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import VerificationResult
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


async def test_two_simulated_devices_have_distinct_ids_and_independent_screens() -> None:
    async with running_hub(sim_count=2) as rh:
        async with connect(rh.url, token=CONTROLLER, name="sims") as hub:
            ids = sorted(d.id for d in await hub.devices() if d.online)
            assert ids == ["sim-android", "sim-android-2"]
            first, second = hub.device(ids[0]), hub.device(ids[1])
            await second.tap(build_query(text="Login"))
            met = await second.wait(ScreenShown(name="login"))
            assert met.result is VerificationResult.CONDITION_MET
            still = await first.wait(ScreenShown(name="menu"), timeout_ms=0)
            assert still.result is VerificationResult.CONDITION_MET
            assert len(rh.hub.sims) == 2
