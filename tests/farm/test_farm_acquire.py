"""``devices.acquire`` across a real farm (nats-server, hubs as subprocesses): clients of
different hubs get different free devices; a waiter gets one when a lease is released."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bridge.client import ProtocolFailure, connect
from bridge.client.errors import HubError, PolicyBlockedError
from bridge.wire.acquire import AcquireResult
from bridge.wire.enums import Platform
from tests.farm.farmfixture import HUB_TOKEN, TOKEN, farm, nats_server, need_nats
from tests.farm.test_farm_e2e import farm_listed

pytestmark = [pytest.mark.anyio, need_nats]


async def test_any_free_android_across_two_hubs_then_a_queue(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "B") as (a, b):
        await farm_listed(a, {"sim-a", "sim-b"})
        await farm_listed(b, {"sim-a", "sim-b"})
        async with (
            connect(a.url, token=TOKEN, name="first") as first,
            connect(b.url, token=TOKEN, name="second") as second,
            connect(a.url, token=TOKEN, name="third") as third,
        ):
            got_1 = await first.acquire(platform=Platform.ANDROID, timeout_s=10)
            got_2 = await second.acquire(platform=Platform.ANDROID, timeout_s=10)
            assert {got_1.device, got_2.device} == {"sim-a", "sim-b"}
            assert got_1.owner in ("A", "B") and got_2.waited_ms < 10_000
            waited: list[AcquireResult] = []

            async def wait_for_one() -> None:
                waited.append(await third.acquire(platform=Platform.ANDROID, timeout_s=60))

            async with anyio.create_task_group() as tg:
                tg.start_soon(wait_for_one)
                await anyio.sleep(2.0)  # several rounds: both devices stay leased
                assert waited == []
                await first.device(got_1.device).release_lease()
                with anyio.fail_after(30):
                    while not waited:
                        await anyio.sleep(0.05)
            assert waited[0].device == got_1.device
            assert waited[0].waited_ms >= 1500
            # nothing free: a short timeout is refused with the selector and the count
            with pytest.raises(PolicyBlockedError) as refused:
                await first.acquire(platform=Platform.ANDROID, timeout_s=0.5)
            assert "2 device(s) match, none became free" in str(refused.value)
        # the holders went away: their leases ended with their connections
        async with connect(b.url, token=TOKEN, name="later") as later:
            got = await later.acquire(platform=Platform.ANDROID, owner="A", timeout_s=20)
            assert got.device == "sim-a"


async def test_a_hub_only_token_acquires_only_its_hubs_devices(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "B") as (a, _):
        await farm_listed(a, {"sim-a", "sim-b"})
        async with connect(a.url, token=HUB_TOKEN, name="hub-only") as client:
            with pytest.raises(PolicyBlockedError) as refused:
                await client.acquire(owner="B", timeout_s=0.5)
            assert "no device of this hub or the farm matches" in str(refused.value)
            got = await client.acquire(platform=Platform.ANDROID, timeout_s=5)
            assert got.device == "sim-a"
        async with connect(a.url, token=TOKEN, name="observer-like") as client:
            with pytest.raises((HubError, ProtocolFailure)):
                await client.acquire(os=">=99", timeout_s=0.2)
