"""Rules of device actions: the screen, what a point lands on, classes, critical apps."""

from __future__ import annotations

from bridge.core.device_control import (
    assess_gesture,
    assess_key,
    assess_typing,
    critical_app,
    focused_node,
    node_at,
    off_screen,
    screen_rect,
)
from bridge.wire.enums import ActionVerb, GestureKind, KeyName, MutationClass, Orientation, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


def node(
    nid: str,
    role: Role,
    bounds: tuple[int, int, int, int],
    parent: str | None = None,
    label: str | None = None,
    clickable: bool = False,
    focused: bool = False,
) -> SemanticNode:
    state = NodeState(clickable=clickable, focused=focused)
    return SemanticNode(
        node_id=nid,
        role=role,
        parent_id=parent,
        label=label,
        bounds=bounds,
        state=state,
        actions=(ActionVerb.CLICK,) if clickable else (),
    )


def snapshot(*nodes: SemanticNode) -> ScreenSnapshot:
    return ScreenSnapshot(
        schema_version=1,
        device_id="d",
        snapshot_id="s_1",
        timestamp=0,
        package_name="com.example.app",
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x",
        compact=False,
        nodes=nodes,
        tree_hash="ab",
    )


SCREEN = snapshot(
    node("n1", Role.SCREEN, (0, 0, 1080, 2400)),
    node("n2", Role.BUTTON, (0, 200, 1080, 350), "n1", "Delete account", clickable=True),
    node("n3", Role.TEXT, (10, 210, 500, 300), "n2", "Delete account"),
    node("n4", Role.BUTTON, (0, 400, 1080, 550), "n1", "Refresh", clickable=True),
    node("n5", Role.INPUT, (0, 600, 1080, 700), "n1", "Amount $", clickable=True, focused=True),
    node("n6", Role.DIALOG, (100, 0, 1180, 100)),  # a second window reaching further right
)


def test_the_screen_is_the_union_of_the_roots() -> None:
    assert screen_rect(SCREEN) == (0, 0, 1180, 2400)
    assert off_screen([(0, 0), (1179, 2399)], (0, 0, 1180, 2400)) is None
    assert off_screen([(5, 5), (1180, 10)], (0, 0, 1180, 2400)) == (1180, 10)
    assert screen_rect(snapshot()) is None


def test_a_point_lands_on_the_innermost_actionable_node() -> None:
    hit = node_at(SCREEN, 100, 250)  # on the text inside the button: the button acts
    assert hit is not None and hit.node_id == "n2"
    assert node_at(SCREEN, 100, 380) is None  # between the buttons
    focused = focused_node(SCREEN)
    assert focused is not None and focused.node_id == "n5"


def test_gestures_are_classified_by_what_they_land_on() -> None:
    delete = node_at(SCREEN, 100, 250)
    refresh = node_at(SCREEN, 100, 450)
    assert assess_gesture(GestureKind.TAP, delete).mutation_class is MutationClass.DESTRUCTIVE
    assert assess_gesture(GestureKind.DOUBLE_TAP, delete).mutation_class is (
        MutationClass.DESTRUCTIVE
    )
    assert assess_gesture(GestureKind.TAP, refresh).mutation_class is MutationClass.SIDE_EFFECT
    assert assess_gesture(GestureKind.TAP, None).mutation_class is MutationClass.SIDE_EFFECT
    field = node_at(SCREEN, 100, 650)
    assert assess_gesture(GestureKind.TAP, field).mutation_class is MutationClass.REVERSIBLE
    # a swipe can act (swipe to delete): never below SIDE_EFFECT, even over an input
    assert assess_gesture(GestureKind.SWIPE, field).mutation_class is MutationClass.SIDE_EFFECT


def test_keys_and_typing() -> None:
    assert assess_key(KeyName.VOLUME_UP, None).mutation_class is MutationClass.REVERSIBLE
    assert assess_key(KeyName.ENTER, None).mutation_class is MutationClass.SIDE_EFFECT
    delete = SCREEN.nodes[1]
    assert assess_key(KeyName.ENTER, delete).mutation_class is MutationClass.DESTRUCTIVE
    assert assess_key(KeyName.DPAD_CENTER, delete).mutation_class is MutationClass.DESTRUCTIVE
    assert assess_typing(False, delete).mutation_class is MutationClass.REVERSIBLE
    assert assess_typing(True, delete).mutation_class is MutationClass.DESTRUCTIVE


def test_critical_apps_are_named() -> None:
    for app in ("com.android.systemui", "com.apple.springboard", "dev.mobridge.agent.android"):
        assert critical_app(app) is not None
    assert critical_app("com.example.shop") is None


PAY = node("n7", Role.BUTTON, (0, 800, 1080, 900), "n1", "Pay now", clickable=True)


def test_the_financial_flag_follows_what_a_gesture_key_or_submit_lands_on() -> None:
    for kind in (GestureKind.TAP, GestureKind.LONG_PRESS, GestureKind.SWIPE):
        verdict = assess_gesture(kind, PAY)
        assert verdict.financial is True, kind
        assert verdict.mutation_class is MutationClass.EXTERNAL_SIDE_EFFECT, kind
    assert assess_gesture(GestureKind.TAP, None) == (MutationClass.SIDE_EFFECT, False)
    assert assess_gesture(GestureKind.TAP, SCREEN.nodes[3]).financial is False
    assert assess_key(KeyName.ENTER, PAY) == (MutationClass.EXTERNAL_SIDE_EFFECT, True)
    assert assess_key(KeyName.ENTER, None) == (MutationClass.SIDE_EFFECT, False)
    assert assess_key(KeyName.VOLUME_UP, PAY) == (MutationClass.REVERSIBLE, False)
    assert assess_typing(False, PAY) == (MutationClass.REVERSIBLE, False)
    assert assess_typing(True, PAY) == (MutationClass.EXTERNAL_SIDE_EFFECT, True)


def test_an_activating_key_on_an_input_is_at_least_a_side_effect() -> None:
    field = SCREEN.nodes[4]
    assert assess_key(KeyName.ENTER, field) == (MutationClass.SIDE_EFFECT, False)


def test_the_screen_union_takes_every_edge_from_the_root_that_reaches_furthest() -> None:
    roots = snapshot(
        node("a", Role.SCREEN, (50, 60, 500, 600)),
        node("b", Role.DIALOG, (10, 100, 400, 700)),  # further left and down
        node("c", Role.DIALOG, (100, 20, 900, 300)),  # further up and right
        node("d", Role.BUTTON, (0, 0, 5000, 5000), "a"),  # not a root: ignored
    )
    assert screen_rect(roots) == (10, 20, 900, 700)
    unbounded_root = SemanticNode(node_id="r", role=Role.SCREEN, parent_id=None, bounds=None)
    assert screen_rect(snapshot(unbounded_root)) is None


def test_a_point_on_the_bottom_or_right_edge_is_off_screen() -> None:
    rect = (0, 0, 100, 200)
    assert off_screen([(0, 0), (99, 199)], rect) is None
    assert off_screen([(99, 200)], rect) == (99, 200)
    assert off_screen([(100, 199)], rect) == (100, 199)
    assert off_screen([(-1, 5)], rect) == (-1, 5)
    assert off_screen([(5, -1)], rect) == (5, -1)


def test_only_nodes_that_can_act_are_landed_on() -> None:
    offers_action = SemanticNode(
        node_id="x", role=Role.TEXT, parent_id="n1", bounds=(0, 1000, 100, 1100),
        actions=(ActionVerb.LONG_CLICK,),
    )  # fmt: skip
    only_clickable = SemanticNode(
        node_id="y", role=Role.TEXT, parent_id="n1", bounds=(0, 1200, 100, 1300),
        state=NodeState(clickable=True),
    )  # fmt: skip
    inert = SemanticNode(node_id="z", role=Role.TEXT, parent_id="n1", bounds=(0, 1400, 100, 1500))
    shot = snapshot(SCREEN.nodes[0], offers_action, only_clickable, inert)
    assert (hit := node_at(shot, 10, 1010)) is not None and hit.node_id == "x"
    assert (hit := node_at(shot, 10, 1210)) is not None and hit.node_id == "y"
    assert node_at(shot, 10, 1410) is None
    assert focused_node(shot) is None


def test_the_critical_app_refusal_says_why() -> None:
    assert critical_app("com.android.settings") == (
        "com.android.settings is on the hub's critical-app list (the system, its UI, the "
        "launcher or mobridge's own agent): it is never stopped or uninstalled"
    )
