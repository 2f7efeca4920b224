"""Legacy WDA JSON and idb describe-all samples with exact expected raw trees."""

from __future__ import annotations

import json

import msgspec

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize
from tests.core.importers.structure import assert_well_formed

LEGACY: dict[str, object] = {
    "sessionId": None,
    "status": 0,
    "value": {
        "tree": {
            "type": "UIAApplication",
            "name": "Demo",
            "label": "Demo",
            "value": None,
            "isEnabled": "1",
            "isVisible": "1",
            "rect": {"origin": {"x": 0, "y": 0}, "size": {"width": 320, "height": 568}},
            "attributes": {"bundleID": "com.example.demo", "isValid": "1"},
            "children": [
                {
                    "type": "UIAWindow",
                    "name": None,
                    "label": None,
                    "value": None,
                    "isEnabled": "1",
                    "isVisible": "1",
                    "frame": "{{0, 0}, {320, 568}}",
                    "children": [
                        {
                            "type": "UIAButton",
                            "name": "OK",
                            "label": "OK",
                            "value": None,
                            "isEnabled": "0",
                            "isVisible": "1",
                            "rect": {
                                "origin": {"x": 10.5, "y": 20.25},
                                "size": {"width": 99.5, "height": 30.2},
                            },
                            "attributes": {"hint": "Closes", "hasKeyboardFocus": "1"},
                        }
                    ],
                }
            ],
        }
    },
}


def test_legacy_wda_json_sample() -> None:
    data = json.dumps(LEGACY).encode()
    assert detect_format(data) == "ios-wda-json-legacy"
    tree = import_dump(data, "legacy.json")
    assert tree == RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="UIAApplication",
                label="Demo",
                bounds=(0, 0, 320, 568),
            ),
            RawNode(handle=1, parent=0, class_name="UIAWindow", bounds=(0, 0, 320, 568)),
            RawNode(
                handle=2,
                parent=1,
                class_name="UIAButton",
                label="OK",
                hint="Closes",
                # x 10.5 -> 11, y 20.25 -> 20, x+w 110.0 -> 110, y+h 50.45 -> 50
                bounds=(11, 20, 110, 50),
                clickable=True,
                enabled=False,
                focused=True,
                actions=("click",),
            ),
        ),
        windows=(
            RawWindow(
                id=0, type="application", package="com.example.demo", bounds=(0, 0, 320, 568)
            ),
        ),
        package="com.example.demo",
        focus=2,
        screen=ScreenSize(width=320, height=568),
    )


IDB_FLAT: list[dict[str, object]] = [
    {
        "AXFrame": "{{0, 0}, {390, 844}}",
        "AXUniqueId": None,
        "frame": {"y": 0, "x": 0, "width": 390, "height": 844},
        "role_description": "application",
        "AXLabel": "Settings",
        "content_required": False,
        "type": "Application",
        "title": None,
        "help": None,
        "custom_actions": [],
        "AXValue": None,
        "enabled": True,
        "role": "AXApplication",
        "subrole": None,
        "pid": 4242,
    },
    {
        "AXFrame": "{{16, 120}, {358, 44.5}}",
        "AXUniqueId": "wifi-cell",
        "frame": {"y": 120, "x": 16, "width": 358, "height": 44.5},
        "role_description": "button",
        "AXLabel": "Wi\u2011Fi",
        "type": "Button",
        "title": None,
        "help": "Shows networks",
        "AXValue": "Home",
        "enabled": True,
        "role": "AXButton",
        "pid": 4242,
    },
]

_APP = RawNode(
    handle=0, parent=-1, class_name="Application", label="Settings", bounds=(0, 0, 390, 844)
)
_CELL = RawNode(
    handle=1,
    parent=-1,
    class_name="Button",
    label="Wi\u2011Fi",
    value="Home",
    hint="Shows networks",
    automation_id="wifi-cell",
    bounds=(16, 120, 374, 165),
    clickable=True,
    actions=("click",),
)


def test_idb_flat_array_gives_roots_without_inferred_containment() -> None:
    data = json.dumps(IDB_FLAT).encode()
    assert detect_format(data) == "ios-idb-json"
    tree = import_dump(data, "idb.json")
    assert tree == RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=(_APP, _CELL),
        windows=(RawWindow(id=0),),
    )
    assert isinstance(tree, RawTree)
    assert_well_formed(tree)


def test_idb_nested_output() -> None:
    nested = [dict(IDB_FLAT[0], children=[IDB_FLAT[1]])]
    tree = import_dump(json.dumps(nested).encode(), "idb-nested.json")
    assert isinstance(tree, RawTree)
    assert tree.nodes == (_APP, msgspec.structs.replace(_CELL, parent=0))


def test_idb_wrong_frame_is_refused() -> None:
    bad = [dict(IDB_FLAT[0], frame={"x": 0, "y": 0, "width": "wide", "height": 1})]
    failure = import_dump(json.dumps(bad).encode(), "bad.json")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "ios-idb-json"
    assert "node 0 has width 'wide', expected a number" in failure.reason
