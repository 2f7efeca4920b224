"""Page source in the shapes of Appium's drivers, generated from a semantic snapshot.

Android (UiAutomator2): ``<hierarchy rotation width height>`` with one element per node,
named by its class (``android.widget.Button``), carrying ``index``, ``package``, ``class``,
``text``, ``resource-id``, ``content-desc``, ``checkable``, ``checked``, ``clickable``,
``enabled``, ``focusable``, ``focused``, ``long-clickable``, ``password``, ``scrollable``,
``selected``, ``bounds`` (``[x1,y1][x2,y2]``), ``displayed`` and ``hint``.
iOS (XCUITest): ``<AppiumAUT>`` with elements named by their type (``XCUIElementTypeButton``)
carrying ``type``, ``value``, ``name``, ``label``, ``enabled``, ``visible``, ``accessible``,
``x``, ``y``, ``width``, ``height``, ``index``.

Invariants: the XML is built from the snapshot alone (no device round trip); every element
but the root stands for exactly one node (``node_id_of``); an empty field is an absent
attribute except where Appium always writes one (``text`` and the booleans on Android).
Android's ``content-desc`` is the node's accessible name (its label), so ``accessibility
id`` finds what TalkBack reads; the field's ``text`` shows its hint while it is empty, as
Android reports it. Coordinates are device pixels on both platforms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from bridge.wire.enums import ActionVerb, Platform, Role
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_TAG_BAD = re.compile(r"[^A-Za-z0-9_.\-]")

ANDROID_CLASS: dict[Role, str] = {
    Role.SCREEN: "android.widget.FrameLayout",
    Role.DIALOG: "android.widget.FrameLayout",
    Role.LIST: "androidx.recyclerview.widget.RecyclerView",
    Role.LIST_ITEM: "android.view.ViewGroup",
    Role.BUTTON: "android.widget.Button",
    Role.TEXT: "android.widget.TextView",
    Role.INPUT: "android.widget.EditText",
    Role.IMAGE: "android.widget.ImageView",
    Role.CHECKBOX: "android.widget.CheckBox",
    Role.RADIO: "android.widget.RadioButton",
    Role.SWITCH: "android.widget.Switch",
    Role.TAB: "android.widget.LinearLayout",
    Role.MENU: "android.widget.ListView",
    Role.LINK: "android.widget.TextView",
    Role.SLIDER: "android.widget.SeekBar",
    Role.PROGRESS: "android.widget.ProgressBar",
    Role.WEB_VIEW: "android.webkit.WebView",
    Role.CANVAS: "android.view.View",
    Role.UNKNOWN: "android.view.View",
}
IOS_TYPE: dict[Role, str] = {
    Role.SCREEN: "XCUIElementTypeApplication",
    Role.DIALOG: "XCUIElementTypeAlert",
    Role.LIST: "XCUIElementTypeTable",
    Role.LIST_ITEM: "XCUIElementTypeCell",
    Role.BUTTON: "XCUIElementTypeButton",
    Role.TEXT: "XCUIElementTypeStaticText",
    Role.INPUT: "XCUIElementTypeTextField",
    Role.IMAGE: "XCUIElementTypeImage",
    Role.CHECKBOX: "XCUIElementTypeSwitch",
    Role.RADIO: "XCUIElementTypeButton",
    Role.SWITCH: "XCUIElementTypeSwitch",
    Role.TAB: "XCUIElementTypeButton",
    Role.MENU: "XCUIElementTypeMenu",
    Role.LINK: "XCUIElementTypeLink",
    Role.SLIDER: "XCUIElementTypeSlider",
    Role.PROGRESS: "XCUIElementTypeProgressIndicator",
    Role.WEB_VIEW: "XCUIElementTypeWebView",
    Role.CANVAS: "XCUIElementTypeOther",
    Role.UNKNOWN: "XCUIElementTypeOther",
}
_SCROLL_VERBS = (ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD)


def _clean(value: str) -> str:
    return _BAD_CHARS.sub("", value)


def _b(value: bool) -> str:
    return "true" if value else "false"


@dataclass
class PageSource:
    """One snapshot as Appium-shaped XML. ``elements`` holds every element in document
    order (root first) so lxml hands back the very same objects from an XPath query."""

    platform: Platform
    root: etree._Element
    package: str
    elements: list[etree._Element] = field(default_factory=list)
    _node_of: dict[etree._Element, str] = field(default_factory=dict)
    _element_of: dict[str, etree._Element] = field(default_factory=dict)

    def node_id_of(self, element: etree._Element) -> str | None:
        return self._node_of.get(element)

    def element_of(self, node_id: str) -> etree._Element | None:
        return self._element_of.get(node_id)

    def xml(self) -> str:
        body = etree.tostring(self.root, pretty_print=True, encoding="unicode")
        head = (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
            if self.platform is Platform.ANDROID
            else '<?xml version="1.0" encoding="UTF-8"?>\n'
        )
        return head + body


def class_of(node: SemanticNode, platform: Platform) -> str:
    """The element's class (Android) or XCUIElementType (iOS)."""
    if platform is Platform.IOS:
        native = node.native_type or ""
        if native.startswith("XCUIElementType"):
            return native
        if node.role is Role.INPUT and node.effective_state.password:
            return "XCUIElementTypeSecureTextField"
        return IOS_TYPE[node.role]
    if node.class_name:
        return node.class_name
    return ANDROID_CLASS[node.role]


def build(snapshot: ScreenSnapshot) -> PageSource:
    """The page source of ``snapshot`` (its platform decides the shape)."""
    platform = snapshot.platform
    nodes = snapshot.nodes
    children: dict[str | None, list[SemanticNode]] = {}
    for node in nodes:
        children.setdefault(node.parent_id, []).append(node)
    if platform is Platform.IOS:
        root = etree.Element("AppiumAUT")
    else:
        top = nodes[0].bounds if nodes and nodes[0].bounds else (0, 0, 0, 0)
        landscape = snapshot.orientation.value == "landscape"
        root = etree.Element(
            "hierarchy",
            {
                "index": "0",
                "class": "hierarchy",
                "rotation": "1" if landscape else "0",
                "width": str(top[2] - top[0]),
                "height": str(top[3] - top[1]),
            },
        )
    source = PageSource(platform, root, snapshot.app_id or snapshot.package_name)
    source.elements.append(root)
    ids = {n.node_id for n in nodes}
    tops = [n for n in nodes if n.parent_id is None or n.parent_id not in ids]
    stack: list[tuple[etree._Element, SemanticNode, int]] = [
        (root, n, i) for i, n in reversed(list(enumerate(tops)))
    ]
    while stack:
        parent, node, index = stack.pop()
        if platform is Platform.IOS:
            element = _ios_element(parent, node, index)
        else:
            element = _android_element(parent, node, index, source.package)
        source.elements.append(element)
        source._node_of[element] = node.node_id
        source._element_of[node.node_id] = element
        kids = children.get(node.node_id, ())
        stack.extend((element, kid, i) for i, kid in reversed(list(enumerate(kids))))
    return source


def _tag(name: str) -> str:
    tag = _TAG_BAD.sub("_", name)
    return tag if tag and (tag[0].isalpha() or tag[0] == "_") else f"_{tag}"


def android_text(node: SemanticNode) -> str:
    """What UiAutomator2 reports as ``text``: an input's typed value, else its hint."""
    if node.role is Role.INPUT:
        return node.value or node.hint or ""
    return node.text or node.value or ""


def _android_element(
    parent: etree._Element, node: SemanticNode, index: int, package: str
) -> etree._Element:
    state = node.effective_state
    cls = class_of(node, Platform.ANDROID)
    text = android_text(node)
    attrs: dict[str, str] = {
        "index": str(index),
        "package": package,
        "class": cls,
        "text": _clean(text),
    }
    if node.resource_id:
        attrs["resource-id"] = _clean(node.resource_id)
    if node.label:
        attrs["content-desc"] = _clean(node.label)
    verbs = node.actions
    left, top, right, bottom = node.bounds or (0, 0, 0, 0)
    attrs.update(
        {
            "checkable": _b(state.checked is not None),
            "checked": _b(bool(state.checked)),
            "clickable": _b(state.clickable),
            "enabled": _b(state.enabled),
            "focusable": _b(state.clickable or node.role is Role.INPUT or state.focused),
            "focused": _b(state.focused),
            "long-clickable": _b(ActionVerb.LONG_CLICK in verbs),
            "password": _b(state.password),
            "scrollable": _b(any(v in verbs for v in _SCROLL_VERBS)),
            "selected": _b(state.selected),
            "bounds": f"[{left},{top}][{right},{bottom}]",
            "displayed": _b(right > left and bottom > top),
        }
    )
    if node.hint:
        attrs["hint"] = _clean(node.hint)
    return etree.SubElement(parent, _tag(cls), attrs)


def ios_name(node: SemanticNode) -> str | None:
    """WebDriverAgent's ``name``: the accessibility identifier, else the label."""
    return node.automation_id or node.label or node.text


def ios_value(node: SemanticNode) -> str | None:
    state = node.effective_state
    if node.role is Role.INPUT:
        return node.value or node.hint
    if node.role in (Role.SWITCH, Role.CHECKBOX) and state.checked is not None:
        return "1" if state.checked else "0"
    if node.role is Role.TEXT:
        return node.text or node.value
    return node.value


def _ios_element(parent: etree._Element, node: SemanticNode, index: int) -> etree._Element:
    kind = class_of(node, Platform.IOS)
    attrs: dict[str, str] = {"type": kind}
    value = ios_value(node)
    if value:
        attrs["value"] = _clean(value)
    name = ios_name(node)
    if name:
        attrs["name"] = _clean(name)
    label = node.label or node.text
    if label:
        attrs["label"] = _clean(label)
    left, top, right, bottom = node.bounds or (0, 0, 0, 0)
    accessible = bool(label or value) and node.role not in (Role.SCREEN, Role.UNKNOWN)
    attrs.update(
        {
            "enabled": _b(node.effective_state.enabled),
            "visible": _b(right > left and bottom > top),
            "accessible": _b(accessible),
            "x": str(left),
            "y": str(top),
            "width": str(right - left),
            "height": str(bottom - top),
            "index": str(index),
        }
    )
    return etree.SubElement(parent, _tag(kind), attrs)
