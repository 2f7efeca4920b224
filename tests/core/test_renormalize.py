"""The incremental normalization pass gives exactly what the full pass gives.

For every real dump in ../shared (and the simulated device's screens), a device's engine
(``NormalizeEngine``, reusing what did not change) and the full pass (``normalize`` with the
device's allocator, as the hub always did) are fed the same sequence of captures: the dump,
then random perturbations of it — texts, labels, values, hints, ids, classes, flags, bounds,
actions, row indexes, packages, windows, a node added or removed, a revert to an earlier
capture, the same capture again. After every capture both must give identical full and
compact snapshots, layout hashes, handles, screens and compact cuts, and their id allocators
must be in identical states; the engine's ``changed`` names exactly the nodes that differ
from the previous snapshot.
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.core.identity import IdAllocator
from bridge.core.normalize import (
    Normalized,
    NormalizeEngine,
    SnapshotContext,
    normalize,
)
from bridge.core.tree import NodeTree
from bridge.devices.sim.capture import HandleRegistry
from bridge.devices.sim.device import DemoDevice
from bridge.devices.sim.session import AgentSession
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.core.realdumps import dump_paths, raw_of

CLASSES = (
    "android.widget.TextView",
    "android.widget.Button",
    "android.widget.EditText",
    "android.widget.CheckBox",
    "android.widget.ImageView",
    "android.view.View",
    "android.widget.FrameLayout",
    "androidx.recyclerview.widget.RecyclerView",
    "com.google.android.material.tabs.TabLayout$TabView",
    "android.view.SurfaceView",
    "XCUIElementTypeButton",
    "XCUIElementTypeStaticText",
    "XCUIElementTypeCell",
    "XCUIElementTypeKeyboard",
)
FLAGS = (
    "clickable",
    "long_clickable",
    "checkable",
    "checked",
    "enabled",
    "focusable",
    "focused",
    "selected",
    "scrollable",
    "editable",
    "password",
    "visible",
    "heading",
)
WORDS = ("Continue", "Item 3", "Order 1001", "12:05 PM", "Delete", "", "  ", "Done", "Tab 2 of 4")


def _sim_trees() -> list[RawTree]:
    out = []
    for platform in Platform:
        for scene in ("login", "list", "settings", "home", "dialog"):
            device = DemoDevice(platform, now=0.0, start=scene, animations=False)
            out.append(AgentSession(device, HandleRegistry()).capture(0.5))
    return out


SOURCES: list[tuple[str, RawTree]] = [(p.name, raw_of(p)) for p in dump_paths()] + [
    (f"sim-{i}", t) for i, t in enumerate(_sim_trees())
]


def _mutate_node(rng: random.Random, node: RawNode) -> RawNode:
    what = rng.randrange(12)
    if what == 0:
        return msgspec.structs.replace(node, text=rng.choice((*WORDS, None, node.hint)))
    if what == 1:
        return msgspec.structs.replace(node, label=rng.choice((*WORDS, None)))
    if what == 2:
        return msgspec.structs.replace(node, value=rng.choice((*WORDS, None, "1", "0")))
    if what == 3:
        return msgspec.structs.replace(node, hint=rng.choice((*WORDS, None)))
    if what == 4:
        aid = rng.choice((None, "app:id/row", "app:id/alertTitle", "__screen_x", "app:id/z"))
        return msgspec.structs.replace(node, automation_id=aid)
    if what == 5:
        return msgspec.structs.replace(node, class_name=rng.choice(CLASSES))
    if what == 6:
        flag = rng.choice(FLAGS)
        return msgspec.structs.replace(node, **{flag: not getattr(node, flag)})
    if what == 7:
        if node.bounds is None or rng.random() < 0.2:
            box = rng.choice((None, (0, 0, 1080, 2400), (10, 10, 60, 60)))
            return msgspec.structs.replace(node, bounds=box)
        left, top, right, bottom = node.bounds
        dy = rng.randrange(-50, 50)
        return msgspec.structs.replace(node, bounds=(left, top + dy, right, bottom + dy))
    if what == 8:
        actions = rng.choice(((), ("click",), ("click", "longClick"), ("scrollForward",)))
        return msgspec.structs.replace(node, actions=actions)
    if what == 9:
        return msgspec.structs.replace(
            node,
            item_row=rng.choice((None, 0, 3, 7)),
            collection_rows=rng.choice((node.collection_rows, None, 10)),
        )
    if what == 10:
        package = rng.choice((node.package, "com.google.android.inputmethod.latin", "x.y"))
        return msgspec.structs.replace(node, package=package)
    return msgspec.structs.replace(node, window=node.window + rng.choice((0, 1)))


def _perturb(rng: random.Random, tree: RawTree, history: list[RawTree]) -> RawTree:
    roll = rng.random()
    if roll < 0.08:
        return tree
    if roll < 0.14 and len(history) > 1:
        return rng.choice(history[:-1])
    nodes = list(tree.nodes)
    if roll < 0.2 and len(nodes) > 2:
        # a leaf goes (the shape changes: the full pass runs)
        leaves = [i for i in range(1, len(nodes)) if all(n.parent != i for n in nodes)]
        gone = rng.choice(leaves)
        kept = [n for i, n in enumerate(nodes) if i != gone]
        nodes = [
            msgspec.structs.replace(n, parent=n.parent - (1 if n.parent > gone else 0))
            for n in kept
        ]
        return msgspec.structs.replace(tree, nodes=tuple(nodes))
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        i = rng.randrange(len(nodes))
        nodes[i] = _mutate_node(rng, nodes[i])
    return msgspec.structs.replace(tree, nodes=tuple(nodes))


def _same(
    engine_out: object,
    full_out: object,
    engine: NormalizeEngine,
    ids: IdAllocator,
    lookups: bool = True,
) -> None:
    assert isinstance(engine_out, Normalized) and isinstance(full_out, Normalized)
    assert engine_out.full == full_out.full
    assert engine_out.compact == full_out.compact
    assert engine_out.layout_hash == full_out.layout_hash
    assert engine_out.handles == full_out.handles
    assert engine_out.screens == full_out.screens
    assert engine_out.cut == full_out.cut
    assert engine.ids.next_id == ids.next_id
    assert engine.ids.previous == ids.previous
    assert engine.ids.spots == ids.spots
    tree = engine_out.tree
    assert tree is not None
    fresh = NodeTree(engine_out.full.nodes)
    assert tree.nodes == fresh.nodes and tree.by_id == fresh.by_id
    assert tree.parent == fresh.parent and tree.children == fresh.children
    assert tree.order == fresh.order
    if not lookups:
        return  # left unbuilt: the next capture's lookups derive from an older capture's
    # the lookups (derived from an earlier capture's when the shape held) are exactly what a
    # fresh build gives
    derived, built = tree.index, fresh.index
    for name in ("ids", "short", "text", "text_norm", "hint", "hint_norm", "label"):
        assert getattr(derived, name) == getattr(built, name), name
    for name in ("label_norm", "role", "name", "item"):
        assert getattr(derived, name) == getattr(built, name), name


def _changed_is_exact(before: Normalized, after: Normalized) -> None:
    if after.changed is None:
        return
    old = {n.node_id: n for n in before.full.nodes}
    differ = {n.node_id for n in after.full.nodes if old.get(n.node_id) != n}
    assert set(after.changed) == differ
    # and every unchanged node is the very object of the previous snapshot
    assert all(old[n.node_id] is n for n in after.full.nodes if n.node_id not in differ)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    source=st.integers(0, max(0, len(SOURCES) - 1)),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(2, 8),
    hinted=st.booleans(),
)
def test_incremental_pass_equals_full_pass(
    source: int, seed: int, steps: int, hinted: bool
) -> None:
    _, tree = SOURCES[source]
    rng = random.Random(seed)
    engine = NormalizeEngine()
    ids = IdAllocator()
    history = [tree]
    previous: Normalized | None = None
    for step in range(steps + 1):
        if step:
            tree = _perturb(rng, history[-1], history)
            history.append(tree)
        ctx = SnapshotContext("dev", f"s_{step + 1}", 1000 + step)
        hint = None
        if hinted and step and len(tree.nodes) == len(history[-2].nodes):
            pairs = zip(history[-2].nodes, tree.nodes, strict=True)
            hint = [i for i, (a, b) in enumerate(pairs) if a != b]
            hint += [rng.randrange(len(tree.nodes))]  # a superset is fine
        got = engine.run(tree, ctx, hint)
        want = normalize(tree, ctx, ids)
        _same(got, want, engine, ids, lookups=rng.random() < 0.5)
        assert isinstance(got, Normalized)
        if previous is not None:
            _changed_is_exact(previous, got)
        previous = got
    assert engine.full_runs + engine.incremental_runs == steps + 1


def test_a_one_field_change_is_incremental_and_keeps_every_other_node() -> None:
    with_text = [s for s in SOURCES if any(n.text for n in s[1].nodes)]
    assert with_text, "the simulated screens alone have texts"
    name, tree = max(with_text, key=lambda s: len(s[1].nodes))
    engine = NormalizeEngine()
    ctx = SnapshotContext("dev", "s_1", 0)
    first = engine.run(tree, ctx)
    assert isinstance(first, Normalized)
    i = next(i for i, n in enumerate(tree.nodes) if n.text)
    nodes = list(tree.nodes)
    nodes[i] = msgspec.structs.replace(nodes[i], text=(nodes[i].text or "") + " (edited)")
    second = engine.run(msgspec.structs.replace(tree, nodes=tuple(nodes)), ctx)
    assert isinstance(second, Normalized)
    assert engine.incremental_runs == 1, name
    assert second.changed is not None and 1 <= len(second.changed) <= 3
    shared = sum(a is b for a, b in zip(first.full.nodes, second.full.nodes, strict=True))
    assert shared >= len(tree.nodes) - 3


def test_reuses_says_beforehand_which_pass_run_will_take_and_reset_forgets() -> None:
    """``reuses`` is the hub's cheap question before a run (it decides whether the run may
    happen on the event loop): it must agree with what ``run`` then does, and change
    nothing itself."""
    with_text = [s for s in SOURCES if any(n.text for n in s[1].nodes)]
    name, tree = max(with_text, key=lambda s: len(s[1].nodes))
    ctx = SnapshotContext("dev", "s_1", 0)
    engine = NormalizeEngine()
    i = next(i for i, n in enumerate(tree.nodes) if n.text)
    nodes = list(tree.nodes)
    nodes[i] = msgspec.structs.replace(nodes[i], text=(nodes[i].text or "") + " (edited)")
    edited = msgspec.structs.replace(tree, nodes=tuple(nodes))
    # nothing seen yet: a full pass
    assert not engine.reuses(edited, [i])
    assert isinstance(engine.run(tree, ctx), Normalized)
    assert engine.reuses(edited, [i]), name
    assert engine.reuses(edited, []), name
    # asking twice changes nothing, and the run takes the pass it said
    assert engine.reuses(edited, [i])
    assert isinstance(engine.run(edited, ctx, [i]), Normalized)
    assert (engine.full_runs, engine.incremental_runs) == (1, 1)
    # indexes outside the tree, or more than a quarter of it changed: a full pass
    n = len(tree.nodes)
    assert not engine.reuses(edited, [n])
    assert not engine.reuses(edited, [-1])
    assert not engine.reuses(edited, list(range(n // 4 + 2)))
    assert engine.reuses(edited, list(range(min(n // 4 + 1, n))))
    # a node moved to another parent: a full pass
    j = next(k for k, node in enumerate(tree.nodes) if node.parent >= 1)
    moved = list(edited.nodes)
    moved[j] = msgspec.structs.replace(moved[j], parent=0)
    assert not engine.reuses(msgspec.structs.replace(edited, nodes=tuple(moved)), [j])
    # reset forgets the previous capture: the next run is a full pass
    engine.reset()
    assert not engine.reuses(edited, [i])
    assert isinstance(engine.run(edited, ctx, [i]), Normalized)
    assert (engine.full_runs, engine.incremental_runs) == (2, 1)


def test_sources_cover_real_dumps(shared_dir: Path) -> None:
    assert any(not name.startswith("sim-") for name, _ in SOURCES)


def test_a_one_shot_pass_equals_a_fresh_engine() -> None:
    """``normalize`` without an allocator (``normalize_once``: nothing is remembered for a
    next capture) gives exactly what a fresh engine's first run gives."""
    for name, tree in SOURCES:
        ctx = SnapshotContext("dev", "s_1", 0)
        once = normalize(tree, ctx)
        engine = NormalizeEngine().run(tree, ctx)
        assert isinstance(once, Normalized) and isinstance(engine, Normalized), name
        assert once.full == engine.full, name
        assert once.compact == engine.compact, name
        assert (once.layout_hash, once.handles, once.screens, once.cut) == (
            engine.layout_hash,
            engine.handles,
            engine.screens,
            engine.cut,
        ), name
