"""``bridge.hub.loop_lag``: the lag monitor's timer measures a stall of the event loop to
within one tick, keeps ticking, and stops with the task that runs it (no timer left behind)."""

from __future__ import annotations

import asyncio
import time

import anyio
import pytest

from bridge.hub.loop_lag import TICK_S, LoopLag

pytestmark = pytest.mark.anyio


async def _ticked(lag: LoopLag, past: int) -> None:
    """Wait until ``lag`` has ticked more than ``past`` times."""
    with anyio.fail_after(30):
        while lag.ticks <= past:
            await anyio.sleep(TICK_S / 5)


async def test_a_stall_is_measured_within_a_tick_and_the_timer_ends_with_its_task() -> None:
    lag = LoopLag()
    async with anyio.create_task_group() as tg:
        tg.start_soon(lag.run)
        await _ticked(lag, 1)
        time.sleep(0.8)  # noqa: ASYNC251 -- the stimulus: the loop itself stalls, as CPU work would
        await _ticked(lag, lag.ticks)
        assert lag.worst_ms >= (0.8 - TICK_S) * 1000, lag.statistics()
        tg.cancel_scope.cancel()
    stopped = lag.ticks
    loop = asyncio.get_running_loop()
    marker = anyio.Event()
    loop.call_later(3 * TICK_S, marker.set)  # three ticks' time on the same timer queue
    with anyio.fail_after(30):
        await marker.wait()
    assert lag.ticks == stopped, "a tick fired after its task was cancelled"
