"""Capture: a ``Scene`` of views -> the raw tree an Android or iOS agent would send.

Android flavour: widget class names (``android.widget.Button`` …, ``android.view.View`` for the
Compose-like settings screen), resource ids qualified as ``<package>:id/<name>``, the platform's
flags and action list. iOS flavour: ``XCUIElementType*`` classes under one ``Application``
element with a ``Window`` element per window, ``identifier`` as automation id, ``label`` /
``value`` / ``placeholder`` (hint) as XCUITest reports them, traits and ``hittable``; iOS
reports no clickable/checkable flags (the hub derives them).

Invariants:
- nodes are in pre-order and ``parent`` is the index of an earlier node (or -1);
- a view keeps one handle for its whole life (``HandleRegistry``): a recycled row keeps its
  handle while its ``item_row`` changes, so a handle alone is never identity;
- password inputs carry neither ``text`` nor ``value``;
- equal scenes give equal raw trees (deterministic).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.devices.sim.views import Kind, Scene, View, Window, visible
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize

_ANDROID_CLASSES: dict[Kind, str] = {
    Kind.DECOR: "android.widget.FrameLayout",
    Kind.CONTAINER: "android.widget.LinearLayout",
    Kind.TEXT: "android.widget.TextView",
    Kind.BUTTON: "android.widget.Button",
    Kind.INPUT: "android.widget.EditText",
    Kind.LIST: "androidx.recyclerview.widget.RecyclerView",
    Kind.ROW: "android.widget.LinearLayout",
    Kind.TOGGLE: "android.widget.Switch",
    Kind.SURFACE: "android.view.SurfaceView",
    Kind.PROGRESS: "android.widget.ProgressBar",
    Kind.ICON: "android.widget.TextView",
    Kind.ALERT: "android.widget.LinearLayout",
    Kind.WEBVIEW: "android.webkit.WebView",
}
_IOS_TYPES: dict[Kind, str] = {
    Kind.IOS_WINDOW: "Window",
    Kind.CONTAINER: "Other",
    Kind.TEXT: "StaticText",
    Kind.BUTTON: "Button",
    Kind.INPUT: "TextField",
    Kind.LIST: "Table",
    Kind.ROW: "Cell",
    Kind.TOGGLE: "Switch",
    Kind.SURFACE: "Other",
    Kind.PROGRESS: "ActivityIndicator",
    Kind.ICON: "Icon",
    Kind.ALERT: "Alert",
    Kind.WEBVIEW: "WebView",
}
_IOS_PREFIX = "XCUIElementType"


@dataclass(slots=True)
class HandleRegistry:
    """Stable handles per view key for one device (handles start at 1 and only grow)."""

    _next: int = 1
    _by_key: dict[str, int] = field(default_factory=dict)

    def handle(self, key: str) -> int:
        found = self._by_key.get(key)
        if found is None:
            found = self._next
            self._by_key[key] = found
            self._next += 1
        return found


@dataclass(frozen=True, slots=True)
class Flat:
    """One flattened scene: raw nodes plus, per node, the view key and bound content."""

    nodes: tuple[RawNode, ...]
    keys: tuple[str, ...]
    contents: tuple[str | None, ...]
    windows: tuple[RawWindow, ...]
    package: str
    focus: int | None
    screen: ScreenSize
    platform: Platform
    rotation: int = 0

    def tree(self, capture: int) -> RawTree:
        return RawTree(
            capture=capture,
            platform=self.platform,
            nodes=self.nodes,
            windows=self.windows,
            package=self.package,
            focus=self.focus,
            screen=self.screen,
            rotation=self.rotation,
        )

    def index_of_handle(self, handle: int) -> int | None:
        for i, node in enumerate(self.nodes):
            if node.handle == handle:
                return i
        return None


def qualified_id(ident: str | None, package: str, platform: Platform) -> str | None:
    if ident is None:
        return None
    if platform is Platform.IOS:
        return None if ident.startswith("android:") else ident
    return ident if ":" in ident else f"{package}:id/{ident}"


def flatten(scene: Scene, registry: HandleRegistry, platform: Platform) -> Flat:
    nodes: list[RawNode] = []
    keys: list[str] = []
    contents: list[str | None] = []
    focus: int | None = None
    top_active = max((w.id for w in scene.windows if w.active), default=None)

    def emit(view: View, parent: int, window: Window) -> None:
        nonlocal focus
        handle = registry.handle(view.key)
        index = len(nodes)
        if platform is Platform.ANDROID:
            nodes.append(_android_node(view, handle, parent, window))
        else:
            nodes.append(_ios_node(view, handle, parent, window))
        keys.append(view.key)
        contents.append(view.content)
        if view.focused:
            focus = handle
        for child in view.children:
            emit(child, index, window)

    if platform is Platform.IOS:
        app_key = f"app:{scene.package}"
        title = "Mobridge Demo" if scene.package.endswith(".demo") else "Home screen"
        nodes.append(
            RawNode(
                handle=registry.handle(app_key),
                parent=-1,
                window=scene.windows[0].id if scene.windows else 0,
                class_name=_IOS_PREFIX + "Application",
                label=title,
                package=scene.package,
                bounds=(0, 0, scene.width, scene.height),
                hittable=False,
            )
        )
        keys.append(app_key)
        contents.append(None)
        for window in scene.windows:
            emit(window.root, 0, window)
    else:
        for window in scene.windows:
            emit(window.root, -1, window)
    windows = tuple(
        RawWindow(
            id=w.id,
            type=w.type,
            layer=w.layer,
            package=w.package,
            title=w.title,
            active=w.active,
            focused=w.id == top_active,
            bounds=w.bounds,
        )
        for w in scene.windows
    )
    return Flat(
        nodes=tuple(nodes),
        keys=tuple(keys),
        contents=tuple(contents),
        windows=windows,
        package=scene.package,
        focus=focus,
        screen=ScreenSize(width=scene.width, height=scene.height),
        platform=platform,
        rotation=scene.rotation,
    )


def android_class(view: View) -> str:
    if view.compose and view.kind is not Kind.DECOR:
        return "android.view.View"
    return _ANDROID_CLASSES[view.kind]


def ios_class(view: View) -> str:
    if view.kind is Kind.INPUT and view.password:
        return _IOS_PREFIX + "SecureTextField"
    return _IOS_PREFIX + _IOS_TYPES[view.kind]


def _android_actions(view: View) -> tuple[str, ...]:
    names: list[str] = []
    if view.clickable:
        names.append("click")
    if view.long_clickable:
        names.append("longClick")
    if view.editable:
        names.append("setText")
    if view.kind is Kind.LIST:
        if view.can_scroll_forward:
            names.append("scrollForward")
        if view.can_scroll_backward:
            names.append("scrollBackward")
    if view.kind is Kind.INPUT:
        names.append("focus")
    if view.text and not view.password and view.kind in (Kind.TEXT, Kind.INPUT):
        names.append("copy")
    if view.editable:
        names.append("paste")
    return tuple(names)


def _android_node(view: View, handle: int, parent: int, window: Window) -> RawNode:
    focusable = view.kind in (Kind.INPUT, Kind.BUTTON, Kind.ROW, Kind.TOGGLE, Kind.ICON)
    return RawNode(
        handle=handle,
        parent=parent,
        window=window.id,
        class_name=android_class(view),
        text=None if view.password or view.kind is Kind.ALERT else view.text,
        hint=view.hint,
        automation_id=qualified_id(view.ident, window.package, Platform.ANDROID),
        package=window.package,
        bounds=view.bounds,
        clickable=view.clickable,
        long_clickable=view.long_clickable,
        checkable=view.kind is Kind.TOGGLE,
        checked=view.kind is Kind.TOGGLE and view.checked,
        enabled=view.enabled,
        focusable=focusable,
        focused=view.focused,
        scrollable=view.scrollable,
        editable=view.editable,
        password=view.password,
        visible=visible(view.bounds),
        heading=view.heading,
        actions=_android_actions(view),
        collection_rows=view.rows if view.kind is Kind.LIST else None,
        collection_cols=1 if view.kind is Kind.LIST else None,
        item_row=view.item if view.kind is Kind.ROW else None,
        item_col=0 if view.kind is Kind.ROW else None,
    )


def _ios_node(view: View, handle: int, parent: int, window: Window) -> RawNode:
    kind = view.kind
    label: str | None = None
    value: str | None = None
    traits: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()
    if kind in (Kind.TEXT, Kind.ALERT, Kind.ICON, Kind.BUTTON, Kind.TOGGLE):
        label = view.text
    if kind is Kind.PROGRESS:
        label = "In progress"
    if kind is Kind.TEXT:
        traits = ("header", "statictext") if view.heading else ("statictext",)
    elif kind in (Kind.BUTTON, Kind.TOGGLE):
        traits = ("button",)
        actions = ("click",)
    elif kind in (Kind.ROW, Kind.ICON):
        actions = ("click",)
    elif kind is Kind.INPUT:
        value = None if view.password else view.text
        actions = ("click", "setText")
    elif kind is Kind.LIST:
        actions = ("scrollForward", "scrollBackward")
    elif kind is Kind.SURFACE:
        traits = ("allowsdirectinteraction",)  # what an accessible iOS game view declares
    if kind is Kind.TOGGLE:
        value = "1" if view.checked else "0"
    shown = visible(view.bounds)
    return RawNode(
        handle=handle,
        parent=parent,
        window=window.id,
        class_name=ios_class(view),
        label=label,
        value=value,
        hint=view.hint,
        automation_id=qualified_id(view.ident, window.package, Platform.IOS),
        bounds=view.bounds,
        enabled=view.enabled,
        focusable=kind is Kind.INPUT,
        focused=view.focused,
        editable=kind is Kind.INPUT,
        password=view.password,
        visible=shown,
        hittable=shown and view.enabled and kind is not Kind.IOS_WINDOW,
        heading=view.heading,
        actions=actions,
        traits=traits,
    )
