"""ScreenDiff: the observation of what changed between two snapshots of one device.

Node identity is the node id: the hub's ``IdAllocator`` keeps an element's id across the
snapshots of a device and never gives an id to another element.

Invariants:
- ``added`` holds full nodes whose id is only in ``b``, in ``b``'s document order, capped at
  ``max_added`` nodes and ``max_added_bytes`` of encoded JSON (whichever comes first): it is
  always a document-order prefix of the new nodes, so a cut loses only the tail; the after
  snapshot has them all (a screen transition sets ``screen_changed``: read the snapshot);
- ``removed`` holds every id only in ``a``, in ``a``'s document order (never capped: ids are
  short);
- ``moved`` holds ids in both whose parent changed, or whose bounds moved by more than
  ``jitter_px`` on some edge (or appeared / vanished); bounds changes within the jitter are
  ignored entirely (animation noise), and bounds never appear in ``changed``;
- a node *carried* by its parent — same parent, the parent moved (listed, or itself carried),
  and every edge shifted by exactly the parent's deltas — is left out of ``moved`` (a scrolled row's
  texts and icons travel with the row), unless ``list_carried=True``; its new bounds are in
  the after snapshot. This keeps a scroll's diff to the rows that moved;
- ``changed`` holds ids in both with a semantic field that differs, per field
  (``SEMANTIC_FIELDS``; state fields one by one as ``state.<field>``), values as JSON;
- ``moved`` and ``changed`` follow ``b``'s document order; no id is both added and removed;
- a password node's ``value`` and ``text`` are never copied into a diff, whatever the
  snapshots hold (snapshots never hold them: normalization drops them — this is a second lock);
- ``screen_changed`` is ``screenStateId`` differing;
- ``focus_changed`` is the focus tri-state by stable identity (see ``focus_change``).

``screen_diff(a, a)`` is empty with ``screen_changed`` false and focus UNCHANGED or null.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from bridge.wire.base import Bounds
from bridge.wire.diff import ChangedNode, FieldChange, FocusChanged, MovedNode, ScreenDiff
from bridge.wire.enums import FocusChange
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

DEFAULT_JITTER_PX = 4
DEFAULT_MAX_ADDED = 40
DEFAULT_MAX_ADDED_BYTES = 3_000

_STATE_FIELDS: tuple[str, ...] = tuple(NodeState.__struct_fields__)
_SECRET_FIELDS = frozenset({"value", "text"})


def _wire(value: Any) -> Any:
    return msgspec.to_builtins(value)


def _state_getter(name: str) -> Callable[[SemanticNode], Any]:
    return lambda node: getattr(node.effective_state, name)


_FIELD_GETTERS: tuple[tuple[str, Callable[[SemanticNode], Any]], ...] = (
    ("role", lambda n: n.role.value),
    ("label", lambda n: n.label),
    ("text", lambda n: n.text),
    ("value", lambda n: n.value),
    ("hint", lambda n: n.hint),
    ("resourceId", lambda n: n.resource_id),
    ("automationId", lambda n: n.automation_id),
    *((f"state.{name}", _state_getter(name)) for name in _STATE_FIELDS),
    ("actions", lambda n: [a.value for a in n.actions]),
    ("collection", lambda n: None if n.collection is None else _wire(n.collection)),
    ("source", lambda n: n.source.value),
    ("confidence", lambda n: n.confidence),
)
SEMANTIC_FIELDS: tuple[str, ...] = tuple(name for name, _ in _FIELD_GETTERS)
"""Wire names of the fields compared for ``changed``. Raw class names (``className``,
``nativeType``) are not semantics (the compact snapshot drops them); bounds go to ``moved``."""


def _is_password(node: SemanticNode) -> bool:
    return node.state is not None and node.state.password


def _redacted(node: SemanticNode) -> SemanticNode:
    if _is_password(node) and (node.value is not None or node.text is not None):
        return msgspec.structs.replace(node, value=None, text=None)
    return node


def changed_fields(before: SemanticNode, after: SemanticNode) -> dict[str, FieldChange]:
    """Every semantic field that differs, ``{wireName: {before, after}}``."""
    secret = _is_password(before) or _is_password(after)
    out: dict[str, FieldChange] = {}
    for name, get in _FIELD_GETTERS:
        if secret and name in _SECRET_FIELDS:
            continue
        old, new = get(before), get(after)
        if old != new:
            out[name] = FieldChange(before=old, after=new)
    return out


def bounds_moved(old: Bounds | None, new: Bounds | None, jitter_px: int) -> bool:
    """True when bounds appeared, vanished, or some edge moved by more than ``jitter_px``."""
    if old is None or new is None:
        return old is not new
    return any(abs(o - n) > jitter_px for o, n in zip(old, new, strict=True))


def _focused(nodes: Sequence[SemanticNode]) -> list[str]:
    return [n.node_id for n in nodes if n.state is not None and n.state.focused]


def focus_change(a: Sequence[SemanticNode], b: Sequence[SemanticNode]) -> FocusChanged | None:
    """Focus tri-state by stable identity (node ids), ``from``/``to`` being node ids.

    - null: no focused node on either side;
    - UNCHANGED: the one node focused in ``a`` is, alone, focused in ``b``;
    - CHANGED: the old focus is known (one focused node in ``a``, present once in ``b``) and
      is no longer focused; or nothing was focused and something is; or the old focused
      element is gone and nothing is focused any more (focus went nowhere, whoever it was);
    - UNKNOWN: the old focus cannot be resolved uniquely — several focused nodes in ``a``,
      or its id is gone from ``b`` while ``b`` has a focus (the same element may carry a new
      id) — or the old node is still focused but so is another.

    ``to`` is the single focused node of ``b``, or null when there are none or several.
    """
    fa, fb = _focused(a), _focused(b)
    if not fa and not fb:
        return None
    to = fb[0] if len(fb) == 1 else None
    if not fa:
        return FocusChanged(state=FocusChange.CHANGED, from_=None, to=to)
    if len(fa) > 1:
        return FocusChanged(state=FocusChange.UNKNOWN, from_=None, to=to)
    old = fa[0]
    present = Counter(n.node_id for n in b)[old]
    if present == 1:
        if old not in fb:
            return FocusChanged(state=FocusChange.CHANGED, from_=old, to=to)
        if len(fb) == 1:
            return FocusChanged(state=FocusChange.UNCHANGED, from_=old, to=old)
        return FocusChanged(state=FocusChange.UNKNOWN, from_=old, to=None)
    if present == 0 and not fb:
        return FocusChanged(state=FocusChange.CHANGED, from_=old, to=None)
    return FocusChanged(state=FocusChange.UNKNOWN, from_=old, to=to)


def _delta(old: Bounds | None, new: Bounds | None) -> tuple[int, int, int, int] | None:
    if old is None or new is None:
        return None
    return (new[0] - old[0], new[1] - old[1], new[2] - old[2], new[3] - old[3])


def screen_diff(
    a: ScreenSnapshot,
    b: ScreenSnapshot,
    *,
    jitter_px: int = DEFAULT_JITTER_PX,
    max_added: int = DEFAULT_MAX_ADDED,
    max_added_bytes: int | None = DEFAULT_MAX_ADDED_BYTES,
    list_carried: bool = False,
) -> ScreenDiff:
    """The ScreenDiff from ``a`` (before) to ``b`` (after). See the module invariants."""
    old_by_id = {n.node_id: n for n in a.nodes}
    new_ids = {n.node_id for n in b.nodes}
    added: list[SemanticNode] = []
    added_bytes = 0
    room = True  # ``added`` stays a document-order prefix of the new nodes
    moved: list[MovedNode] = []
    changed: list[ChangedNode] = []
    # edge deltas of every moved node (None: bounds appeared or vanished)
    shift: dict[str, tuple[int, int, int, int] | None] = {}
    for node in b.nodes:
        old = old_by_id.get(node.node_id)
        if old is node:
            continue  # the very same node: neither moved nor changed
        if old is None:
            if room and len(added) < max_added:
                new_node = _redacted(node)
                if max_added_bytes is not None:
                    added_bytes += len(msgspec.json.encode(new_node)) + 1
                    room = added_bytes <= max_added_bytes
                if room:
                    added.append(new_node)
            continue
        if old.parent_id != node.parent_id or bounds_moved(old.bounds, node.bounds, jitter_px):
            delta = _delta(old.bounds, node.bounds)
            carried = (
                not list_carried
                and old.parent_id == node.parent_id
                and node.parent_id is not None
                and delta is not None
                and shift.get(node.parent_id) == delta
            )
            shift[node.node_id] = delta
            if not carried:
                moved.append(
                    MovedNode(node=node.node_id, from_bounds=old.bounds, to_bounds=node.bounds)
                )
        fields = changed_fields(old, node)
        if fields:
            changed.append(ChangedNode(node=node.node_id, fields=fields))
    removed = tuple(n.node_id for n in a.nodes if n.node_id not in new_ids)
    return ScreenDiff(
        schema_version=1,
        from_snapshot=a.snapshot_id,
        to_snapshot=b.snapshot_id,
        added=tuple(added),
        removed=removed,
        moved=tuple(moved),
        changed=tuple(changed),
        screen_changed=a.screen_state_id != b.screen_state_id,
        focus_changed=focus_change(a.nodes, b.nodes),
    )


def is_empty(diff: ScreenDiff) -> bool:
    """No node added, removed, moved or changed (screen and focus flags aside)."""
    return not (diff.added or diff.removed or diff.moved or diff.changed)
