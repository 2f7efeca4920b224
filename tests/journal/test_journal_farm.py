"""Farm: each hub journals the devices it owns; history requests for a remote device go to
its owner like any other request (two hubs in this process, a real nats-server)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.farm.config import FarmConfig
from bridge.hub.app import Hub, HubConfig
from bridge.journal.records import iso
from bridge.net.auth import Principal
from tests.farm.farmfixture import TOKEN, nats_server, need_nats
from tests.farm.subscribers import wait_until

pytestmark = [pytest.mark.anyio, need_nats]


@asynccontextmanager
async def hub(name: str, nats_url: str, journal: Path) -> AsyncIterator[Hub]:
    config = HubConfig(
        port=0,
        tokens={TOKEN: Principal("controller", "c", "farm")},
        sim_scene="menu",
        sim_device_id=f"sim-{name.lower()}",
        sim_options={"animations": False},
        farm=FarmConfig(url=nats_url, hub=name),
        journal=journal,
    )
    running = Hub(config)
    async with anyio.create_task_group() as tg:
        await tg.start(running.run)
        try:
            yield running
        finally:
            tg.cancel_scope.cancel()


def devices_in(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {d for (d,) in conn.execute("SELECT DISTINCT device FROM frames")}
    finally:
        conn.close()


async def test_history_of_a_remote_device_is_answered_by_its_owner(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats:
        async with (
            hub("A", nats.url, tmp_path / "a.sqlite3") as a,
            hub("C", nats.url, tmp_path / "c.sqlite3") as c,
        ):
            await wait_until(
                lambda: a.farm is not None and a.farm.link.registry.owner_of("sim-c") is not None,
                5,
                "A hears C",
            )
            async with connect(f"ws://127.0.0.1:{a.port}/v1", token=TOKEN, name="via-a") as conn:
                remote = conn.device("sim-c")
                await anyio.sleep(0.3)
                before = iso(time.time_ns() // 1_000_000)
                await anyio.sleep(0.2)
                await remote.tap(build_query(text="Settings"))
                await anyio.sleep(0.8)
                timeline = await remote.timeline(before)
                acts = [e for e in timeline.entries if e.kind == "action"]
                assert len(acts) == 1 and acts[0].client == "via-a"
                past = await remote.snapshot_at(before, compact=False)
                assert any(n.text == "Settings" for n in past.snapshot.nodes)
                assert not any(n.text == "Wi-Fi" for n in past.snapshot.nodes)
                now = await remote.screen_at("now")
                assert any(n.text == "Wi-Fi" for n in now.snapshot.nodes)
            assert c.journal is not None and a.journal is not None
        # each hub journals the devices it owns, and only those
        assert devices_in(tmp_path / "c.sqlite3") == {"sim-c"}
        assert devices_in(tmp_path / "a.sqlite3") == {"sim-a"}
