"""``Watch``: a device's snapshot kept current from its subscription, as an async iterator.

Rules:

- the first update is the subscription's snapshot; each later one is a delta applied by
  ``SnapshotTracker`` or a ``snapshot`` resync that replaces the state;
- a delta that does not apply (seq gap, wrong base, inconsistent lists) is never yielded:
  a strict watch raises ``DeltaMismatch``; otherwise the watch takes a ``snapshot`` resync
  that the hub may already have on the way and, if none arrives within ``resync_timeout``
  (1 s), resubscribes itself — protocol/README.md §7: "a gap means events were lost:
  resubscribe";
- when this client's own buffer overflowed (the consumer lagged), the watch resubscribes
  and yields the fresh snapshot;
- ``aclose`` (or leaving ``async with``) unsubscribes; iteration then stops. A connection
  that drops raises ``ConnectionLost`` from the iterator.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from bridge.client.delta import Desync, SnapshotTracker, WatchUpdate
from bridge.client.errors import ClientError, ConnectionLost, DeltaMismatch
from bridge.wire.client_protocol import DeltaEvent, PatchEvent, SnapshotEvent, SubscribeResult

if TYPE_CHECKING:
    from bridge.client.channels import Channel, SubscriptionEvent
    from bridge.client.hub_calls import HubCalls

DEFAULT_RESYNC_TIMEOUT = 1.0


class Watch:
    """``async with device.watch() as watch: async for update in watch: ...``"""

    def __init__(
        self,
        conn: HubCalls,
        device: str,
        compact: bool = True,
        strict: bool = False,
        resync_timeout: float = DEFAULT_RESYNC_TIMEOUT,
        settled: bool = False,
        patches: bool = True,
    ) -> None:
        self._conn = conn
        self.device = device
        self.compact = compact
        self.settled = settled
        """Settled screens only: the hub holds transitional frames back (protocol §7)."""
        self.patches = patches
        """Changes come as slim ``patch`` events (false: classic ``delta`` events)."""
        self.strict = strict
        self.resync_timeout = resync_timeout
        self.tracker = SnapshotTracker()
        self.subscription: str | None = None
        self.resubscribes = 0
        self._channel: Channel[SubscriptionEvent] | None = None
        self._first: WatchUpdate | None = None
        self._stopped = False

    async def start(self) -> WatchUpdate:
        """Subscribe (once); returns the initial update, which iteration yields first."""
        if self._channel is None:
            result, channel = await self._conn.subscribe(
                self.device, self.compact, self.settled, self.patches
            )
            self._first = self._adopt(result, channel)
        assert self._first is not None or self.tracker.snapshot is not None
        return self._first or self._current()

    async def aclose(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        subscription, self.subscription = self.subscription, None
        if subscription is not None:
            import anyio

            with anyio.CancelScope(shield=True):
                try:
                    await self._conn.unsubscribe(subscription)
                except ClientError:
                    pass

    async def __aenter__(self) -> Watch:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> WatchUpdate:
        if self._stopped:
            raise StopAsyncIteration
        if self._channel is None:
            await self.start()
        if self._first is not None:
            first, self._first = self._first, None
            return first
        while True:
            channel = self._channel
            assert channel is not None
            if channel.overflowed:
                return await self._resubscribe()
            if not self.tracker.in_sync:
                import anyio

                resynced: WatchUpdate | None = None
                with anyio.move_on_after(self.resync_timeout):
                    resynced = await self._until_snapshot(channel)
                return resynced if resynced is not None else await self._resubscribe()
            event = await self._receive(channel)
            if isinstance(event, SnapshotEvent):
                return self.tracker.on_snapshot(event)
            outcome = self.tracker.on_delta(event)
            if isinstance(outcome, WatchUpdate):
                return outcome
            if isinstance(outcome, Desync) and self.strict:
                raise DeltaMismatch(outcome.reason)

    async def _until_snapshot(self, channel: Channel[SubscriptionEvent]) -> WatchUpdate:
        """Skip deltas until the hub's resync snapshot (the caller bounds the wait)."""
        while True:
            event = await self._receive(channel)
            if isinstance(event, SnapshotEvent):
                return self.tracker.on_snapshot(event)

    async def _receive(
        self, channel: Channel[SubscriptionEvent]
    ) -> SnapshotEvent | DeltaEvent | PatchEvent:
        import anyio  # here, not at the top: a one-shot command never watches

        try:
            return await channel.receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._stopped:
                raise StopAsyncIteration from None
            raise ConnectionLost(self._conn.closed_reason or "subscription ended") from None

    async def _resubscribe(self) -> WatchUpdate:
        old = self.subscription
        if old is not None:
            try:
                await self._conn.unsubscribe(old)
            except ClientError:
                pass
        result, channel = await self._conn.subscribe(
            self.device, self.compact, self.settled, self.patches
        )
        self.resubscribes += 1
        return self._adopt(result, channel)

    def _adopt(self, result: SubscribeResult, channel: Channel[SubscriptionEvent]) -> WatchUpdate:
        self.subscription = result.subscription
        self._channel = channel
        event = SnapshotEvent(
            subscription=result.subscription,
            seq=result.seq,
            generation=result.generation,
            snapshot=result.snapshot,
        )
        return self.tracker.on_snapshot(event)

    def _current(self) -> WatchUpdate:
        assert self.tracker.snapshot is not None
        return WatchUpdate(self.tracker.seq, self.tracker.generation, self.tracker.snapshot, None)
