"""Identity: node fingerprints, tree hashes, screen state ids and stable node ids.

- ``fingerprint(node)`` is five fixed-width sub-hashes (role, automation id, name, class,
  item key), so drift between two fingerprints is the fields that differ (``drifted_fields``,
  weighed by ``FIELD_WEIGHTS``), not a guess. Value, state and bounds are left out on
  purpose: typing into a field or toggling a switch does not make a reference to it stale.
- ``tree_hash`` covers every semantic field of every node and the tree's shape; it leaves
  out bounds (layout, tracked by ``layout_hash``) and nothing else.
- ``screen_state_id`` is coarse: the displayed screen marker (or app) plus a hash of the
  skeleton — roles of containers and every node carrying an automation id — so text edits,
  new plain texts and scrolling leave it unchanged.
- ``IdAllocator`` (``bridge.core.node_ids``) keeps node ids stable across snapshots of one
  device: a node keeps its id when its identity key was present, with the same multiplicity,
  in the previous snapshot, or when it stands where a node of the same kind stood and only
  its texts changed. An id is never given to a different element; a recycled row showing
  another item gets a new id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from bridge.core.node_ids import IdAllocator
from bridge.core.tree import NodeTree
from bridge.wire.enums import Role
from bridge.wire.node import NodeState, SemanticNode

__all__ = [
    "FAR_DRIFT",
    "FIELD_WEIGHTS",
    "FINGERPRINT_FIELDS",
    "IdAllocator",
    "ancestor_fingerprint",
    "automation",
    "digest_layout_rows",
    "digest_tree_rows",
    "drifted_fields",
    "fingerprint",
    "layout_hash",
    "layout_row",
    "node_name",
    "screen_state_id",
    "short_hash",
    "tree_hash",
    "tree_row",
]

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


def drifted_fields(old: str, new: str) -> tuple[str, ...]:
    if old == new:
        return ()
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


_ROW_MEMO_MAX = 4096
_ROW_TAIL: dict[tuple[object, ...], str] = {}
"""(state, actions) -> the text of their two row fields: screens repeat a handful."""


def _row_text(node: SemanticNode, depth: int) -> str:
    """``repr(_semantic_row(node, depth))``, written field by field (a tuple's repr is its
    items' reprs joined by ``", "`` in parentheses): no row tuple is built, and the state
    and actions fields, shared by most nodes, come from a bounded memo."""
    state = node.state
    if state is None:
        state = NodeState.DEFAULT  # ``effective_state``, without the property's call
    actions = node.actions
    memo = (state, actions)
    tail = _ROW_TAIL.get(memo)
    if tail is None:
        tail = (
            repr(
                (
                    state.enabled,
                    state.clickable,
                    state.focused,
                    state.selected,
                    state.checked,
                    state.password,
                )
            )
            + ", "
            + repr(tuple(a.value for a in actions))
        )
        if len(_ROW_TAIL) >= _ROW_MEMO_MAX:
            _ROW_TAIL.clear()
        _ROW_TAIL[memo] = tail
    coll = node.collection
    return (
        f"({depth!r}, {node.role._value_!r}, {node.label!r}, {node.text!r}, {node.value!r}, "
        f"{node.hint!r}, {node.resource_id!r}, {node.automation_id!r}, {node.class_name!r}, "
        f"{tail}, {(coll.index, coll.item_key, coll.row_count) if coll else None!r}, "
        f"{node.source._value_!r})"
    )


def tree_row(node: SemanticNode, depth: int) -> bytes:
    """One node's share of ``tree_hash`` (a node at ``depth`` in the pre-order sequence): a
    16-byte digest of its semantic row, so a caller that caches rows per node rehashes only
    what changed — the tree's digest is then over 16 bytes a node, not the whole rows.
    The row's text is ``repr(_semantic_row(node, depth))`` (``_row_text``)."""
    row = _row_text(node, depth).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(row, digest_size=16).digest()


def digest_tree_rows(rows: Iterable[bytes]) -> str:
    """``tree_hash`` from the nodes' rows in pre-order (see ``tree_row``)."""
    return hashlib.blake2b(b"".join(rows), digest_size=12).hexdigest()


def tree_hash(nodes: Sequence[SemanticNode]) -> str:
    """Equal exactly when every semantic field and the shape are equal.

    Bounds are left out (layout: see ``layout_hash``), and so are node ids: they are
    allocation artefacts, and two captures of one screen must hash equal whoever numbered them.
    The shape is kept through each node's depth in the pre-order sequence.
    """
    depth: dict[str | None, int] = {None: -1}
    rows: list[bytes] = []
    for node in nodes:
        d = depth.get(node.parent_id, -1) + 1
        depth[node.node_id] = d
        rows.append(tree_row(node, d))
    return digest_tree_rows(rows)


def layout_row(node: SemanticNode) -> bytes:
    """One node's share of ``layout_hash``: ``repr(bounds)`` and a separator, as bytes
    (four integers, formatted straight to bytes: the same text as their tuple's repr)."""
    bounds = node.bounds
    if bounds is None:
        return b"None\x1f"
    return b"(%d, %d, %d, %d)\x1f" % bounds


def digest_layout_rows(rows: Iterable[bytes]) -> str:
    return hashlib.blake2b(b"".join(rows), digest_size=8).hexdigest()


def layout_hash(nodes: Sequence[SemanticNode]) -> str:
    """Hash of every node's bounds in document order: changes while anything moves."""
    return digest_layout_rows(layout_row(n) for n in nodes)


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
