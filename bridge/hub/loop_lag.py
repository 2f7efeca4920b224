"""How late the hub's event loop runs: a timer on the loop that asks to fire every ``TICK_S``
and notes by how much it was late. While the loop runs someone's CPU work (or the process
waits for a core), every handshake, ping and delta waits as long, so this is what clients
feel. A stall is measured to within ``TICK_S``.

Each wakeup costs the process a return from the loop's poll (160-240 µs of CPU on the
2-core machine these figures come from): at 10 a second (an anyio task sleeping 0.1 s) they
were 99% of an idle hub's CPU, 2.4 ms a second. The tick is a plain timer callback (no task
to wake, no cancel scope) every quarter second.

``/v1/stats`` ``event_loop``: the worst lag since the start and since the last read, the
count of stalls of at least 1 s and 5 s (a stall of 5 s or more would have closed honest
handshakes before issue 33 raised their bound), and the number of ticks. A stall of at least
``WARN_S`` is logged (``event_loop_stalled``), at most once per ``WARN_EVERY_S``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anyio

TICK_S = 0.25
WARN_S = 2.0
WARN_EVERY_S = 60.0


class LoopLag:
    def __init__(self) -> None:
        self.ticks = 0
        self.worst_ms = 0.0
        self.recent_worst_ms = 0.0
        self.stalls_1s = 0
        self.stalls_5s = 0
        self.log: Any = None
        self._warned = -WARN_EVERY_S

    def note(self, lag_s: float, now: float) -> None:
        self.ticks += 1
        ms = lag_s * 1000
        self.worst_ms = max(self.worst_ms, ms)
        self.recent_worst_ms = max(self.recent_worst_ms, ms)
        if lag_s >= 1.0:
            self.stalls_1s += 1
        if lag_s >= 5.0:
            self.stalls_5s += 1
        if lag_s >= WARN_S and now - self._warned >= WARN_EVERY_S and self.log is not None:
            self._warned = now
            self.log.warning("event_loop_stalled", ms=round(ms))

    async def run(self) -> None:
        """Tick on the running loop's timer until cancelled (the hub runs on asyncio or
        uvloop, both asyncio loops); the pending timer is cancelled with it."""
        loop = asyncio.get_running_loop()
        pending: list[asyncio.TimerHandle] = []

        def tick(asked: float) -> None:
            now = time.monotonic()
            pending[0] = loop.call_later(TICK_S, tick, now)  # first: a fault below stops no tick
            self.note(max(0.0, now - asked - TICK_S), now)

        pending.append(loop.call_later(TICK_S, tick, time.monotonic()))
        try:
            await anyio.sleep_forever()
        finally:
            pending[0].cancel()

    def statistics(self) -> dict[str, Any]:
        recent, self.recent_worst_ms = self.recent_worst_ms, 0.0
        return {
            "ticks": self.ticks,
            "worst_ms": round(self.worst_ms, 1),
            "worst_since_last_read_ms": round(recent, 1),
            "stalls_1s": self.stalls_1s,
            "stalls_5s": self.stalls_5s,
        }
