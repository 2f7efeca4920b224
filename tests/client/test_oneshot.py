"""The blocking one-shot session (``bridge.client.oneshot``) on its own: the coroutine driver
and the URLs it takes. Its exchanges with a real hub are covered by every CLI test that runs
``devices``, ``screen``, ``tap`` ... (tests/cli), which now go through it."""

from __future__ import annotations

import asyncio

import pytest

from bridge.client.errors import ConnectionFailed
from bridge.client.oneshot import open_session, run_blocking, supports


async def _plain(x: int) -> int:
    return x + 1


async def _suspends() -> int:
    await asyncio.sleep(0)
    return 1


def test_a_coroutine_that_never_suspends_runs_without_a_loop() -> None:
    assert run_blocking(_plain(1)) == 2


def test_a_coroutine_that_suspends_is_refused_loudly() -> None:
    with pytest.raises(RuntimeError, match="event loop"):
        run_blocking(_suspends())


def test_only_plain_websocket_urls_are_taken() -> None:
    assert supports("ws://127.0.0.1:8765/v1")
    assert not supports("wss://hub.example:443/v1")


def test_no_hub_is_the_same_one_line_as_connect() -> None:
    with pytest.raises(
        ConnectionFailed, match=r"no hub at ws://127.0.0.1:1/v1 \(connection refused\)"
    ):
        with open_session("ws://127.0.0.1:1/v1", token="t"):
            pass
