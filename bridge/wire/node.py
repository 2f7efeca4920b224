"""SemanticNode: one normalized node of a ScreenSnapshot (reference ``semantic-node``).

Wire economy: ``state`` is omitted when every field is at its default (use ``NodeState.DEFAULT``
and ``is_default``), ``actions`` when empty, ``source`` when ACCESSIBILITY, ``confidence`` when 1.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from bridge.wire.base import Bounds, Confidence, Hash, NodeId, NonNegInt, WireStruct
from bridge.wire.enums import ActionVerb, Role, Source


class NodeState(WireStruct, frozen=True):
    """Defaults: enabled=True, everything else False, checked=None (not checkable)."""

    enabled: bool = True
    clickable: bool = False
    focused: bool = False
    selected: bool = False
    checked: bool | None = None
    password: bool = False

    DEFAULT: ClassVar[NodeState]

    def is_default(self) -> bool:
        return self == NodeState.DEFAULT


NodeState.DEFAULT = NodeState()
_DEFAULT_STATE = NodeState.DEFAULT


class CollectionInfo(WireStruct, frozen=True):
    """Position of a LIST_ITEM in its collection. ``index`` is never identity: views recycle."""

    index: NonNegInt | None = None
    item_key: str | None = None
    row_count: int | None = None
    scroll_container_id: NodeId | None = None
    ancestor_fingerprint: Hash | None = None


class SemanticNode(WireStruct, frozen=True):
    """A normalized node. ``node_id`` is unique within its snapshot and never given to a
    different element across snapshots of one device."""

    node_id: NodeId
    role: Role
    parent_id: NodeId | None = None
    label: str | None = None
    text: str | None = None
    value: str | None = None
    hint: str | None = None
    resource_id: str | None = None
    class_name: str | None = None
    automation_id: str | None = None
    native_type: str | None = None
    state: NodeState | None = None
    actions: tuple[ActionVerb, ...] = ()
    bounds: Bounds | None = None
    collection: CollectionInfo | None = None
    source: Source = Source.ACCESSIBILITY
    confidence: Confidence = 1.0

    def __post_init__(self) -> None:
        actions = self.actions
        if len(actions) > 1 and len(set(actions)) != len(actions):
            raise ValueError("actions must not repeat a verb")
        # An all-default state is spelled by absence, never as ``{}``.
        state = self.state
        if state is not None and state == _DEFAULT_STATE:
            msgspec.structs.force_setattr(self, "state", None)

    @property
    def effective_state(self) -> NodeState:
        """The state with defaults applied (``state`` absent means all defaults)."""
        return self.state if self.state is not None else NodeState.DEFAULT
