"""The hub's own keepalive (``bridge.net.client_server``): every connection is pinged, the
first ping at a phase of its own, and a connection whose pong never comes is closed."""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.net.client_server import keepalive_phase
from tests.net.test_client_server import TOKEN, EchoHandler, _serve

pytestmark = pytest.mark.anyio


def test_connections_opened_together_get_first_pings_spread_over_an_interval() -> None:
    phases = [keepalive_phase(n) for n in range(1, 21)]
    assert all(0.5 <= p < 1.5 for p in phases)
    ordered = sorted(phases)
    gaps = [b - a for a, b in itertools.pairwise(ordered)]
    # 20 connections opened in one burst: no two first pings within 2% of an interval, where
    # websockets' keepalive pings them all one interval after the burst, together
    assert min(gaps) > 0.02, ordered
    assert ordered[-1] - ordered[0] > 0.9, "spread over the whole range"


async def _wait(predicate: Any, seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.01)


async def test_a_client_that_answers_pings_stays_connected() -> None:
    server, tg, port = await _serve(EchoHandler(), ping_interval_s=0.05, ping_timeout_s=2.0)
    try:
        async with ws_connect(
            f"ws://127.0.0.1:{port}/v1",
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
            ping_interval=None,
        ) as ws:
            await _wait(lambda: server.pings >= 4)
            assert len(server.sessions) == 1, "still connected after four pings"
            await ws.send('{"type":"hello","id":1,"client":{"name":"kept"}}')
            with anyio.fail_after(10):
                assert '"result"' in str(await ws.recv()), "and still served"
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_a_client_whose_pong_never_comes_is_closed() -> None:
    events: list[str] = []
    server, tg, port = await _serve(
        EchoHandler(),
        ping_interval_s=0.05,
        ping_timeout_s=0.3,
        log=lambda event, **kw: events.append(event),
    )
    try:
        async with ws_connect(
            f"ws://127.0.0.1:{port}/v1",
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
            ping_interval=None,
        ) as ws:
            await _wait(lambda: len(server.sessions) == 1)
            assert ws.transport is not None
            ws.transport.pause_reading()  # reads nothing: the hub's pings stay unanswered
            await _wait(lambda: not server.sessions)
            assert "keepalive_timeout" in events
            assert server.pings >= 1
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)
