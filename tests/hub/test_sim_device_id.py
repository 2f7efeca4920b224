"""``HubConfig.sim_device_id``: the simulated device answers under the configured id."""

from __future__ import annotations

import pytest

from bridge.client import connect
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


async def test_sim_device_id_names_the_simulated_device() -> None:
    async with running_hub(sim_device_id="bench-7") as rh:
        assert list(rh.hub.service.devices) == ["bench-7"]
        async with connect(rh.url, token=CONTROLLER, name="t") as client:
            listed = await client.devices()
        assert [d.id for d in listed] == ["bench-7"]
