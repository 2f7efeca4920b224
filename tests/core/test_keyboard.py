"""A soft keyboard is one node in the compact view and complete in the full view.

Fixture: ``tests/fixtures/semantics/keyboard.android.xml`` — a uiautomator dump (built for these
tests) of a notes app with a 16-row list and an open QWERTY keyboard in its own input-method
window (a suggestion strip, then a number row, three letter rows and a bottom row: 44 keys).
With every key kept the compact snapshot went over the 28 KB budget and was cut (the app's
last rows and its Save button were lost); collapsed, the keyboard costs about one node.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from bridge.core.importers import import_dump
from bridge.core.keyboard import (
    ANDROID_HIDE_HINT,
    KEYBOARD_LABEL,
    KeyboardRegion,
    find_keyboards,
    keyboard_regions,
    may_start_region,
    region_members,
)
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.wire.enums import Platform, Role
from bridge.wire.raw import RawNode, RawTree, RawWindow
from bridge.wire.snapshot import ScreenSnapshot
from tests.conftest import SHARED_DIR

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semantics"
GBOARD = "com.google.android.inputmethod.latin"


def _norm(raw: RawTree) -> Normalized:
    out = normalize(raw, SnapshotContext("dev", "s_1", 0))
    assert isinstance(out, Normalized), out
    return out


def _android_fixture() -> RawTree:
    raw = import_dump((FIXTURES / "keyboard.android.xml").read_bytes(), "keyboard.android.xml")
    assert isinstance(raw, RawTree), raw
    return raw


def _without_window(raw: RawTree, window: int) -> RawTree:
    """The same capture with one window (a pre-order block of nodes) taken out."""
    keep = [i for i, n in enumerate(raw.nodes) if n.window != window]
    index = {old: new for new, old in enumerate(keep)}
    nodes = tuple(
        msgspec.structs.replace(
            raw.nodes[old], handle=new, parent=index.get(raw.nodes[old].parent, -1)
        )
        for new, old in enumerate(keep)
    )
    windows = tuple(w for w in raw.windows if w.id != window)
    return msgspec.structs.replace(raw, nodes=nodes, windows=windows, focus=None)


def _size(snapshot: ScreenSnapshot) -> int:
    return len(msgspec.json.encode(snapshot))


def _assert_valid(*snapshots: ScreenSnapshot) -> None:
    if not SHARED_DIR.is_dir():
        return  # the reference schemas live in ../shared; test_normalize covers validity too
    from tests.wire.schemas import reference_validator

    for snapshot in snapshots:
        doc = json.loads(msgspec.json.encode(snapshot))
        errors = list(reference_validator("snapshot").iter_errors(doc))
        assert not errors, [e.message[:200] for e in errors[:3]]


def test_android_keyboard_window_is_one_node_in_compact_and_whole_in_full() -> None:
    raw = _android_fixture()
    ime = [w for w in raw.windows if w.type == "input_method"]
    assert [w.package for w in ime] == [GBOARD]
    out = _norm(raw)
    full, compact = out.full, out.compact

    # full: every raw node, every key with its name
    assert len(full.nodes) == len(raw.nodes) == 111
    keys = [n for n in full.nodes if (n.automation_id or "").startswith(f"{GBOARD}:id/key_pos")]
    assert len(keys) == 44
    assert {"q", "Shift", "Delete", "Space", "Enter"} <= {k.label for k in keys}

    # compact: the keyboard window is its root alone, saying what it is and what hides it
    in_ime = {out_id for out_id, h in out.handles.items() if raw.nodes[h].window == ime[0].id}
    kept = [n for n in compact.nodes if n.node_id in in_ime]
    assert len(kept) == 1
    board = kept[0]
    assert board.parent_id is None
    assert board.role is Role.UNKNOWN
    assert board.label == KEYBOARD_LABEL
    assert board.value == GBOARD
    assert board.hint == ANDROID_HIDE_HINT
    assert board.bounds == (0, 1380, 1080, 2400)
    same = next(n for n in full.nodes if n.node_id == board.node_id)
    assert board == msgspec.structs.replace(same, class_name=None)  # compact drops classes

    # the app is whole, nothing was cut
    assert not compact.truncated
    assert compact.package_name == "com.example.notes"
    assert any(n.label == "Save" for n in compact.nodes)
    rows = [n for n in compact.nodes if n.role is Role.LIST_ITEM]
    assert len(rows) == 16
    _assert_valid(full, compact)


def test_android_keyboard_costs_about_one_node_of_compact() -> None:
    raw = _android_fixture()
    with_keyboard = _norm(raw).compact
    app_only = _norm(
        _without_window(raw, next(w.id for w in raw.windows if w.type == "input_method"))
    )
    assert not app_only.compact.truncated
    extra = _size(with_keyboard) - _size(app_only.compact)
    assert 0 < extra < 300, extra  # one node: id, role, label, package, hint, bounds
    assert _size(with_keyboard) < 30_000


def test_keyboard_window_named_by_the_agent_is_collapsed_whatever_its_package() -> None:
    raw = RawTree(
        capture=3,
        platform=Platform.ANDROID,
        package="com.example.chat",
        windows=(
            RawWindow(id=7, type="application", package="com.example.chat", active=True),
            RawWindow(id=9, type="input_method", package="org.example.handwriting"),
        ),
        nodes=(
            RawNode(handle=10, parent=-1, window=7, class_name="android.widget.FrameLayout"),
            RawNode(
                handle=11,
                parent=0,
                window=7,
                class_name="android.widget.EditText",
                text="hi",
                editable=True,
                focused=True,
            ),
            RawNode(
                handle=20,
                parent=-1,
                window=9,
                class_name="android.widget.FrameLayout",
                bounds=(0, 1600, 1080, 2400),
            ),
            RawNode(
                handle=21,
                parent=2,
                window=9,
                class_name="android.view.View",
                label="Write here",
                clickable=True,
            ),
            RawNode(
                handle=22,
                parent=2,
                window=9,
                class_name="android.widget.ImageButton",
                label="Hide keyboard",
                clickable=True,
            ),
        ),
    )
    out = _norm(raw)
    compact = {n.node_id: n for n in out.compact.nodes}
    board = next(n for n in out.compact.nodes if n.label == KEYBOARD_LABEL)
    assert board.value == "org.example.handwriting"
    hide = next(n for n in out.compact.nodes if n.label == "Hide keyboard")
    assert hide.parent_id == board.node_id  # the key that hides it stays, under the keyboard
    assert not any(n.label == "Write here" for n in compact.values())
    assert any(n.label == "Write here" for n in out.full.nodes)
    assert len(out.full.nodes) == 5


def test_keyboard_nodes_inside_one_window_are_found_by_their_package() -> None:
    """Maestro's Android hierarchy has no windows: the keyboard sits under the app's root."""
    app = "com.example.shop"
    nodes = [
        RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout", package=app),
        RawNode(
            handle=1,
            parent=0,
            class_name="android.widget.EditText",
            package=app,
            text="shoes",
            editable=True,
        ),
        RawNode(
            handle=2,
            parent=0,
            class_name="android.widget.FrameLayout",
            package="com.touchtype.swiftkey",
            bounds=(0, 1500, 1080, 2400),
        ),
    ]
    for k, ch in enumerate("asdfghjkl"):
        nodes.append(
            RawNode(
                handle=3 + k,
                parent=2,
                class_name="android.view.View",
                package="com.touchtype.swiftkey",
                label=ch,
                clickable=True,
            )
        )
    raw = RawTree(capture=0, platform=Platform.ANDROID, nodes=tuple(nodes), package=app)
    (region,) = find_keyboards(raw)
    assert region.root == 2 and region.package == "com.touchtype.swiftkey"
    out = _norm(raw)
    assert [n.label for n in out.compact.nodes if n.role is Role.BUTTON] == []
    assert sum(1 for n in out.compact.nodes if n.label == KEYBOARD_LABEL) == 1
    assert sum(1 for n in out.full.nodes if n.role is Role.BUTTON) == 9


def test_an_app_named_like_a_keyboard_is_not_collapsed() -> None:
    app = "com.example.keyboardtrainer"
    raw = RawTree(
        capture=0,
        platform=Platform.ANDROID,
        package=app,
        windows=(RawWindow(id=0, type="input_method", package=app),),
        nodes=(
            RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout", package=app),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.widget.Button",
                package=app,
                text="Start lesson",
                clickable=True,
            ),
        ),
    )
    assert find_keyboards(raw) == ()
    out = _norm(raw)
    assert any(n.label == "Start lesson" for n in out.compact.nodes)


IOS_KEYBOARD = b"""<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Notes" label="Notes"
  enabled="true" visible="true" x="0" y="0" width="390" height="844">
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true"
    x="0" y="0" width="390" height="844">
    <XCUIElementTypeTextField type="XCUIElementTypeTextField" name="title" label="Title"
      value="Grocer" enabled="true" visible="true" x="16" y="100" width="358" height="44"/>
  </XCUIElementTypeWindow>
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true"
    x="0" y="0" width="390" height="844">
    <XCUIElementTypeOther type="XCUIElementTypeOther" enabled="true" visible="true"
      x="0" y="508" width="390" height="336">
      <XCUIElementTypeKeyboard type="XCUIElementTypeKeyboard" enabled="true" visible="true"
        x="0" y="508" width="390" height="336">
        <XCUIElementTypeKey type="XCUIElementTypeKey" name="q" label="q" enabled="true"
          visible="true" x="3" y="560" width="33" height="42"/>
        <XCUIElementTypeKey type="XCUIElementTypeKey" name="w" label="w" enabled="true"
          visible="true" x="42" y="560" width="33" height="42"/>
        <XCUIElementTypeKey type="XCUIElementTypeKey" name="e" label="e" enabled="true"
          visible="true" x="81" y="560" width="33" height="42"/>
        <XCUIElementTypeButton type="XCUIElementTypeButton" name="Hide keyboard"
          label="Hide keyboard" enabled="true" visible="true" x="330" y="780" width="56"
          height="42"/>
      </XCUIElementTypeKeyboard>
    </XCUIElementTypeOther>
  </XCUIElementTypeWindow>
</XCUIElementTypeApplication>
</AppiumAUT>
"""


def test_ios_keyboard_window_keeps_its_hide_key() -> None:
    raw = import_dump(IOS_KEYBOARD, "ios-keyboard.xml")
    assert isinstance(raw, RawTree), raw
    assert [w.type for w in raw.windows] == ["application", "input_method"]
    out = _norm(raw)
    board = next(n for n in out.compact.nodes if n.label == KEYBOARD_LABEL)
    assert board.role is Role.UNKNOWN
    assert board.hint == "the 'Hide keyboard' key hides the keyboard"
    assert board.bounds == (0, 0, 390, 844)  # the keyboard's window
    below = [n for n in out.compact.nodes if n.parent_id == board.node_id]
    assert [n.label for n in below] == ["Hide keyboard"]
    assert not any(n.label in ("q", "w", "e") for n in out.compact.nodes)
    assert sum(1 for n in out.full.nodes if n.label in ("q", "w", "e")) == 3
    assert any(n.value == "Grocer" for n in out.compact.nodes)
    _assert_valid(out.full, out.compact)


def test_ios_keyboard_element_without_a_window_is_the_region_root() -> None:
    body = IOS_KEYBOARD.replace(b"XCUIElementTypeWindow", b"XCUIElementTypeOther")
    raw = import_dump(body, "ios-keyboard-nowindow.xml")
    assert isinstance(raw, RawTree), raw
    assert [w.type for w in raw.windows] == ["application"]  # the app is no keyboard
    (region,) = find_keyboards(raw)
    assert raw.nodes[region.root].class_name == "XCUIElementTypeKeyboard"
    out = _norm(raw)
    board = next(n for n in out.compact.nodes if n.label == KEYBOARD_LABEL)
    assert board.bounds == (0, 508, 390, 844)
    assert board.value is None  # iOS dumps do not name the input method


# ---- the region finder itself, on trees built here ------------------------------------------


def _tree(platform: Platform, *nodes: RawNode, windows: tuple[RawWindow, ...] = (),
          package: str | None = "com.example.notes") -> RawTree:  # fmt: skip
    return RawTree(capture=1, platform=platform, nodes=nodes, windows=windows, package=package)


def _n(handle: int, parent: int, **fields: object) -> RawNode:
    return RawNode(handle=handle, parent=parent, **fields)  # type: ignore[arg-type]


def test_a_keyboard_at_the_trees_root_holds_every_node_below_it() -> None:
    raw = _tree(
        Platform.ANDROID,
        _n(0, -1, window=7, package=GBOARD),
        _n(1, 0, window=7, package=GBOARD, label="q"),
        _n(2, 1, window=7, package=GBOARD, text=" Done "),
        windows=(RawWindow(id=7, type="input_method", package=GBOARD),),
    )
    regions, members = keyboard_regions(raw)
    assert regions == (
        KeyboardRegion(root=0, package=GBOARD, hide_keys=(2,), hint=ANDROID_HIDE_HINT),
    )
    assert members == [0, 0, 0]
    assert region_members(raw, regions) == [0, 0, 0]
    assert region_members(raw, ()) == [-1, -1, -1]  # no keyboard: nobody is a member
    assert find_keyboards(raw) == regions


def test_the_window_names_the_input_method_before_the_nodes_package() -> None:
    raw = _tree(
        Platform.ANDROID,
        _n(0, -1, window=1, package="com.example.notes"),
        _n(1, 0, window=1, package="com.example.notes", label="Title"),
        _n(2, -1, window=2, package="com.other.keys"),
        _n(3, 2, window=2, package="com.other.keys", label="a"),
        windows=(
            RawWindow(id=1, type="application", package="com.example.notes"),
            RawWindow(id=2, type="input_method", package=GBOARD),
        ),
    )
    (region,) = find_keyboards(raw)
    assert (region.root, region.package, region.hide_keys) == (2, GBOARD, ())
    assert region_members(raw, (region,)) == [-1, -1, 2, 2]
    # a window without a package: the node's own package names it
    bare = msgspec.structs.replace(raw, windows=(RawWindow(id=2, type="input_method"),))
    assert find_keyboards(bare)[0].package == "com.other.keys"


def test_may_start_region_is_true_for_ime_windows_packages_and_ios_keyboards_only() -> None:
    ime_window = RawWindow(id=2, type="input_method")
    app_window = RawWindow(id=1, type="application")
    android = _tree(Platform.ANDROID, _n(0, -1), windows=(app_window, ime_window))
    assert may_start_region(android, _n(0, -1, window=2, package="com.example.notes"))
    assert not may_start_region(android, _n(0, -1, window=1, package="com.example.notes"))
    assert not may_start_region(android, _n(0, -1, window=3, package="com.example.notes"))
    assert may_start_region(android, _n(0, -1, window=1, package=GBOARD))
    only_app = _tree(Platform.ANDROID, _n(0, -1), windows=(RawWindow(id=2, type="system"),))
    assert not may_start_region(only_app, _n(0, -1, window=2, package="com.example.notes"))
    ios = _tree(Platform.IOS, _n(0, -1))
    assert may_start_region(ios, _n(0, -1, class_name="XCUIElementTypeKeyboard"))
    assert may_start_region(ios, _n(0, -1, class_name="UIAWindow"))
    assert not may_start_region(ios, _n(0, -1, class_name="XCUIElementTypeButton"))
    assert not may_start_region(ios, _n(0, -1))


def test_an_ios_keyboard_names_its_first_hide_key_by_label_else_text() -> None:
    raw = _tree(
        Platform.IOS,
        _n(0, -1, class_name="XCUIElementTypeApplication"),
        _n(1, 0, class_name="XCUIElementTypeKeyboard"),
        _n(2, 1, class_name="XCUIElementTypeKey", label="a"),
        _n(3, 1, class_name="XCUIElementTypeButton", text="  Dismiss keyboard "),
        _n(4, 1, class_name="XCUIElementTypeButton", label="Done"),
        package=None,
    )
    (region,) = find_keyboards(raw)
    assert region == KeyboardRegion(
        root=1, package=None, hide_keys=(3, 4), hint="the 'Dismiss keyboard' key hides the keyboard"
    )
    assert region_members(raw, (region,)) == [-1, 1, 1, 1, 1]
    plain = _tree(
        Platform.IOS,
        _n(0, -1, class_name="XCUIElementTypeKeyboard", package="com.apple.keyboard"),
        _n(1, 0, class_name="XCUIElementTypeKey", label="a"),
    )
    assert find_keyboards(plain) == (KeyboardRegion(root=0, package=None, hide_keys=(), hint=None),)
    # an iOS window that is not an input-method window is no keyboard
    window = _tree(Platform.IOS, _n(0, -1, class_name="XCUIElementTypeWindow"))
    assert find_keyboards(window) == ()
