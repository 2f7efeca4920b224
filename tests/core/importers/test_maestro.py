"""Maestro hierarchy samples (iOS and Android flavours) with exact expected raw trees."""

from __future__ import annotations

import json

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow

_EMPTY = {
    "accessibilityText": "",
    "title": "",
    "value": "",
    "text": "",
    "hintText": "",
    "resource-id": "",
}

MAESTRO_IOS = {
    "attributes": {**_EMPTY, "bounds": "[0,0][0,0]", "enabled": "false", "focused": "false"},
    "children": [
        {
            "attributes": {
                **_EMPTY,
                "accessibilityText": "Log in",
                "resource-id": "login-button",
                "bounds": "[16,700][377,748]",
            },
            "children": [],
            "enabled": True,
            "focused": False,
            "checked": False,
            "selected": False,
        },
        {
            "attributes": {
                **_EMPTY,
                "title": "Email",
                "value": "a@b.c",
                "text": "Email",
                "hintText": "you@example.com",
                "bounds": "[16,300][377,344]",
            },
            "enabled": True,
            "focused": True,
        },
    ],
    "enabled": False,
    "focused": False,
    "checked": False,
    "selected": False,
}


def test_maestro_ios_sample() -> None:
    data = json.dumps(MAESTRO_IOS).encode()
    assert detect_format(data) == "ios-maestro-json"
    assert import_dump(data, "m.json") == RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=(
            RawNode(handle=0, parent=-1, bounds=(0, 0, 0, 0), enabled=False),
            RawNode(
                handle=1,
                parent=0,
                label="Log in",
                automation_id="login-button",
                bounds=(16, 700, 377, 748),
            ),
            RawNode(
                handle=2,
                parent=0,
                text="Email",
                value="a@b.c",
                hint="you@example.com",
                bounds=(16, 300, 377, 344),
                focused=True,
            ),
        ),
        windows=(RawWindow(id=0),),
        focus=2,
    )


MAESTRO_ANDROID = {
    "attributes": {
        "class": "android.widget.FrameLayout",
        "package": "com.example",
        "bounds": "[0,0][1080,2400]",
        "text": "",
        "resource-id": "",
        "accessibilityText": "",
        "hintText": "",
        "clickable": "false",
        "enabled": "true",
        "focused": "false",
        "checked": "false",
        "scrollable": "false",
        "selected": "false",
        "password": "false",
    },
    "children": [
        {
            "attributes": {
                "class": "android.widget.EditText",
                "package": "com.example",
                "bounds": "[0,100][1080,200]",
                "text": "secret",
                "resource-id": "com.example:id/pin",
                "accessibilityText": "PIN",
                "hintText": "Enter PIN",
                "clickable": "false",
                "password": "true",
            },
            "clickable": True,
        }
    ],
}


def test_maestro_android_sample_node_flag_wins_over_attribute() -> None:
    data = json.dumps(MAESTRO_ANDROID).encode()
    assert detect_format(data) == "android-maestro-json"
    assert import_dump(data, "ma.json") == RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="android.widget.FrameLayout",
                package="com.example",
                bounds=(0, 0, 1080, 2400),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.widget.EditText",
                text="secret",
                label="PIN",
                hint="Enter PIN",
                automation_id="com.example:id/pin",
                package="com.example",
                bounds=(0, 100, 1080, 200),
                clickable=True,
                editable=True,
                password=True,
                actions=("click", "setText"),
            ),
        ),
        windows=(RawWindow(id=0),),
        package="com.example",
    )


def test_maestro_shape_errors_name_the_node() -> None:
    bad_children = {"attributes": {}, "children": "none"}
    failure = import_dump(json.dumps(bad_children).encode(), "m.json")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "ios-maestro-json"
    assert "node 0 has 'children' that is a string, expected an array" in failure.reason

    null_child: dict[str, object] = {"attributes": {}, "children": [{"attributes": {}}, None]}
    failure = import_dump(json.dumps(null_child).encode(), "m.json")
    assert isinstance(failure, ImportFailure)
    assert "node 0 has child 1 that is null, expected an object" in failure.reason

    bad_bounds = {"attributes": {}, "children": [{"attributes": {"bounds": "[1,2][3]"}}]}
    failure = import_dump(json.dumps(bad_bounds).encode(), "m.json")
    assert isinstance(failure, ImportFailure)
    assert "node 1 has bounds '[1,2][3]' that are not four integers" in failure.reason

    nested_attr = {"attributes": {"text": {"a": 1}}}
    failure = import_dump(json.dumps(nested_attr).encode(), "m.json")
    assert isinstance(failure, ImportFailure)
    assert "'attributes.text' that is an object" in failure.reason
