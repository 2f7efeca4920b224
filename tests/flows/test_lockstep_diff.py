"""The semantic comparison of screens behind ``--lockstep``: elements missing on a device,
different counts, different texts of one id, different screens; nothing for equal screens."""

from __future__ import annotations

from collections import Counter

from bridge.flows.lockstep import Screen, differences, screen_of
from bridge.wire.enums import Orientation, Role
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


def test_equal_screens_have_no_difference() -> None:
    one = Screen(["home"], Counter({"BUTTON 'Continue'": 1}), {"clock": "10:01"})
    same = Screen(["home"], Counter({"BUTTON 'Continue'": 1}), {"clock": "10:01"})
    assert differences({"a": one, "b": same}) == []
    assert differences({"a": one, "b": None}) == []  # an unreadable screen is not compared


def test_missing_elements_counts_texts_and_screens() -> None:
    android = Screen(
        ["login"],
        Counter({"BUTTON 'Continue'": 2, "TEXT 'Welcome'": 1, "BUTTON 'Back'": 0}),
        {"clock": "10:01", "title": "Sign in"},
    )
    ios = Screen(["signin"], Counter({"BUTTON 'Continue'": 1}), {"clock": "10:02"})
    assert differences({"sim-android": android, "sim-ios": ios}) == [
        "screens: login on sim-android; signin on sim-ios",
        "BUTTON 'Continue': 2 on sim-android, 1 on sim-ios",
        "TEXT 'Welcome' missing on sim-ios",
        "id clock: '10:01' on sim-android, '10:02' on sim-ios",
    ]


def test_a_snapshot_is_reduced_to_roles_texts_ids_and_markers() -> None:
    nodes = (
        SemanticNode(node_id="n1", role=Role.SCREEN, resource_id="app:id/__screen_login"),
        SemanticNode(node_id="n2", role=Role.BUTTON, parent_id="n1", text="Sign in",
                     resource_id="app:id/login"),
        SemanticNode(node_id="n3", role=Role.INPUT, parent_id="n1", hint="Username",
                     resource_id="app:id/username", value=""),
    )  # fmt: skip
    snap = ScreenSnapshot(
        schema_version=1,
        device_id="sim-android",
        snapshot_id="s_1",
        timestamp=0,
        package_name="dev.mobridge.demo",
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x",
        compact=False,
        nodes=nodes,
        tree_hash="0" * 16,
    )
    screen = screen_of(snap)
    assert screen.markers == ["login"]
    assert screen.elements == Counter({"BUTTON 'Sign in'": 1, "INPUT 'Username'": 1})
    assert screen.texts == {"login": "Sign in"}  # an empty value is no text
