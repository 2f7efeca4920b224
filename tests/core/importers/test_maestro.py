"""Maestro hierarchy samples (iOS and Android flavours) with exact expected raw trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow
from tests.core.importers.structure import assert_well_formed

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


# ---- every shape Maestro writes (fixtures built for these tests, tests/fixtures/semantics) ----

MAESTRO_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "semantics" / "maestro"
REPORT_SHAPES = (
    "report-root.ios.json",  # a hierarchyRoot cut out of a report: the root has no attributes
    "error.ios.json",  # a failed assertion's error: {"message", "hierarchyRoot", ...}
    "command-metadata.ios.json",  # a command's debug metadata: {"status", "hierarchy", ...}
    "commands-report.ios.json",  # a whole commands-*.json: the same error on two entries
)


def _fixture(name: str) -> bytes:
    return (MAESTRO_FIXTURES / name).read_bytes()


@pytest.mark.parametrize("name", REPORT_SHAPES)
def test_every_report_shape_imports_the_same_tree(name: str) -> None:
    data = _fixture(name)
    assert detect_format(data) == "ios-maestro-json"
    tree = import_dump(data, name)
    assert isinstance(tree, RawTree), tree
    assert tree == import_dump(_fixture("report-root.ios.json"), "root")
    assert_well_formed(tree)


def test_report_root_without_attributes_is_one_empty_node() -> None:
    tree = import_dump(_fixture("report-root.ios.json"), "root")
    assert isinstance(tree, RawTree), tree
    assert len(tree.nodes) == 12
    assert tree.nodes[0] == RawNode(handle=0, parent=-1)  # Maestro's synthetic root
    empty = [n for n in tree.nodes if n.bounds is None]
    assert [n.handle for n in empty] == [0, 3, 5, 9]  # no attributes / null / {} / children only
    cancel = next(n for n in tree.nodes if n.automation_id == "alert-cancel")
    assert cancel.label == "Cancel" and cancel.clickable and cancel.parent == 9
    assert cancel.bounds == (52, 470, 196, 520)
    assert tree.platform is Platform.IOS


def test_missing_and_null_attribute_maps_and_children_in_the_android_flavour() -> None:
    data = _fixture("missing-attributes.android.json")
    assert detect_format(data) == "android-maestro-json"
    tree = import_dump(data, "android")
    assert isinstance(tree, RawTree), tree
    assert [(n.parent, n.class_name) for n in tree.nodes] == [
        (-1, "android.widget.FrameLayout"),
        (0, None),
        (0, None),
        (2, "android.widget.TextView"),
        (2, "android.widget.Button"),
        (2, None),
    ]
    button = tree.nodes[4]
    assert button.clickable and button.enabled and button.actions == ("click",)
    assert tree.package == "org.example.drafts"


def test_a_report_with_two_different_screens_is_refused_naming_both() -> None:
    report = json.loads(_fixture("commands-report.ios.json"))
    other = json.loads(_fixture("missing-attributes.android.json"))
    report[1]["metadata"]["hierarchy"] = other
    failure = import_dump(json.dumps(report).encode(), "two.json")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "android-maestro-json"  # any Android hierarchy decides the flavour
    assert "2 different view hierarchies" in failure.reason
    assert "$[1].metadata.hierarchy" in failure.reason
    assert "$[2].metadata.error.hierarchyRoot" in failure.reason


@pytest.mark.parametrize(
    "doc",
    [
        {},
        {"children": []},
        {"children": [{"class": "x"}]},
        {"hierarchy": {"children": []}},
        {"status": "COMPLETED", "timestamp": 1},
        [{"command": {}, "metadata": {"status": "COMPLETED"}}],
        {"attributes": "text"},
    ],
)
def test_objects_without_a_hierarchy_are_not_maestro(doc: object) -> None:
    assert detect_format(json.dumps(doc).encode()) is None
