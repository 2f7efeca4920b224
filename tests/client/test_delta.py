"""The client's own delta apply and the per-subscription tracker (no sockets)."""

from __future__ import annotations

import itertools

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.client.delta import Desync, SnapshotTracker, WatchUpdate, apply_delta
from bridge.core.patch import patch as core_patch
from bridge.core.slim_patch import slim
from bridge.wire.client_protocol import DeltaEvent, PatchEvent, SnapshotEvent
from bridge.wire.enums import Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot
from tests.client.fake_hub import login_screens, screen
from tests.client.reference_diff import reference_delta

POOL = [f"n{i}" for i in range(1, 16)]
LABELS = [None, "OK", "Cancel", "Sign in", "Row"]
ROLES = [Role.SCREEN, Role.BUTTON, Role.TEXT, Role.LIST, Role.LIST_ITEM]


@st.composite
def trees(draw: st.DrawFn, snapshot_id: str) -> ScreenSnapshot:
    """A random forest over ids drawn from POOL, listed in pre-order."""
    ids = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=12))
    parent: dict[str, str | None] = {}
    for i, nid in enumerate(ids):
        parent[nid] = draw(st.none() | st.sampled_from(ids[:i])) if i else None
    kids: dict[str | None, list[str]] = {}
    for nid in ids:
        kids.setdefault(parent[nid], []).append(nid)
    nodes: list[SemanticNode] = []
    stack = list(reversed(kids.get(None, [])))
    while stack:
        nid = stack.pop()
        nodes.append(
            SemanticNode(
                node_id=nid,
                role=draw(st.sampled_from(ROLES)),
                parent_id=parent[nid],
                label=draw(st.sampled_from(LABELS)),
                state=draw(st.sampled_from([None, NodeState(clickable=True)])),
            )
        )
        stack.extend(reversed(kids.get(nid, [])))
    return screen(snapshot_id, nodes)


def as_event(a: ScreenSnapshot, b: ScreenSnapshot, seq: int = 1) -> DeltaEvent:
    """The hub core's own patch, wrapped as the delta event the hub would send."""
    p = core_patch(a, b)
    return DeltaEvent(
        subscription="sub-1",
        device=b.device_id,
        seq=seq,
        generation=0,
        base=p.base,
        snapshot_id=b.snapshot_id,
        meta=p.meta,
        remove=p.remove,
        upsert=p.upsert,
        order=p.order,
    )


@settings(max_examples=200)
@given(a=trees("s_a"), b=trees("s_b"))
def test_apply_reproduces_the_target_of_a_reference_delta(
    a: ScreenSnapshot, b: ScreenSnapshot
) -> None:
    assert apply_delta(a, reference_delta(a, b, seq=1)) == b


@settings(max_examples=200)
@given(a=trees("s_a"), b=trees("s_b"))
def test_apply_reproduces_the_target_of_the_hub_cores_patch(
    a: ScreenSnapshot, b: ScreenSnapshot
) -> None:
    assert apply_delta(a, as_event(a, b)) == b


@given(chain=st.lists(trees("s_x"), min_size=1, max_size=6))
def test_tracker_follows_a_chain_of_deltas(chain: list[ScreenSnapshot]) -> None:
    chain = [msgspec.structs.replace(s, snapshot_id=f"s_{i}") for i, s in enumerate(chain)]
    tracker = SnapshotTracker()
    first = tracker.on_snapshot(
        SnapshotEvent(subscription="s", seq=7, generation=0, snapshot=chain[0])
    )
    assert first.resync and first.snapshot == chain[0]
    for i, (a, b) in enumerate(itertools.pairwise(chain), 8):
        update = tracker.on_delta(reference_delta(a, b, seq=i))
        assert isinstance(update, WatchUpdate)
        assert update.snapshot == b and update.seq == i
        assert update.delta is not None
        assert set(update.added) | set(update.changed) == {n.node_id for n in update.delta.upsert}
    assert tracker.snapshot == chain[-1]
    assert tracker.deltas_applied == len(chain) - 1


def test_added_removed_changed_are_reported_by_id() -> None:
    a, b, c = login_screens()
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
    typed = tracker.on_delta(reference_delta(a, b, seq=1))
    assert isinstance(typed, WatchUpdate)
    assert (typed.added, typed.removed, typed.changed) == ((), (), ("n2",))
    home = tracker.on_delta(reference_delta(b, c, seq=2))
    assert isinstance(home, WatchUpdate)
    assert home.added == ("n10", "n11", "n12")
    assert set(home.removed) == {n.node_id for n in b.nodes}


def test_a_seq_gap_desyncs_until_a_snapshot_event() -> None:
    a, b, c = login_screens()
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
    gap = tracker.on_delta(reference_delta(a, b, seq=2))
    assert isinstance(gap, Desync) and "seq 2 after seq 0" in gap.reason
    assert not tracker.in_sync and tracker.snapshot == a
    assert tracker.on_delta(reference_delta(a, b, seq=1)) is None  # ignored while out of sync
    resync = tracker.on_snapshot(SnapshotEvent(subscription="s", seq=5, generation=1, snapshot=c))
    assert resync.resync and tracker.in_sync and tracker.resyncs == 1 and tracker.desyncs == 1
    assert isinstance(tracker.on_delta(reference_delta(c, a, seq=6)), WatchUpdate)


def test_a_wrong_base_desyncs() -> None:
    a, b, c = login_screens()
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
    outcome = tracker.on_delta(reference_delta(b, c, seq=1))
    assert isinstance(outcome, Desync) and "base s_2" in outcome.reason


def test_inconsistent_deltas_do_not_apply() -> None:
    a, b, _ = login_screens()
    good = reference_delta(a, b, seq=1)
    unknown_removal = msgspec.structs.replace(good, remove=("n99",))
    assert isinstance(apply_delta(a, unknown_removal), Desync)
    orphan = msgspec.structs.replace(good, order={"": ()})  # the root list loses its root
    assert isinstance(apply_delta(a, orphan), Desync)
    unknown_child = msgspec.structs.replace(good, order={"n1": ("n42",)})
    assert isinstance(apply_delta(a, unknown_child), Desync)
    twice = msgspec.structs.replace(good, order={"": ("n1", "n1")})
    assert isinstance(apply_delta(a, twice), Desync)
    wrong_parent = msgspec.structs.replace(good, order={"": ("n1", "n2"), "n1": ("n3",)})
    assert isinstance(apply_delta(a, wrong_parent), Desync)
    other_meta = msgspec.structs.replace(good, snapshot_id="s_9")
    assert isinstance(apply_delta(a, other_meta), Desync)


def as_patch_event(a: ScreenSnapshot, b: ScreenSnapshot, seq: int = 1) -> PatchEvent:
    """The slim ``patch`` event the hub would send a subscriber that opted in."""
    body = core_patch(a, b)
    part = slim({n.node_id: n for n in a.nodes}, a, body)
    return PatchEvent(
        subscription="sub-1",
        seq=seq,
        generation=0,
        base=body.base,
        snapshot_id=b.snapshot_id,
        meta=part.meta,
        remove=part.remove,
        upsert=part.upsert,
        edit=part.edit,
        order=part.order,
    )


@given(chain=st.lists(trees("s_x"), min_size=1, max_size=6), slim_at=st.lists(st.booleans()))
def test_tracker_follows_a_chain_mixing_delta_and_patch_events(
    chain: list[ScreenSnapshot], slim_at: list[bool]
) -> None:
    chain = [msgspec.structs.replace(s, snapshot_id=f"s_{i}") for i, s in enumerate(chain)]
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=chain[0]))
    for i, (a, b) in enumerate(itertools.pairwise(chain), 1):
        slim_form = slim_at[i % len(slim_at)] if slim_at else True
        event = as_patch_event(a, b, seq=i) if slim_form else as_event(a, b, seq=i)
        update = tracker.on_delta(event)
        assert isinstance(update, WatchUpdate)
        assert update.snapshot == b and update.delta is event
        old = {n.node_id for n in a.nodes}
        assert set(update.added) == {n.node_id for n in b.nodes} - old
        assert set(update.removed) == old - {n.node_id for n in b.nodes}
    assert tracker.snapshot == chain[-1]


def test_patch_events_report_edited_nodes_as_changed() -> None:
    a, b, _ = login_screens()
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
    event = as_patch_event(a, b, seq=1)
    assert [e.node_id for e in event.edit] == ["n2"] and not event.upsert
    typed = tracker.on_delta(event)
    assert isinstance(typed, WatchUpdate) and typed.snapshot == b
    assert (typed.added, typed.removed, typed.changed) == ((), (), ("n2",))


def test_hostile_patch_events_desync_cleanly() -> None:
    a, b, c = login_screens()
    good = as_patch_event(a, b, seq=1)
    unknown_edit = msgspec.structs.replace(
        good, edit=(msgspec.structs.replace(good.edit[0], node_id="n99"),)
    )
    removed_then_edited = msgspec.structs.replace(good, remove=("n2",), order={"n1": ()})
    unknown_removal = msgspec.structs.replace(good, remove=("n98",))
    wrong_base = as_patch_event(b, c, seq=1)
    for bad, why in (
        (unknown_edit, "edits unknown node n99"),
        (removed_then_edited, "edits unknown node n2"),
        (unknown_removal, "removes unknown node n98"),
        (wrong_base, "base s_2"),
    ):
        tracker = SnapshotTracker()
        tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
        outcome = tracker.on_delta(bad)
        assert isinstance(outcome, Desync) and why in outcome.reason, (why, outcome)
        assert not tracker.in_sync and tracker.snapshot == a
        assert tracker.on_delta(good) is None  # ignored until a snapshot event
    # Out of order: seq 2 before seq 1.
    tracker = SnapshotTracker()
    tracker.on_snapshot(SnapshotEvent(subscription="s", seq=0, generation=0, snapshot=a))
    early = tracker.on_delta(as_patch_event(b, c, seq=2))
    assert isinstance(early, Desync) and "patch seq 2 after seq 0" in early.reason
    assert tracker.on_delta(good) is None and tracker.snapshot == a
    resync = tracker.on_snapshot(SnapshotEvent(subscription="s", seq=5, generation=1, snapshot=b))
    assert resync.resync and isinstance(tracker.on_delta(as_patch_event(b, c, seq=6)), WatchUpdate)
