"""iOS JSON trees: the legacy WebDriverAgent ``/source`` JSON (``UIA*`` types, as stored by
idb's fixtures) and idb's ``describe-all`` output (flat array, or nested with ``--nested``).

Invariants:
- legacy: the document is ``{"value": {"tree": NODE}, ...}`` or a bare NODE; a node has
  ``type``, ``name``, ``label``, ``value``, ``rect`` ``{origin: {x, y}, size: {width,
  height}}`` (fractional points; ``frame`` string ``{{x, y}, {w, h}}`` when ``rect`` is
  missing), ``isVisible``/``isEnabled`` (``"1"``/``"0"``), ``attributes`` (``hasKeyboardFocus``,
  ``hint``, ``bundleID``) and ``children``;
- idb: an array of elements with ``type``, ``AXLabel``, ``AXValue``, ``AXUniqueId``, ``title``,
  ``help``, ``enabled``, ``frame`` ``{x, y, width, height}`` and, when nested, ``children``. A
  flat array gives every element as a root (parent -1): containment is not inferred from frames;
- mapping: type -> class_name, label -> label, value -> value (numbers written as text),
  ``name`` -> automation_id when it looks like an identifier (legacy; ``ios_rules``),
  ``AXUniqueId`` -> automation_id (idb), ``hint``/``help`` -> hint, ``title`` -> text (idb);
  bounds rounded edge by edge (``values.rect_bounds``); actions etc. from ``ios_rules``;
  windows from ``Window`` elements (``ios_rules.IosWindows``);
- tree ``package`` is the application's ``attributes.bundleID`` (legacy) and None for idb;
  ``screen`` the legacy application's size.
"""

from __future__ import annotations

import re
from typing import Any

from bridge.core.importers.failure import DumpError, shown
from bridge.core.importers.ios_rules import (
    IosWindows,
    automation_id_from_name,
    bare_type,
    derive,
)
from bridge.core.importers.json_shape import (
    JsonObject,
    as_object,
    children_list,
    json_type,
    str_map,
)
from bridge.core.importers.limits import cap_text, opt_text
from bridge.core.importers.values import read_bool, read_number, rect_bounds
from bridge.core.importers.walk import preorder
from bridge.wire.base import Bounds
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, ScreenSize

WDA_JSON_LEGACY = "ios-wda-json-legacy"
IDB_JSON = "ios-idb-json"
_FRAME_STRING = re.compile(
    r"^\s*\{\{\s*([-0-9.eE+]+)\s*,\s*([-0-9.eE+]+)\s*\}\s*,\s*\{\s*([-0-9.eE+]+)\s*,"
    r"\s*([-0-9.eE+]+)\s*\}\}\s*$"
)
_IDB_KEYS = ("AXLabel", "AXFrame", "AXUniqueId")


def legacy_root(doc: object) -> JsonObject | None:
    """The tree node of a legacy WDA document, or None when ``doc`` is not one."""
    if isinstance(doc, dict):
        value = doc.get("value")
        if isinstance(value, dict) and isinstance(value.get("tree"), dict):
            doc = value["tree"]
    if (
        isinstance(doc, dict)
        and isinstance(doc.get("type"), str)
        and doc["type"].startswith("UIA")
        and ("rect" in doc or "frame" in doc)
    ):
        return doc
    return None


def looks_like_idb(doc: object) -> bool:
    return (
        isinstance(doc, list)
        and len(doc) > 0
        and isinstance(doc[0], dict)
        and any(key in doc[0] for key in _IDB_KEYS)
    )


def _text(node: JsonObject, key: str, where: str) -> str | None:
    value = node.get(key)
    if value is None or isinstance(value, str):
        return opt_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    raise DumpError(f"{where} has '{key}' that is {json_type(value)}, expected a string")


def _number(obj: JsonObject, key: str, where: str) -> float | int:
    if key not in obj:
        raise DumpError(f"{where} has a frame without '{key}'")
    return read_number(obj[key], where, key)


def _legacy_bounds(node: JsonObject, where: str) -> Bounds | None:
    rect = node.get("rect")
    if rect is not None:
        rect = as_object(rect, f"{where} 'rect'")
        origin = as_object(rect.get("origin"), f"{where} 'rect.origin'")
        size = as_object(rect.get("size"), f"{where} 'rect.size'")
        return rect_bounds(
            _number(origin, "x", where),
            _number(origin, "y", where),
            _number(size, "width", where),
            _number(size, "height", where),
            where,
        )
    frame = node.get("frame")
    if frame is None:
        return None
    found = _FRAME_STRING.match(frame) if isinstance(frame, str) else None
    if found is None:
        raise DumpError(f"{where} has frame {shown(frame)}, expected '{{{{x, y}}, {{w, h}}}}'")
    x, y, w, h = (read_number(g, where, "frame") for g in found.groups())
    return rect_bounds(x, y, w, h, where)


def _idb_bounds(node: JsonObject, where: str) -> Bounds | None:
    frame = node.get("frame")
    if frame is None:
        return None
    frame = as_object(frame, f"{where} 'frame'")
    return rect_bounds(
        _number(frame, "x", where),
        _number(frame, "y", where),
        _number(frame, "width", where),
        _number(frame, "height", where),
        where,
    )


def _children(node: JsonObject, index: int) -> list[JsonObject]:
    return children_list(node, f"node {index}")


def import_legacy(root: JsonObject) -> RawTree:
    nodes: list[RawNode] = []
    tracker = IosWindows()
    package: str | None = None
    screen: ScreenSize | None = None
    for visit in preorder([root], _children):
        node = visit.item
        where = f"node {visit.index}"
        attributes = str_map(node.get("attributes"), where, "attributes")
        type_name = _text(node, "type", where)
        kind = bare_type(type_name)
        bounds = _legacy_bounds(node, where)
        window = tracker.assign(kind, visit.parent, bounds)
        if kind == "Application" and visit.parent == -1:
            package = opt_text(attributes.get("bundleID"))
            if bounds is not None:
                screen = ScreenSize(width=bounds[2] - bounds[0], height=bounds[3] - bounds[1])
        label = _text(node, "label", where)
        value = _text(node, "value", where)
        derived = derive(type_name, (), value)
        nodes.append(
            RawNode(
                handle=visit.index,
                parent=visit.parent,
                window=window,
                class_name=type_name,
                label=label,
                value=value,
                hint=opt_text(attributes.get("hint")),
                automation_id=opt_text(automation_id_from_name(_text(node, "name", where), label)),
                bounds=bounds,
                clickable=derived.clickable,
                checkable=derived.checkable,
                checked=derived.checked,
                enabled=read_bool(node.get("isEnabled"), True, where, "isEnabled"),
                focused=read_bool(attributes.get("hasKeyboardFocus"), False, where, "focus"),
                scrollable=derived.scrollable,
                editable=derived.editable,
                password=derived.password,
                visible=read_bool(node.get("isVisible"), True, where, "isVisible"),
                actions=derived.actions,
            )
        )
    return RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=tuple(nodes),
        windows=tracker.windows(package),
        package=package,
        focus=next((n.handle for n in nodes if n.focused), None),
        screen=screen,
    )


def import_idb(doc: list[Any]) -> RawTree:
    roots = [as_object(item, f"element {i}") for i, item in enumerate(doc)]
    nodes: list[RawNode] = []
    tracker = IosWindows()
    for visit in preorder(roots, _children):
        node = visit.item
        where = f"node {visit.index}"
        type_name = _text(node, "type", where)
        bounds = _idb_bounds(node, where)
        window = tracker.assign(bare_type(type_name), visit.parent, bounds)
        value = _text(node, "AXValue", where)
        derived = derive(type_name, (), value)
        nodes.append(
            RawNode(
                handle=visit.index,
                parent=visit.parent,
                window=window,
                class_name=cap_text(type_name) if type_name else None,
                text=_text(node, "title", where),
                label=_text(node, "AXLabel", where),
                value=value,
                hint=_text(node, "help", where),
                automation_id=_text(node, "AXUniqueId", where),
                bounds=bounds,
                clickable=derived.clickable,
                checkable=derived.checkable,
                checked=derived.checked,
                enabled=read_bool(node.get("enabled"), True, where, "enabled"),
                scrollable=derived.scrollable,
                editable=derived.editable,
                password=derived.password,
                actions=derived.actions,
            )
        )
    return RawTree(
        capture=0,
        platform=Platform.IOS,
        nodes=tuple(nodes),
        windows=tracker.windows(None),
    )
