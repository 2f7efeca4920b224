"""iOS WebDriverAgent / Appium XCUITest page source (``XCUIElementType*`` elements).

Invariants:
- root ``<AppiumAUT>`` (a wrapper, not a node) or an ``XCUIElementType*`` element; every
  ``XCUIElementType*`` element is one node in document order (pre-order), handle = index; any
  other element inside is an error;
- ``type`` (else the tag) -> class_name; ``label`` -> label; ``value`` -> value;
  ``placeholderValue`` -> hint; ``name`` -> automation_id only when it looks like an identifier
  (``ios_rules.automation_id_from_name``); text stays None (iOS has no separate text);
- bounds = [x, y, x+width, y+height] in points, kept as integers (fractions rounded edge by edge);
  negative and zero-size frames (the degenerate -1,-1,0,0 snapshot) are kept; a frame with only
  some of x/y/width/height is an error;
- ``visible`` -> visible, ``accessible`` -> focusable (an accessibility element is what
  VoiceOver focuses), ``hittable`` -> hittable, ``enabled``, ``selected``, ``focused`` when
  present; actions, editable, password, checkable from ``ios_rules``;
- windows: every ``XCUIElementTypeWindow`` is a ``RawWindow`` (ids in document order); a node
  belongs to its nearest enclosing window, nodes outside any window (the application) to window
  0; a window holding an ``XCUIElementTypeKeyboard`` is ``input_method``, others
  ``application``; with no window element there is one application window 0;
- tree ``package`` is the application's ``bundleId`` attribute when present; ``screen`` is the
  application element's size.
"""

from __future__ import annotations

from bridge.core.importers.failure import DumpError
from bridge.core.importers.ios_rules import (
    IosWindows,
    automation_id_from_name,
    bare_type,
    derive,
    parse_traits,
)
from bridge.core.importers.limits import cap_text, opt_text
from bridge.core.importers.safe_xml import XmlElement
from bridge.core.importers.values import read_bool, read_number, read_opt_bool, rect_bounds
from bridge.core.importers.walk import preorder
from bridge.wire.base import Bounds
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, ScreenSize

WDA_XML = "ios-wda-xml"
_PREFIX = "XCUIElementType"
_FRAME = ("x", "y", "width", "height")


def _frame(a: dict[str, str], where: str) -> Bounds | None:
    present = [k for k in _FRAME if k in a]
    if not present:
        return None
    if len(present) != len(_FRAME):
        missing = ", ".join(k for k in _FRAME if k not in a)
        raise DumpError(f"{where} has an incomplete frame (missing {missing})")
    x, y, w, h = (read_number(a[k], where, k) for k in _FRAME)
    return rect_bounds(x, y, w, h, where)


def import_ios_xml(root: XmlElement) -> RawTree:
    top = root.children if root.tag == "AppiumAUT" else [root]

    def children(element: XmlElement, index: int) -> list[XmlElement]:
        for child in element.children:
            if not child.tag.startswith(_PREFIX):
                raise DumpError(
                    f"node {index} (line {element.line}) has a child <{child.tag}> at line "
                    f"{child.line}, expected an XCUIElementType element"
                )
        return element.children

    for element in top:
        if not element.tag.startswith(_PREFIX):
            raise DumpError(f"<{root.tag}> has a child <{element.tag}>, expected XCUIElementType")

    nodes: list[RawNode] = []
    tracker = IosWindows()
    package: str | None = None
    screen: ScreenSize | None = None
    for visit in preorder(top, children):
        element = visit.item
        a = element.attrib
        where = f"node {visit.index} (line {element.line})"
        type_name = a.get("type") or element.tag
        kind = bare_type(type_name)
        bounds = _frame(a, where)
        window = tracker.assign(kind, visit.parent, bounds)
        if kind == "Application" and visit.parent == -1:
            package = package or opt_text(a.get("bundleId"))
            if screen is None and bounds is not None:
                screen = ScreenSize(width=bounds[2] - bounds[0], height=bounds[3] - bounds[1])
        label = opt_text(a.get("label"))
        value = opt_text(a.get("value"))
        traits = parse_traits(a.get("traits"))
        derived = derive(type_name, traits, value)
        selected = read_bool(a.get("selected"), False, where, "selected") or derived.selected
        nodes.append(
            RawNode(
                handle=visit.index,
                parent=visit.parent,
                window=window,
                class_name=cap_text(type_name),
                label=label,
                value=value,
                hint=opt_text(a.get("placeholderValue")),
                automation_id=opt_text(automation_id_from_name(a.get("name"), a.get("label"))),
                bounds=bounds,
                clickable=derived.clickable,
                checkable=derived.checkable,
                checked=derived.checked,
                enabled=read_bool(a.get("enabled"), True, where, "enabled"),
                focusable=read_bool(a.get("accessible"), False, where, "accessible"),
                focused=read_bool(a.get("focused"), False, where, "focused"),
                selected=selected,
                scrollable=derived.scrollable,
                editable=derived.editable,
                password=derived.password,
                visible=read_bool(a.get("visible"), True, where, "visible"),
                hittable=read_opt_bool(a.get("hittable"), where, "hittable"),
                heading=derived.heading,
                actions=derived.actions,
                traits=tuple(cap_text(t) for t in traits),
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
