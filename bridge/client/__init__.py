"""A Python client of the public protocol (async, with a thin synchronous facade).

Imports only ``bridge.wire`` (plus websockets, anyio and the standard library): it is what an
external program would write. Usage::

    async with connect(name="my-script") as hub:  # the local hub, its token found for you
        device = hub.device((await hub.devices())[0].id)
        await device.tap(build_query(text="Sign in"))
        async with device.watch() as watch:
            async for update in watch:
                print(update.seq, update.snapshot.screen_state_id)

Modules: ``connection`` (socket, reader task, request correlation), ``channels`` (bounded
reader -> consumer event channels), ``device`` (per-device requests and helpers), ``watch`` +
``delta`` (live snapshots from deltas), ``screenshot`` (capture download), ``errors`` (the
exception tree), ``sync`` (blocking facade), ``oneshot`` (a blocking single-session client for
short-lived commands, no event loop).

The names below are loaded on first use (PEP 562), so ``import bridge.client.errors`` (or a
one-shot command) does not pay for websockets, asyncio and anyio.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bridge.client.channels import EventStream, HubEvent
    from bridge.client.connection import ClientStatistics, HubConnection, connect
    from bridge.client.delta import (
        Desync,
        SnapshotTracker,
        WatchUpdate,
        apply_delta,
        apply_patch_event,
    )
    from bridge.client.device import Device, Target, build_query
    from bridge.client.errors import (
        ActionUnsupported,
        AmbiguousError,
        ClientError,
        ConfirmationRequired,
        ConnectionFailed,
        ConnectionLost,
        DeltaMismatch,
        DeviceOffline,
        HubError,
        NotFoundError,
        PolicyBlockedError,
        ProtocolFailure,
        RequestTimeout,
        StaleRefError,
    )
    from bridge.client.local_hub import DEFAULT_URL
    from bridge.client.watch import Watch

_WHERE = {
    "EventStream": "bridge.client.channels",
    "HubEvent": "bridge.client.channels",
    "ClientStatistics": "bridge.client.connection",
    "HubConnection": "bridge.client.connection",
    "connect": "bridge.client.connection",
    "Desync": "bridge.client.delta",
    "SnapshotTracker": "bridge.client.delta",
    "WatchUpdate": "bridge.client.delta",
    "apply_delta": "bridge.client.delta",
    "apply_patch_event": "bridge.client.delta",
    "Device": "bridge.client.device",
    "Target": "bridge.client.device",
    "build_query": "bridge.client.device",
    "ActionUnsupported": "bridge.client.errors",
    "AmbiguousError": "bridge.client.errors",
    "ClientError": "bridge.client.errors",
    "ConfirmationRequired": "bridge.client.errors",
    "ConnectionFailed": "bridge.client.errors",
    "ConnectionLost": "bridge.client.errors",
    "DeltaMismatch": "bridge.client.errors",
    "DeviceOffline": "bridge.client.errors",
    "HubError": "bridge.client.errors",
    "NotFoundError": "bridge.client.errors",
    "PolicyBlockedError": "bridge.client.errors",
    "ProtocolFailure": "bridge.client.errors",
    "RequestTimeout": "bridge.client.errors",
    "StaleRefError": "bridge.client.errors",
    "DEFAULT_URL": "bridge.client.local_hub",
    "Watch": "bridge.client.watch",
}


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first use and cache the value here."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'bridge.client' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_URL",
    "ActionUnsupported",
    "AmbiguousError",
    "ClientError",
    "ClientStatistics",
    "ConfirmationRequired",
    "ConnectionFailed",
    "ConnectionLost",
    "DeltaMismatch",
    "Desync",
    "Device",
    "DeviceOffline",
    "EventStream",
    "HubConnection",
    "HubError",
    "HubEvent",
    "NotFoundError",
    "PolicyBlockedError",
    "ProtocolFailure",
    "RequestTimeout",
    "SnapshotTracker",
    "StaleRefError",
    "Target",
    "Watch",
    "WatchUpdate",
    "apply_delta",
    "apply_patch_event",
    "build_query",
    "connect",
]
