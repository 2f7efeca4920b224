"""Android XML dumps: ``uiautomator dump``, Appium (UiAutomator2) page source, and the
AccessibilityNodeInfo variant with a ``raw=`` attribute (AppCrawler).

Invariants:
- ``uiautomator``: ``<hierarchy rotation=R>`` whose children are ``<node>`` elements; every
  top-level ``<node>`` is one window root (multi-window dumps list several). A bare ``<node>``
  root without the wrapper is read the same way. A child element other than ``<node>`` is an
  error.
- ``appium``: ``<hierarchy class="hierarchy" width= height=>`` whose descendants are named by
  their class; the ``class`` attribute wins over the tag. ``displayed`` is the visibility flag,
  ``width``/``height`` give the screen size.
- ``a11ynode``: root ``<node root="true" ...>``; ``visible``/``isFocused`` are the flags;
  ``focusable``, ``enabled`` and the action list come from ``raw=`` (``AccessibilityNodeInfo
  .toString()``; the last occurrence of a key is used because free text comes first there).
- ``hierarchy`` and wrapper elements are not nodes; every other element is exactly one node,
  in document order (pre-order), handle = index.
- windows: one ``RawWindow`` per top-level node, ids 0.. in document order; ``layer`` is
  ``count - 1 - ordinal`` because uiautomator lists window roots top-most first (the order of
  ``UiAutomation.getWindows()``); the type follows ``android_rules.window_type_for_package``.
- tree ``package`` is the package of the first ``application`` window, else of the first window;
  ``focus`` is the first node (pre-order) reporting focused; ``rotation`` is
  ``hierarchy@rotation`` (0-3 as Surface.ROTATION_*, or degrees) in degrees.
"""

from __future__ import annotations

import re

from bridge.core.importers.android_rules import (
    actions_from_android_names,
    actions_from_flags,
    editable_class_name,
    window_type_for_package,
)
from bridge.core.importers.failure import DumpError, shown
from bridge.core.importers.limits import cap_text, opt_text
from bridge.core.importers.safe_xml import XmlElement
from bridge.core.importers.values import (
    android_bounds_or_none,
    read_android_bounds,
    read_bool,
    read_int,
)
from bridge.core.importers.walk import preorder
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize

UIAUTOMATOR = "android-uiautomator"
APPIUM = "android-appium-pagesource"
A11YNODE = "android-a11ynode"

_RAW_ACTIONS = re.compile(r"actions: \[([^\]]*)\]")
_RAW_ACTION_NAME = re.compile(r"(ACTION_[A-Z_]+)")


def _raw_flag(raw: str, key: str) -> str | None:
    found = re.findall(rf"(?:^|; ){key}: (true|false)(?=;|$)", raw)
    return found[-1] if found else None


def read_rotation(value: str | None, where: str) -> int:
    if value is None or value == "":
        return 0
    rotation = read_int(value, where, "rotation")
    if rotation in (0, 1, 2, 3):
        return rotation * 90
    if rotation in (90, 180, 270):
        return rotation
    raise DumpError(f"{where} has rotation {shown(value)}, expected 0-3 or 0/90/180/270")


_PLAIN_BOOL = {"true": True, "false": False}
"""The spellings every dump uses, read without ``read_bool``'s normalizing (a fast path:
anything else still goes through it and its error)."""


def _where(element: XmlElement, index: int) -> str:
    return f"node {index} (line {element.line})"


def _flag(value: str | None, default: bool, element: XmlElement, index: int, name: str) -> bool:
    """``read_bool`` with its error's place built only when it is needed."""
    if value is None:
        return default
    plain = _PLAIN_BOOL.get(value)
    if plain is not None:
        return plain
    return read_bool(value, default, _where(element, index), name)


_FLAGS: tuple[tuple[str, bool], ...] = (
    ("clickable", False),
    ("long-clickable", False),
    ("scrollable", False),
    ("checkable", False),
    ("checked", False),
    ("enabled", True),
    ("focusable", False),
    ("focused", False),
    ("selected", False),
    ("password", False),
    ("visible", True),
    ("heading", False),
)
"""A node's flags: their names (as errors name them) and defaults, in ``_read_flags`` order."""
_FLAG_MEMO_MAX = 1024
_FLAG_MEMO: dict[tuple[str | None, ...], tuple[bool, ...]] = {}
"""The flags' attribute texts -> their values: nodes of a dump repeat a few combinations.
Only texts that read without an error are remembered; bounded (cleared when full)."""


def _read_flags(texts: tuple[str | None, ...], element: XmlElement, index: int) -> tuple[bool, ...]:
    """The values of ``_FLAGS`` from their attribute texts (``_flag`` each: an unreadable one
    raises naming this node)."""
    found = _FLAG_MEMO.get(texts)
    if found is None:
        found = tuple(
            _flag(text, default, element, index, name)
            for text, (name, default) in zip(texts, _FLAGS, strict=True)
        )
        if len(_FLAG_MEMO) >= _FLAG_MEMO_MAX:
            _FLAG_MEMO.clear()
        _FLAG_MEMO[texts] = found
    return found


def _node(element: XmlElement, index: int, parent: int, window: int, fmt: str) -> RawNode:
    """One node (profiled hot path: ``where`` is built only for an error)."""
    a = element.attrib
    get = a.get
    class_name = opt_text(get("class")) or (element.tag if fmt == APPIUM else None)
    bounds_text = get("bounds")
    bounds = None
    if bounds_text:
        bounds = android_bounds_or_none(bounds_text)
        if bounds is None:
            bounds = read_android_bounds(bounds_text, _where(element, index))
    raw = get("raw", "") if fmt == A11YNODE else ""
    (
        clickable,
        long_clickable,
        scrollable,
        checkable,
        checked,
        enabled,
        focusable,
        focused,
        selected,
        password,
        visible,
        heading,
    ) = _read_flags(
        (
            get("clickable"),
            get("long-clickable"),
            get("scrollable"),
            get("checkable"),
            get("checked"),
            get("enabled") or (_raw_flag(raw, "enabled") if raw else None),
            get("focusable") or (_raw_flag(raw, "focusable") if raw else None),
            get("focused") or get("isFocused"),
            get("selected"),
            get("password"),
            get("visible-to-user") or get("displayed") or get("visible"),
            get("heading"),
        ),
        element,
        index,
    )
    raw_actions = _RAW_ACTIONS.findall(raw) if raw else None
    reported = _RAW_ACTION_NAME.findall(raw_actions[-1]) if raw_actions else None
    editable = (class_name is not None and editable_class_name(class_name)) or (
        reported is not None and "ACTION_SET_TEXT" in reported
    )
    if reported is not None:
        actions = actions_from_android_names(reported)
    else:
        actions = actions_from_flags(
            clickable=clickable,
            long_clickable=long_clickable,
            scrollable=scrollable,
            editable=editable,
        )
    return RawNode(
        handle=index,
        parent=parent,
        window=window,
        class_name=cap_text(class_name) if class_name else None,
        text=opt_text(get("text")),
        label=opt_text(get("content-desc")),
        hint=opt_text(get("hint")),
        automation_id=opt_text(get("resource-id")),
        package=opt_text(get("package")),
        bounds=bounds,
        clickable=clickable,
        long_clickable=long_clickable,
        checkable=checkable,
        checked=checked,
        enabled=enabled,
        focusable=focusable,
        focused=focused,
        selected=selected,
        scrollable=scrollable,
        editable=editable,
        password=password,
        visible=visible,
        heading=heading,
        actions=actions,
    )


def import_android_xml(root: XmlElement, fmt: str) -> RawTree:
    if root.tag == "hierarchy":
        top = root.children
        rotation = read_rotation(root.attrib.get("rotation"), "<hierarchy>")
    else:
        top = [root]
        rotation = 0
    screen = None
    if fmt == APPIUM and "width" in root.attrib and "height" in root.attrib:
        screen = ScreenSize(
            width=read_int(root.attrib["width"], "<hierarchy>", "width"),
            height=read_int(root.attrib["height"], "<hierarchy>", "height"),
        )

    def children(element: XmlElement, index: int) -> list[XmlElement]:
        if fmt != APPIUM:
            for child in element.children:
                if child.tag != "node":
                    raise DumpError(
                        f"node {index} (line {element.line}) has a child <{child.tag}> "
                        f"at line {child.line}, expected <node>"
                    )
        return element.children

    if fmt != APPIUM and root.tag == "hierarchy":
        for element in top:
            if element.tag != "node":
                raise DumpError(f"<hierarchy> has a child <{element.tag}>, expected <node>")

    nodes = [
        _node(visit.item, visit.index, visit.parent, visit.root, fmt)
        for visit in preorder(top, children)
    ]
    roots = [n for n in nodes if n.parent == -1]
    windows = [
        RawWindow(
            id=ordinal,
            type=window_type_for_package(node.package),
            layer=len(roots) - 1 - ordinal,
            package=node.package,
            bounds=node.bounds,
        )
        for ordinal, node in enumerate(roots)
    ]
    app = [w for w in windows if w.type == "application" and w.package]
    package = app[0].package if app else next((w.package for w in windows if w.package), None)
    focus = next((n.handle for n in nodes if n.focused), None)
    return RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=tuple(nodes),
        windows=tuple(windows),
        package=package,
        focus=focus,
        rotation=rotation,
        screen=screen,
    )
