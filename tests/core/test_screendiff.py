from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.identity import IdAllocator
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.screendiff import (
    SEMANTIC_FIELDS,
    bounds_moved,
    focus_change,
    is_empty,
    screen_diff,
)
from bridge.core.screendiff import _state_getter as _state_getter  # built at import
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionVerb, FocusChange, Orientation, Platform, Role
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.snapshot import ScreenSnapshot
from tests.conftest import SHARED_DIR, requires_shared

# ---- builders ----------------------------------------------------------------------------


def node(
    nid: str,
    parent: str | None = None,
    *,
    role: Role = Role.TEXT,
    bounds: Bounds | None = (0, 0, 100, 50),
    **fields: Any,
) -> SemanticNode:
    return SemanticNode(node_id=nid, parent_id=parent, role=role, bounds=bounds, **fields)


def snap(
    nodes: Sequence[SemanticNode], sid: str = "s_1", screen: str = "login:00000000"
) -> ScreenSnapshot:
    return ScreenSnapshot(
        schema_version=1,
        device_id="dev",
        snapshot_id=sid,
        timestamp=0,
        package_name="com.example.app",
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id=screen,
        compact=False,
        nodes=tuple(nodes),
        tree_hash="ab",
    )


FOCUSED = NodeState(focused=True)
BASE = (
    node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
    node("n2", "n1", role=Role.INPUT, label="Email", state=FOCUSED),
    node("n3", "n1", role=Role.INPUT, label="Password", state=NodeState(password=True)),
    node("n4", "n1", role=Role.BUTTON, label="Sign in", actions=(ActionVerb.CLICK,)),
    node("n5", "n1", text="12:00"),
)


def replace(nodes: Sequence[SemanticNode], nid: str, **changes: Any) -> tuple[SemanticNode, ...]:
    return tuple(msgspec.structs.replace(n, **changes) if n.node_id == nid else n for n in nodes)


# ---- examples ----------------------------------------------------------------------------


def test_identical_snapshots_give_an_empty_diff() -> None:
    diff = screen_diff(snap(BASE), snap(BASE, "s_2"))
    assert is_empty(diff)
    assert diff.screen_changed is False
    assert diff.focus_changed is not None
    assert diff.focus_changed.state is FocusChange.UNCHANGED
    assert (diff.from_snapshot, diff.to_snapshot) == ("s_1", "s_2")


def test_text_edit_is_changed_only() -> None:
    diff = screen_diff(snap(BASE), snap(replace(BASE, "n5", text="12:01")))
    assert diff.added == () and diff.removed == () and diff.moved == ()
    assert len(diff.changed) == 1
    assert diff.changed[0].node == "n5"
    assert set(diff.changed[0].fields) == {"text"}
    assert diff.changed[0].fields["text"].before == "12:00"
    assert diff.changed[0].fields["text"].after == "12:01"


def test_state_fields_are_reported_one_by_one() -> None:
    after = replace(BASE, "n4", state=NodeState(enabled=False, selected=True))
    diff = screen_diff(snap(BASE), snap(after))
    fields = diff.changed[0].fields
    assert set(fields) == {"state.enabled", "state.selected"}
    assert (fields["state.enabled"].before, fields["state.enabled"].after) == (True, False)


def test_checked_none_to_false_is_a_change() -> None:
    after = replace(BASE, "n4", state=NodeState(checked=False))
    diff = screen_diff(snap(BASE), snap(after))
    assert diff.changed[0].fields["state.checked"].before is None
    assert diff.changed[0].fields["state.checked"].after is False


def test_actions_role_collection_changes_are_json_values() -> None:
    after = replace(
        BASE,
        "n4",
        role=Role.LINK,
        actions=(ActionVerb.CLICK, ActionVerb.LONG_CLICK),
        collection=CollectionInfo(index=2, item_key="k"),
    )
    diff = screen_diff(snap(BASE), snap(after))
    fields = diff.changed[0].fields
    assert fields["role"].before == "BUTTON" and fields["role"].after == "LINK"
    assert fields["actions"].after == ["CLICK", "LONG_CLICK"]
    assert fields["collection"].before is None
    assert fields["collection"].after == {"index": 2, "itemKey": "k"}
    # the whole diff encodes as JSON
    msgspec.json.encode(diff)


def test_small_jitter_is_ignored_entirely() -> None:
    after = replace(BASE, "n4", bounds=(3, -4, 104, 46))
    diff = screen_diff(snap(BASE), snap(after))
    assert is_empty(diff)


def test_bounds_beyond_jitter_go_to_moved_only() -> None:
    after = replace(BASE, "n4", bounds=(0, 5, 100, 55))
    diff = screen_diff(snap(BASE), snap(after))
    assert diff.changed == ()
    assert len(diff.moved) == 1
    assert diff.moved[0].node == "n4"
    assert diff.moved[0].from_bounds == (0, 0, 100, 50)
    assert diff.moved[0].to_bounds == (0, 5, 100, 55)
    assert "bounds" not in SEMANTIC_FIELDS


def test_jitter_threshold_is_configurable() -> None:
    after = replace(BASE, "n4", bounds=(0, 3, 100, 53))
    assert screen_diff(snap(BASE), snap(after), jitter_px=2).moved
    assert not screen_diff(snap(BASE), snap(after), jitter_px=3).moved


def test_bounds_appearing_is_a_move() -> None:
    after = replace(BASE, "n4", bounds=None)
    diff = screen_diff(snap(BASE), snap(after))
    assert [m.node for m in diff.moved] == ["n4"]
    assert diff.moved[0].to_bounds is None


def test_reparenting_is_a_move_even_without_bounds_change() -> None:
    nodes = (*BASE, node("n6", "n1", role=Role.LIST))
    after = replace(nodes, "n5", parent_id="n6")
    diff = screen_diff(snap(nodes), snap(after))
    assert [m.node for m in diff.moved] == ["n5"]
    assert diff.added == () and diff.removed == ()


ROWS = (
    node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
    node("n2", "n1", role=Role.LIST, bounds=(0, 0, 1080, 1920)),
    node("n3", "n2", role=Role.LIST_ITEM, bounds=(0, 100, 1080, 200)),
    node("n4", "n3", text="row 1", bounds=(10, 110, 500, 190)),
    node("n5", "n4", text="deep", bounds=(20, 120, 400, 180)),
    node("n6", "n3", role=Role.IMAGE, bounds=(900, 110, 1000, 190)),
)


def _shift(nodes: Sequence[SemanticNode], dy: int, ids: set[str]) -> tuple[SemanticNode, ...]:
    return tuple(
        msgspec.structs.replace(n, bounds=(b[0], b[1] + dy, b[2], b[3] + dy))
        if n.node_id in ids and (b := n.bounds) is not None
        else n
        for n in nodes
    )


def test_nodes_carried_by_their_parent_are_not_listed() -> None:
    after = _shift(ROWS, -60, {"n3", "n4", "n5", "n6"})
    diff = screen_diff(snap(ROWS), snap(after))
    assert [m.node for m in diff.moved] == ["n3"]
    full = screen_diff(snap(ROWS), snap(after), list_carried=True)
    assert [m.node for m in full.moved] == ["n3", "n4", "n5", "n6"]


def test_a_child_moving_differently_from_its_parent_is_listed() -> None:
    after = _shift(_shift(ROWS, -60, {"n3", "n4", "n5", "n6"}), 20, {"n6"})
    diff = screen_diff(snap(ROWS), snap(after))
    assert [m.node for m in diff.moved] == ["n3", "n6"]


def test_a_carried_node_still_reports_its_changes() -> None:
    after = replace(_shift(ROWS, -60, {"n3", "n4", "n5", "n6"}), "n4", text="row 9")
    diff = screen_diff(snap(ROWS), snap(after))
    assert [m.node for m in diff.moved] == ["n3"]
    assert [c.node for c in diff.changed] == ["n4"]


def test_added_and_removed_by_id() -> None:
    after = (*BASE[:4], node("n9", "n1", text="Welcome"))
    diff = screen_diff(snap(BASE), snap(after))
    assert [n.node_id for n in diff.added] == ["n9"]
    assert diff.added[0].text == "Welcome"
    assert diff.removed == ("n5",)


def test_added_is_capped_in_document_order() -> None:
    extra = tuple(node(f"n{100 + i}", "n1", text=f"row {i}") for i in range(50))
    diff = screen_diff(snap(BASE), snap((*BASE, *extra)), max_added=40, max_added_bytes=None)
    assert [n.node_id for n in diff.added] == [f"n{100 + i}" for i in range(40)]
    assert len(screen_diff(snap(BASE), snap((*BASE, *extra)), max_added=0).added) == 0


def test_added_is_capped_by_encoded_size_as_a_prefix() -> None:
    extra = tuple(node(f"n{100 + i}", "n1", text="x" * (10 if i != 3 else 5000)) for i in range(8))
    diff = screen_diff(snap(BASE), snap((*BASE, *extra)), max_added_bytes=3_000)
    assert [n.node_id for n in diff.added] == ["n100", "n101", "n102"]  # n103 is too big
    assert len(msgspec.json.encode(diff.added)) <= 3_000
    whole = screen_diff(snap(BASE), snap((*BASE, *extra)), max_added_bytes=None)
    assert len(whole.added) == 8


def test_screen_changed_follows_screen_state_id() -> None:
    assert screen_diff(snap(BASE), snap(BASE, screen="home:1")).screen_changed is True
    assert screen_diff(snap(BASE), snap(replace(BASE, "n5", text="x"))).screen_changed is False


def test_password_values_never_appear() -> None:
    # Snapshots never hold a password's value; even when one does, the diff does not copy it.
    leaky = replace(BASE, "n3", value="hunter2")
    diff = screen_diff(snap(BASE), snap(leaky))
    assert b"hunter2" not in msgspec.json.encode(diff)
    assert diff.changed == ()
    added = (
        *BASE,
        node("n7", "n1", role=Role.INPUT, value="hunter2", state=NodeState(password=True)),
    )
    diff = screen_diff(snap(BASE), snap(added))
    assert [n.node_id for n in diff.added] == ["n7"]
    assert diff.added[0].value is None
    assert b"hunter2" not in msgspec.json.encode(diff)
    # a field losing its password flag is reported as a flag change, never as its value
    unmasked = replace(leaky, "n3", state=None)
    diff = screen_diff(snap(leaky), snap(unmasked))
    assert set(diff.changed[0].fields) == {"state.password"}


# ---- focus ---------------------------------------------------------------------------------


def _focus(nodes: Sequence[SemanticNode], *focused: str) -> tuple[SemanticNode, ...]:
    return tuple(
        msgspec.structs.replace(n, state=FOCUSED if n.node_id in focused else None) for n in nodes
    )


PLAIN = tuple(node(f"n{i}", None if i == 1 else "n1") for i in range(1, 6))


@pytest.mark.parametrize(
    ("before", "after", "after_ids", "expected"),
    [
        ((), (), None, None),
        (("n2",), ("n2",), None, (FocusChange.UNCHANGED, "n2", "n2")),
        (("n2",), ("n3",), None, (FocusChange.CHANGED, "n2", "n3")),
        (("n2",), (), None, (FocusChange.CHANGED, "n2", None)),
        ((), ("n3",), None, (FocusChange.CHANGED, None, "n3")),
        (("n2", "n3"), ("n3",), None, (FocusChange.UNKNOWN, None, "n3")),
        # the old focused node is gone while something is focused: maybe it under a new id
        (("n2",), ("n4",), ("n1", "n3", "n4", "n5"), (FocusChange.UNKNOWN, "n2", "n4")),
        # the old focused node is gone and nothing is focused: focus went nowhere
        (("n2",), (), ("n1", "n3", "n4", "n5"), (FocusChange.CHANGED, "n2", None)),
        # still focused, but another node too
        (("n2",), ("n2", "n3"), None, (FocusChange.UNKNOWN, "n2", None)),
        # moved away from a still-present node to several: changed, target not unique
        (("n2",), ("n3", "n4"), None, (FocusChange.CHANGED, "n2", None)),
    ],
)
def test_focus_tri_state(
    before: tuple[str, ...],
    after: tuple[str, ...],
    after_ids: tuple[str, ...] | None,
    expected: tuple[FocusChange, str | None, str | None] | None,
) -> None:
    a = _focus(PLAIN, *before)
    b = _focus(PLAIN, *after)
    if after_ids is not None:
        b = tuple(n for n in b if n.node_id in after_ids)
    change = focus_change(a, b)
    if expected is None:
        assert change is None
    else:
        assert change is not None
        assert (change.state, change.from_, change.to) == expected


def test_focus_unknown_when_old_id_is_duplicated_in_b() -> None:
    a = _focus(PLAIN, "n2")
    b = (*_focus(PLAIN, "n3"), node("n2", "n1"))
    change = focus_change(a, b)
    assert change is not None and change.state is FocusChange.UNKNOWN


def test_focus_encodes_from_on_the_wire() -> None:
    diff = screen_diff(snap(_focus(PLAIN, "n2")), snap(_focus(PLAIN, "n3")))
    doc = msgspec.json.decode(msgspec.json.encode(diff))
    assert doc["focusChanged"] == {"state": "CHANGED", "from": "n2", "to": "n3"}


# ---- normalized snapshots ----------------------------------------------------------------


def _raw(email_text: str, with_error: bool, button_top: int) -> RawTree:
    nodes = [
        RawNode(
            handle=0, parent=-1, class_name="android.widget.FrameLayout", bounds=(0, 0, 1080, 1920)
        ),
        RawNode(
            handle=1,
            parent=0,
            class_name="android.widget.EditText",
            automation_id="com.example:id/email",
            text=email_text,
            editable=True,
            focusable=True,
            bounds=(40, 200, 1040, 300),
        ),
        RawNode(
            handle=2,
            parent=0,
            class_name="android.widget.Button",
            automation_id="com.example:id/sign_in",
            text="Sign in",
            clickable=True,
            bounds=(40, button_top, 1040, button_top + 100),
        ),
    ]
    if with_error:
        nodes.append(
            RawNode(
                handle=3,
                parent=0,
                class_name="android.widget.TextView",
                text="Wrong password",
                bounds=(40, 600, 1040, 650),
            )
        )
    return RawTree(capture=1, platform=Platform.ANDROID, nodes=tuple(nodes), package="com.example")


def _normalize(raw: RawTree, ids: IdAllocator, sid: str) -> Normalized:
    result = normalize(raw, SnapshotContext("dev", sid, 0), ids)
    assert isinstance(result, Normalized)
    return result


def test_normalized_login_flow() -> None:
    ids = IdAllocator()
    a = _normalize(_raw("", False, 400), ids, "s_a").full
    b = _normalize(_raw("me@example.com", True, 402), ids, "s_b").full
    diff = screen_diff(a, b)
    email = next(n for n in a.nodes if n.resource_id == "com.example:id/email")
    assert [c.node for c in diff.changed] == [email.node_id]
    assert [n.text for n in diff.added] == ["Wrong password"]
    assert diff.removed == ()
    assert diff.moved == ()  # the button moved 2 px: jitter
    assert diff.screen_changed is False


@requires_shared
def test_diffs_validate_against_the_reference_schema() -> None:
    spec = importlib.util.spec_from_file_location("conform", SHARED_DIR / "tools" / "conform.py")
    assert spec is not None and spec.loader is not None
    conform = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conform)
    validator = conform.validator("diff")
    cases = [
        screen_diff(snap(BASE), snap(BASE)),
        screen_diff(snap(_focus(PLAIN, "n2")), snap(_focus(PLAIN, "n3"), screen="x:1")),
        screen_diff(snap(BASE), snap((*BASE[:3], node("n9", "n1", text="hi")))),
        screen_diff(snap(BASE), snap(replace(BASE, "n4", bounds=(0, 50, 100, 100), label="Go"))),
    ]
    for diff in cases:
        doc = msgspec.json.decode(msgspec.json.encode(diff))
        assert [e.message for e in validator.iter_errors(doc)] == []


# ---- properties ----------------------------------------------------------------------------

_POOL = [f"n{i}" for i in range(1, 16)]


@st.composite
def snapshots_pair(draw: st.DrawFn) -> tuple[ScreenSnapshot, ScreenSnapshot]:
    def nodes_from(ids: list[str]) -> tuple[SemanticNode, ...]:
        out: list[SemanticNode] = []
        for i, nid in enumerate(ids):
            parent = None if i == 0 else ids[draw(st.integers(0, i - 1))]
            out.append(
                node(
                    nid,
                    parent,
                    role=draw(st.sampled_from([Role.TEXT, Role.BUTTON, Role.INPUT])),
                    text=draw(st.sampled_from([None, "a", "b"])),
                    bounds=draw(
                        st.sampled_from([None, (0, 0, 10, 10), (0, 3, 10, 13), (0, 30, 10, 40)])
                    ),
                    state=draw(st.sampled_from([None, FOCUSED, NodeState(checked=True)])),
                )
            )
        return tuple(out)

    ids_a = draw(st.lists(st.sampled_from(_POOL), unique=True, min_size=1, max_size=10))
    ids_b = draw(st.lists(st.sampled_from(_POOL), unique=True, min_size=1, max_size=10))
    screen_b = draw(st.sampled_from(["s:1", "s:2"]))
    return snap(nodes_from(ids_a), "s_a", "s:1"), snap(nodes_from(ids_b), "s_b", screen_b)


@given(snapshots_pair())
def test_diff_invariants(pair: tuple[ScreenSnapshot, ScreenSnapshot]) -> None:
    a, b = pair
    ids_a = {n.node_id for n in a.nodes}
    ids_b = {n.node_id for n in b.nodes}
    diff = screen_diff(a, b, max_added=100, max_added_bytes=None)
    added = {n.node_id for n in diff.added}
    assert added == ids_b - ids_a
    assert set(diff.removed) == ids_a - ids_b
    assert not added & set(diff.removed)
    both = ids_a & ids_b
    assert {m.node for m in diff.moved} <= both
    assert {c.node for c in diff.changed} <= both
    assert all(c.fields for c in diff.changed)
    assert diff.screen_changed == (a.screen_state_id != b.screen_state_id)
    old = {n.node_id: n for n in a.nodes}
    really_moved = [
        n.node_id
        for n in b.nodes
        if n.node_id in old
        and (
            old[n.node_id].parent_id != n.parent_id
            or bounds_moved(old[n.node_id].bounds, n.bounds, 4)
        )
    ]
    assert [m.node for m in screen_diff(a, b, list_carried=True).moved] == really_moved
    # document order of b for added
    order_b = [n.node_id for n in b.nodes]
    assert [n.node_id for n in diff.added] == [i for i in order_b if i in added]


@given(snapshots_pair())
def test_diff_of_a_snapshot_with_itself_is_empty(
    pair: tuple[ScreenSnapshot, ScreenSnapshot],
) -> None:
    a, _ = pair
    diff = screen_diff(a, a)
    assert is_empty(diff)
    assert diff.screen_changed is False
    assert diff.focus_changed is None or diff.focus_changed.state is not FocusChange.CHANGED


# ---- real dumps ------------------------------------------------------------------------------


def _perturbed(s: ScreenSnapshot) -> ScreenSnapshot:
    """One text edited, one leaf removed, every bound jittered by 2 px."""
    nodes = list(s.nodes)
    parents = {n.parent_id for n in nodes}
    text_i = next((i for i, n in enumerate(nodes) if n.text), None)
    if text_i is not None:
        nodes[text_i] = msgspec.structs.replace(
            nodes[text_i], text=f"{nodes[text_i].text} (edited)"
        )
    leaf_i = next(
        (i for i in range(len(nodes) - 1, 0, -1) if nodes[i].node_id not in parents), None
    )
    if leaf_i is not None:
        del nodes[leaf_i]
    nodes = [
        msgspec.structs.replace(n, bounds=tuple(v + 2 for v in n.bounds)) if n.bounds else n
        for n in nodes
    ]
    return msgspec.structs.replace(s, snapshot_id="s_perturbed", nodes=tuple(nodes))


def real_dump_paths(shared: Path) -> list[Path]:
    root = shared / "data" / "real-dumps"
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")


@requires_shared
def test_real_dump_diffs_are_small(shared_dir: Path) -> None:
    importers = pytest.importorskip("bridge.core.importers")
    import_dump = getattr(importers, "import_dump", None)
    if import_dump is None:
        pytest.skip("bridge.core.importers.import_dump is not there yet")
    sizes: list[tuple[int, str]] = []
    for path in real_dump_paths(shared_dir):
        raw = import_dump(path.read_bytes(), path.name)
        if not isinstance(raw, RawTree):
            continue
        normalized = normalize(raw, SnapshotContext("dev", "s_real", 0))
        if not isinstance(normalized, Normalized):
            continue
        for a in (normalized.compact, normalized.full):
            b = _perturbed(a)
            diff = screen_diff(a, b)
            assert len(diff.removed) <= 1
            assert diff.moved == ()
            assert len(diff.changed) <= 1
            sizes.append((len(msgspec.json.encode(diff)), f"{path.name} compact={a.compact}"))
    assert sizes, "no real dump imported"
    worst = max(sizes)
    assert worst[0] < 5_000, worst


@requires_shared
def test_real_screen_transitions_stay_small(shared_dir: Path) -> None:
    """Diffs between unrelated real screens (one device id space): the added cap holds."""
    importers = pytest.importorskip("bridge.core.importers")
    import_dump = getattr(importers, "import_dump", None)
    if import_dump is None:
        pytest.skip("bridge.core.importers.import_dump is not there yet")
    snaps: list[ScreenSnapshot] = []
    ids = IdAllocator()
    for i, path in enumerate(real_dump_paths(shared_dir)):
        raw = import_dump(path.read_bytes(), path.name)
        if isinstance(raw, RawTree):
            normalized = normalize(raw, SnapshotContext("dev", f"s_{i}", 0), ids)
            if isinstance(normalized, Normalized):
                snaps.append(normalized.compact)
    assert len(snaps) > 1
    worst = 0
    for a, b in itertools.pairwise(snaps):
        diff = screen_diff(a, b)
        assert len(msgspec.json.encode(diff.added)) <= 3_000
        worst = max(worst, len(msgspec.json.encode(diff)))
    assert worst < 5_000


# ---- edges a mutation run found unchecked ------------------------------------------------


def test_an_added_password_field_never_carries_its_text_or_value() -> None:
    secret = NodeState(password=True)
    typed = node("n9", "n1", role=Role.INPUT, text="hunter2", state=secret)
    valued = node("n10", "n1", role=Role.INPUT, value="hunter3", state=secret)
    diff = screen_diff(snap(BASE), snap((*BASE, typed, valued)))
    assert [(n.node_id, n.text, n.value) for n in diff.added] == [
        ("n9", None, None),
        ("n10", None, None),
    ]
    assert "hunter" not in repr(diff)


def test_a_field_that_became_or_stopped_being_a_password_reports_no_text() -> None:
    plain = replace(BASE, "n2", value="before-secret")
    hidden = replace(BASE, "n2", value="after-secret", state=NodeState(password=True))
    for a, b in ((plain, hidden), (hidden, plain)):
        fields = screen_diff(snap(a), snap(b)).changed[0].fields
        assert "state.password" in fields
        assert "value" not in fields and "text" not in fields


def test_added_nodes_stop_at_exactly_the_byte_budget() -> None:
    extra = node("n9", "n1", text="x" * 40)
    size = len(msgspec.json.encode(extra)) + 1  # each node counts its bytes and a separator
    after = snap((*BASE, extra))
    assert [n.node_id for n in screen_diff(snap(BASE), after, max_added_bytes=size).added] == ["n9"]
    assert screen_diff(snap(BASE), after, max_added_bytes=size - 1).added == ()
    second = node("n10", "n1", text="y" * 40)
    both = size + len(msgspec.json.encode(second)) + 1
    two = snap((*BASE, extra, second))
    assert len(screen_diff(snap(BASE), two, max_added_bytes=both).added) == 2
    assert len(screen_diff(snap(BASE), two, max_added_bytes=both - 1).added) == 1


def test_a_diff_is_empty_only_when_all_four_lists_are() -> None:
    base = screen_diff(snap(BASE), snap(BASE))
    assert is_empty(base)
    for part in (
        {"added": (BASE[1],)},
        {"removed": ("n2",)},
        {"moved": screen_diff(snap(BASE), snap(replace(BASE, "n5", bounds=(0, 0, 9, 9)))).moved},
        {"changed": screen_diff(snap(BASE), snap(replace(BASE, "n5", text="x"))).changed},
    ):
        assert not is_empty(msgspec.structs.replace(base, **part)), part


def test_a_state_getter_reads_the_effective_state() -> None:
    """The getters are built at import time (a mutation run never rebuilds them)."""
    get = _state_getter("enabled")
    assert get(node("a")) is True
    assert get(node("b", state=NodeState(enabled=False))) is False
