"""``DeviceHistory``: the journal queries of one device (mixed into ``Device``; the blocking
twin ``SyncDeviceHistory`` into ``SyncDevice``).

Times are text the hub parses: ISO-8601 (no zone: UTC), relative to the hub's clock
(``-5m``, ``-30s``, ``-2h``, ``-1d``), ``now``, or epoch milliseconds. A hub without a journal
refuses with ``WINDOW_UNAVAILABLE``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bridge.client.targets import as_query
from bridge.wire.client_protocol import JournalTimelineResult, SnapshotGet, SnapshotResult
from bridge.wire.journal import (
    JournalAt,
    JournalDiff,
    JournalDiffResult,
    JournalKind,
    JournalScreenResult,
    JournalTimeline,
    JournalWhen,
    JournalWhenResult,
)
from bridge.wire.query import SemanticQuery

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from bridge.client.hub_calls import HubCalls


class DeviceHistory:
    _conn: HubCalls
    id: str

    async def snapshot_at(self, at: str, compact: bool = True) -> SnapshotResult:
        """``snapshot.get`` with ``at``: the screen as it was then."""
        message = SnapshotGet(id=self._conn.next_id(), device=self.id, compact=compact, at=at)
        return await self._conn.call(message, SnapshotResult)

    async def screen_at(self, at: str, compact: bool = False) -> JournalScreenResult:
        """The screen at ``at`` with when it was captured and the nearest screenshot."""
        message = JournalAt(id=self._conn.next_id(), device=self.id, at=at, compact=compact)
        return await self._conn.call(message, JournalScreenResult)

    async def diff_between(self, since: str, until: str) -> JournalDiffResult:
        message = JournalDiff(id=self._conn.next_id(), device=self.id, since=since, until=until)
        return await self._conn.call(message, JournalDiffResult)

    async def timeline(
        self,
        since: str | None = None,
        until: str | None = None,
        *,
        kinds: Iterable[JournalKind] = (),
        client: str | None = None,
        limit: int = 200,
    ) -> JournalTimelineResult:
        """What happened in the window, newest first."""
        message = JournalTimeline(
            id=self._conn.next_id(),
            device=self.id,
            since=since,
            until=until,
            kinds=tuple(kinds),
            client=client,
            limit=limit,
        )
        return await self._conn.call(message, JournalTimelineResult)

    async def when(
        self, query: SemanticQuery | str, since: str | None = None, until: str | None = None
    ) -> JournalWhenResult:
        """The first and last recorded moment ``query`` (plain text, or a query) matched."""
        message = JournalWhen(
            id=self._conn.next_id(),
            device=self.id,
            query=as_query(query),
            since=since,
            until=until,
        )
        return await self._conn.call(message, JournalWhenResult)


class SyncDeviceHistory:
    """The blocking twin of ``DeviceHistory`` (needs ``_portal`` and ``device``)."""

    _portal: BlockingPortal
    device: DeviceHistory

    def snapshot_at(self, at: str, compact: bool = True) -> SnapshotResult:
        result: SnapshotResult = self._portal.call(self.device.snapshot_at, at, compact)
        return result

    def screen_at(self, at: str, compact: bool = False) -> JournalScreenResult:
        result: JournalScreenResult = self._portal.call(self.device.screen_at, at, compact)
        return result

    def diff_between(self, since: str, until: str) -> JournalDiffResult:
        result: JournalDiffResult = self._portal.call(self.device.diff_between, since, until)
        return result

    def timeline(
        self,
        since: str | None = None,
        until: str | None = None,
        *,
        kinds: Iterable[JournalKind] = (),
        client: str | None = None,
        limit: int = 200,
    ) -> JournalTimelineResult:
        result: JournalTimelineResult = self._portal.call(
            lambda: self.device.timeline(since, until, kinds=kinds, client=client, limit=limit)
        )
        return result

    def when(
        self, query: SemanticQuery | str, since: str | None = None, until: str | None = None
    ) -> JournalWhenResult:
        result: JournalWhenResult = self._portal.call(self.device.when, query, since, until)
        return result
