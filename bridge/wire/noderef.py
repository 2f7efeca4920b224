"""NodeRef and its six locator kinds, a tagged union on ``type`` (reference ``node-ref``).

Locators in a ref are ordered strongest first; resolvers try them in that order and never let
a weak locator (STRUCTURAL_PATH, BOUNDS_NEAREST) override strong ones that found nothing.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import Bounds, Confidence, Hash, NodeId, SnapshotId, WireStruct
from bridge.wire.enums import NodeRefSource, Role


class _Locator(WireStruct, tag_field="type", frozen=True):
    pass


class ResourceIdLocator(_Locator, tag="RESOURCE_ID", frozen=True):
    value: str


class ResourceIdScopedLocator(_Locator, tag="RESOURCE_ID_SCOPED", frozen=True):
    value: str
    window_id: int | None = None
    ancestor: str | None = None


class RoleLabelAncestorLocator(_Locator, tag="ROLE_LABEL_ANCESTOR", frozen=True):
    role: Role
    label: str
    ancestor: str | None = None


class CollectionItemLocator(_Locator, tag="ROLE_STATE_COLLECTION_ITEM", frozen=True):
    role: Role
    item_key: str
    scroll_container: str | None = None


class StructuralPathLocator(_Locator, tag="STRUCTURAL_PATH", frozen=True):
    value: Annotated[str, msgspec.Meta(pattern=r"^[0-9]+(/[0-9]+)*$|^$", max_length=1024)]
    """Child-index path from the root, e.g. ``0/2/1``."""


class BoundsNearestLocator(_Locator, tag="BOUNDS_NEAREST", frozen=True):
    bounds: Bounds


Locator = (
    ResourceIdLocator
    | ResourceIdScopedLocator
    | RoleLabelAncestorLocator
    | CollectionItemLocator
    | StructuralPathLocator
    | BoundsNearestLocator
)

STRONG_LOCATORS: tuple[type[_Locator], ...] = (
    ResourceIdLocator,
    ResourceIdScopedLocator,
    RoleLabelAncestorLocator,
    CollectionItemLocator,
)
"""Locators that identify an element by what it is rather than where it sits."""


class NodeRef(WireStruct, frozen=True):
    """A re-resolvable reference. ``source`` absent means SEMANTIC, ``confidence`` absent 1."""

    snapshot_id: SnapshotId
    node_id: NodeId
    fingerprint: Hash
    locators: Annotated[tuple[Locator, ...], msgspec.Meta(min_length=1, max_length=16)]
    ancestor_fingerprint: Hash | None = None
    source: NodeRefSource | None = None
    confidence: Confidence | None = None
