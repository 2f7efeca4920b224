"""Maestro view-hierarchy JSON (``maestro hierarchy``, and the hierarchies in its reports).

A node (Maestro's ``TreeNode``) is ``{"attributes": {name: string}, "children": [...],
"clickable"|"enabled"|"focused"|"checked"|"selected": bool}``; every key may be missing or
null (reports leave out empty maps, empty lists and nulls, so a root can be ``{"children":
[...]}`` alone and a leaf ``{}``). Every node, including the synthetic root Maestro adds
(bounds ``[0,0][0,0]`` on iOS, or no attributes at all), is one raw node, pre-order,
handle = index.

Shapes accepted (``find_hierarchies``), each holding a TreeNode where Maestro writes one:
- the TreeNode itself (``maestro hierarchy``, or a ``hierarchyRoot`` cut out of a report);
- an object with ``hierarchy`` (a command's debug metadata) or ``hierarchyRoot`` (a failed
  assertion's error) next to other keys;
- a report entry ``{"command": ..., "metadata": {..., "hierarchy": ..., "error": {...,
  "hierarchyRoot": ...}}}``, an error's ``cause``, and a whole report (an array of entries).
Copies of one hierarchy (a failed command and the flows around it carry the same error) count
once; a document holding several different hierarchies is refused, naming where they are —
which screen was meant cannot be told.

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
from bridge.core.importers.failure import DumpError
from bridge.core.importers.json_shape import JsonObject, children_list, str_map
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
_WRAPPER_KEYS = ("hierarchy", "hierarchyRoot")
"""Keys under which Maestro's reports hold a TreeNode."""
_NESTED_KEYS = ("metadata", "error", "cause")
"""Keys of report objects that may hold a wrapper further down."""
_MAX_NESTING = 6
_MAX_SHOWN_PLACES = 4


def _flag(node: JsonObject, a: dict[str, str], name: str, default: bool, where: str) -> bool:
    """A node-level boolean wins over the attribute string of the same name."""
    value = node.get(name)
    return read_bool(value if value is not None else a.get(name), default, where, name)


def is_tree_node(value: object) -> bool:
    """A Maestro TreeNode: an object with TreeNode keys only, holding an attribute map, or no
    attribute map and children that are TreeNode-shaped objects (one level is checked; the
    import checks the rest and names what is wrong)."""
    if not isinstance(value, dict) or not value or not set(value) <= NODE_KEYS:
        return False
    if isinstance(value.get("attributes"), dict):
        return True  # the classic shape; the import names any wrong value inside it
    if value.get("attributes") is not None:
        return False
    kids = value.get("children")
    return (
        isinstance(kids, list)
        and bool(kids)
        and all(isinstance(k, dict) and set(k) <= NODE_KEYS for k in kids)
    )


def find_hierarchies(doc: object) -> list[tuple[str, JsonObject]]:
    """Every distinct TreeNode the document holds where Maestro writes one, with where it was
    found (``$``, ``$.hierarchy``, ``$[3].metadata.error.hierarchyRoot`` ...), first place
    first. Iterative and bounded: only the keys of ``_WRAPPER_KEYS`` / ``_NESTED_KEYS`` are
    followed, at most ``_MAX_NESTING`` levels down."""
    if is_tree_node(doc):
        assert isinstance(doc, dict)
        return [("$", doc)]
    found: list[tuple[str, JsonObject]] = []
    stack: list[tuple[object, str, int]] = []
    if isinstance(doc, list):
        stack.extend((item, f"$[{i}]", 1) for i, item in reversed(list(enumerate(doc))))
    else:
        stack.append((doc, "$", 0))
    while stack:
        value, where, depth = stack.pop()
        if not isinstance(value, dict) or depth > _MAX_NESTING:
            continue
        for key in _WRAPPER_KEYS:
            tree = value.get(key)
            if is_tree_node(tree) and all(tree != seen for _, seen in found):
                assert isinstance(tree, dict)
                found.append((f"{where}.{key}", tree))
        stack.extend(
            (value[key], f"{where}.{key}", depth + 1)
            for key in reversed(_NESTED_KEYS)
            if isinstance(value.get(key), dict)
        )
    return found


def looks_like_maestro(doc: object) -> bool:
    return bool(find_hierarchies(doc))


def maestro_root(doc: object) -> JsonObject:
    """The one hierarchy of a Maestro document; ``DumpError`` when there are several."""
    found = find_hierarchies(doc)
    if not found:
        raise DumpError("no Maestro view hierarchy found")
    if len(found) > 1:
        places = ", ".join(where for where, _ in found[:_MAX_SHOWN_PLACES])
        more = ", …" if len(found) > _MAX_SHOWN_PLACES else ""
        raise DumpError(
            f"the Maestro report holds {len(found)} different view hierarchies "
            f"({places}{more}); save the one you mean on its own"
        )
    return found[0][1]


def maestro_flavour(doc: object) -> str:
    """Android when any node of any of the document's hierarchies carries an Android class
    or a package (iterative scan)."""
    stack: list[object] = [tree for _, tree in find_hierarchies(doc)]
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


def import_maestro(doc: object, fmt: str) -> RawTree:
    """Import the one hierarchy of ``doc`` (any shape ``find_hierarchies`` accepts)."""
    root = maestro_root(doc)
    android = fmt == MAESTRO_ANDROID
    nodes: list[RawNode] = []

    def children(node: JsonObject, index: int) -> list[JsonObject]:
        return children_list(node, f"node {index}")

    for visit in preorder([root], children):
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
