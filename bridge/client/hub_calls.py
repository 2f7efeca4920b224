"""HubCalls: the narrow face of a hub connection that device handles and watches use.

``Device``, ``DeviceControl`` and ``Watch`` are made by ``HubConnection`` and call back into it;
they type that back-reference as this protocol instead of importing ``bridge.client.connection``,
so the import arrows run one way (connection -> device -> hub_calls). ``HubConnection`` is the
one implementation; a type checker verifies it against this protocol where it builds a
``Device``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from bridge.client.channels import Channel, SubscriptionEvent
    from bridge.wire.client_protocol import ClientToHub, ScreenshotResult, SubscribeResult

T = TypeVar("T")


class HubCalls(Protocol):
    """What a device handle or a watch may ask of its connection (nothing else)."""

    request_timeout: float
    """Seconds a request waits for its answer unless it passes its own deadline."""

    @property
    def closed_reason(self) -> str | None:
        """Why the connection closed, or None while it is open."""

    def next_id(self) -> int: ...

    async def call(
        self, message: ClientToHub, kind: type[T], deadline: float | None = None
    ) -> T: ...

    async def fetch_screenshot(self, result: ScreenshotResult) -> bytes: ...

    async def subscribe(
        self, device: str, compact: bool, settled: bool = False, patches: bool = True
    ) -> tuple[SubscribeResult, Channel[SubscriptionEvent]]: ...

    async def unsubscribe(self, subscription: str) -> None: ...
