"""patch/apply law: apply(a, patch(a, b)) == b, on generated trees and on every real dump."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.identity import IdAllocator
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.patch import PatchMismatch, apply_patch, patch, unseen_changes
from bridge.wire.enums import Orientation, Role
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.snapshot import ScreenSnapshot
from tests.core.realdumps import dump_params, raw_of

ROLES = [Role.BUTTON, Role.TEXT, Role.UNKNOWN, Role.LIST_ITEM]


def snapshot(nodes: tuple[SemanticNode, ...], sid: str) -> ScreenSnapshot:
    return ScreenSnapshot(
        schema_version=1,
        device_id="d",
        snapshot_id=sid,
        timestamp=0,
        package_name="a.b",
        window_id=0,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x:0",
        compact=False,
        nodes=nodes,
        tree_hash="00",
    )


@st.composite
def trees(draw: st.DrawFn, pool: list[int]) -> tuple[SemanticNode, ...]:
    """A pre-order tree over a subset of node numbers from ``pool`` with random shape."""
    ids = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12, unique=True))
    nodes: list[SemanticNode] = []
    stack: list[str] = []
    for num in ids:
        depth = draw(st.integers(0, len(stack)))
        stack = stack[:depth]
        nodes.append(
            SemanticNode(
                node_id=f"n{num}",
                parent_id=stack[-1] if stack else None,
                role=draw(st.sampled_from(ROLES)),
                label=draw(st.sampled_from([None, "a", "b", "Sign in"])),
            )
        )
        stack.append(f"n{num}")
    return tuple(nodes)


@settings(max_examples=300, deadline=None)
@given(trees(list(range(1, 16))), trees(list(range(1, 16))))
def test_apply_of_patch_reproduces_target(
    a: tuple[SemanticNode, ...], b: tuple[SemanticNode, ...]
) -> None:
    sa, sb = snapshot(a, "s_1"), snapshot(b, "s_2")
    body = patch(sa, sb)
    out = apply_patch(sa, body)
    assert not isinstance(out, PatchMismatch), out
    assert out == sb


@settings(max_examples=100, deadline=None)
@given(trees(list(range(1, 16))))
def test_patch_of_identical_snapshot_is_empty(a: tuple[SemanticNode, ...]) -> None:
    assert patch(snapshot(a, "s_1"), snapshot(a, "s_2")).empty


def test_patch_on_wrong_base_is_refused() -> None:
    a = snapshot((SemanticNode(node_id="n1", role=Role.SCREEN),), "s_1")
    b = snapshot((SemanticNode(node_id="n2", role=Role.SCREEN),), "s_2")
    body = patch(a, b)
    assert isinstance(apply_patch(b, body), PatchMismatch)


def _perturb(raw: RawTree, seed: int) -> RawTree:
    """Drop one leaf, edit one text, shift a few bounds (deterministic by seed)."""
    nodes = list(raw.nodes)
    n = len(nodes)
    if n > 2:
        is_parent = {node.parent for node in nodes}
        leaves = [i for i in range(1, n) if i not in is_parent]
        if leaves:
            drop = leaves[seed % len(leaves)]
            nodes = [
                msgspec.structs.replace(node, parent=node.parent - (node.parent > drop))
                for i, node in enumerate(nodes)
                if i != drop
            ]
    for i in range(seed % 3, len(nodes), 5):
        node = nodes[i]
        if node.bounds is not None:
            left, top, right, bottom = node.bounds
            nodes[i] = msgspec.structs.replace(node, bounds=(left, top + 9, right, bottom + 9))
    k = (seed * 7) % len(nodes)
    nodes[k] = msgspec.structs.replace(nodes[k], text=f"edited {seed}")
    return msgspec.structs.replace(raw, nodes=tuple(nodes))


def _norm(raw: RawTree, sid: str, ids: IdAllocator) -> Normalized:
    out = normalize(raw, SnapshotContext("d", sid, 0), ids)
    assert isinstance(out, Normalized)
    return out


@pytest.mark.parametrize("path", dump_params())
def test_patch_law_on_real_dump_and_perturbed_copies(path: Path) -> None:
    raw = raw_of(path)
    for seed in range(3):
        ids = IdAllocator()
        a = _norm(raw, "s_1", ids)
        b = _norm(_perturb(raw, seed), "s_2", ids)
        for compact in (False, True):
            sa = a.compact if compact else a.full
            sb = b.compact if compact else b.full
            assert apply_patch(sa, patch(sa, sb)) == sb
            assert apply_patch(sb, patch(sb, sa)) == sa
        assert patch(a.full, msgspec.structs.replace(a.full, snapshot_id="s_9")).empty


def test_normalization_is_deterministic_and_compact_is_subset() -> None:
    raw = RawTree(
        capture=1,
        platform="ANDROID",  # type: ignore[arg-type]
        nodes=(
            RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout"),
            RawNode(handle=1, parent=0, class_name="android.widget.LinearLayout"),
            RawNode(
                handle=2, parent=1, class_name="android.widget.Button", text="OK", clickable=True
            ),
        ),
    )
    one = _norm(raw, "s_1", IdAllocator())
    two = _norm(raw, "s_1", IdAllocator())
    assert msgspec.json.encode(one.full) == msgspec.json.encode(two.full)
    full_ids = {n.node_id for n in one.full.nodes}
    assert {n.node_id for n in one.compact.nodes} <= full_ids
    assert [n.role for n in one.compact.nodes] == [Role.SCREEN, Role.BUTTON]
    assert one.compact.nodes[1].parent_id == one.compact.nodes[0].node_id


# ---- the engine's shortcut (``changed``) and what a compact subscriber cannot see ----------


def _n(nid: str, parent: str | None = None, label: str | None = None) -> SemanticNode:
    return SemanticNode(node_id=nid, parent_id=parent, role=Role.TEXT, label=label)


A_NODES = (_n("n1"), _n("n2", "n1", "a"), _n("n3", "n1", "b"), _n("n4", "n3", "c"))
B_NODES = (_n("n1"), _n("n2", "n1", "a2"), _n("n3", "n1", "b"), _n("n4", "n3", "c2"))


def test_a_patch_from_named_changes_holds_exactly_those_nodes_in_bs_order() -> None:
    a, b = snapshot(A_NODES, "s_1"), snapshot(B_NODES, "s_2")
    by_name = patch(a, b, ["n4", "n2"])
    assert by_name.base == "s_1"
    assert by_name.meta == msgspec.structs.replace(b, nodes=())
    assert (by_name.remove, by_name.order) == ((), {})
    assert [n.node_id for n in by_name.upsert] == ["n2", "n4"]  # b's order, from a scan
    assert by_name.upsert == (B_NODES[1], B_NODES[3])
    looked_up = patch(a, b, ["n4", "n2"], by_id={n.node_id: n for n in B_NODES})
    assert looked_up.upsert == (B_NODES[3], B_NODES[1])  # the caller's order, by lookup
    nothing = patch(a, b, [])
    assert nothing.empty and nothing.base == "s_1" and nothing.meta.nodes == ()
    assert apply_patch(a, by_name) == b
    assert patch(a, b) == by_name  # the same delta as comparing every node


def test_unseen_changes_name_what_the_compact_cut_hid() -> None:
    a, b = snapshot(A_NODES, "s_1"), snapshot(B_NODES, "s_2")
    assert unseen_changes(a, b, (), ()) == []  # nothing cut: a compact subscriber sees all
    assert unseen_changes(a, b, (), ("n4",)) == ["n4"]
    assert unseen_changes(a, b, ("n4",), ()) == []  # n4 was cut before and is not removed
    assert unseen_changes(a, b, (), ("n2", "n4")) == ["n2", "n4"]
    assert unseen_changes(a, b, (), ("n3",)) == []  # cut, but unchanged
    assert unseen_changes(a, b, (), ("n4",), changed=["n2", "n4"]) == ["n4"]
    assert unseen_changes(a, b, ("n4",), (), changed=["n2", "n4"]) == []
    # a removal is unseen when the removed node had been cut from a's compact view
    shrunk = snapshot((_n("n1"), _n("n2", "n1", "a"), _n("n3", "n1", "b")), "s_3")
    assert unseen_changes(a, shrunk, ("n4",), ()) == ["n4"]
    assert unseen_changes(a, shrunk, ("n2",), ()) == []
    grown = snapshot((*A_NODES, _n("n5", "n1", "new")), "s_4")
    assert unseen_changes(a, grown, ("n4",), ("n5",)) == ["n5"]
