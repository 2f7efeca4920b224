"""iOS rules shared by the WDA XML, legacy WDA JSON, idb and Maestro importers.

iOS reports no clickable/editable flags and no action list, only an element type (and, in
newer WDA, accessibility traits). Invariants (documented heuristics, one table for all iOS
importers; the type name is compared without its ``XCUIElementType`` / ``UIA`` prefix):
- ``click``: Button, Link, Cell, Switch, Toggle, Tab, Key, MenuItem, MenuButton, RadioButton,
  CheckBox, DisclosureTriangle, PopUpButton, Icon, SegmentedControl button types, and any
  element whose traits include ``button``, ``link`` or ``keyboard_key``;
- ``setText`` (+ ``click``, ``editable``): TextField, SecureTextField, SearchField, TextView;
- ``password``: SecureTextField;
- ``scrollForward`` + ``scrollBackward``: ScrollView, Table, CollectionView, WebView;
- ``checkable``: Switch, Toggle, CheckBox; ``checked`` when the value is ``1``/``true``/``on``;
- ``clickable`` is set exactly when ``click`` is among the derived actions, so consumers treat
  both platforms alike;
- traits are lower-cased with inner spaces as ``_`` (``Keyboard Key`` -> ``keyboard_key``);
  ``header`` sets ``heading``, ``selected`` sets ``selected``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.core.importers.android_rules import canonical_actions
from bridge.wire.base import Bounds
from bridge.wire.raw import RawWindow

_CLICK_TYPES = frozenset(
    {
        "Button",
        "Link",
        "Cell",
        "Switch",
        "Toggle",
        "Tab",
        "Key",
        "MenuItem",
        "MenuButton",
        "RadioButton",
        "CheckBox",
        "DisclosureTriangle",
        "PopUpButton",
        "Icon",
    }
)
_TEXT_TYPES = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
_SCROLL_TYPES = frozenset({"ScrollView", "Table", "CollectionView", "WebView"})
_CHECK_TYPES = frozenset({"Switch", "Toggle", "CheckBox"})
_CLICK_TRAITS = frozenset({"button", "link", "keyboard_key"})
_ON_VALUES = frozenset({"1", "true", "on"})


@dataclass(frozen=True, slots=True)
class IosDerived:
    actions: tuple[str, ...]
    clickable: bool
    editable: bool
    password: bool
    scrollable: bool
    checkable: bool
    checked: bool
    heading: bool
    selected: bool


def bare_type(type_name: str | None) -> str:
    if not type_name:
        return ""
    for prefix in ("XCUIElementType", "UIA"):
        if type_name.startswith(prefix):
            return type_name[len(prefix) :]
    return type_name


def parse_traits(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    parts = (part.strip().lower().replace(" ", "_") for part in text.split(","))
    return tuple(part for part in parts if part)


def derive(type_name: str | None, traits: tuple[str, ...], value: str | None) -> IosDerived:
    kind = bare_type(type_name)
    names: list[str] = []
    editable = kind in _TEXT_TYPES
    scrollable = kind in _SCROLL_TYPES
    if kind in _CLICK_TYPES or editable or _CLICK_TRAITS.intersection(traits):
        names.append("click")
    if editable:
        names.append("setText")
    if scrollable:
        names.extend(("scrollForward", "scrollBackward"))
    actions = canonical_actions(names)
    checkable = kind in _CHECK_TYPES
    return IosDerived(
        actions=actions,
        clickable="click" in actions,
        editable=editable,
        password=kind == "SecureTextField",
        scrollable=scrollable,
        checkable=checkable,
        checked=checkable and (value or "").strip().lower() in _ON_VALUES,
        heading="header" in traits,
        selected="selected" in traits,
    )


def automation_id_from_name(name: str | None, label: str | None) -> str | None:
    """WDA's ``name`` is the accessibility identifier when one is set, else the label (old WDA
    even fell back to the hint). It is taken as the identifier only when it looks like one:
    non-empty, different from the label, and without whitespace. A real identifier with a space
    is lost; the alternative — every SpringBoard icon getting the id "Double tap to open" — is
    worse."""
    if not name or name == label or any(c.isspace() for c in name):
        return None
    return name


class IosWindows:
    """Window assignment for iOS trees: every ``Window`` element opens a window (ids in
    pre-order); other nodes take their parent's window; roots outside any window take 0; a
    window holding a ``Keyboard`` is ``input_method``. With no window element, nodes still live
    in one application window 0 (a keyboard inside it does not make the app a keyboard)."""

    def __init__(self) -> None:
        self.window_of: list[int] = []
        self.frames: list[Bounds | None] = []
        self.keyboards: set[int] = set()

    def assign(self, kind: str, parent: int, bounds: Bounds | None) -> int:
        if kind == "Window":
            window = len(self.frames)
            self.frames.append(bounds)
        else:
            window = self.window_of[parent] if parent >= 0 else 0
        self.window_of.append(window)
        if kind == "Keyboard":
            self.keyboards.add(window)
        return window

    def windows(self, package: str | None) -> tuple[RawWindow, ...]:
        frames = self.frames or ([None] if self.window_of else [])
        real = bool(self.frames)  # without Window elements, window 0 is the whole app
        return tuple(
            RawWindow(
                id=i,
                type="input_method" if real and i in self.keyboards else "application",
                package=package,
                bounds=frame,
            )
            for i, frame in enumerate(frames)
        )
