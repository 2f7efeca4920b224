"""SettledFeed: the deltas of a device's settled streams, one per settled screen.

A subscriber that asks for settled frames only (``subscribe`` with ``settled: true``) joins
``<device>:compact:settled`` or ``<device>:full:settled``. Rules:

- each settled stream has a ``base``: the capture every member's state equals. The first
  member to join sets it to the newest capture; later members get the base, so one delta
  fits them all;
- a newer generation than the base is *held back* until the screen is settled: the agent's
  last push said stable and no newer generation arrived for ``window_ms`` (the stability
  window). Then one delta from the base to the newest capture goes to every member (encoded
  once per format, the same ``seq`` rules as every stream) and that capture becomes the base;
  frames in between are never sent;
- a screen that never settles (a looping animation, a push cap that keeps firing) is sent
  anyway ``max_hold_ms`` after the first held-back frame, so a watcher never freezes;
- a lagging member gets a ``snapshot`` resync of the base (``DeviceRuntime.resync_event``).

The feed owns no task group: the hub runs ``run`` in its own, and pokes the feed after every
capture (``poke``). Times come from the device's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from bridge.hub.device import Capture, DeviceRuntime, Stream
from bridge.net.client_server import Session
from bridge.wire.client_protocol import SubscribeResult

SETTLE_WINDOW_MS = 300
"""No new generation for this long (with the agent reporting stable) means settled."""
MAX_HOLD_MS = 2_000
"""A screen that never settles is sent anyway this long after the first held-back frame."""


class SettledFeed:
    """The settled streams of one device (see the module rules)."""

    def __init__(
        self,
        device: DeviceRuntime,
        *,
        window_ms: int = SETTLE_WINDOW_MS,
        max_hold_ms: int = MAX_HOLD_MS,
    ) -> None:
        self.device = device
        self.window_ms = window_ms
        self.max_hold_ms = max_hold_ms
        self.held_since_ms: int | None = None
        self.deltas = 0
        self._wake = anyio.Event()
        self.on_settled: Callable[[DeviceRuntime], None] | None = None
        """Told after each settled delta went out (the picture feed pictures the screen)."""

    @property
    def streams(self) -> tuple[Stream, ...]:
        return tuple(self.device.settled_streams.values())

    # ---- members --------------------------------------------------------------------------

    def join(self, session: Session, compact: bool, patches: bool = False) -> SubscribeResult:
        """Add ``session`` to the settled stream; answers the base the member now holds. The
        caller has checked that the device has a current capture."""
        stream = self.device.settled_streams[compact]
        current = self.device.current
        assert current is not None
        if not stream.members or stream.base is None:
            stream.base = current
        stream.join(session, patches)
        self.poke()
        return SubscribeResult(
            subscription=stream.id,
            seq=stream.seq,
            generation=stream.base.generation,
            snapshot=stream.base.snapshot(compact),
        )

    # ---- timing ---------------------------------------------------------------------------

    def poke(self) -> None:
        """A capture arrived (or a member joined): look again. Without a member nothing can
        be due, so the feed's task is not woken (a capture costs no task switch then); a
        member's ``join`` pokes after it joined."""
        if any(s.members for s in self.device.settled_streams.values()):
            self._wake.set()

    def _behind(self) -> list[Stream]:
        current = self.device.current
        if current is None or not self.device.online:
            return []
        return [
            s
            for s in self.streams
            if s.members and s.base is not None and s.base.generation != current.generation
        ]

    def due_at(self) -> int | None:
        """When the held-back frame is to be sent (device clock, ms); None: nothing held."""
        if not self._behind():
            self.held_since_ms = None
            return None
        now = self.device.clock_ms()
        if self.held_since_ms is None:
            self.held_since_ms = now
        cap = self.held_since_ms + self.max_hold_ms
        if not self.device.agent_stable:
            return cap
        return min(cap, self.device.last_change_ms + self.window_ms)

    def flush(self) -> int:
        """Send the held-back frame when it is due; returns how many deltas went out."""
        due = self.due_at()
        current = self.device.current
        if due is None or current is None or self.device.clock_ms() < due:
            return 0
        sent = 0
        for stream in self._behind():
            self._send(stream, current)
            sent += 1
        self.held_since_ms = None
        if sent and self.on_settled is not None:
            self.on_settled(self.device)
        return sent

    async def run(self) -> None:
        """Send held-back frames when they fall due; runs until cancelled."""
        while True:
            wake = self._wake
            due = self.due_at()
            if due is None:
                await wake.wait()
            else:
                delay = max(0, due - self.device.clock_ms()) / 1000
                with anyio.move_on_after(delay):
                    await wake.wait()
            if wake.is_set():
                self._wake = anyio.Event()
            self.flush()

    # ---- sending --------------------------------------------------------------------------

    def _send(self, stream: Stream, capture: Capture) -> None:
        base = stream.base
        assert base is not None
        self.device.send_change(stream, base, capture, None, None)
        stream.base = capture
        self.deltas += 1

    def statistics(self) -> dict[str, Any]:
        return {
            "deltas": self.deltas,
            "members": {s.id: len(s.members) for s in self.streams},
            "holding": self.held_since_ms is not None,
        }
