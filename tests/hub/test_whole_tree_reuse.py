"""Whole trees (agents without tree deltas, agentless Android) are normalized incrementally
when they differ from the last one in a few nodes of the same shape: the hub finds those nodes
itself, and the result equals a full normalization of the same tree."""

from __future__ import annotations

import msgspec

from bridge.bench.hub_screens import COUNT_INDEX, raw_tree, screen_nodes, with_count
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.hub.device import DeviceRuntime
from bridge.wire.agent_link import TreePush
from bridge.wire.enums import Platform


def runtime() -> DeviceRuntime:
    return DeviceRuntime(
        "d", Platform.ANDROID, run_prefix="t", clock_ms=lambda: 0, takeover_after_ms=1000
    )


def test_a_whole_tree_with_one_changed_text_takes_the_incremental_pass() -> None:
    dev = runtime()
    nodes = screen_nodes(200, 0)
    dev.ingest(TreePush(reason="initial", stable=True, tree=raw_tree(nodes, 1)))
    runs = dev.engine.incremental_runs
    changed = with_count(nodes, 1)
    tree = raw_tree(changed, 2)
    assert dev.changed_since_last(tree) == (COUNT_INDEX,)
    capture = dev.ingest(TreePush(reason="event", stable=True, tree=tree))
    assert capture is not None and dev.engine.incremental_runs == runs + 1
    fresh = normalize(tree, SnapshotContext("d", capture.normalized.full.snapshot_id, 0))
    assert isinstance(fresh, Normalized)
    assert capture.normalized.full.tree_hash == fresh.full.tree_hash
    assert capture.normalized.layout_hash == fresh.layout_hash
    assert [n.text for n in capture.normalized.full.nodes] == [n.text for n in fresh.full.nodes]


def test_a_reshaped_or_different_tree_is_not_taken_for_a_small_change() -> None:
    dev = runtime()
    nodes = screen_nodes(200, 0)
    dev.ingest(TreePush(reason="initial", stable=True, tree=raw_tree(nodes, 1)))
    assert dev.changed_since_last(raw_tree(nodes[:-1], 2)) is None  # a node fewer
    moved = list(nodes)
    moved[COUNT_INDEX] = msgspec.structs.replace(moved[COUNT_INDEX], parent=2)
    assert dev.changed_since_last(raw_tree(tuple(moved), 2)) is None  # another parent
    renamed = tuple(msgspec.structs.replace(n, text=f"x{i}") for i, n in enumerate(nodes))
    assert dev.changed_since_last(raw_tree(renamed, 2)) is None  # most nodes differ
    assert dev.changed_since_last(raw_tree(nodes, 2)) == ()  # the same screen again
