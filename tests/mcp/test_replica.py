"""The session's screen replicas (``bridge.mcp.replica``) against a real hub in this process
(simulated device, 127.0.0.1): an action's answer read locally is the hub's screen, a
screen that moved on during the wait is read as it is now, an unknown snapshot falls back to
the hub within the bound, and an unused replica is dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from bridge.client import HubConnection, build_query, connect
from bridge.hub.app import Hub, HubConfig
from bridge.mcp import replica as replica_module
from bridge.mcp.session import HubTarget, McpSession
from bridge.net.auth import Principal

pytestmark = pytest.mark.anyio
TOKEN = "replica-token"
FIELD = build_query(resource_id="dev.mobridge.demo:id/username")


@asynccontextmanager
async def setup() -> AsyncIterator[tuple[McpSession, HubConnection, str]]:
    hub = Hub(HubConfig(port=0, tokens={TOKEN: Principal("controller", "t")}, sim_scene="login"))
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        url = f"ws://127.0.0.1:{port}/v1"
        device = next(iter(hub.service.devices))
        session = McpSession(HubTarget(url, TOKEN))
        async with session.run(), connect(url, token=TOKEN, name="other") as other:
            yield session, other, device
        tg.cancel_scope.cancel()


async def test_the_after_screen_is_read_from_the_replica_and_equals_the_hubs() -> None:
    async with setup() as (session, other, device):
        await session.look(device)  # makes the device's replica
        assert len(session.replicas) == 1
        dev = other.device(device)
        first = (await dev.type_text(FIELD, "ab")).observation.after_snapshot_id
        second = (await dev.type_text(FIELD, "abc")).observation.after_snapshot_id
        assert first is not None and second is not None and first != second
        # the screen moved on after the first action: read as it is now, never older
        generation, snapshot = await session._screen(device, first)
        rep = session.replicas.get(await session.hub(), device)
        assert rep is not None and first in rep.recent
        order = list(rep.recent)
        assert order.index(snapshot.snapshot_id) >= order.index(first)
        generation, snapshot = await session._screen(device, second)
        now = await dev.snapshot()
        assert (generation, snapshot) == (now.generation, now.snapshot)
        assert any(n.value == "abc" or n.text == "abc" for n in snapshot.nodes)


async def test_a_snapshot_the_replica_never_sees_is_asked_of_the_hub_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replica_module, "CATCH_UP_S", 0.2)
    async with setup() as (session, other, device):
        await session.look(device)
        started = anyio.current_time()
        generation, snapshot = await session._screen(device, "s_never")
        assert anyio.current_time() - started < 2.0
        now = await other.device(device).snapshot()
        assert (generation, snapshot) == (now.generation, now.snapshot)


async def test_an_unused_replica_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replica_module, "IDLE_S", 0.1)
    async with setup() as (session, _other, device):
        await session.look(device)
        assert len(session.replicas) == 1
        with anyio.fail_after(5):
            while len(session.replicas):
                await anyio.sleep(0.1)
        await session.look(device)  # touched again: a new replica
        assert len(session.replicas) == 1
