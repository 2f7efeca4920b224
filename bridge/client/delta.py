"""Keeping a subscriber's snapshot current from ``snapshot`` and ``delta`` events (pure).

``apply_delta`` is this client's own reading of the ``DeltaEvent`` contract: drop every
``remove`` id, upsert every node of ``upsert``, replace the child list of every parent named
in ``order`` (``""`` is the root list), and rebuild the pre-order node list from the root list.

``apply_patch_event`` reads the slim ``PatchEvent`` the same way, with ``edit`` (the changed
fields of nodes held) applied after ``upsert``, and meta fields replaced one by one.

``SnapshotTracker`` is the per-subscription state machine (``delta`` and ``patch`` events
alike):

- ``snapshot`` event: replaces the state (initial state or resync) and puts it in sync;
- ``delta`` event while in sync: applies when ``seq`` is exactly the previous seq + 1 and
  ``base`` is the current snapshot id, else the tracker goes out of sync and reports a
  ``Desync``; the state it had stays readable but is no longer advanced;
- ``delta`` event while out of sync: ignored (``None``) until a ``snapshot`` event arrives.

Invariant: every ``WatchUpdate`` it returns holds a snapshot reached only by events whose
seqs run without a gap from the last ``snapshot`` event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from bridge.wire.client_protocol import DeltaEvent, PatchEvent, SnapshotEvent
from bridge.wire.node import SemanticNode
from bridge.wire.node_edit import changes
from bridge.wire.snapshot import ScreenSnapshot

ROOT_LIST = ""


@dataclass(frozen=True, slots=True)
class Desync:
    """A delta did not apply; the subscriber must get a fresh snapshot."""

    reason: str


@dataclass(frozen=True, slots=True)
class WatchUpdate:
    """One step of a watched device. ``delta`` is None for a full snapshot (the first update
    and every resync); then ``added`` lists every node and ``removed``/``changed`` are empty."""

    seq: int
    generation: int
    snapshot: ScreenSnapshot
    delta: DeltaEvent | PatchEvent | None
    """The event applied: ``delta``, or ``patch`` on a subscription that opted in."""
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def resync(self) -> bool:
        return self.delta is None


def _child_lists(nodes: tuple[SemanticNode, ...]) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {ROOT_LIST: []}
    for node in nodes:
        lists.setdefault(node.parent_id or ROOT_LIST, []).append(node.node_id)
    return lists


def apply_delta(snapshot: ScreenSnapshot, delta: DeltaEvent) -> ScreenSnapshot | Desync:
    """The snapshot ``delta`` leads to from ``snapshot``, or why it does not apply."""
    if delta.base != snapshot.snapshot_id:
        return Desync(f"delta base {delta.base} is not the current {snapshot.snapshot_id}")
    if delta.meta.snapshot_id != delta.snapshot_id:
        return Desync(f"delta meta is {delta.meta.snapshot_id}, not {delta.snapshot_id}")
    by_id = {node.node_id: node for node in snapshot.nodes}
    for node_id in delta.remove:
        if node_id not in by_id:
            return Desync(f"delta removes unknown node {node_id}")
        del by_id[node_id]
    for node in delta.upsert:
        by_id[node.node_id] = node
    return _rebuild(snapshot, by_id, delta.remove, delta.order, delta.meta)


def apply_patch_event(snapshot: ScreenSnapshot, event: PatchEvent) -> ScreenSnapshot | Desync:
    """The snapshot ``event`` (the slim form) leads to from ``snapshot``, or why it does not
    apply: every ``edit`` must name a node held and not removed; otherwise as ``apply_delta``."""
    if event.base != snapshot.snapshot_id:
        return Desync(f"patch base {event.base} is not the current {snapshot.snapshot_id}")
    by_id = {node.node_id: node for node in snapshot.nodes}
    for node_id in event.remove:
        if node_id not in by_id:
            return Desync(f"patch removes unknown node {node_id}")
        del by_id[node_id]
    for node in event.upsert:
        by_id[node.node_id] = node
    for edit in event.edit:
        held = by_id.get(edit.node_id)
        if held is None:
            return Desync(f"patch edits unknown node {edit.node_id}")
        try:
            by_id[edit.node_id] = msgspec.structs.replace(held, **changes(edit))
        except (TypeError, ValueError) as exc:  # e.g. an edit repeating a verb in actions
            return Desync(f"patch edit of {edit.node_id} does not apply: {exc}")
    fields: dict[str, Any] = changes(event.meta) if event.meta is not None else {}
    meta = msgspec.structs.replace(snapshot, snapshot_id=event.snapshot_id, nodes=(), **fields)
    return _rebuild(snapshot, by_id, event.remove, event.order, meta)


def _rebuild(
    snapshot: ScreenSnapshot,
    by_id: dict[str, SemanticNode],
    remove: tuple[str, ...],
    order: dict[str, tuple[str, ...]],
    meta: ScreenSnapshot,
) -> ScreenSnapshot | Desync:
    """``meta`` with the pre-order node list of ``by_id``, from ``snapshot``'s child lists
    with ``remove``'s dropped and ``order``'s replaced; every node reachable exactly once
    under its own parent."""
    lists = _child_lists(snapshot.nodes)
    for node_id in remove:
        lists.pop(node_id, None)
    for parent, kids in order.items():
        lists[parent] = list(kids)
    ordered: list[SemanticNode] = []
    seen: set[str] = set()
    stack: list[tuple[str, str]] = [(ROOT_LIST, kid) for kid in reversed(lists[ROOT_LIST])]
    while stack:
        parent, node_id = stack.pop()
        listed = by_id.get(node_id)
        if listed is None:
            return Desync(f"delta orders unknown node {node_id}")
        if node_id in seen:
            return Desync(f"delta lists node {node_id} twice")
        if (listed.parent_id or ROOT_LIST) != parent:
            return Desync(f"node {node_id} is listed under {parent!r}, not its parent")
        seen.add(node_id)
        ordered.append(listed)
        stack.extend((node_id, kid) for kid in reversed(lists.get(node_id, ())))
    if len(ordered) != len(by_id):
        return Desync(f"{len(by_id) - len(ordered)} node(s) unreachable from the root list")
    return msgspec.structs.replace(meta, nodes=tuple(ordered))


class SnapshotTracker:
    """The snapshot of one subscription, advanced event by event (see the module rules)."""

    def __init__(self) -> None:
        self.snapshot: ScreenSnapshot | None = None
        self.seq = -1
        self.generation = 0
        self.in_sync = False
        self.deltas_applied = 0
        self.resyncs = 0
        self.desyncs = 0

    def on_snapshot(self, event: SnapshotEvent) -> WatchUpdate:
        if self.snapshot is not None:
            self.resyncs += 1
        self.snapshot = event.snapshot
        self.seq = event.seq
        self.generation = event.generation
        self.in_sync = True
        ids = tuple(node.node_id for node in event.snapshot.nodes)
        return WatchUpdate(event.seq, event.generation, event.snapshot, None, added=ids)

    def on_delta(self, event: DeltaEvent | PatchEvent) -> WatchUpdate | Desync | None:
        """Apply a ``delta`` or ``patch`` event (same rules for both)."""
        if not self.in_sync or self.snapshot is None:
            return None
        if event.seq != self.seq + 1:
            kind = "patch" if isinstance(event, PatchEvent) else "delta"
            return self._desync(f"{kind} seq {event.seq} after seq {self.seq}")
        before = self.snapshot
        if isinstance(event, PatchEvent):
            after = apply_patch_event(before, event)
            edited = tuple(edit.node_id for edit in event.edit)
        else:
            after, edited = apply_delta(before, event), ()
        if isinstance(after, Desync):
            return self._desync(after.reason)
        old_ids = {node.node_id for node in before.nodes}
        upserted = tuple(node.node_id for node in event.upsert)
        self.snapshot = after
        self.seq = event.seq
        self.generation = event.generation
        self.deltas_applied += 1
        return WatchUpdate(
            event.seq,
            event.generation,
            after,
            event,
            added=tuple(i for i in upserted if i not in old_ids),
            removed=event.remove,
            changed=tuple(i for i in upserted if i in old_ids) + edited,
        )

    def _desync(self, reason: str) -> Desync:
        self.in_sync = False
        self.desyncs += 1
        return Desync(reason)
