"""When a subscribed screen resource is announced (``resources/updated``).

Input: the device's screen events in arrival order, each ``(settled, snapshot_id)`` — frames
from the hub's frame stream (``settled`` False) and settled screens from its settled stream
(True: the hub held transitional frames back until the screen was stable). Rules:

- the first change after a quiet period is announced at once (the agent hears of a change
  within milliseconds of the hub's first delta);
- while the screen is transitioning (frames after that announcement, before the settled
  screen) nothing more is announced;
- the settled screen is announced unless it is the very screen already announced (a change
  that did not animate is announced once, not twice);
- if no settled screen comes within ``SETTLE_TIMEOUT_S`` (the hub's hold cap is 2 s), the
  newest frame is announced and the screen is treated as settled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

ScreenChange = tuple[bool, str]
SETTLE_TIMEOUT_S = 2.5


async def announce_changes(
    events: MemoryObjectReceiveStream[ScreenChange], notify: Callable[[], Awaitable[None]]
) -> None:
    """Run until ``events`` ends, calling ``notify`` per the module rules."""
    announced: str | None = None
    async for settled, snapshot_id in events:
        if snapshot_id == announced:
            continue
        await notify()
        announced = snapshot_id
        if settled:
            continue
        newest = snapshot_id
        while True:  # transitioning: wait for the settled screen
            with anyio.move_on_after(SETTLE_TIMEOUT_S) as timer:
                try:
                    settled, newest = await events.receive()
                except anyio.EndOfStream:
                    return
            if timer.cancelled_caught or settled:
                break
        if newest != announced:
            await notify()
            announced = newest
