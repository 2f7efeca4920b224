"""Live copies of device screens kept by one MCP session, so an action's answer reads the
screen after it locally instead of asking the hub again.

A ``Replica`` is the device's compact frame subscription (``bridge.client`` ``Watch``: the
subscription's snapshot, then deltas/patches applied, resynced on a gap) run as a task of the
session. Rules:

- one replica per device this session touched, at most ``MAX_REPLICAS`` (the least recently
  used one is stopped to make room); a replica unused for ``IDLE_S`` stops itself
  (unsubscribes) unless a resource watch pins it;
- the hub keeps one compact frame stream per session and device, so the replica is also the
  only frame subscription of the session: resource watches hear frames through
  ``on_frame`` (``McpSession.follow``);
- ``after(snapshot_id)``: the screen once the replica has seen that snapshot (the one an
  ActionResult reports after the action), waiting at most ``CATCH_UP_S``; ``None`` when it
  has not (the caller then asks the hub). The replica's newest state is returned — what
  ``snapshot.get`` would have answered — so a screen that moved on during or after the action
  is shown as it is now;
- a replica of a closed hub connection is never read (``hub`` identity is checked).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
import anyio.abc

from bridge.client import HubConnection
from bridge.client.delta import WatchUpdate
from bridge.client.errors import ClientError
from bridge.wire.snapshot import ScreenSnapshot

MAX_REPLICAS = 8
IDLE_S = 30.0
CATCH_UP_S = 0.5
"""How long an action's answer waits for the replica to reach the action's after-snapshot
before asking the hub."""
RECENT_IDS = 64
"""Snapshot ids a replica remembers having passed through (bounded)."""


@dataclass
class Replica:
    device: str
    hub: HubConnection
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    generation: int = 0
    snapshot: ScreenSnapshot | None = None
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT_IDS))
    used: float = 0.0
    pins: int = 0
    closed: bool = False
    _moved: anyio.Event = field(default_factory=anyio.Event)
    on_frame: Callable[[str], None] | None = None

    def update(self, update: WatchUpdate) -> None:
        self.generation = update.generation
        self.snapshot = update.snapshot
        self.recent.append(update.snapshot.snapshot_id)
        self._moved.set()
        self._moved = anyio.Event()
        if self.on_frame is not None:
            self.on_frame(update.snapshot.snapshot_id)

    def stop(self) -> None:
        self.closed = True
        self._moved.set()
        self.scope.cancel()

    async def after(self, snapshot_id: str) -> tuple[int, ScreenSnapshot] | None:
        """The newest screen once ``snapshot_id`` was seen (bounded wait), else ``None``."""
        self.used = anyio.current_time()
        with anyio.move_on_after(CATCH_UP_S):
            while not self.closed and snapshot_id not in self.recent:
                await self._moved.wait()
        if self.closed or snapshot_id not in self.recent or self.snapshot is None:
            return None
        return self.generation, self.snapshot


class Replicas:
    """The session's replicas by device (bounded; see the module's rules)."""

    def __init__(self) -> None:
        self._by_device: OrderedDict[str, Replica] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_device)

    def get(self, hub: HubConnection, device: str) -> Replica | None:
        rep = self._by_device.get(device)
        if rep is None or rep.closed or rep.hub is not hub:
            return None
        return rep

    def get_any(self, device: str) -> Replica | None:
        """The device's replica on whatever connection (to unpin it)."""
        return self._by_device.get(device)

    async def ensure(self, tg: anyio.abc.TaskGroup, hub: HubConnection, device: str) -> Replica:
        """The device's live replica on this hub connection (subscribing when there is none:
        a failure to subscribe reaches the caller)."""
        rep = self.get(hub, device)
        if rep is not None:
            self._by_device.move_to_end(device)
            rep.used = anyio.current_time()
            return rep
        old = self._by_device.pop(device, None)
        if old is not None:
            old.stop()
        self._make_room()
        rep = Replica(device, hub, used=anyio.current_time())
        if old is not None:
            rep.pins, rep.on_frame = old.pins, old.on_frame
        self._by_device[device] = rep
        try:
            await tg.start(self._run, rep)
        except BaseException:
            if self._by_device.get(device) is rep:
                del self._by_device[device]
            raise
        return rep

    def _make_room(self) -> None:
        while len(self._by_device) >= MAX_REPLICAS:
            victim = next((d for d, r in self._by_device.items() if r.pins == 0), None)
            if victim is None:
                return  # every replica serves a resource watch (those are bounded too)
            self._by_device.pop(victim).stop()

    async def _run(self, rep: Replica, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        started = False
        try:
            with rep.scope:
                async with rep.hub.device(rep.device).watch(compact=True) as watch:
                    rep.update(await watch.start())
                    await watch.__anext__()  # the first update again
                    task_status.started()
                    started = True
                    async with anyio.create_task_group() as inner:
                        inner.start_soon(self._expire, rep)
                        async for update in watch:
                            rep.update(update)
        except ClientError:
            if not started:
                raise
        finally:
            rep.closed = True
            rep._moved.set()
            if self._by_device.get(rep.device) is rep:
                del self._by_device[rep.device]

    @staticmethod
    async def _expire(rep: Replica) -> None:
        """Stop the replica once it has been unused for ``IDLE_S`` (and nothing pins it)."""
        while True:
            left = rep.used + IDLE_S - anyio.current_time()
            if left <= 0 and rep.pins == 0:
                rep.scope.cancel()
                return
            await anyio.sleep(max(left, 1.0))

    def stop_all(self) -> None:
        for rep in self._by_device.values():
            rep.stop()
        self._by_device.clear()
