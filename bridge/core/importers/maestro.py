"""Maestro view-hierarchy JSON (``maestro hierarchy``, and ``hierarchyRoot`` of its reports).

A node is ``{"attributes": {name: string}, "children": [...], "clickable"|"enabled"|"focused"|
"checked"|"selected": bool}``; every node, including the synthetic root Maestro adds (bounds
``[0,0][0,0]`` on iOS), is one raw node, pre-order, handle = index.

Invariants:
- flavour: Android when some node has a ``class`` attribute that is not an ``XCUIElementType``
  name, or a ``package`` attribute; iOS otherwise (Maestro's iOS driver writes no class);
- both: ``accessibilityText`` -> label, ``hintText`` -> hint, ``resource-id`` -> automation_id,
  ``bounds`` ``[l,t][r,b]`` -> bounds; a node-level boolean wins over the attribute string;
- Android: ``text`` -> text, ``class``, ``package``, flags as in uiautomator, actions and editable
  from ``android_rules``;
- iOS: ``value`` -> value; ``title`` -> text (Maestro's ``text`` attribute is derived, ``title``
  else ``value``, so it is not copied); no element type, hence no derived actions;
- one application window 0; tree ``package`` is the first package a node reports (Android),
  None on iOS.
"""

from __future__ import annotations

from bridge.core.importers.android_rules import actions_from_flags, is_editable_class
from bridge.core.importers.json_shape import JsonObject, as_object, children_list, str_map
from bridge.core.importers.limits import opt_text
from bridge.core.importers.values import read_android_bounds, read_bool
from bridge.core.importers.walk import preorder
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow

MAESTRO_IOS = "ios-maestro-json"
MAESTRO_ANDROID = "android-maestro-json"
NODE_KEYS = frozenset(
    {"attributes", "children", "clickable", "enabled", "focused", "checked", "selected"}
)


def _flag(node: JsonObject, a: dict[str, str], name: str, default: bool, where: str) -> bool:
    """A node-level boolean wins over the attribute string of the same name."""
    value = node.get(name)
    return read_bool(value if value is not None else a.get(name), default, where, name)


def looks_like_maestro(doc: object) -> bool:
    return (
        isinstance(doc, dict) and isinstance(doc.get("attributes"), dict) and set(doc) <= NODE_KEYS
    )


def maestro_flavour(doc: JsonObject) -> str:
    """Android when any node carries an Android class or a package (iterative scan)."""
    stack: list[object] = [doc]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        attributes = node.get("attributes")
        if isinstance(attributes, dict):
            class_name = attributes.get("class")
            if (
                isinstance(class_name, str)
                and class_name
                and not class_name.startswith("XCUIElementType")
            ):
                return MAESTRO_ANDROID
            if attributes.get("package"):
                return MAESTRO_ANDROID
        kids = node.get("children")
        if isinstance(kids, list):
            stack.extend(kids)
    return MAESTRO_IOS


def import_maestro(doc: JsonObject, fmt: str) -> RawTree:
    android = fmt == MAESTRO_ANDROID
    nodes: list[RawNode] = []

    def children(node: JsonObject, index: int) -> list[JsonObject]:
        return children_list(node, f"node {index}")

    for visit in preorder([as_object(doc, "the document")], children):
        node = visit.item
        where = f"node {visit.index}"
        a = str_map(node.get("attributes"), where, "attributes")

        bounds_text = a.get("bounds")
        bounds = read_android_bounds(bounds_text, where) if bounds_text else None
        clickable = _flag(node, a, "clickable", False, where)
        if android:
            class_name = opt_text(a.get("class"))
            long_clickable = read_bool(a.get("long-clickable"), False, where, "long-clickable")
            scrollable = read_bool(a.get("scrollable"), False, where, "scrollable")
            editable = is_editable_class(class_name)
            actions = actions_from_flags(
                clickable=clickable,
                long_clickable=long_clickable,
                scrollable=scrollable,
                editable=editable,
            )
            text, value = opt_text(a.get("text")), None
        else:
            class_name, long_clickable, scrollable, editable = None, False, False, False
            actions = ("click",) if clickable else ()
            text, value = opt_text(a.get("title")), opt_text(a.get("value"))
        nodes.append(
            RawNode(
                handle=visit.index,
                parent=visit.parent,
                class_name=class_name,
                text=text,
                label=opt_text(a.get("accessibilityText")),
                value=value,
                hint=opt_text(a.get("hintText")),
                automation_id=opt_text(a.get("resource-id")),
                package=opt_text(a.get("package")) if android else None,
                bounds=bounds,
                clickable=clickable,
                long_clickable=long_clickable,
                checkable=read_bool(a.get("checkable"), False, where, "checkable"),
                checked=_flag(node, a, "checked", False, where),
                enabled=_flag(node, a, "enabled", True, where),
                focusable=read_bool(a.get("focusable"), False, where, "focusable"),
                focused=_flag(node, a, "focused", False, where),
                selected=_flag(node, a, "selected", False, where),
                scrollable=scrollable,
                editable=editable,
                password=read_bool(a.get("password"), False, where, "password"),
                visible=read_bool(a.get("visible"), True, where, "visible"),
                actions=actions,
            )
        )
    return RawTree(
        capture=0,
        platform=Platform.ANDROID if android else Platform.IOS,
        nodes=tuple(nodes),
        windows=(RawWindow(id=0, type="application"),) if nodes else (),
        package=next((n.package for n in nodes if n.package), None),
        focus=next((n.handle for n in nodes if n.focused), None),
    )
