"""A ref records the text its element showed: a changed text under an unchanged content
description is STALE_NODE_REF naming both texts, unless only numbers changed (counters,
clocks, percentages) or the text is an input's value. Both ways, on screens built here."""

from __future__ import annotations

import msgspec
import pytest

from bridge.core.ancestor_spec import AncestorSpec
from bridge.core.identity import IdAllocator
from bridge.core.noderef import (
    GenerationCheck,
    Resolved,
    Stale,
    build_ref,
    resolution_error,
    resolve_ref,
)
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.shown_text import SHOWN_MAX, numbers_only, to_record, visible_text
from bridge.core.tree import NodeTree
from bridge.wire.enums import ErrorCode, Platform, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.noderef import NodeRef, RoleLabelAncestorLocator
from bridge.wire.raw import RawNode, RawTree

APP = "org.example.power"


def screen(
    *,
    text: str | None,
    label: str | None,
    cls: str = "android.widget.TextView",
    editable: bool = False,
) -> RawTree:
    """A settings-like screen whose target (id ``status``) is a clickable element."""
    return RawTree(
        capture=1,
        platform=Platform.ANDROID,
        package=APP,
        nodes=(
            RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout", package=APP),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.widget.TextView",
                text="Battery",
                automation_id=f"{APP}:id/title",
            ),
            RawNode(
                handle=2,
                parent=0,
                class_name=cls,
                text=text,
                label=label,
                automation_id=f"{APP}:id/status",
                clickable=True,
                editable=editable,
                bounds=(0, 200, 1080, 320),
            ),
        ),
    )


def norm(raw: RawTree, sid: str = "s_1", ids: IdAllocator | None = None) -> Normalized:
    out = normalize(raw, SnapshotContext("dev", sid, 0), ids)
    assert isinstance(out, Normalized), out
    return out


def ref_to_status(raw: RawTree, ids: IdAllocator | None = None) -> tuple[NodeRef, Normalized]:
    before = norm(raw, ids=ids)
    target = next(n for n in before.full.nodes if n.automation_id == f"{APP}:id/status")
    ref = build_ref(before.full, NodeTree(before.full.nodes), target.node_id)
    assert ref is not None
    return ref, before


def resolve_on(ref: NodeRef, raw: RawTree) -> Resolved | Stale:
    after = norm(raw, "s_2")
    got = resolve_ref(ref, after.full)
    assert isinstance(got, Resolved | Stale), got
    if isinstance(got, Resolved):
        assert got.node.automation_id == f"{APP}:id/status"
    return got


# ---- the case: text and content description both "Charging 65%" ---------------------


def test_text_changed_under_the_same_content_description_is_stale_with_both_texts() -> None:
    ref, _ = ref_to_status(screen(text="Charging 65%", label="Charging 65%"))
    got = resolve_on(ref, screen(text="Delete account", label="Charging 65%"))
    assert isinstance(got, Stale), got
    assert '"Delete account"' in got.reason and '"Charging 65%"' in got.reason
    after = norm(screen(text="Delete account", label="Charging 65%"), "s_2")
    env = resolution_error(got, after.full, NodeTree(after.full.nodes))
    assert env.error is ErrorCode.STALE_NODE_REF
    assert "Delete account" in env.message and "Charging 65%" in env.message


def test_a_percentage_that_moved_is_tolerated() -> None:
    ref, _ = ref_to_status(screen(text="Charging 65%", label="Charging 65%"))
    assert isinstance(resolve_on(ref, screen(text="Charging 66%", label="Charging 65%")), Resolved)
    # the content description moving with it (the name) is tolerated the same way
    assert isinstance(resolve_on(ref, screen(text="Charging 66%", label="Charging 66%")), Resolved)


def test_both_texts_changed_is_stale() -> None:
    ref, _ = ref_to_status(screen(text="Charging 65%", label="Charging 65%"))
    got = resolve_on(ref, screen(text="Delete account", label="Delete account"))
    assert isinstance(got, Stale) and "name" in got.reason


# ---- a content description over a different text: the ref records the text ------------------


def test_a_text_other_than_the_label_is_recorded_and_checked() -> None:
    ref, _ = ref_to_status(screen(text="65%", label="Battery level"))
    label = next(loc for loc in ref.locators if isinstance(loc, RoleLabelAncestorLocator))
    assert label.label == "Battery level"
    assert AncestorSpec.parse(label.ancestor).shown == "65%"
    assert isinstance(resolve_on(ref, screen(text="71%", label="Battery level")), Resolved)
    got = resolve_on(ref, screen(text="Off", label="Battery level"))
    assert isinstance(got, Stale) and '"Off"' in got.reason and '"65%"' in got.reason
    gone = resolve_on(ref, screen(text=None, label="Battery level"))
    assert isinstance(gone, Stale) and "no text" in gone.reason


def test_a_label_only_element_that_starts_showing_another_text_is_stale() -> None:
    ref, _ = ref_to_status(screen(text=None, label="Battery saver", cls="android.widget.ImageView"))
    assert isinstance(
        resolve_on(ref, screen(text=None, label="Battery saver", cls="android.widget.ImageView")),
        Resolved,
    )
    got = resolve_on(
        ref, screen(text="Uninstall", label="Battery saver", cls="android.widget.ImageView")
    )
    assert isinstance(got, Stale) and '"Uninstall"' in got.reason


# ---- tolerated kinds, and their limits ------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("3 new messages", "4 new messages"),  # counter
        ("10:42 AM", "12:05 PM"),  # clock
        ("Charging 65%", "Charging 100%"),  # percentage
        ("Total 1,204.50", "Total 998.00"),  # amount
    ],
)
def test_numbers_alone_changing_is_tolerated_in_text_and_name(before: str, after: str) -> None:
    assert numbers_only(before, after)
    ref, _ = ref_to_status(screen(text=before, label=None))
    assert isinstance(resolve_on(ref, screen(text=after, label=None)), Resolved)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("3 new messages", "Delete 3 messages"),
        ("Charging 65%", "Discharging 65%"),
        ("10:42 AM", "Alarm off"),
        ("Send", "Delete"),
    ],
)
def test_words_changing_is_stale(before: str, after: str) -> None:
    assert not numbers_only(before, after)
    ref, _ = ref_to_status(screen(text=before, label="Status"))
    got = resolve_on(ref, screen(text=after, label="Status"))
    assert isinstance(got, Stale) and f'"{after}"' in got.reason and f'"{before}"' in got.reason


def test_an_inputs_typed_value_is_not_its_text() -> None:
    ref, _ = ref_to_status(
        screen(text="shop", label="Search", cls="android.widget.EditText", editable=True)
    )
    typed = screen(
        text="shopping list", label="Search", cls="android.widget.EditText", editable=True
    )
    assert isinstance(resolve_on(ref, typed), Resolved)


def test_a_generation_check_tolerates_nothing() -> None:
    ids = IdAllocator()
    ref, before = ref_to_status(screen(text="Charging 65%", label="Charging 65%"), ids)
    after = norm(screen(text="Charging 66%", label="Charging 65%"), "s_2", ids)
    check = GenerationCheck(expected=1, current=2, origin=before.full)
    got = resolve_ref(ref, after.full, same_id_space=True, generation=check)
    assert isinstance(got, Stale) and '"Charging 66%"' in got.reason
    # without the generation check the same change is tolerated
    assert isinstance(resolve_ref(ref, after.full, same_id_space=True), Resolved)


# ---- the pieces ----------------------------------------------------------------------------


def _node(role: Role, text: str | None, *, password: bool = False) -> SemanticNode:
    return SemanticNode(node_id="n1", role=role, text=text, state=NodeState(password=password))


def test_visible_text_leaves_values_out_and_caps_long_texts() -> None:
    assert visible_text(_node(Role.TEXT, "Hello")) == "Hello"
    assert visible_text(_node(Role.INPUT, "typed")) is None
    assert visible_text(_node(Role.SLIDER, "40")) is None
    assert visible_text(_node(Role.TEXT, "x", password=True)) is None
    long = visible_text(_node(Role.TEXT, "a" * 500))
    assert long is not None and len(long) == SHOWN_MAX and long.endswith("\u2026")
    assert to_record(_node(Role.BUTTON, "OK"), "OK") is None
    assert to_record(_node(Role.BUTTON, "X"), "Close") == "X"


@pytest.mark.parametrize(
    "spec",
    [
        AncestorSpec("id:app:id/list"),
        AncestorSpec(None, shown="65%"),
        AncestorSpec("LIST", text="Basic plan", nth=(1, 2), shown="Charging 65%"),
        AncestorSpec("id:a", nth=(2, 3), shown="a|nth:1/2"),
        AncestorSpec(None, text="Pro", shown=""),
    ],
)
def test_ancestor_spec_round_trips(spec: AncestorSpec) -> None:
    assert AncestorSpec.parse(spec.render()) == spec


def test_a_shown_text_that_spells_the_marker_parses_short_and_refuses() -> None:
    """A hostile text cannot make a ref match more: it is cut at the last marker, so the
    element's own text no longer equals it and the ref is refused."""
    ref, _ = ref_to_status(screen(text="a|shown:b", label="Status"))
    label = next(loc for loc in ref.locators if isinstance(loc, RoleLabelAncestorLocator))
    assert AncestorSpec.parse(label.ancestor).shown == "b"
    assert isinstance(resolve_on(ref, screen(text="a|shown:b", label="Status")), Stale)


def test_refs_to_unchanged_screens_are_unchanged_in_shape() -> None:
    """An element whose label is its text records nothing more."""
    ref, _ = ref_to_status(screen(text="Charging 65%", label=None))
    label = next(loc for loc in ref.locators if isinstance(loc, RoleLabelAncestorLocator))
    assert label.ancestor is None
    assert msgspec.json.encode(ref).count(b"shown") == 0


def test_ancestor_spec_parsing_edge_cases() -> None:
    parse = AncestorSpec.parse
    # the last "|nth:" is the position; an earlier one is part of the text
    assert parse("id:l|text:a|nth:1/2|nth:2/2") == AncestorSpec(
        "id:l", text="a|nth:1/2", nth=(2, 2)
    )
    assert parse("id:l|text:|nth:1/2") == AncestorSpec("id:l", text="", nth=(1, 2))
    # an unreadable position leaves the whole body as the text
    assert parse("id:l|text:abc|nth:x/y") == AncestorSpec("id:l", text="abc|nth:x/y")
    assert parse("id:l|text:abc|nth:3/2") == AncestorSpec("id:l", text="abc|nth:3/2")
    # anything else after "|" is part of the scope
    assert parse("id:l|nth:bad") == AncestorSpec("id:l|nth:bad")
    assert parse("id:l|nth:x/2") == AncestorSpec("id:l|nth:x/2")
    assert parse("id:l|nth:3/2") == AncestorSpec("id:l|nth:3/2")
    assert parse("id:l|nth:0/2") == AncestorSpec("id:l|nth:0/2")
    assert parse("id:l|other") == AncestorSpec("id:l|other")
    assert parse("|nth:2/3") == AncestorSpec(None, nth=(2, 3))
    assert parse(None) == AncestorSpec(None)
