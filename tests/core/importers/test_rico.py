"""Rico and Enrico samples with exact expected raw trees."""

from __future__ import annotations

import json

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow

RICO = {
    "activity_name": "com.example/com.example.Main",
    "activity": {
        "root": {
            "class": "com.android.internal.policy.PhoneWindow$DecorView",
            "bounds": [0, 0, 1440, 2560],
            "visibility": "visible",
            "visible-to-user": True,
            "content-desc": [None],
            "ancestors": ["android.widget.FrameLayout"],
            "pointer": "abc",
            "children": [
                {
                    "class": "com.example.FancyInput",
                    "ancestors": ["android.widget.EditText", "android.widget.TextView"],
                    "bounds": [10, 20, 30, 40],
                    "text": "hi",
                    "text-hint": "Name",
                    "resource-id": "com.example:id/name",
                    "package": "com.example",
                    "clickable": True,
                    "focusable": True,
                    "focused": True,
                    "enabled": True,
                    "visibility": "visible",
                    "visible-to-user": True,
                    "content-desc": ["Name field", None],
                },
                {
                    "class": "android.widget.ListView",
                    "bounds": [0, 100, 1440, 2000],
                    "scrollable-vertical": True,
                    "visibility": "gone",
                    "visible-to-user": True,
                    "content-desc": [None],
                },
            ],
        },
        "added_fragments": [],
    },
    "is_keyboard_deployed": True,
    "request_id": "1",
}


def test_rico_sample() -> None:
    data = json.dumps(RICO).encode()
    assert detect_format(data) == "rico-json"
    assert import_dump(data, "rico.json") == RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="com.android.internal.policy.PhoneWindow$DecorView",
                bounds=(0, 0, 1440, 2560),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="com.example.FancyInput",
                text="hi",
                label="Name field",
                hint="Name",
                automation_id="com.example:id/name",
                package="com.example",
                bounds=(10, 20, 30, 40),
                clickable=True,
                focusable=True,
                focused=True,
                editable=True,  # an ancestor is android.widget.EditText
                actions=("click", "setText"),
            ),
            RawNode(
                handle=2,
                parent=0,
                class_name="android.widget.ListView",
                bounds=(0, 100, 1440, 2000),
                scrollable=True,
                visible=False,  # 'gone' wins over visible-to-user
                actions=("scrollForward", "scrollBackward"),
            ),
        ),
        windows=(RawWindow(id=0, package="com.example"),),
        package="com.example",
        focus=1,
    )


def test_enrico_bare_node() -> None:
    enrico = {
        "class": "android.widget.FrameLayout",
        "ancestors": ["android.view.ViewGroup"],
        "bounds": [0, 0, 100, 200],
        "clickable": False,
        "children": [
            {
                "class": "android.widget.Button",
                "bounds": [1, 2, 3, 4],
                "clickable": True,
                "text": "Go",
                "componentLabel": "Text Button",
            }
        ],
    }
    tree = import_dump(json.dumps(enrico).encode(), "enrico.json")
    assert tree == RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="android.widget.FrameLayout",
                bounds=(0, 0, 100, 200),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.widget.Button",
                text="Go",
                bounds=(1, 2, 3, 4),
                clickable=True,
                actions=("click",),
            ),
        ),
        windows=(RawWindow(id=0),),
    )


def test_rico_bounds_must_be_four_numbers() -> None:
    bad = {"activity": {"root": {"class": "a", "bounds": [0, 0, 1]}}}
    failure = import_dump(json.dumps(bad).encode(), "r.json")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "rico-json"
    assert "node 0 has bounds '[0, 0, 1]' that are not four numbers" in failure.reason
