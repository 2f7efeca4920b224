"""Screen markers, the per-platform "displayed" predicate, and failure diagnosis."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.screens import (
    DEFAULT_WAIT_TIMEOUT_MS,
    MARKER_PREFIX,
    SCREEN_TRANSITION_TIMEOUT_MS,
    DiagnosisClass,
    diagnose_screen,
    displayed_screens,
    find_markers,
    is_hittable,
    marker_screen_id,
    present_screens,
)
from bridge.core.tree import NodeTree
from bridge.wire.base import Bounds
from bridge.wire.enums import Platform, Role
from bridge.wire.node import NodeState, SemanticNode
from tests.core.realdumps import dump_params, raw_of

ANDROID, IOS = Platform.ANDROID, Platform.IOS
SCREEN: Bounds = (0, 0, 1170, 2532)
CENTRE: Bounds = (584, 1265, 586, 1267)


def node(nid: str, role: Role = Role.UNKNOWN, parent: str | None = None, **kw: Any) -> SemanticNode:
    return SemanticNode(node_id=nid, role=role, parent_id=parent, **kw)


def marker(nid: str, screen: str, parent: str = "n0", **kw: Any) -> SemanticNode:
    kw.setdefault("bounds", CENTRE)
    return node(nid, Role.UNKNOWN, parent, automation_id=MARKER_PREFIX + screen, **kw)


def tree(*nodes: SemanticNode) -> NodeTree:
    return NodeTree((node("n0", Role.SCREEN, bounds=SCREEN), *nodes))


# --------------------------------------------------------------------------- marker ids


@pytest.mark.parametrize(
    ("identifier", "screen"),
    [
        ("__screen_home", "home"),
        ("com.example.app:id/__screen_home", "home"),
        ("__screen_order_detail", "order_detail"),
        ("__screen___screen_home", "__screen_home"),  # doubled prefix stays visible
        ("__screen_", None),
        ("home", None),
        ("com.example.app:id/home", None),
        ("x__screen_home", None),
        ("", None),
        (None, None),
    ],
)
def test_marker_screen_id(identifier: str | None, screen: str | None) -> None:
    assert marker_screen_id(identifier) == screen


def test_markers_come_from_automation_id_or_resource_id() -> None:
    t = tree(
        node("n1", automation_id="__screen_a"),
        node("n2", resource_id="com.app:id/__screen_b"),
        node("n3", automation_id="login", resource_id="com.app:id/__screen_c"),
        node("n4", text="__screen_d"),  # text is never an identifier
    )
    assert [m.screen_id for m in find_markers(t)] == ["a", "b", "c"]
    assert present_screens(t) == ("a", "b", "c")


# --------------------------------------------------------------------------- Android


def test_android_presence_is_displayed() -> None:
    t = tree(
        marker("n1", "list_pane", bounds=None),  # no bounds: still in the tree
        marker("n2", "detail_pane", state=NodeState(enabled=False)),
        marker("n3", "list_pane"),  # second branch of the same screen
    )
    assert displayed_screens(t, ANDROID) == ("list_pane", "detail_pane")


def test_android_nothing_displayed_without_markers() -> None:
    assert displayed_screens(tree(node("n1", Role.BUTTON, "n0", text="OK")), ANDROID) == ()


# --------------------------------------------------------------------------- iOS


@pytest.mark.parametrize(
    ("kw", "hittable"),
    [
        ({"bounds": CENTRE}, True),
        ({"bounds": (585, 1266, 585, 1266)}, True),  # a 0.5 pt leaf rounds to zero area
        ({"bounds": (0, 0, 0, 0)}, False),  # unlaid-out element
        ({"bounds": None}, False),
        ({"bounds": CENTRE, "state": NodeState(enabled=False)}, False),
        ({"bounds": (1200, 100, 1202, 102)}, False),  # centre off screen
        ({"bounds": (10, 20, 5, 30)}, False),  # inverted
        ({"bounds": (0, 0, 1170, 2532)}, True),
    ],
)
def test_is_hittable_approximation(kw: dict[str, Any], hittable: bool) -> None:
    assert is_hittable(marker("n1", "x", **kw), SCREEN) is hittable


def test_ios_push_leaves_only_the_destination() -> None:
    t = tree(marker("n1", "detail"))
    assert displayed_screens(t, IOS) == ("detail",)


def test_ios_sheet_hides_the_presenter() -> None:
    # measured: covered presenter exists but is not hittable; the sheet's marker is hittable.
    # The snapshot has no hittable bit, so "not hittable" is modelled as a disabled marker.
    t = tree(
        marker("n1", "presenter", state=NodeState(enabled=False)),
        marker("n2", "fullbleed_sheet"),
    )
    assert displayed_screens(t, IOS) == ("fullbleed_sheet",)
    assert displayed_screens(t, ANDROID) == ("presenter", "fullbleed_sheet")


def test_ios_app_overlay_without_a_marker_does_not_hide_the_screen() -> None:
    t = tree(
        marker("n1", "home", state=NodeState(enabled=False)),
        node("n2", Role.UNKNOWN, "n0", bounds=SCREEN),  # coach mark / scrim: no marker
    )
    assert displayed_screens(t, IOS) == ("home",)


def test_ios_split_pane_shows_both() -> None:
    t = tree(
        marker("n1", "list", bounds=(292, 1265, 294, 1267)),
        marker("n2", "detail", bounds=(876, 1265, 878, 1267)),
    )
    assert displayed_screens(t, IOS) == ("list", "detail")


def test_ios_uses_the_given_viewport() -> None:
    t = tree(marker("n1", "a", bounds=(100, 100, 102, 102)), marker("n2", "b"))
    assert displayed_screens(t, IOS, viewport=(0, 0, 200, 200)) == ("a",)
    assert displayed_screens(t, IOS) == ("a", "b")


def test_ios_several_branches_of_one_screen() -> None:
    t = tree(
        marker("n1", "home", state=NodeState(enabled=False)),
        marker("n2", "home"),
        marker("n3", "other", state=NodeState(enabled=False)),
    )
    assert displayed_screens(t, IOS) == ("home",)


# --------------------------------------------------------------------------- diagnosis


def test_displayed_screen_has_no_diagnosis() -> None:
    t = tree(marker("n1", "home"), node("n2", Role.BUTTON, "n0", resource_id="com.app:id/go"))
    assert diagnose_screen("home", t, ANDROID, ("login",)) is None
    assert diagnose_screen("home", t, IOS, ("login",), required_ids=("go",)) is None
    assert diagnose_screen("home", t, IOS, required_ids=("com.app:id/go",)) is None


def test_children_unresolvable() -> None:
    t = tree(marker("n1", "home"), node("n2", Role.BUTTON, "n0", automation_id="go"))
    d = diagnose_screen("home", t, IOS, ("login",), required_ids=("go", "title", "list"))
    assert d is not None
    assert d.cause == "children-unresolvable"
    assert d.missing_ids == ("title", "list")
    assert d.message.startswith("children-unresolvable: 'home' is displayed")


def test_marker_not_displayed() -> None:
    t = tree(
        marker("n1", "settings", state=NodeState(enabled=False)),
        marker("n2", "paywall_sheet"),
    )
    d = diagnose_screen("settings", t, IOS, ("home",))
    assert d is not None
    assert d.cause == "marker-not-displayed"
    assert d.present == ("settings", "paywall_sheet")
    assert d.displayed == ("paywall_sheet",)
    assert d.message.startswith("marker-not-displayed: 'settings' exists")
    # Android never reports it: presence is its predicate
    assert diagnose_screen("settings", t, ANDROID, ("home",)) is None


def test_marker_absent() -> None:
    t = tree(node("n1", Role.BUTTON, "n0", text="Continue"))
    for platform in (ANDROID, IOS):
        d = diagnose_screen("home", t, platform, ("login",))
        assert d is not None
        assert d.cause == "marker-absent"
        assert d.present == d.displayed == ()
        assert d.message.startswith("marker-absent: no screen marker anywhere")


def test_previous_screen_only() -> None:
    t = tree(marker("n1", "login"))
    d = diagnose_screen("home", t, ANDROID, ("login",))
    assert d is not None
    assert d.cause == "previous-screen-only"
    assert not d.navigated_elsewhere
    assert d.message == (
        "previous-screen-only: 'home' is not displayed; the previous is showing: ['login']"
    )


def test_previous_screen_only_names_an_unexpected_destination() -> None:
    t = tree(marker("n1", "error_page"))
    d = diagnose_screen("home", t, ANDROID, ("login",))
    assert d is not None
    assert d.cause == "previous-screen-only"
    assert d.navigated_elsewhere
    assert "a different screen" in d.message


def test_classes_are_the_reference_vocabulary() -> None:
    assert set(typing.get_args(DiagnosisClass)) == {
        "marker-absent",
        "previous-screen-only",
        "marker-not-displayed",
        "children-unresolvable",
    }


def test_constants_follow_the_reference(shared_dir: Path) -> None:
    ref = json.loads((shared_dir / "reference" / "screen_identity.json").read_text())
    assert ref["marker"]["prefix"] == MARKER_PREFIX
    verification = ref["implicitVerification"]
    assert verification["timeout"]["defaultMs"] == SCREEN_TRANSITION_TIMEOUT_MS
    assert {c["id"] for c in verification["failureClasses"]} == set(typing.get_args(DiagnosisClass))
    assert DEFAULT_WAIT_TIMEOUT_MS < SCREEN_TRANSITION_TIMEOUT_MS


# --------------------------------------------------------------------------- invariants


@st.composite
def marker_trees(draw: st.DrawFn) -> NodeTree:
    count = draw(st.integers(0, 6))
    nodes = []
    for i in range(1, count + 1):
        screen = draw(st.sampled_from(["a", "b", "c"]))
        x = draw(st.integers(-100, 1300))
        y = draw(st.integers(-100, 2600))
        nodes.append(
            marker(
                f"n{i}",
                screen,
                bounds=draw(st.sampled_from([None, (x, y, x + 2, y + 2)])),
                state=NodeState(enabled=draw(st.booleans())),
            )
        )
    return tree(*nodes)


@given(marker_trees(), st.sampled_from(["a", "b", "c", "z"]))
def test_screen_invariants(t: NodeTree, expected: str) -> None:
    present = present_screens(t)
    assert displayed_screens(t, ANDROID) == present
    ios = displayed_screens(t, IOS)
    assert set(ios) <= set(present)
    assert list(ios) == [s for s in present if s in ios], "document order"
    assert bool(ios) == bool(present), "iOS shows something whenever a marker exists"
    d = diagnose_screen(expected, t, IOS)
    assert (d is None) == (expected in ios)
    if d is not None:
        assert d.message.startswith(d.cause + ":")


# --------------------------------------------------------------------------- real dumps


@pytest.mark.parametrize("path", dump_params())
def test_real_dumps_carry_no_marker(path: Path) -> None:
    """None of the public dumps comes from a marker-emitting build: every screen assertion on
    them must name the build as the likely cause, on either platform's predicate."""
    normalized = normalize(raw_of(path), SnapshotContext("d", "s_1", 0))
    assert isinstance(normalized, Normalized)
    t = NodeTree(normalized.full.nodes)
    assert present_screens(t) == ()
    for platform in (ANDROID, IOS):
        d = diagnose_screen("home", t, platform, ("login",))
        assert d is not None and d.cause == "marker-absent"


@pytest.mark.parametrize(
    ("bounds", "hittable"),
    [
        # the centre must lie in [left, right) x [top, bottom) of the viewport (10, 20, 110, 220)
        ((10, 100, 10, 100), True),  # centre on the left edge
        ((9, 100, 9, 100), False),
        ((100, 100, 119, 100), True),  # centre 109.5: inside
        ((110, 100, 110, 100), False),  # centre on the right edge: outside
        ((50, 20, 50, 20), True),  # centre on the top edge
        ((50, 19, 50, 19), False),
        ((50, 219, 50, 220), True),  # centre 219.5
        ((50, 220, 50, 220), False),  # centre on the bottom edge
        ((50, 30, 40, 60), False),  # right < left
        ((50, 60, 60, 50), False),  # bottom < top
    ],
)
def test_is_hittable_edges_of_the_viewport(bounds: Bounds, hittable: bool) -> None:
    viewport: Bounds = (10, 20, 110, 220)
    assert is_hittable(marker("n1", "x", bounds=bounds), viewport) is hittable


def test_without_a_viewport_any_laid_out_enabled_element_is_hittable() -> None:
    assert is_hittable(marker("n1", "x", bounds=(5000, 5000, 5001, 5001)), None)
    assert not is_hittable(marker("n1", "x", bounds=(0, 0, 0, 0)), None)


def test_ios_screens_use_the_given_viewport() -> None:
    # two markers: one at the top of the screen, one low; a short viewport sees only the first
    t = tree(
        marker("n1", "top", bounds=(10, 10, 20, 20)),
        marker("n2", "low", bounds=(10, 2000, 20, 2010)),
    )
    assert displayed_screens(t, IOS) == ("top", "low")
    assert displayed_screens(t, IOS, viewport=(0, 0, 1170, 1000)) == ("top",)
