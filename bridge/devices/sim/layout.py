"""Layout building blocks shared by the demo screens: geometry, per-screen state, keys.

Invariants: pure data and functions; a view key is ``<instance serial>:<local key>`` so a
screen opened again (a new instance) never shares a key, hence a handle, with the old one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.devices.sim.views import Box, Kind, View
from bridge.wire.enums import Platform


@dataclass(frozen=True, slots=True)
class Frame:
    """Screen geometry of one platform flavour."""

    width: int
    height: int
    top: int
    bottom: int
    margin: int = 64


FRAMES: dict[Platform, Frame] = {
    Platform.ANDROID: Frame(1080, 2400, 63, 2337),
    Platform.IOS: Frame(1179, 2556, 177, 2454),
}


def landscape(frame: Frame) -> Frame:
    """The frame turned a quarter: width and height swap; the status bar stays on top and
    the bottom inset keeps its size."""
    return Frame(frame.height, frame.width, frame.top, frame.width - (frame.height - frame.bottom))


@dataclass(slots=True)
class ScreenState:
    """State of one opened screen instance (an Activity / a view controller)."""

    screen: str
    serial: int
    fields: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    """Local key of the focused input."""
    error: str | None = None
    offsets: dict[str, int] = field(default_factory=dict)
    """First visible item per list (local key of the list)."""
    selected: str | None = None
    query_at: float | None = None
    """Search: simulated time the query last changed."""


@dataclass(frozen=True, slots=True)
class SceneInput:
    """What a builder needs beyond the screen's own state."""

    platform: Platform
    toggles: dict[str, bool]
    clock_text: str
    search_ready: bool
    camera: str = "not asked"
    """The demo app's camera permission: granted, denied or not asked."""
    asking: bool = False
    """The system's camera permission dialog is up (over the camera screen)."""
    location: tuple[float, float] | None = None
    zoom: float = 1.0
    touch: str | None = None
    """What the last multi-touch gesture did (pinch, two-finger tap)."""
    web_status: str | None = None
    """What the web screen's WebView shows while its browser is not there (how to install
    Chromium); None when the page is up."""


class Column:
    """Stacks boxes top to bottom inside the content area."""

    def __init__(self, frame: Frame) -> None:
        self.left = frame.margin
        self.right = frame.width - frame.margin
        self.y = frame.top + 48
        self.bottom = frame.bottom

    def take(self, height: int, gap: int = 32) -> Box:
        box = (self.left, self.y, self.right, min(self.y + height, self.bottom))
        self.y = min(self.y + height + gap, self.bottom)
        return box

    def rest(self) -> Box:
        return (self.left, self.y, self.right, self.bottom)


def view_key(state: ScreenState, local: str) -> str:
    return f"{state.serial}:{local}"


def window_root(platform: Platform, key: str, bounds: Box, children: list[View]) -> View:
    kind = Kind.DECOR if platform is Platform.ANDROID else Kind.IOS_WINDOW
    return View(key=key, kind=kind, bounds=bounds, children=children)


def heading_text(state: ScreenState, col: Column, text: str) -> View:
    return View(
        key=view_key(state, "title"),
        kind=Kind.TEXT,
        bounds=col.take(100),
        text=text,
        heading=True,
        ident="title",
    )


PASSWORD_MASK = "\u2022" * 8
"""What a filled password field's view holds instead of its value (the same for every value)."""


def text_input(state: ScreenState, col: Column, local: str, hint: str, password: bool) -> View:
    typed = state.fields.get(local, "")
    return View(
        key=view_key(state, local),
        kind=Kind.INPUT,
        bounds=col.take(140),
        # a filled password field carries a fixed mask (never the value, nor its length): the
        # painter draws dots for it and the capture drops it like any password text
        text=None if not typed else (PASSWORD_MASK if password else typed),
        hint=hint,
        ident=local,
        password=password,
        focused=state.focus == local,
        on_tap=f"focus:{local}",
    )
