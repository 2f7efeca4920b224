"""``DeviceNetwork`` (mixed into ``Device``): a device's airplane mode, Wi-Fi and mobile data
(issue 35). ``network(...)`` is an action (controller, lease; ``ActionUnsupported`` on an
iPhone, which lets no test runner switch its radios); ``network_state()`` is a read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bridge.wire.action import ActionResult
from bridge.wire.device_network import NetworkGet, NetworkSet, NetworkState
from bridge.wire.request_parts import Confirm

if TYPE_CHECKING:
    from bridge.client.hub_calls import HubCalls

ACTION_BUDGET_S = 8.0


class DeviceNetwork:
    """``Device`` provides ``_conn`` and ``id``."""

    _conn: HubCalls
    id: str

    async def network(
        self,
        *,
        airplane: bool | None = None,
        wifi: bool | None = None,
        data: bool | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """Switch airplane mode, Wi-Fi and/or mobile data on (True) or off (False)."""
        message = NetworkSet(
            id=self._conn.next_id(),
            device=self.id,
            airplane=airplane,
            wifi=wifi,
            data=data,
            confirm=confirm,
        )
        return await self._conn.call(
            message, ActionResult, ACTION_BUDGET_S + self._conn.request_timeout
        )

    async def network_state(self) -> NetworkState:
        """Airplane mode, Wi-Fi and data as the device reports them (None: unknown)."""
        message = NetworkGet(id=self._conn.next_id(), device=self.id)
        return await self._conn.call(message, NetworkState)
