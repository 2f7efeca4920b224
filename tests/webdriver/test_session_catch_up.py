"""A command after an action reads the screen the action left (``WdSession.caught_up``): it
waits for the stream to show the action's snapshot, however late the stream is (a CI run
under load delivered it after more than a second, and a page source read the screen from
before a swipe), and returns as soon as it comes."""

from __future__ import annotations

import anyio
import msgspec
import pytest

from bridge.webdriver.capabilities import parse
from bridge.webdriver.session import CATCH_UP_S, WdSession
from bridge.wire.enums import Platform
from tests.webdriver.test_locators import _snapshot

pytestmark = pytest.mark.anyio


async def test_a_late_snapshot_is_waited_for_and_taken_as_soon_as_it_comes() -> None:
    session = WdSession(
        parse({"capabilities": {"alwaysMatch": {}}}), "ws://127.0.0.1:1/v1/ws", None
    )
    before = _snapshot(Platform.ANDROID)
    session._take(before)
    after = msgspec.structs.replace(before, snapshot_id="s_2")
    late_s = 1.5

    async def stream_late() -> None:
        await anyio.sleep(late_s)  # the stimulus: a stream that lags
        session._take(after)

    async with anyio.create_task_group() as tg:
        tg.start_soon(stream_late)
        started = anyio.current_time()
        await session.caught_up("s_2")
        waited = anyio.current_time() - started
    assert session.current().snapshot_id == "s_2", "the action's screen, not the one before"
    assert late_s <= waited < CATCH_UP_S, "returned when the snapshot came, not at the bound"


async def test_a_snapshot_already_seen_returns_at_once() -> None:
    session = WdSession(
        parse({"capabilities": {"alwaysMatch": {}}}), "ws://127.0.0.1:1/v1/ws", None
    )
    session._take(_snapshot(Platform.ANDROID))
    with anyio.fail_after(CATCH_UP_S / 2):
        await session.caught_up("s_1")
        await session.caught_up(None)
