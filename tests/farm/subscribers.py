"""Many raw websocket subscribers, each keeping its own snapshot from ``snapshot`` and
``delta`` events with the client's ``SnapshotTracker`` (so a gap or a bad base is counted as
a desync, never papered over)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import anyio.abc
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from bridge.client.delta import Desync, SnapshotTracker
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ClientInfo,
    DeltaEvent,
    DeviceEvent,
    ErrorMessage,
    Hello,
    ProtocolError,
    ResultMessage,
    SnapshotEvent,
    Subscribe,
    SubscribeResult,
)
from bridge.wire.codec import HUB_TO_CLIENT, MAX_AGENT_FRAME, WireFormat, convert, encode
from tests.farm.farmfixture import TOKEN


@dataclass(eq=False)
class Subscriber:
    url: str
    device: str
    fmt: WireFormat
    compact: bool = True
    settled: bool = False
    tracker: SnapshotTracker = field(default_factory=SnapshotTracker)
    device_events: list[DeviceEvent] = field(default_factory=list)
    snapshots: int = 0
    deltas: int = 0
    errors: list[str] = field(default_factory=list)
    ws: ClientConnection | None = None
    changed: anyio.Event = field(default_factory=anyio.Event)

    async def open(self) -> None:
        proto = SUBPROTOCOL_JSON if self.fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
        self.ws = await connect(
            self.url,
            subprotocols=[Subprotocol(proto)],
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
            max_size=MAX_AGENT_FRAME,
            ping_interval=None,
            close_timeout=1,
            proxy=None,
        )
        await self._send(Hello(id=1, client=ClientInfo(name="farm-sub", kind="test")))
        await self._answer(1)
        await self._send(
            Subscribe(id=2, device=self.device, compact=self.compact, settled=self.settled)
        )
        body = await self._answer(2)
        result = convert(body, SubscribeResult)
        self.tracker.on_snapshot(
            SnapshotEvent(
                subscription=result.subscription,
                seq=result.seq,
                generation=result.generation,
                snapshot=result.snapshot,
            )
        )

    async def _send(self, message: object) -> None:
        assert self.ws is not None
        await self.ws.send(encode(message, self.fmt), text=self.fmt is WireFormat.JSON)

    async def _answer(self, rid: int) -> object:
        assert self.ws is not None
        while True:
            message = HUB_TO_CLIENT.decode(await self.ws.recv(), self.fmt)
            if isinstance(message, ResultMessage) and message.id == rid:
                return message.result
            if isinstance(message, (ErrorMessage, ProtocolError)) and message.id == rid:
                raise AssertionError(f"refused: {message}")
            self._event(message)

    def _event(self, message: object) -> None:
        match message:
            case SnapshotEvent():
                self.snapshots += 1
                self.tracker.on_snapshot(message)
            case DeltaEvent():
                self.deltas += 1
                got = self.tracker.on_delta(message)
                if isinstance(got, Desync):
                    self.errors.append(got.reason)
            case DeviceEvent():
                self.device_events.append(message)
            case _:
                return
        self.changed.set()
        self.changed = anyio.Event()

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                self._event(HUB_TO_CLIENT.decode(frame, self.fmt))
        except ConnectionClosed:
            pass

    async def close(self) -> None:
        if self.ws is not None:
            with anyio.move_on_after(2):
                await self.ws.close()


@asynccontextmanager
async def subscribers(
    specs: list[tuple[str, str, WireFormat]], *, compact: bool = True, settled: bool = False
) -> AsyncIterator[list[Subscriber]]:
    """Open one subscriber per (url, device, format), reading until the block ends."""
    subs = [Subscriber(url, device, fmt, compact, settled) for url, device, fmt in specs]
    limiter = anyio.CapacityLimiter(16)

    async def open_one(sub: Subscriber) -> None:
        async with limiter:
            await sub.open()

    async with anyio.create_task_group() as tg:
        async with anyio.create_task_group() as opening:
            for sub in subs:
                opening.start_soon(open_one, sub)
        for sub in subs:
            tg.start_soon(sub.read)
        try:
            yield subs
        finally:
            with anyio.CancelScope(shield=True):
                async with anyio.create_task_group() as closing:
                    for sub in subs:
                        closing.start_soon(sub.close)
            tg.cancel_scope.cancel()


async def wait_until(predicate: Callable[[], bool], within_s: float, what: str) -> None:
    """Poll ``predicate`` until true; fails naming ``what`` after ``within_s``."""
    deadline = anyio.current_time() + within_s
    while not predicate():
        if anyio.current_time() > deadline:
            raise AssertionError(f"not within {within_s:g} s: {what}")
        await anyio.sleep(0.05)
