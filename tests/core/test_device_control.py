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
