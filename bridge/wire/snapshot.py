"""ScreenSnapshot (reference ``screen-snapshot``)."""

from __future__ import annotations

from typing import Literal

from bridge.wire.base import DeviceId, Hash, PackageName, SnapshotId, TimestampMs, WireStruct
from bridge.wire.enums import Orientation, Platform
from bridge.wire.node import SemanticNode

SCHEMA_VERSION: Literal[1] = 1


class ScreenSnapshot(WireStruct, frozen=True):
    """A point-in-time semantic capture of the foreground window(s).

    ``nodes`` are in document (pre-order) order, the root first. ``tree_hash`` equal means the
    same semantic screen; ``screen_state_id`` is coarse (role + structure). ``platform`` absent
    means ANDROID.
    """

    schema_version: Literal[1]
    device_id: DeviceId
    snapshot_id: SnapshotId
    timestamp: TimestampMs
    package_name: PackageName
    window_id: int
    orientation: Orientation
    screen_state_id: str
    compact: bool
    nodes: tuple[SemanticNode, ...]
    tree_hash: Hash
    truncated: bool = False
    platform: Platform = Platform.ANDROID
    app_id: str | None = None
