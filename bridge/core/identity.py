"""Identity: node fingerprints, tree hashes, screen state ids and stable node ids.

- ``fingerprint(node)`` is five fixed-width sub-hashes (role, automation id, name, class,
  item key), so drift between two fingerprints is a number (``fingerprint_drift``), not a
  guess. Value, state and bounds are left out on purpose: typing into a field or toggling a
  switch does not make a reference to it stale.
- ``tree_hash`` covers every semantic field of every node and the tree's shape; it leaves
  out bounds (layout, tracked by ``layout_hash``) and nothing else.
- ``screen_state_id`` is coarse: the displayed screen marker (or app) plus a hash of the
  skeleton — roles of containers and every node carrying an automation id — so text edits,
  new plain texts and scrolling leave it unchanged.
- ``IdAllocator`` keeps node ids stable across snapshots of one device: a node keeps its id
  only when its identity key was present, with the same multiplicity, in the previous
  snapshot. An id is never given to a different element; a recycled row showing another item
  has another key, so it gets a new id.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from bridge.core.tree import NodeTree
from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode

FINGERPRINT_FIELDS: tuple[str, ...] = ("role", "automation", "name", "class", "item")
_SEGMENT = 4  # hex chars per fingerprint field
FIELD_WEIGHTS: dict[str, int] = {"role": 3, "automation": 3, "name": 3, "class": 3, "item": 3}
FAR_DRIFT = 3
"""Drift at or above which a single match is refused as STALE_NODE_REF."""

_CONTAINER_ROLES = frozenset(
    {Role.SCREEN, Role.DIALOG, Role.LIST, Role.MENU, Role.WEB_VIEW, Role.CANVAS, Role.TAB}
)


def short_hash(*parts: object, size: int = 8) -> str:
    """Lowercase hex digest of the parts (``size`` bytes); stable across runs and platforms."""
    digest = hashlib.blake2b(digest_size=size)
    for part in parts:
        digest.update(repr(part).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def node_name(node: SemanticNode) -> str | None:
    """The human name used for identity and locators: label, else text, else hint."""
    return node.label or node.text or node.hint


def automation(node: SemanticNode) -> str | None:
    return node.automation_id or node.resource_id


def fingerprint(node: SemanticNode) -> str:
    item = node.collection.item_key if node.collection else None
    values = (node.role.value, automation(node), node_name(node), node.class_name, item)
    return "".join(short_hash(v, size=8)[:_SEGMENT] for v in values)


def fingerprint_drift(old: str, new: str) -> int:
    """Weighted count of fingerprint fields that differ (0 = identical identity)."""
    if len(old) != len(new) or len(old) != _SEGMENT * len(FINGERPRINT_FIELDS):
        return sum(FIELD_WEIGHTS.values())
    drift = 0
    for i, name in enumerate(FINGERPRINT_FIELDS):
        if old[i * _SEGMENT : (i + 1) * _SEGMENT] != new[i * _SEGMENT : (i + 1) * _SEGMENT]:
            drift += FIELD_WEIGHTS[name]
    return drift


def drifted_fields(old: str, new: str) -> tuple[str, ...]:
    if len(old) != len(new):
        return FINGERPRINT_FIELDS
    return tuple(
        name
        for i, name in enumerate(FINGERPRINT_FIELDS)
        if old[i * _SEGMENT : (i + 1) * _SEGMENT] != new[i * _SEGMENT : (i + 1) * _SEGMENT]
    )


def ancestor_fingerprint(tree: NodeTree, node_id: str) -> str:
    """Hash of the ancestor chain's roles and automation ids (names left out: a list row's
    text changing does not move its children)."""
    chain = [(a.role.value, automation(a)) for a in tree.ancestors(node_id)]
    return short_hash(*chain, size=8)


def _semantic_row(node: SemanticNode, depth: int) -> tuple[object, ...]:
    state = node.effective_state
    coll = node.collection
    return (
        depth,
        node.role.value,
        node.label,
        node.text,
        node.value,
        node.hint,
        node.resource_id,
        node.automation_id,
        node.class_name,
        (
            state.enabled,
            state.clickable,
            state.focused,
            state.selected,
            state.checked,
            state.password,
        ),
        tuple(a.value for a in node.actions),
        (coll.index, coll.item_key, coll.row_count) if coll else None,
        node.source.value,
    )


def tree_hash(nodes: Sequence[SemanticNode]) -> str:
    """Equal exactly when every semantic field and the shape are equal.

    Bounds are left out (layout: see ``layout_hash``), and so are node ids: they are
    allocation artefacts, and two captures of one screen must hash equal whoever numbered them.
    The shape is kept through each node's depth in the pre-order sequence.
    """
    digest = hashlib.blake2b(digest_size=12)
    depth: dict[str | None, int] = {None: -1}
    for node in nodes:
        d = depth.get(node.parent_id, -1) + 1
        depth[node.node_id] = d
        digest.update(repr(_semantic_row(node, d)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def layout_hash(nodes: Sequence[SemanticNode]) -> str:
    """Hash of every node's bounds in document order: changes while anything moves."""
    return short_hash(*(n.bounds for n in nodes), size=8)


def screen_state_id(nodes: Sequence[SemanticNode], screen_names: Sequence[str], app: str) -> str:
    """``<screen or app>:<8 hex>`` — coarse identity: containers and automation ids only.

    One pass over the pre-order sequence (parents come before their children)."""
    skeleton: list[tuple[object, ...]] = []
    depth: dict[str, int] = {}
    in_item: dict[str, bool] = {}
    for node in nodes:
        parent = node.parent_id
        d = depth[parent] + 1 if parent in depth else 0
        inside = parent is not None and in_item.get(parent, False)
        depth[node.node_id] = d
        in_item[node.node_id] = inside or node.role is Role.LIST_ITEM
        if inside:
            continue  # list contents scroll; the list itself stays in the skeleton
        aid = automation(node)
        if node.role in _CONTAINER_ROLES or aid:
            skeleton.append((node.role.value, aid, d))
    prefix = "+".join(screen_names) if screen_names else app.rsplit(".", 1)[-1]
    return f"{prefix}:{short_hash(*skeleton, size=4)}"


@dataclass
class IdAllocator:
    """Stable node ids for one device's sequence of snapshots.

    ``allocate`` takes the identity keys of a new capture in document order and returns one
    id per key. Keys seen last time with the same multiplicity keep their ids (in order);
    every other key gets a fresh id from a counter that only grows. Not thread-safe; one per
    device.
    """

    next_id: int = 1
    previous: dict[tuple[object, ...], list[str]] = field(default_factory=dict)

    def allocate(self, keys: Sequence[tuple[object, ...]]) -> list[str]:
        counts = Counter(keys)
        seen: dict[tuple[object, ...], int] = {}
        out: list[str] = []
        current: dict[tuple[object, ...], list[str]] = {}
        for key in keys:
            k = seen.get(key, 0)
            seen[key] = k + 1
            old = self.previous.get(key)
            if old is not None and len(old) == counts[key]:
                nid = old[k]
            else:
                nid = f"n{self.next_id}"
                self.next_id += 1
            out.append(nid)
            current.setdefault(key, []).append(nid)
        self.previous = current
        return out
