"""The simulated screen as plain data: views in windows, before any platform flavour.

A ``View`` is what the demo app "draws": a kind (button, input, list row …), its bounds, its
text, its bare id and what tapping it does (``on_tap``, an intent string the device model
interprets). ``bridge.devices.sim.capture`` turns views into raw nodes of one platform.

Invariants:
- ``key`` is unique within one rendered ``Scene`` and stays the same for the same view across
  renders: a recycled list row keeps its key (its slot) while ``content`` names the item it
  shows, so ``content`` changing means "another element in the same view";
- bounds are ``(left, top, right, bottom)`` device pixels with right >= left, bottom >= top;
- nothing here reads a clock or does I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

Box = tuple[int, int, int, int]


class Kind(enum.Enum):
    """What a view is, independent of platform class names."""

    DECOR = "decor"
    """A window's root (Android DecorView / iOS Application)."""
    IOS_WINDOW = "ios_window"
    CONTAINER = "container"
    TEXT = "text"
    BUTTON = "button"
    INPUT = "input"
    LIST = "list"
    ROW = "row"
    TOGGLE = "toggle"
    SURFACE = "surface"
    PROGRESS = "progress"
    ICON = "icon"
    """A launcher icon: clickable text."""
    ALERT = "alert"
    """The panel of an alert dialog."""
    WEBVIEW = "webview"
    """A WebView: its page is a real browser's (``bridge.devices.sim.webview``); a touch
    inside it goes to the page."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """Words a surface draws on itself (pixels only: no accessibility node carries them).
    ``filled``: drawn on a filled shape (a game's button) rather than on the surface."""

    text: str
    box: Box
    filled: bool = False
    px: int = 64
    """Font size in device pixels."""


CLICKABLE_KINDS = frozenset(
    {Kind.BUTTON, Kind.INPUT, Kind.ROW, Kind.TOGGLE, Kind.ICON, Kind.WEBVIEW}
)
LONG_CLICKABLE_KINDS = frozenset({Kind.INPUT, Kind.ROW})


@dataclass(slots=True)
class View:
    key: str
    kind: Kind
    bounds: Box
    text: str | None = None
    """Visible text: a button's title, a label's words, an input's typed value."""
    hint: str | None = None
    ident: str | None = None
    """Bare id (``username``) or a fully qualified Android id (``android:id/button1``)."""
    heading: bool = False
    checked: bool = False
    enabled: bool = True
    focused: bool = False
    password: bool = False
    compose: bool = False
    """Android only: report the generic ``android.view.View`` class (Compose-like UI)."""
    rows: int | None = None
    """Number of items of a list (collection rows)."""
    item: int | None = None
    """Index of the item a list row shows (0-based)."""
    content: str | None = None
    """What the view is bound to; a change means the view now shows another element."""
    on_tap: str | None = None
    """Intent the device model runs on click (``nav:login``, ``submit``, ``toggle:wifi`` …)."""
    can_scroll_forward: bool = False
    can_scroll_backward: bool = False
    children: list[View] = field(default_factory=list)
    drawn: tuple[Drawn, ...] = ()
    """Surfaces only: words drawn on the pixels, invisible to capture (see ``Drawn``)."""

    @property
    def clickable(self) -> bool:
        return self.enabled and self.kind in CLICKABLE_KINDS

    @property
    def long_clickable(self) -> bool:
        return self.enabled and self.kind in LONG_CLICKABLE_KINDS

    @property
    def scrollable(self) -> bool:
        return self.kind is Kind.LIST

    @property
    def editable(self) -> bool:
        return self.kind is Kind.INPUT and self.enabled

    def walk(self) -> Iterator[View]:
        """This view and its descendants in pre-order."""
        stack = [self]
        while stack:
            view = stack.pop()
            yield view
            stack.extend(reversed(view.children))


@dataclass(slots=True)
class Window:
    id: int
    root: View
    bounds: Box
    package: str
    type: str = "application"
    layer: int = 0
    title: str | None = None
    active: bool = True


@dataclass(slots=True)
class Scene:
    """Everything on the screen at one instant; windows bottom-most first."""

    package: str
    windows: list[Window]
    width: int
    height: int
    animating: bool = False
    focus_key: str | None = None
    rotation: int = 0
    """Degrees the screen is turned from its natural (portrait) orientation: 0 or 90."""

    def find(self, key: str) -> list[View] | None:
        """The path root -> view of the view ``key``, or None when it is not on screen."""
        for window in self.windows:
            path = _path_to(window.root, key)
            if path is not None:
                return path
        return None

    def window_of(self, key: str) -> Window | None:
        for window in self.windows:
            if _path_to(window.root, key) is not None:
                return window
        return None


def _path_to(root: View, key: str) -> list[View] | None:
    if root.key == key:
        return [root]
    for child in root.children:
        path = _path_to(child, key)
        if path is not None:
            return [root, *path]
    return None


def contains(box: Box, x: int, y: int) -> bool:
    left, top, right, bottom = box
    return left <= x < right and top <= y < bottom


def centre(box: Box) -> tuple[int, int]:
    left, top, right, bottom = box
    return (left + right) // 2, (top + bottom) // 2


def visible(box: Box) -> bool:
    return box[2] > box[0] and box[3] > box[1]


def shift(view: View, dx: int, width: int) -> None:
    """Move a subtree right by ``dx`` pixels, clipping to ``[0, width]`` (slide animation)."""
    for v in view.walk():
        left, top, right, bottom = v.bounds
        v.bounds = (min(left + dx, width), top, min(right + dx, width), bottom)


def hit(root: View, x: int, y: int) -> list[View] | None:
    """Path to the deepest clickable view at (x, y) under ``root``, if any."""
    best: list[View] | None = None

    def visit(view: View, path: list[View]) -> None:
        nonlocal best
        if not contains(view.bounds, x, y):
            return
        here = [*path, view]
        if view.clickable:
            best = here
        for child in view.children:
            visit(child, here)

    visit(root, [])
    return best


def deepest_at(root: View, x: int, y: int) -> View | None:
    """The deepest view at (x, y) under ``root`` (the last one drawn there), if any."""
    best: View | None = None

    def visit(view: View) -> None:
        nonlocal best
        if not contains(view.bounds, x, y):
            return
        best = view
        for child in view.children:
            visit(child)

    visit(root)
    return best


def deepest_scrollable_at(root: View, x: int, y: int) -> list[View] | None:
    """Path to the deepest scrollable view at (x, y) under ``root``, if any."""
    best: list[View] | None = None
    for view_path in _paths(root, []):
        view = view_path[-1]
        if view.scrollable and contains(view.bounds, x, y):
            if best is None or len(view_path) > len(best):
                best = view_path
    return best


def _paths(view: View, path: list[View]) -> Iterator[list[View]]:
    here = [*path, view]
    yield here
    for child in view.children:
        yield from _paths(child, here)
