"""The hub's own keepalive (``bridge.net.client_server``): connections are dealt into slots
pinged in turn, so connections opened together are not pinged together; a connection whose
pong never comes is dropped."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.net.client_server import KEEPALIVE_SLOTS
from tests.net.test_client_server import TOKEN, EchoHandler, _serve

pytestmark = pytest.mark.anyio


async def _wait(predicate: Any, seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.01)


def _open(port: int) -> Any:
    return ws_connect(
        f"ws://127.0.0.1:{port}/v1",
        additional_headers={"Authorization": f"Bearer {TOKEN}"},
        ping_interval=None,
        close_timeout=1,  # a client that stopped reading does not hold the test's exit
    )


async def test_connections_opened_together_are_dealt_into_every_slot() -> None:
    server, tg, port = await _serve(EchoHandler(), ping_interval_s=3600.0)
    try:
        n = 2 * KEEPALIVE_SLOTS
        async with anyio.create_task_group() as opening:
            clients: list[Any] = []

            async def one() -> None:
                clients.append(await _open(port).__aenter__())

            for _ in range(n):
                opening.start_soon(one)
        await _wait(lambda: len(server.sessions) == n)
        # websockets' keepalive would ping all of them one interval from now, together
        assert [len(slot) for slot in server._slots] == [2] * KEEPALIVE_SLOTS
        for ws in clients:
            await ws.close()
        await _wait(lambda: not any(server._slots))
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_a_client_that_answers_pings_stays_connected() -> None:
    server, tg, port = await _serve(EchoHandler(), ping_interval_s=0.2)
    try:
        async with _open(port) as ws:
            await _wait(lambda: server.pings >= 4)
            assert len(server.sessions) == 1, "still connected after four pings"
            await ws.send('{"type":"hello","id":1,"client":{"name":"kept"}}')
            with anyio.fail_after(10):
                assert '"result"' in str(await ws.recv()), "and still served"
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_a_client_whose_pong_never_comes_is_dropped() -> None:
    events: list[str] = []
    server, tg, port = await _serve(
        EchoHandler(), ping_interval_s=0.2, log=lambda event, **kw: events.append(event)
    )
    try:
        async with _open(port) as ws:
            await _wait(lambda: len(server.sessions) == 1)
            assert ws.transport is not None
            ws.transport.pause_reading()  # reads nothing: the hub's pings stay unanswered
            await _wait(lambda: not server.sessions)
            assert "keepalive_timeout" in events
            assert server.pings >= 1
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_a_connection_whose_ping_fails_is_dropped_and_the_others_kept() -> None:
    events: list[str] = []
    server, tg, port = await _serve(
        EchoHandler(), ping_interval_s=0.2, log=lambda event, **kw: events.append(event)
    )
    try:
        async with _open(port), _open(port):
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
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)
