"""android_rules and ios_rules: the documented heuristics."""

from __future__ import annotations

import pytest

from bridge.core.importers.android_rules import (
    actions_from_android_names,
    actions_from_flags,
    is_editable_class,
    window_type_for_package,
)
from bridge.core.importers.ios_rules import automation_id_from_name, derive, parse_traits


@pytest.mark.parametrize(
    ("class_name", "editable"),
    [
        ("android.widget.EditText", True),
        ("androidx.appcompat.widget.AppCompatEditText", True),
        ("com.google.android.material.textfield.TextInputEditText", True),
        ("android.widget.AutoCompleteTextView", True),
        ("android.widget.SearchView$SearchAutoComplete", True),
        ("android.widget.TextView", False),
        ("android.view.View", False),
        (None, False),
    ],
)
def test_editable_classes(class_name: str | None, editable: bool) -> None:
    assert is_editable_class(class_name) is editable


def test_actions() -> None:
    assert actions_from_flags(
        clickable=True, long_clickable=True, scrollable=True, editable=True
    ) == ("click", "longClick", "setText", "scrollForward", "scrollBackward")
    assert actions_from_android_names(
        ["ACTION_SCROLL_UP", "ACTION_CLICK", "ACTION_CLICK", "ACTION_SHOW_ON_SCREEN"]
    ) == ("click", "scrollBackward")


@pytest.mark.parametrize(
    ("package", "kind"),
    [
        ("com.android.systemui", "system"),
        ("gesture", "system"),
        ("com.google.android.inputmethod.latin", "input_method"),
        ("com.samsung.android.honeyboard", "input_method"),
        ("com.touchtype.swiftkey", "input_method"),
        ("com.baidu.input_huawei", "input_method"),
        ("com.tencent.wetype", "input_method"),
        ("jp.co.omronsoft.openwnn", "input_method"),
        ("com.baidu.inputs.notes", "application"),
        ("android", "application"),
        ("com.example", "application"),
        (None, "application"),
    ],
)
def test_window_types(package: str | None, kind: str) -> None:
    assert window_type_for_package(package) == kind


def test_ios_derivation() -> None:
    secure = derive("XCUIElementTypeSecureTextField", (), "••")
    assert secure.password and secure.editable and secure.actions == ("click", "setText")
    legacy = derive("UIAScrollView", (), None)
    assert legacy.scrollable and legacy.actions == ("scrollForward", "scrollBackward")
    toggle = derive("XCUIElementTypeSwitch", (), "0")
    assert toggle.checkable and not toggle.checked and toggle.clickable
    other = derive("XCUIElementTypeOther", parse_traits("Button, Header"), None)
    assert other.actions == ("click",) and other.heading and not other.selected
    assert parse_traits(" Keyboard Key ,, Selected") == ("keyboard_key", "selected")


def test_wda_name_as_identifier() -> None:
    assert automation_id_from_name("login_button", "Log in") == "login_button"
    assert automation_id_from_name("Log in", "Log in") is None
    assert automation_id_from_name("Double tap to open", None) is None
    assert automation_id_from_name("", None) is None
