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
from bridge.core.importers.limits import MAX_RAW_NODES, MAX_TREE_DEPTH, cap_text, opt_text
from bridge.core.importers.safe_xml import XmlReader
from bridge.core.importers.values import (
    android_bounds_or_none,
    read_android_bounds,
    read_bool,
    read_int,
)
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


def _where(line: int, index: int) -> str:
    return f"node {index} (line {line})"


def _flag(value: str | None, default: bool, line: int, index: int, name: str) -> bool:
    """``read_bool`` with its error's place built only when it is needed."""
    if value is None:
        return default
    plain = _PLAIN_BOOL.get(value)
    if plain is not None:
        return plain
    return read_bool(value, default, _where(line, index), name)


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


def _read_flags(texts: tuple[str | None, ...], line: int, index: int) -> tuple[bool, ...]:
    """The values of ``_FLAGS`` from their attribute texts (``_flag`` each: an unreadable one
    raises naming this node)."""
    found = _FLAG_MEMO.get(texts)
    if found is None:
        found = tuple(
            _flag(text, default, line, index, name)
            for text, (name, default) in zip(texts, _FLAGS, strict=True)
        )
        if len(_FLAG_MEMO) >= _FLAG_MEMO_MAX:
            _FLAG_MEMO.clear()
        _FLAG_MEMO[texts] = found
    return found


_RAW_ORDER = (
    "handle", "parent", "window", "class_name", "text", "label", "value", "hint",
    "automation_id", "package", "bounds", "clickable", "long_clickable", "checkable", "checked",
    "enabled", "focusable", "focused", "selected", "scrollable", "editable", "password",
    "visible", "hittable", "heading", "actions",
)  # fmt: skip
"""The leading fields of ``RawNode`` in declaration order: ``_node`` passes them by position
(checked at import: a reordered struct fails here, not silently)."""
if RawNode.__struct_fields__[: len(_RAW_ORDER)] != _RAW_ORDER:  # pragma: no cover
    raise ImportError("RawNode's fields moved: update android_xml._RAW_ORDER and _node")


def _node(
    a: dict[str, str], tag: str, line: int, index: int, parent: int, window: int, fmt: str
) -> RawNode:
    """One node from its element's attributes (profiled hot path: ``where`` is built only
    for an error)."""
    get = a.get
    class_name = opt_text(get("class")) or (tag if fmt == APPIUM else None)
    bounds_text = get("bounds")
    bounds = None
    if bounds_text:
        bounds = android_bounds_or_none(bounds_text)
        if bounds is None:
            bounds = read_android_bounds(bounds_text, _where(line, index))
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
        line,
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
    return RawNode(  # by position, in _RAW_ORDER (a keyword call costs 6x as much)
        index,
        parent,
        window,
        cap_text(class_name) if class_name else None,
        opt_text(get("text")),
        opt_text(get("content-desc")),
        None,  # value
        opt_text(get("hint")),
        opt_text(get("resource-id")),
        opt_text(get("package")),
        bounds,
        clickable,
        long_clickable,
        checkable,
        checked,
        enabled,
        focusable,
        focused,
        selected,
        scrollable,
        editable,
        password,
        visible,
        None,  # hittable
        heading,
        actions,
    )


class NotAndroid(Exception):
    """The document's root is no Android dump's: the caller reads it another way."""


class AndroidReader(XmlReader):
    """Reads an Android dump as its elements open (module rules): each node is built when
    expat reports it, with no element tree and no second walk. The format is decided by the
    root and, under ``<hierarchy>``, its first child, as ``entry.detect_xml`` decides it;
    a root of another kind raises ``NotAndroid`` at once."""

    def __init__(self) -> None:
        super().__init__()
        self.format: str | None = None
        self.nodes: list[RawNode] = []
        self.root_attrib: dict[str, str] = {}
        self.rotation = 0
        self._open: list[tuple[int, int, int]] = []
        """Per open element: (its node index, -1 for the ``<hierarchy>`` wrapper; its line;
        the window its node belongs to)."""
        self._wrapped = 0
        self._roots = 0

    def _start(self, tag: str, attrib: dict[str, str]) -> None:
        opened = self._open
        self._admit(len(opened))
        line = self.parser.CurrentLineNumber
        if opened:
            parent, parent_line, window = opened[-1]
            fmt = self.format
            if fmt is None:  # the first child of <hierarchy> decides
                fmt = self.format = APPIUM if tag != "node" and "class" in attrib else UIAUTOMATOR
            if tag != "node" and fmt != APPIUM:
                if parent < 0:
                    raise DumpError(f"<hierarchy> has a child <{tag}>, expected <node>")
                raise DumpError(
                    f"node {parent} (line {parent_line}) has a child <{tag}> "
                    f"at line {line}, expected <node>"
                )
        elif tag == "hierarchy":
            self._wrapped = 1
            self.root_attrib = attrib
            self.rotation = read_rotation(attrib.get("rotation"), "<hierarchy>")
            if attrib.get("class") == "hierarchy":
                self.format = APPIUM
            opened.append((-1, line, -1))
            return
        elif tag == "node":
            self.format = fmt = (
                A11YNODE if "raw" in attrib or "child-count" in attrib else UIAUTOMATOR
            )
            parent, window = -1, -1
        else:
            raise NotAndroid(tag)
        nodes = self.nodes
        index = len(nodes)
        if index >= MAX_RAW_NODES:
            raise DumpError(f"more than {MAX_RAW_NODES} nodes")
        if len(opened) - self._wrapped > MAX_TREE_DEPTH:
            raise DumpError(f"node {index} is nested deeper than {MAX_TREE_DEPTH} levels")
        if parent < 0:
            window = self._roots
            self._roots += 1
        nodes.append(_node(attrib, tag, line, index, parent, window, fmt))
        opened.append((index, line, window))

    def _end(self, tag: str) -> None:
        self._open.pop()

    def release(self) -> None:
        super().release()
        self._open = []

    def tree(self) -> RawTree:
        """The tree read (call after the parse succeeded)."""
        fmt = self.format or UIAUTOMATOR
        root = self.root_attrib
        screen = None
        if fmt == APPIUM and "width" in root and "height" in root:
            screen = ScreenSize(
                width=read_int(root["width"], "<hierarchy>", "width"),
                height=read_int(root["height"], "<hierarchy>", "height"),
            )
        nodes = self.nodes
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
            rotation=self.rotation,
            screen=screen,
        )
