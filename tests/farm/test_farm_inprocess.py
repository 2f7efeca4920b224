"""Two hubs in this process joined by a real nats-server: the service's remote hooks (a
lagging member's resync comes from the relay's mirror, equal to the owner's state) and the
CLI's refusal of bad farm options."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.farm.config import FarmConfig
from bridge.hub.app import Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.client_protocol import SnapshotEvent
from bridge.wire.codec import WireFormat
from bridge.wire.enums import ActionVerb
from tests.farm.farmfixture import ROOT, TOKEN, nats_server, need_nats
from tests.farm.subscribers import subscribers, wait_until

pytestmark = need_nats


@asynccontextmanager
async def hub(name: str, nats_url: str) -> AsyncIterator[Hub]:
    config = HubConfig(
        port=0,
        tokens={TOKEN: Principal("controller", "c", "farm")},
        sim_scene="login",
        sim_device_id=f"sim-{name.lower()}",
        farm=FarmConfig(url=nats_url, hub=name),
    )
    running = Hub(config)
    async with anyio.create_task_group() as tg:
        await tg.start(running.run)
        try:
            yield running
        finally:
            tg.cancel_scope.cancel()


@pytest.mark.anyio
async def test_a_lagging_member_of_a_relayed_stream_resyncs_from_the_mirror(
    tmp_path: Path,
) -> None:
    with nats_server(tmp_path) as nats:
        async with hub("A", nats.url) as a, hub("C", nats.url) as c:
            await wait_until(
                lambda: a.farm is not None and a.farm.link.registry.owner_of("sim-c") is not None,
                5,
                "A hears C",
            )
            url_a = f"ws://127.0.0.1:{a.port}/v1"
            async with subscribers([(url_a, "sim-c", WireFormat.JSON)]) as (sub,):
                async with connect(url_a, token=TOKEN, name="typist") as typist:
                    await typist.device("sim-c").act_on(
                        build_query(resource_id="username"), ActionVerb.SET_TEXT, value="lag"
                    )
                truth = c.service.devices["sim-c"].current
                assert truth is not None
                await wait_until(lambda: sub.tracker.generation == truth.generation, 5, "relayed")
                (session,) = [s for s in a.server.sessions.values() if "sim-c:compact" in s.streams]
                resync = a.service.resync(session, "sim-c:compact")
                assert isinstance(resync, SnapshotEvent)
                assert resync.snapshot == truth.normalized.compact
                assert resync.generation == truth.generation
                assert resync.seq == c.service.devices["sim-c"].streams[True].seq
                # a member that is not subscribed gets nothing
                assert a.service.resync(session, "sim-c:full") is None


def test_bad_farm_options_are_one_line_with_exit_2() -> None:
    for args, said in (
        (["--farm", "nats://127.0.0.1:4222", "--farm-name", "bad name"], "farm hub name"),
        (["--farm", "http://127.0.0.1:4222", "--farm-name", "A"], "nats://HOST:PORT"),
        (["--farm", "nats://127.0.0.1:4222", "--farm-tls-ca", "/nonexistent.pem"], "no such file"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", *args],
            capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
