"""The announcement rules of a subscribed screen (bridge.mcp.coalesce), event by event."""

from __future__ import annotations

import anyio
import pytest

from bridge.mcp import coalesce
from bridge.mcp.coalesce import ScreenChange, announce_changes

pytestmark = pytest.mark.anyio


async def _run(script: list[ScreenChange | float]) -> list[int]:
    """Feed ``script`` (events, or pauses in seconds); the indices after which a notice came."""
    notices: list[int] = []
    sent = 0
    send, receive = anyio.create_memory_object_stream[ScreenChange](64)

    async def notify() -> None:
        notices.append(sent)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce_changes, receive, notify)
        for step in script:
            if isinstance(step, float):
                await anyio.sleep(step)
            else:
                await send.send(step)
                sent += 1
                await anyio.sleep(0.01)
        await anyio.sleep(0.05)
        send.close()
    return notices


async def test_a_change_without_animation_is_announced_once() -> None:
    assert await _run([(False, "s_2"), 0.05, (True, "s_2")]) == [1]


async def test_a_transition_is_announced_at_its_first_frame_and_when_it_settles() -> None:
    frames: list[ScreenChange | float] = [(False, f"s_{i}") for i in range(2, 7)]
    assert await _run([*frames, (True, "s_6")]) == [1, 6]


async def test_a_settled_screen_alone_is_announced() -> None:
    assert await _run([(True, "s_3"), 0.05, (True, "s_4")]) == [1, 2]


async def test_without_a_settled_screen_the_newest_frame_is_announced_after_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(coalesce, "SETTLE_TIMEOUT_S", 0.1)
    assert await _run([(False, "s_2"), (False, "s_3"), 0.3]) == [1, 2]
