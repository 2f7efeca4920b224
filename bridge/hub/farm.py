"""Farm: the hub's membership in a farm of hubs (composed by ``Hub`` when ``--farm`` is given).

It wires ``bridge.farm.link.FarmLink`` (NATS: registry, requests, relays) to the two hub-side
roles: ``FarmOwner`` (other hubs' requests about devices attached here) and
``RemoteDevices`` (this hub's clients using devices attached elsewhere). It is the link's
listener and owns no state of its own beyond that wiring.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from bridge.farm.config import FarmConfig
from bridge.farm.link import FarmLink
from bridge.farm.registry import Heard, HubRecord
from bridge.hub.farm_owner import FarmOwner
from bridge.hub.farm_remote import RemoteDevices
from bridge.net.auth import Authenticator
from bridge.wire.client_protocol import DeviceSummary, FarmLinkStatus
from bridge.wire.farm import FarmEventRelay, FarmReply, FarmRequest, RelayInterest

if TYPE_CHECKING:
    from bridge.hub.service import HubService


class Farm:
    def __init__(
        self,
        config: FarmConfig,
        service: HubService,
        *,
        log: Any,
        clock_ms: Callable[[], int],
        auth: Authenticator | None = None,
    ) -> None:
        self.config = config
        self.service = service
        self.log = log
        self._tg: anyio.abc.TaskGroup | None = None
        self.link = FarmLink(
            config, self, log=lambda event, **kw: log.warning(event, **kw), clock_ms=clock_ms
        )
        self.owner = FarmOwner(service, self.link, spawn=self.spawn, clock_ms=clock_ms, auth=auth)
        self.remote = RemoteDevices(service, self.link, spawn=self.spawn, log=log)
        service.allocator.remote = self.remote.candidates
        service.allocator.lease_remote = self.remote.lease

    def spawn(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` in the farm's task group; a failure is logged, never raised."""
        if self._tg is None:
            return

        async def guarded() -> None:
            try:
                await job()
            except Exception as exc:
                self.log.error("farm_task_failed", error=repr(exc)[:300])

        self._tg.start_soon(guarded)

    async def run(self) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self.link.run)

    # ---- FarmListener -----------------------------------------------------------------------

    def announcement(self) -> tuple[Sequence[DeviceSummary], Sequence[RelayInterest]]:
        return self.service.local_summaries(), self.remote.relays()

    async def handle_request(self, request: FarmRequest) -> FarmReply:
        return await self.owner.handle(request)

    def hub_online(self, heard: Heard) -> None:
        self.owner.hub_heard(heard.record, heard.restarted, heard.previous_run)
        self.remote.hub_heard(heard)
        self.service.allocator.wake()

    def hub_gone(self, record: HubRecord) -> None:
        self.owner.hub_gone(record)
        self.remote.hub_gone(record)

    def device_event(self, owner: str, relay: FarmEventRelay) -> None:
        self.remote.device_event(owner, relay)

    def farm_connected(self, again: bool) -> None:
        self.remote.farm_connected(again)

    def link_status(self) -> FarmLinkStatus:
        stats = self.link.stats
        return FarmLinkStatus(
            hub=self.config.hub,
            state=stats.state,
            reason=stats.reason,
            hubs=len(self.link.registry.online_hubs()),
        )

    def report(self, detailed: bool) -> dict[str, Any]:
        """The farm's state: for ``/healthz`` (who is heard), or with ``detailed`` for
        ``/v1/stats`` (link counters, relays at the owner and here)."""
        short: dict[str, Any] = {
            "hub": self.config.hub,
            "connected": self.link.connected,
            "state": self.link.stats.state,
            "reason": self.link.stats.reason,
            "hubs": {r.name: r.online for r in self.link.registry.hubs.values()},
        }
        if not detailed:
            return short
        return {
            **short,
            "link": self.link.statistics(),
            "owner": self.owner.statistics(),
            "remote": self.remote.statistics(),
        }
