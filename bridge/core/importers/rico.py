"""Rico view hierarchies (``{"activity_name", "activity": {"root": NODE}}``) and the Enrico
variant (a bare NODE, with ``componentLabel`` annotations).

Invariants:
- every node under the root is one raw node, pre-order, handle = index;
- ``class`` -> class_name, ``text`` -> text, ``content-desc`` (a list, usually ``[null]``; its
  non-null strings joined by one space) -> label, ``text-hint`` -> hint, ``resource-id`` ->
  automation_id, ``package``, ``bounds`` ``[l, t, r, b]`` (numbers) -> bounds;
- flags as reported; ``scrollable`` = ``scrollable-horizontal`` or ``scrollable-vertical``;
  ``visible`` = ``visible-to-user`` when present, else ``visibility == "visible"``, and false
  whenever ``visibility`` is ``gone`` or ``invisible``;
- ``editable`` from the class or any of its ``ancestors`` (``android_rules``); actions from flags;
- annotations without a raw-node field (``componentLabel``, ``draw``, ``pointer``, ``rel-bounds``,
  ``font-family``) are dropped; one application window 0; tree ``package`` is the part of
  ``activity_name`` before ``/`` (None for Enrico).
"""

from __future__ import annotations

from bridge.core.importers.android_rules import actions_from_flags, is_editable_class
from bridge.core.importers.failure import DumpError, shown
from bridge.core.importers.json_shape import (
    JsonObject,
    as_object,
    children_list,
    json_type,
    opt_str,
)
from bridge.core.importers.limits import cap_text, opt_text
from bridge.core.importers.values import read_bool, read_number, to_int_edge
from bridge.core.importers.walk import preorder
from bridge.wire.base import Bounds
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow

RICO = "rico-json"
_HIDDEN = frozenset({"gone", "invisible"})


def rico_root(doc: object) -> JsonObject | None:
    """The root node of a Rico or Enrico document, or None when ``doc`` is neither."""
    if isinstance(doc, dict):
        activity = doc.get("activity")
        if isinstance(activity, dict) and isinstance(activity.get("root"), dict):
            root: JsonObject = activity["root"]
            return root
        if (
            isinstance(doc.get("class"), str)
            and isinstance(doc.get("bounds"), list)
            and ("ancestors" in doc or "componentLabel" in doc)
        ):
            return doc
    return None


def _bounds(node: JsonObject, where: str) -> Bounds | None:
    value = node.get("bounds")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise DumpError(f"{where} has bounds {shown(value)} that are not four numbers")
    left, top, right, bottom = (
        to_int_edge(read_number(v, where, "bounds"), where, "bounds") for v in value
    )
    return (left, top, right, bottom)


def _label(node: JsonObject, where: str) -> str | None:
    value = node.get("content-desc")
    if value is None or isinstance(value, str):
        return opt_text(value)
    if isinstance(value, list):
        parts = []
        for item in value:
            if item is None:
                continue
            if not isinstance(item, str):
                raise DumpError(
                    f"{where} has a content-desc entry that is {json_type(item)}, expected a string"
                )
            parts.append(item)
        return opt_text(" ".join(p for p in parts if p))
    raise DumpError(f"{where} has content-desc that is {json_type(value)}, expected an array")


def _ancestors(node: JsonObject, where: str) -> list[str]:
    value = node.get("ancestors")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DumpError(f"{where} has ancestors that are not an array of strings")
    return value


def import_rico(doc: JsonObject, root: JsonObject) -> RawTree:
    nodes: list[RawNode] = []

    def children(node: JsonObject, index: int) -> list[JsonObject]:
        return children_list(node, f"node {index}")

    for visit in preorder([as_object(root, "the root")], children):
        node = visit.item
        where = f"node {visit.index}"
        class_name = opt_str(node, "class", where)
        clickable = read_bool(node.get("clickable"), False, where, "clickable")
        long_clickable = read_bool(node.get("long-clickable"), False, where, "long-clickable")
        scrollable = read_bool(
            node.get("scrollable-horizontal"), False, where, "scrollable-horizontal"
        ) or read_bool(node.get("scrollable-vertical"), False, where, "scrollable-vertical")
        editable = is_editable_class(class_name, _ancestors(node, where))
        visibility = opt_str(node, "visibility", where)
        visible = read_bool(
            node.get("visible-to-user"), visibility in (None, "visible"), where, "visible-to-user"
        ) and (visibility not in _HIDDEN)
        nodes.append(
            RawNode(
                handle=visit.index,
                parent=visit.parent,
                class_name=cap_text(class_name) if class_name else None,
                text=opt_text(opt_str(node, "text", where)),
                label=_label(node, where),
                hint=opt_text(opt_str(node, "text-hint", where)),
                automation_id=opt_text(opt_str(node, "resource-id", where)),
                package=opt_text(opt_str(node, "package", where)),
                bounds=_bounds(node, where),
                clickable=clickable,
                long_clickable=long_clickable,
                checkable=read_bool(node.get("checkable"), False, where, "checkable"),
                checked=read_bool(node.get("checked"), False, where, "checked"),
                enabled=read_bool(node.get("enabled"), True, where, "enabled"),
                focusable=read_bool(node.get("focusable"), False, where, "focusable"),
                focused=read_bool(node.get("focused"), False, where, "focused"),
                selected=read_bool(node.get("selected"), False, where, "selected"),
                scrollable=scrollable,
                editable=editable,
                password=read_bool(node.get("password"), False, where, "password"),
                visible=visible,
                actions=actions_from_flags(
                    clickable=clickable,
                    long_clickable=long_clickable,
                    scrollable=scrollable,
                    editable=editable,
                ),
            )
        )
    activity_name = doc.get("activity_name") if doc is not root else None
    package = opt_text(activity_name.split("/", 1)[0]) if isinstance(activity_name, str) else None
    return RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=tuple(nodes),
        windows=(RawWindow(id=0, type="application", package=package),) if nodes else (),
        package=package,
        focus=next((n.handle for n in nodes if n.focused), None),
    )
