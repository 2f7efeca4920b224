"""Bounded event channels from a connection's reader to its consumers.

Rule: ``Channel.offer`` never blocks and never raises — the reader must keep reading whatever
a consumer does. A full channel drops the event, counts it and is marked ``overflowed``.
"""

from __future__ import annotations

from types import TracebackType
from typing import Generic, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from bridge.wire.client_protocol import (
    ActionEvent,
    DeltaEvent,
    DeviceEvent,
    IntentEvent,
    LeaseEvent,
    PatchEvent,
    SnapshotEvent,
)

E = TypeVar("E")

CHANNEL_SIZE = 1024
"""Events buffered per subscription or listener before the reader starts dropping."""

SubscriptionEvent = SnapshotEvent | DeltaEvent | PatchEvent
HubEvent = DeviceEvent | LeaseEvent | ActionEvent | IntentEvent


class Channel(Generic[E]):
    """A bounded event channel from the reader to one consumer; never blocks the reader."""

    def __init__(self, size: int = CHANNEL_SIZE) -> None:
        send, receive = anyio.create_memory_object_stream[E](size)
        self._send: MemoryObjectSendStream[E] = send
        self.receive: MemoryObjectReceiveStream[E] = receive
        self.overflowed = False
        self.dropped = 0

    def offer(self, item: E) -> bool:
        try:
            self._send.send_nowait(item)
        except anyio.WouldBlock:
            self.overflowed = True
            self.dropped += 1
            return False
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    def close(self) -> None:
        self._send.close()


class EventStream:
    """Device, lease and action events of the whole connection, as an async iterator.

    Use ``async with hub.events() as events: async for event in events: ...``; events that
    arrive while the consumer lags past the buffer are dropped (``dropped`` counts them).
    """

    def __init__(self, listeners: set[Channel[HubEvent]], size: int) -> None:
        self._listeners = listeners
        self._channel: Channel[HubEvent] = Channel(size)
        listeners.add(self._channel)

    @property
    def dropped(self) -> int:
        return self._channel.dropped

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._listeners.discard(self._channel)
        self._channel.close()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> HubEvent:
        try:
            return await self._channel.receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None
