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
one-shot command) does not pay for websockets, asyncio and anyio. Every result a method
returns and every protocol enum is importable from here too (``bridge.client.wire_types``):
``from bridge.client import ActionResult, VerificationResult, ScreenShown``. docs/client.md
lists every public method with an example.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bridge.client.channels import EventStream as EventStream
    from bridge.client.channels import HubEvent as HubEvent
    from bridge.client.connection import ClientStatistics as ClientStatistics
    from bridge.client.connection import HubConnection as HubConnection
    from bridge.client.connection import connect as connect
    from bridge.client.delta import Desync as Desync
    from bridge.client.delta import SnapshotTracker as SnapshotTracker
    from bridge.client.delta import WatchUpdate as WatchUpdate
    from bridge.client.delta import apply_delta as apply_delta
    from bridge.client.delta import apply_patch_event as apply_patch_event
    from bridge.client.device import Device as Device
    from bridge.client.device import Target as Target
    from bridge.client.device import build_query as build_query
    from bridge.client.device import expect as expect
    from bridge.client.errors import ActionUnsupported as ActionUnsupported
    from bridge.client.errors import AmbiguousError as AmbiguousError
    from bridge.client.errors import ClientError as ClientError
    from bridge.client.errors import ConfirmationRequired as ConfirmationRequired
    from bridge.client.errors import ConnectionFailed as ConnectionFailed
    from bridge.client.errors import ConnectionLost as ConnectionLost
    from bridge.client.errors import DeltaMismatch as DeltaMismatch
    from bridge.client.errors import DeviceOffline as DeviceOffline
    from bridge.client.errors import HubError as HubError
    from bridge.client.errors import NotFoundError as NotFoundError
    from bridge.client.errors import PolicyBlockedError as PolicyBlockedError
    from bridge.client.errors import ProtocolFailure as ProtocolFailure
    from bridge.client.errors import RequestTimeout as RequestTimeout
    from bridge.client.errors import StaleRefError as StaleRefError
    from bridge.client.local_hub import DEFAULT_URL as DEFAULT_URL
    from bridge.client.sync import SyncDevice as SyncDevice
    from bridge.client.sync import SyncHub as SyncHub
    from bridge.client.sync import connect_sync as connect_sync
    from bridge.client.targets import as_query as as_query
    from bridge.client.targets import text_query as text_query
    from bridge.client.watch import Watch as Watch
    from bridge.client.wire_types import *  # noqa: F403

_WHERE = {
    # name -> the module that defines it; the wire types are found through
    # bridge.client.wire_types.WIRE_TYPES (below), which lists them once
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
    "as_query": "bridge.client.targets",
    "expect": "bridge.client.device",
    "text_query": "bridge.client.targets",
    "SyncDevice": "bridge.client.sync",
    "SyncHub": "bridge.client.sync",
    "connect_sync": "bridge.client.sync",
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


_WIRE_MODULE = "bridge.client.wire_types"


def _wire_types() -> tuple[str, ...]:
    import importlib

    names: tuple[str, ...] = importlib.import_module(_WIRE_MODULE).WIRE_TYPES
    return names


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first use and cache the value here.
    ``__all__`` (what ``from bridge.client import *`` takes) is every name of ``_WHERE`` and
    of ``WIRE_TYPES``, computed when asked so a plain import loads neither list's modules."""
    import importlib

    if name == "__all__":
        return sorted({*_WHERE, *_wire_types()})
    module = _WHERE.get(name)
    if module is None and not name.startswith("__") and name in _wire_types():
        module = _WIRE_MODULE
    if module is None:
        raise AttributeError(f"module 'bridge.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_wire_types()})
