"""ScreenDiff (reference ``diff``): the observation of what an action changed."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from bridge.wire.base import Bounds, NodeId, SnapshotId, WireStruct
from bridge.wire.enums import FocusChange
from bridge.wire.node import SemanticNode


class MovedNode(WireStruct, frozen=True):
    node: NodeId
    from_bounds: Bounds | None = None
    to_bounds: Bounds | None = None


class FieldChange(WireStruct, frozen=True):
    """``before``/``after`` are JSON values; both are always present (null included)."""

    before: Any
    after: Any


class ChangedNode(WireStruct, frozen=True):
    node: NodeId
    fields: dict[str, FieldChange]


class FocusChanged(WireStruct, frozen=True):
    """Focus tri-state, by stable identity. UNKNOWN when the old focus is not uniquely known."""

    state: FocusChange
    from_: str | None = msgspec.field(default=None, name="from")
    to: str | None = None


class ScreenDiff(WireStruct, frozen=True):
    schema_version: Literal[1]
    from_snapshot: SnapshotId
    to_snapshot: SnapshotId
    added: tuple[SemanticNode, ...]
    removed: tuple[NodeId, ...]
    moved: tuple[MovedNode, ...]
    changed: tuple[ChangedNode, ...]
    screen_changed: bool
    focus_changed: FocusChanged | None = None
