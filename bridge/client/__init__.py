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
exception tree), ``sync`` (blocking facade).
"""

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
