"""The dashboard's farm view in a real browser (Debian's Chromium, Playwright) on hub A of a
two-hub farm (real nats-server, hubs in this process): every hub with its devices, who holds
each lease, and A's devices.acquire queue. Screenshot:
``$MOBRIDGE_TEST_OUTPUT/dashboard/dashboard-farm.png``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from bridge.client import connect
from bridge.dashboard import page
from bridge.farm.config import FarmConfig
from bridge.hub.app import Hub, HubConfig
from bridge.net.auth import Principal
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path
from tests.farm.farmfixture import TOKEN, nats_server, need_nats
from tests.farm.subscribers import wait_until
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium, need_nats]


@dataclass
class Port:
    port: int


@asynccontextmanager
async def farm_hub(name: str, nats_url: str) -> AsyncIterator[Hub]:
    config = HubConfig(
        port=0,
        tokens={TOKEN: Principal("controller", "c", "farm")},
        sim_scene="login",
        sim_device_id=f"sim-{name.lower()}",
        farm=FarmConfig(url=nats_url, hub=name),
        dashboard=page(),
        device_tags={f"sim-{name.lower()}": ("lab-1",)},
    )
    running = Hub(config)
    async with anyio.create_task_group() as tg:
        await tg.start(running.run)
        try:
            yield running
        finally:
            tg.cancel_scope.cancel()


async def test_the_farm_view_shows_hubs_devices_leases_and_the_queue(tmp_path: Path) -> None:
    with anyio.fail_after(120), nats_server(tmp_path) as nats:
        async with farm_hub("A", nats.url) as a, farm_hub("B", nats.url) as b:
            await wait_until(
                lambda: a.farm is not None and a.farm.link.registry.owner_of("sim-b") is not None,
                10,
                "A hears B",
            )
            url_a, url_b = f"ws://127.0.0.1:{a.port}/v1", f"ws://127.0.0.1:{b.port}/v1"
            async with (
                connect(url_b, token=TOKEN, name="ci-runner-7") as holder,
                connect(url_a, token=TOKEN, name="nightly-suite") as waiter,
                browser_tab(Port(a.port), f"#token={TOKEN}") as (tab, expect),
            ):
                got = await holder.acquire(owner="B", timeout_s=10)
                assert got.device == "sim-b"
                async with anyio.create_task_group() as tg:
                    tg.start_soon(lambda: waiter.acquire(owner="B", timeout_s=60))
                    farm = tab.get_by_test_id("farm")
                    await expect(tab.get_by_test_id("farm-link")).to_contain_text(
                        "this hub A: connected · 1 other hub heard"
                    )
                    await expect(farm).to_contain_text("hub A (this hub)")
                    await expect(farm).to_contain_text("hub B")
                    await expect(farm).to_contain_text("sim-b · android 14 · online")
                    await expect(farm).to_contain_text("leased by ci-runner-7")
                    await expect(farm).to_contain_text("tags lab-1")
                    await expect(tab.get_by_test_id("farm-waiter")).to_contain_text(
                        "1. nightly-suite wants owner=B"
                    )
                    await tab.screenshot(path=shot_path("dashboard-farm.png"))
                    await holder.device("sim-b").release_lease()
                    await expect(tab.get_by_test_id("farm-queue")).to_contain_text("empty")
                    tg.cancel_scope.cancel()


async def test_a_hub_alone_in_its_farm_says_it_hears_no_other_hub(tmp_path: Path) -> None:
    with anyio.fail_after(60), nats_server(tmp_path) as nats:
        async with (
            farm_hub("A", nats.url) as a,
            browser_tab(Port(a.port), f"#token={TOKEN}") as (tab, expect),
        ):
            link = tab.get_by_test_id("farm-link")
            await expect(link).to_contain_text("this hub A: connected · 0 other hubs heard")
            assert "undefined" not in (await link.text_content() or "")
