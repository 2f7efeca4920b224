"""Raw-tree deltas: the fixtures, the round trip, and every refusal.

- The golden ``tree_delta`` fixtures are what ``raw_delta`` writes between the golden trees,
  and applying them to the base tree gives the new trees exactly (the Java and Swift agents'
  tests hold their own diff to the same files).
- For random changes of real dumps — attributes, nodes added, removed and moved, tree-level
  fields — applying ``raw_delta(a, b)`` to a mirror of ``a`` gives ``b``; every node the delta
  did not touch is the very object it was; the changed indexes are given exactly when the
  shape stayed the same.
- A delta that does not fit is refused, never half applied.
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.core.raw_delta import DeltaRefused, RawMirror, raw_delta
from bridge.wire.agent_link import TreeDelta, TreePush
from bridge.wire.codec import AGENT_TO_HUB, encode
from bridge.wire.raw import RawNode, RawTree
from tests.core.realdumps import dump_paths, raw_of
from tests.skips import SHARED_ABSENT

FIXTURES = Path(__file__).resolve().parents[2] / "protocol" / "fixtures" / "agent-link"


def _fixture(name: str) -> object:
    message = AGENT_TO_HUB.decode((FIXTURES / "agent-to-hub" / name).read_bytes())
    assert not isinstance(message, Exception)
    return message


def _tree(name: str) -> RawTree:
    push = _fixture(name)
    assert isinstance(push, TreePush)
    return push.tree


def _delta(name: str) -> TreeDelta:
    delta = _fixture(name)
    assert isinstance(delta, TreeDelta)
    return delta


def _mirror(tree: RawTree) -> RawMirror:
    mirror = RawMirror.of(tree)
    assert mirror is not None
    return mirror


@pytest.mark.parametrize(
    ("delta_name", "after_name", "same_shape"),
    [
        ("tree_delta.json", "tree--checked.json", True),
        ("tree_delta--reshape.json", "tree--error.json", False),
    ],
)
def test_fixture_deltas_apply_to_the_base_tree_and_are_what_raw_delta_writes(
    delta_name: str, after_name: str, same_shape: bool
) -> None:
    base, after, delta = _tree("tree.json"), _tree(after_name), _delta(delta_name)
    applied = _mirror(base).apply(delta)
    assert not isinstance(applied, DeltaRefused), applied
    mirror, changed = applied
    assert mirror.tree == after
    if same_shape:
        assert changed == tuple(
            i for i, (a, b) in enumerate(zip(base.nodes, after.nodes, strict=True)) if a != b
        )
    else:
        assert changed is None
    body = raw_delta(base, after)
    assert body is not None
    assert encode(body.message(delta.reason, delta.stable, delta.quiet_ms)) == encode(delta)


def _perturb(rng: random.Random, tree: RawTree, next_handle: int) -> RawTree:
    nodes = list(tree.nodes)
    parents = [nodes[n.parent].handle if n.parent >= 0 else -1 for n in nodes]
    for _ in range(rng.choice((1, 2, 3))):
        what = rng.randrange(6)
        i = rng.randrange(len(nodes))
        if what == 0:
            nodes[i] = msgspec.structs.replace(nodes[i], text=f"t{rng.randrange(99)}")
        elif what == 1:
            nodes[i] = msgspec.structs.replace(nodes[i], checked=not nodes[i].checked)
        elif what == 2 and len(nodes) > 2 and parents[i] != -1:
            # a subtree goes
            gone = {nodes[i].handle}
            for j in range(i + 1, len(nodes)):
                if parents[j] in gone:
                    gone.add(nodes[j].handle)
            keep = [k for k in range(len(nodes)) if nodes[k].handle not in gone]
            nodes, parents = [nodes[k] for k in keep], [parents[k] for k in keep]
        elif what == 3:
            # a new leaf under node i, placed first among its children
            leaf = RawNode(handle=next_handle, parent=-1, window=nodes[i].window, text="new")
            next_handle += 1
            nodes.insert(i + 1, leaf)
            parents.insert(i + 1, nodes[i].handle)
        elif what == 4 and parents[i] != -1:
            # a leaf moves: it becomes the last child of the last root (still pre-order)
            if not any(p == nodes[i].handle for p in parents):
                node, _ = nodes.pop(i), parents.pop(i)
                last_root = max(k for k, p in enumerate(parents) if p == -1)
                nodes.append(node)
                parents.append(nodes[last_root].handle)
        else:
            box = nodes[i].bounds or (0, 0, 1, 1)
            nodes[i] = msgspec.structs.replace(
                nodes[i], bounds=(box[0], box[1] + 5, box[2], box[3] + 5)
            )
    index = {n.handle: k for k, n in enumerate(nodes)}
    fixed = tuple(
        msgspec.structs.replace(n, parent=index[p] if p >= 0 else -1)
        for n, p in zip(nodes, parents, strict=True)
    )
    focus = tree.focus if tree.focus in index else None
    return msgspec.structs.replace(tree, capture=tree.capture + 1, nodes=fixed, focus=focus)


SOURCES = [raw_of(p) for p in dump_paths()]


@pytest.mark.skipif(not SOURCES, reason=SHARED_ABSENT)
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(source=st.integers(0, max(0, len(SOURCES) - 1)), seed=st.integers(0, 2**31))
def test_a_delta_applied_to_its_base_gives_the_new_tree(source: int, seed: int) -> None:
    rng = random.Random(seed)
    tree = SOURCES[source]
    mirror = RawMirror.of(tree)
    if mirror is None:
        return  # handles repeat in this dump: its agent would always send full trees
    for step in range(4):
        new = _perturb(rng, mirror.tree, 1_000_000 + 10 * step)
        if rng.random() < 0.2:
            new = msgspec.structs.replace(new, rotation=90, package="com.other")
        body = raw_delta(mirror.tree, new)
        if body is None:
            mirror = _mirror(new)
            continue
        applied = mirror.apply(body.message("event", True))
        assert not isinstance(applied, DeltaRefused), applied
        after, changed = applied
        assert after.tree == new
        touched = {n.handle for n in body.upsert}
        old = {n.handle: n for n in mirror.tree.nodes}
        for node in after.tree.nodes:
            if node.handle not in touched and old[node.handle].parent == node.parent:
                assert node is old[node.handle]
        same_shape = [(n.handle, n.parent) for n in mirror.tree.nodes] == [
            (n.handle, n.parent) for n in new.nodes
        ]
        if changed is not None:
            assert same_shape
            assert set(changed) == {
                i
                for i, (a, b) in enumerate(zip(mirror.tree.nodes, new.nodes, strict=True))
                if a != b
            }
        elif not body.remove and not body.order:
            pytest.fail("an attribute-only delta must report its changed indexes")
        mirror = after


def _small() -> RawTree:
    return RawTree(
        capture=1,
        platform=_tree("tree.json").platform,
        nodes=(
            RawNode(handle=10, parent=-1),
            RawNode(handle=11, parent=0, text="a"),
            RawNode(handle=12, parent=0, text="b"),
        ),
    )


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"base": 5}, "base"),
        ({"remove": (99,)}, "unknown handle 99"),
        ({"remove": (11,)}, "unknown handle 11"),  # still placed under 10: refused
        ({"upsert": (RawNode(handle=13, parent=10),)}, "unreachable"),
        ({"order": {"10": (11, 11, 12)}}, "placed twice"),
        ({"order": {"": (10, 11)}}, "placed twice"),
        (
            {"upsert": (RawNode(handle=12, parent=11),), "order": {"10": (12,), "11": ()}},
            "another parent",
        ),
        ({"order": {"x": (1,)}}, "not a handle"),
        ({"order": {"77": ()}}, "unknown parent"),
    ],
)
def test_a_delta_that_does_not_fit_is_refused(fields: dict[str, object], why: str) -> None:
    fields = {"base": 1, **fields}
    delta = TreeDelta(reason="event", stable=True, capture=2, **fields)  # type: ignore[arg-type]
    got = _mirror(_small()).apply(delta)
    assert isinstance(got, DeltaRefused) and why in got.reason, got


def test_a_tree_whose_handles_repeat_has_no_mirror_and_no_delta() -> None:
    tree = _small()
    twice = msgspec.structs.replace(
        tree, nodes=(*tree.nodes, RawNode(handle=11, parent=0, text="again"))
    )
    assert RawMirror.of(twice) is None
    assert raw_delta(tree, twice) is None


def _edit(**fields: object) -> TreeDelta:
    fields = {"base": 1, "capture": 2, **fields}
    return TreeDelta(reason="event", stable=True, **fields)  # type: ignore[arg-type]


def _applied(mirror: RawMirror, delta: TreeDelta) -> tuple[RawMirror, tuple[int, ...] | None]:
    got = mirror.apply(delta)
    assert not isinstance(got, DeltaRefused), got
    return got


def test_every_tree_level_field_of_a_delta_reaches_the_tree() -> None:
    from bridge.wire.agent_link import RawMeta
    from bridge.wire.raw import RawWindow, ScreenSize

    meta = RawMeta(
        windows=(RawWindow(id=3),), package="com.shop", focus=12, rotation=90,
        screen=ScreenSize(width=1080, height=2400), secure=True, truncated="cut",
        warnings=("slow",),
    )  # fmt: skip
    mirror, changed = _applied(_mirror(_small()), _edit(meta=meta))
    tree = mirror.tree
    assert changed == ()
    assert (tree.windows, tree.package, tree.focus, tree.rotation) == (
        (RawWindow(id=3),), "com.shop", 12, 90,
    )  # fmt: skip
    assert (tree.screen, tree.secure, tree.truncated, tree.warnings) == (
        ScreenSize(width=1080, height=2400), True, "cut", ("slow",),
    )  # fmt: skip
    assert tree.capture == 2 and tree.nodes == _small().nodes


def test_a_focus_on_no_node_is_refused_whatever_the_shape() -> None:
    from bridge.wire.agent_link import RawMeta

    same_shape = _edit(meta=RawMeta(focus=99))
    assert _mirror(_small()).apply(same_shape) == DeltaRefused(
        "focus 99 is not a handle of the tree"
    )
    reshaped = _edit(meta=RawMeta(focus=12), remove=(12,), order={"10": (11,)})
    assert _mirror(_small()).apply(reshaped) == DeltaRefused("focus 12 is not a handle of the tree")
    kept = _edit(meta=RawMeta(focus=11), remove=(12,), order={"10": (11,)})
    mirror, changed = _applied(_mirror(_small()), kept)
    assert changed is None and mirror.tree.focus == 11


def test_refusal_reasons_name_what_did_not_fit() -> None:
    mirror = _mirror(_small())
    assert mirror.apply(_edit(base=7)) == DeltaRefused("delta base 7 is not the last capture 1")
    assert mirror.apply(_edit(upsert=(RawNode(handle=13, parent=10),))) == DeltaRefused(
        "delta leaves nodes unreachable from the roots"
    )
    assert mirror.apply(_edit(order={"10": (11, 14)})) == DeltaRefused(
        "delta places unknown handle 14"
    )
    assert mirror.apply(_edit(order={"y" * 30: ()})) == DeltaRefused(
        f"order key {'y' * 20!r} is not a handle"
    )


def test_mirrors_made_by_either_path_take_the_next_edit() -> None:
    first, changed = _applied(
        _mirror(_small()), _edit(upsert=(RawNode(handle=12, parent=10, text="B"),))
    )
    assert changed == (2,)
    # the same-shape mirror still knows its indexes and parents: a reshaping delta applies
    second, changed = _applied(first, _edit(base=2, capture=3, remove=(11,), order={"10": (12,)}))
    assert changed is None
    assert [(n.handle, n.parent, n.text) for n in second.tree.nodes] == [
        (10, -1, None),
        (12, 0, "B"),
    ]
    # and the rebuilt mirror does too, on both paths
    third, changed = _applied(
        second, _edit(base=3, capture=4, upsert=(RawNode(handle=12, parent=10, text="C"),))
    )
    assert changed == (1,) and third.tree.nodes[1].text == "C"
    fourth, changed = _applied(
        third,
        _edit(base=4, capture=5, upsert=(RawNode(handle=15, parent=12),), order={"12": (15,)}),
    )
    assert changed is None
    assert [(n.handle, n.parent) for n in fourth.tree.nodes] == [(10, -1), (12, 0), (15, 1)]
    assert fourth.kids() == {-1: [10], 10: [12], 12: [15]}


def test_raw_delta_sends_meta_only_when_a_tree_level_field_changed() -> None:
    tree = _small()
    moved = msgspec.structs.replace(tree, capture=2, rotation=180)
    body = raw_delta(tree, moved)
    assert body is not None and body.meta is not None and body.meta.rotation == 180
    assert (body.base, body.capture, body.remove, body.upsert, body.order) == (1, 2, (), (), {})
    same = raw_delta(tree, msgspec.structs.replace(tree, capture=2))
    assert same is not None and same.meta is None
    message = body.message("event", stable=False, quiet_ms=40)
    assert (message.base, message.capture, message.meta, message.quiet_ms) == (1, 2, body.meta, 40)
    assert (message.reason, message.stable) == ("event", False)


def test_a_node_that_only_moved_in_the_list_is_not_sent_again() -> None:
    tree = _small()
    # a new root before the old one shifts every index: only the new node and the order go
    grown = msgspec.structs.replace(
        tree,
        capture=2,
        nodes=(
            RawNode(handle=20, parent=-1),
            RawNode(handle=10, parent=-1),
            RawNode(handle=11, parent=1, text="a"),
            RawNode(handle=12, parent=1, text="b"),
        ),
    )
    body = raw_delta(tree, grown)
    assert body is not None
    assert body.upsert == (RawNode(handle=20, parent=-1),)
    assert body.order == {"": (20, 10)}
    mirror, _ = _applied(_mirror(tree), body.message("event", True))
    assert mirror.tree.nodes == grown.nodes


def test_raw_delta_gives_up_past_half_the_nodes_changed() -> None:
    tree = msgspec.structs.replace(
        _small(), nodes=(*_small().nodes, RawNode(handle=13, parent=0, text="c"))
    )  # four nodes

    def texts(*changed: int) -> RawTree:
        return msgspec.structs.replace(
            tree,
            capture=2,
            nodes=tuple(
                msgspec.structs.replace(n, text="new") if n.handle in changed else n
                for n in tree.nodes
            ),
        )

    half = raw_delta(tree, texts(11, 12))
    assert half is not None and len(half.upsert) == 2
    assert raw_delta(tree, texts(11, 12, 13)) is None
    one = RawTree(capture=1, platform=tree.platform, nodes=(RawNode(handle=1, parent=-1),))
    lone = msgspec.structs.replace(one, capture=2, nodes=(RawNode(handle=1, parent=-1, text="x"),))
    assert raw_delta(one, lone) is None  # one node of one changed: more than half
