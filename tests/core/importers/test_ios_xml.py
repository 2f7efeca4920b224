"""Hand-written WebDriverAgent XML samples with exact expected raw trees."""

from __future__ import annotations

from bridge.core.importers import ImportFailure, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize
from tests.core.importers.structure import assert_well_formed

WDA = """<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT>
  <XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" label="Demo"
      enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844"
      index="0" bundleId="com.example.demo">
    <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true"
        accessible="false" x="0" y="0" width="390" height="844" index="0">
      <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField"
          name="password_field" value="••••" placeholderValue="Password" enabled="true"
          visible="true" accessible="true" hittable="true" x="16" y="100" width="358"
          height="44" index="0"/>
      <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="Wi-Fi" label="Wi-Fi" value="1"
          enabled="true" visible="true" accessible="true" x="300" y="200" width="51"
          height="31" traits="Button, Selected"/>
      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Title" label="Title"
          value="Title" traits="Header, Static Text" enabled="true" visible="false"
          accessible="true" hittable="false" x="-10" y="-5" width="0" height="0"/>
    </XCUIElementTypeWindow>
    <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true"
        x="0" y="500" width="390" height="344">
      <XCUIElementTypeKeyboard type="XCUIElementTypeKeyboard" enabled="true" visible="true"
          x="0" y="500" width="390" height="344"/>
    </XCUIElementTypeWindow>
  </XCUIElementTypeApplication>
</AppiumAUT>
""".encode()


def test_wda_xml_sample() -> None:
    tree = import_dump(WDA, "wda.xml")
    app = "com.example.demo"
    assert tree == RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="XCUIElementTypeApplication",
                label="Demo",
                bounds=(0, 0, 390, 844),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="XCUIElementTypeWindow",
                bounds=(0, 0, 390, 844),
            ),
            RawNode(
                handle=2,
                parent=1,
                class_name="XCUIElementTypeSecureTextField",
                value="••••",
                hint="Password",
                automation_id="password_field",
                bounds=(16, 100, 374, 144),
                clickable=True,
                focusable=True,
                editable=True,
                password=True,
                hittable=True,
                actions=("click", "setText"),
            ),
            RawNode(
                handle=3,
                parent=1,
                class_name="XCUIElementTypeSwitch",
                label="Wi-Fi",
                value="1",
                bounds=(300, 200, 351, 231),
                clickable=True,
                checkable=True,
                checked=True,
                focusable=True,
                selected=True,
                actions=("click",),
                traits=("button", "selected"),
            ),
            RawNode(
                handle=4,
                parent=1,
                class_name="XCUIElementTypeStaticText",
                label="Title",
                value="Title",
                bounds=(-10, -5, -10, -5),
                focusable=True,
                visible=False,
                hittable=False,
                heading=True,
                traits=("header", "static_text"),
            ),
            RawNode(
                handle=5,
                parent=0,
                window=1,
                class_name="XCUIElementTypeWindow",
                bounds=(0, 500, 390, 844),
            ),
            RawNode(
                handle=6,
                parent=5,
                window=1,
                class_name="XCUIElementTypeKeyboard",
                bounds=(0, 500, 390, 844),
            ),
        ),
        windows=(
            RawWindow(id=0, type="application", package=app, bounds=(0, 0, 390, 844)),
            RawWindow(id=1, type="input_method", package=app, bounds=(0, 500, 390, 844)),
        ),
        package=app,
        screen=ScreenSize(width=390, height=844),
    )
    assert isinstance(tree, RawTree)
    assert_well_formed(tree)


def test_wda_source_without_appium_wrapper() -> None:
    data = (
        b'<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="A" label="A"'
        b' x="0" y="0" width="10" height="20"><XCUIElementTypeButton'
        b' type="XCUIElementTypeButton" name="ok_button" label="OK" x="1" y="2" width="3"'
        b' height="4"/></XCUIElementTypeApplication>'
    )
    tree = import_dump(data, "raw-wda.xml")
    assert isinstance(tree, RawTree)
    assert tree.screen == ScreenSize(width=10, height=20)
    assert tree.nodes[1] == RawNode(
        handle=1,
        parent=0,
        class_name="XCUIElementTypeButton",
        label="OK",
        automation_id="ok_button",
        bounds=(1, 2, 4, 6),
        clickable=True,
        actions=("click",),
    )
    assert tree.windows == (RawWindow(id=0),)


def test_name_with_spaces_is_not_taken_as_identifier() -> None:
    data = (
        b'<AppiumAUT><XCUIElementTypeButton type="XCUIElementTypeButton"'
        b' name="Double tap to open" x="0" y="0" width="1" height="1"/></AppiumAUT>'
    )
    tree = import_dump(data, "x.xml")
    assert isinstance(tree, RawTree)
    assert tree.nodes[0].automation_id is None


def test_incomplete_frame_and_foreign_children_are_refused() -> None:
    partial = b'<AppiumAUT><XCUIElementTypeOther type="XCUIElementTypeOther" x="1"/></AppiumAUT>'
    failure = import_dump(partial, "p.xml")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "ios-wda-xml"
    assert "incomplete frame (missing y, width, height)" in failure.reason
    foreign = b"<AppiumAUT><XCUIElementTypeOther><div/></XCUIElementTypeOther></AppiumAUT>"
    failure = import_dump(foreign, "f.xml")
    assert isinstance(failure, ImportFailure)
    assert "has a child <div>" in failure.reason
    garbage = b'<AppiumAUT><XCUIElementTypeOther x="a" y="0" width="1" height="1"/></AppiumAUT>'
    failure = import_dump(garbage, "g.xml")
    assert isinstance(failure, ImportFailure)
    assert "node 0 (line 1) has x 'a', expected a number" in failure.reason
