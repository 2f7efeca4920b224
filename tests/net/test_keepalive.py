"""The hub's own keepalive (``bridge.net.client_server``): connections are dealt into slots
pinged in turn, so connections opened together are not pinged together; a connection whose
pong never comes is dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.net.client_server import KEEPALIVE_SLOTS, ClientServer
from tests.net.test_client_server import TOKEN, EchoHandler, _serve

pytestmark = pytest.mark.anyio


async def _wait(predicate: Any, seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.01)


@asynccontextmanager
async def _served(
    ping_interval_s: float = 0.2,
) -> AsyncIterator[tuple[ClientServer, int, list[str]]]:
    """A subscriber server on a free port: (server, port, the events it logged)."""
    events: list[str] = []
    server, tg, port = await _serve(
        EchoHandler(),
        ping_interval_s=ping_interval_s,
        log=lambda event, **_: events.append(event),
    )
    try:
        yield server, port, events
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


def _open(port: int) -> Any:
    return ws_connect(
        f"ws://127.0.0.1:{port}/v1",
        additional_headers={"Authorization": f"Bearer {TOKEN}"},
        ping_interval=None,
        close_timeout=1,  # a client that stopped reading does not hold the test's exit
    )


async def test_connections_opened_together_are_dealt_into_every_slot() -> None:
    async with _served(ping_interval_s=3600.0) as (server, port, _):
        n = 2 * KEEPALIVE_SLOTS
        clients: list[Any] = []

        async def one() -> None:
            clients.append(await _open(port).__aenter__())

        async with anyio.create_task_group() as opening:
            for _ in range(n):
                opening.start_soon(one)
        await _wait(lambda: len(server.sessions) == n)
        # websockets' keepalive would ping all of them one interval from now, together
        assert [len(slot) for slot in server._slots] == [2] * KEEPALIVE_SLOTS
        for ws in clients:
            await ws.close()
        await _wait(lambda: not any(server._slots))


async def test_a_client_that_answers_pings_stays_connected() -> None:
    async with _served() as (server, port, _), _open(port) as ws:
        await _wait(lambda: server.pings >= 4)
        assert len(server.sessions) == 1, "still connected after four pings"
        await ws.send('{"type":"hello","id":1,"client":{"name":"kept"}}')
        with anyio.fail_after(10):
            assert '"result"' in str(await ws.recv()), "and still served"


async def test_a_client_whose_pong_never_comes_is_dropped() -> None:
    async with _served() as (server, port, events), _open(port) as ws:
        await _wait(lambda: len(server.sessions) == 1)
        assert ws.transport is not None
        ws.transport.pause_reading()  # reads nothing: the hub's pings stay unanswered
        await _wait(lambda: not server.sessions)
        assert "keepalive_timeout" in events
        assert server.pings >= 1


async def test_a_connection_whose_ping_fails_is_dropped_and_the_others_kept() -> None:
    async with _served() as (server, port, events), _open(port), _open(port):
        await _wait(lambda: len(server.sessions) == 2)
        faulty = next(ws for slot in server._slots for ws in slot)

        async def broken(*args: Any) -> Any:
            raise RuntimeError("a fault in this connection only")

        setattr(faulty, "ping", broken)  # noqa: B010 (an instance attribute, on purpose)
        await _wait(lambda: len(server.sessions) == 1)
        before = server.pings
        await _wait(lambda: server.pings >= before + 2)  # the sweep goes on
        assert len(server.sessions) == 1
        assert "keepalive_failed" in events
