"""``devices.acquire``: "give me any free device like this" — a selector, a lease, a queue.

The hub answers with the device it leased to the caller's session (``AcquireResult``), at
once when one matches and is free, else after waiting its turn in the hub's FIFO queue, at
most ``timeoutMs`` (capped at ``MAX_ACQUIRE_TIMEOUT_MS``; past it: ``DEVICE_OFFLINE`` naming
the selector and the queue). The lease is the session's like any ``lease.acquire``: it ends
with ``lease.release`` or when the session closes. In a farm a token with the farm scope
selects among every hub's devices; a hub-scoped token among its hub's only.

Selector fields all must hold (absent = any): ``platform``; ``os`` a version range —
comma-separated comparisons of dotted numbers (``>=17``, ``>=14,<16``, ``=17.2``, ``17``
meaning ``=17`` with any minor); ``model`` a case-insensitive substring; ``tags`` every one
of the operator's tags on the device (``serve --device-tag``); ``owner`` the hub's farm name.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import DeviceId, NonNegInt, WireStruct
from bridge.wire.enums import Platform
from bridge.wire.request_parts import Name, Request

MAX_ACQUIRE_TIMEOUT_MS = 600_000
DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000
_OS_TERM = r"\s*(?:>=|<=|>|<|=)?\s*\d+(?:\.\d+){0,3}\s*"
OS_RANGE_PATTERN = rf"^{_OS_TERM}(?:,{_OS_TERM}){{0,3}}$"
"""One to four comma-separated comparisons of dotted numbers."""
Tag = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.:=-]{1,64}$")]


class DeviceSelector(WireStruct, frozen=True):
    platform: Platform | None = None
    os: Annotated[str, msgspec.Meta(max_length=64, pattern=OS_RANGE_PATTERN)] | None = None
    model: Name | None = None
    tags: Annotated[tuple[Tag, ...], msgspec.Meta(max_length=16)] = ()
    owner: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")] | None = None


class DevicesAcquire(Request, tag="devices.acquire", frozen=True):
    selector: DeviceSelector = DeviceSelector()
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=MAX_ACQUIRE_TIMEOUT_MS)] = (
        DEFAULT_ACQUIRE_TIMEOUT_MS
    )
    """0: do not wait (answer at once, leased or refused)."""


class AcquireWaiter(WireStruct, frozen=True):
    """One ``devices.acquire`` waiting in a hub's queue (``devices.list`` shows them, first
    in line first)."""

    client: str
    selector: str
    """The selector in words (``platform=IOS os >=17``)."""
    waited_ms: NonNegInt


class AcquireResult(WireStruct, frozen=True):
    device: DeviceId
    platform: Platform
    owner: str | None = None
    """The hub the device is attached to (in a farm)."""
    model: str | None = None
    os_version: str | None = None
    tags: tuple[str, ...] = ()
    waited_ms: NonNegInt = 0
    """How long the request waited in the queue."""
