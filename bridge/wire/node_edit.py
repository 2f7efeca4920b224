"""Field-level edits for ``patch`` events: ``NodeEdit`` (one node) and ``MetaEdit`` (the
snapshot's meta).

Rule, the same for every field: absent (``UNSET``) means unchanged; present means the new
value, literally — ``null`` clears a field that may be absent, and a field that went back to
its default carries the default (``actions: []``, ``source: "ACCESSIBILITY"``, ``confidence:
1.0``, ``truncated: false``, ``state: null`` for the all-default state). So applying an edit is
"replace these fields", nothing else, and a reader never guesses.

Invariant (tested): ``NodeEdit`` has exactly ``SemanticNode``'s fields and ``MetaEdit`` has
exactly ``ScreenSnapshot``'s fields minus ``nodes`` and ``snapshot_id`` (the event's envelope
carries the new ``snapshotId``). A new field on either must be added here too.
"""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, UnsetType

from bridge.wire.base import (
    Bounds,
    Confidence,
    DeviceId,
    Hash,
    NodeId,
    PackageName,
    TimestampMs,
    WireStruct,
)
from bridge.wire.enums import ActionVerb, Orientation, Platform, Role, Source
from bridge.wire.node import CollectionInfo, NodeState


class NodeEdit(WireStruct, frozen=True):
    """The changed fields of node ``node_id``, which the subscriber already holds."""

    node_id: NodeId
    role: Role | UnsetType = UNSET
    parent_id: NodeId | UnsetType | None = UNSET
    label: str | UnsetType | None = UNSET
    text: str | UnsetType | None = UNSET
    value: str | UnsetType | None = UNSET
    hint: str | UnsetType | None = UNSET
    resource_id: str | UnsetType | None = UNSET
    class_name: str | UnsetType | None = UNSET
    automation_id: str | UnsetType | None = UNSET
    native_type: str | UnsetType | None = UNSET
    state: NodeState | UnsetType | None = UNSET
    actions: tuple[ActionVerb, ...] | UnsetType = UNSET
    bounds: Bounds | UnsetType | None = UNSET
    collection: CollectionInfo | UnsetType | None = UNSET
    source: Source | UnsetType = UNSET
    confidence: Confidence | UnsetType = UNSET


class MetaEdit(WireStruct, frozen=True):
    """The changed meta fields of the snapshot (``snapshotId`` is in the event itself)."""

    schema_version: Literal[1] | UnsetType = UNSET
    device_id: DeviceId | UnsetType = UNSET
    timestamp: TimestampMs | UnsetType = UNSET
    package_name: PackageName | UnsetType = UNSET
    window_id: int | UnsetType = UNSET
    orientation: Orientation | UnsetType = UNSET
    screen_state_id: str | UnsetType = UNSET
    compact: bool | UnsetType = UNSET
    tree_hash: Hash | UnsetType = UNSET
    truncated: bool | UnsetType = UNSET
    platform: Platform | UnsetType = UNSET
    app_id: str | UnsetType | None = UNSET


NODE_EDIT_FIELDS: tuple[str, ...] = NodeEdit.__struct_fields__[1:]
"""Every editable node field (``node_id`` names the node)."""
META_EDIT_FIELDS: tuple[str, ...] = MetaEdit.__struct_fields__


def changes(edit: NodeEdit | MetaEdit) -> dict[str, object]:
    """The fields ``edit`` sets (attribute names), with their new values."""
    names = NODE_EDIT_FIELDS if isinstance(edit, NodeEdit) else META_EDIT_FIELDS
    out: dict[str, object] = {}
    for name in names:
        value = getattr(edit, name)
        if value is not UNSET:
            out[name] = value
    return out
