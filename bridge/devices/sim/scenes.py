"""The demo app's screens (and the launcher) as pure functions of state -> windows of views.

Screens of ``dev.mobridge.demo``: menu, login, home, dialog, list, ambiguous, settings, game,
search. Every screen's content root carries the marker id ``__screen_<id>`` (qualified as
``dev.mobridge.demo:id/__screen_<id>`` on Android by the flavour step). The launcher belongs
to ``dev.mobridge.launcher`` and has no marker.

Invariants:
- a builder reads state and never changes it; the same state and inputs give equal views;
- view keys are ``<instance serial>:<local key>``: a screen opened again is a new instance
  with new keys (a new Activity), so a handle of the old instance never reaches the new one;
- list rows are recycled: row ``k`` on screen keeps key ``...:row<k>`` whatever item it shows;
- a password never enters a view: inputs marked ``password`` carry no text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.devices.sim.views import Box, Kind, View, Window
from bridge.wire.enums import Platform

DEMO_PACKAGE = "dev.mobridge.demo"
LAUNCHER_PACKAGE = "dev.mobridge.launcher"
DEMO_TITLE = "Mobridge Demo"
SCREENS: tuple[str, ...] = (
    "menu",
    "login",
    "home",
    "dialog",
    "list",
    "ambiguous",
    "settings",
    "game",
    "search",
)
SCREEN_TITLES: dict[str, str] = {
    "menu": "Menu",
    "login": "Login",
    "home": "Home",
    "dialog": "Dialog",
    "list": "List",
    "ambiguous": "Ambiguous",
    "settings": "Settings",
    "game": "Game",
    "search": "Search",
}
LIST_ITEMS = 200
LIST_PAGE = 10
SEARCH_PAGE = 12
TOGGLES: tuple[tuple[str, str], ...] = (
    ("wifi", "Wi-Fi"),
    ("bluetooth", "Bluetooth"),
    ("dark", "Dark mode"),
)
SEARCH_CORPUS: tuple[str, ...] = (
    "Apple",
    "Apricot",
    "Banana",
    "Blueberry",
    "Cherry",
    "Grape",
    "Lemon",
    "Mango",
    "Orange",
    "Papaya",
    "Peach",
    "Pear",
    "Pineapple",
    "Plum",
    "Strawberry",
    "Amsterdam",
    "Berlin",
    "Cairo",
    "Delhi",
    "Lagos",
    "Lima",
    "Lisbon",
    "London",
    "Madrid",
    "Nairobi",
    "Oslo",
    "Paris",
    "Rome",
    "Seoul",
    "Tokyo",
)


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


def search_matches(query: str) -> list[str]:
    needle = query.strip().casefold()
    if not needle:
        return []
    return [name for name in SEARCH_CORPUS if needle in name.casefold()]


class _Column:
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


def _k(state: ScreenState, local: str) -> str:
    return f"{state.serial}:{local}"


def window_root(platform: Platform, key: str, bounds: Box, children: list[View]) -> View:
    kind = Kind.DECOR if platform is Platform.ANDROID else Kind.IOS_WINDOW
    return View(key=key, kind=kind, bounds=bounds, children=children)


def build_screen(state: ScreenState, frame: Frame, inp: SceneInput) -> list[Window]:
    """The windows of one demo screen (one, or two for the dialog)."""
    if state.screen == "dialog":
        return _dialog(state, frame, inp)
    content = _content(state, frame, inp)
    marker = View(
        key=_k(state, "root"),
        kind=Kind.CONTAINER,
        bounds=(0, frame.top, frame.width, frame.bottom),
        ident=f"__screen_{state.screen}",
        compose=state.screen == "settings",
        children=content,
    )
    full = (0, 0, frame.width, frame.height)
    root = window_root(inp.platform, _k(state, "decor"), full, [marker])
    return [Window(id=1, root=root, bounds=full, package=DEMO_PACKAGE, title=DEMO_TITLE)]


def build_launcher(serial: int, frame: Frame, platform: Platform) -> list[Window]:
    full = (0, 0, frame.width, frame.height)
    icon_box = (frame.margin, frame.top + 200, frame.margin + 320, frame.top + 520)
    icon = View(
        key=f"{serial}:icon",
        kind=Kind.ICON,
        bounds=icon_box,
        text=DEMO_TITLE,
        ident="app_icon",
        on_tap="launch",
    )
    workspace = View(
        key=f"{serial}:workspace",
        kind=Kind.CONTAINER,
        bounds=(0, frame.top, frame.width, frame.bottom),
        ident="workspace",
        children=[icon],
    )
    root = window_root(platform, f"{serial}:decor", full, [workspace])
    return [Window(id=1, root=root, bounds=full, package=LAUNCHER_PACKAGE, title="Launcher")]


def _content(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    match state.screen:
        case "menu":
            return _menu(state, frame, exclude=("menu",), title=DEMO_TITLE)
        case "login":
            return _login(state, frame)
        case "home":
            return _home(state, frame, inp)
        case "list":
            return _list(state, frame)
        case "ambiguous":
            return _ambiguous(state, frame)
        case "settings":
            return _settings(state, frame, inp)
        case "game":
            area = (0, frame.top, frame.width, frame.bottom)
            return [View(key=_k(state, "surface"), kind=Kind.SURFACE, bounds=area)]
        case "search":
            return _search(state, frame, inp)
    raise ValueError(f"unknown screen {state.screen!r}")


def _heading(state: ScreenState, col: _Column, text: str) -> View:
    return View(
        key=_k(state, "title"),
        kind=Kind.TEXT,
        bounds=col.take(100),
        text=text,
        heading=True,
        ident="title",
    )


def _menu(state: ScreenState, frame: Frame, exclude: tuple[str, ...], title: str) -> list[View]:
    col = _Column(frame)
    views = [_heading(state, col, title)]
    for screen in SCREENS:
        if screen in exclude:
            continue
        views.append(
            View(
                key=_k(state, f"open_{screen}"),
                kind=Kind.BUTTON,
                bounds=col.take(140, 24),
                text=SCREEN_TITLES[screen],
                ident=f"open_{screen}",
                on_tap=f"nav:{screen}",
            )
        )
    return views


def _input(state: ScreenState, col: _Column, local: str, hint: str, password: bool) -> View:
    typed = state.fields.get(local, "")
    return View(
        key=_k(state, local),
        kind=Kind.INPUT,
        bounds=col.take(140),
        text=None if password or not typed else typed,
        hint=hint,
        ident=local,
        password=password,
        focused=state.focus == local,
        on_tap=f"focus:{local}",
    )


def _login(state: ScreenState, frame: Frame) -> list[View]:
    col = _Column(frame)
    views = [
        _heading(state, col, "Welcome"),
        _input(state, col, "username", "Username", password=False),
        _input(state, col, "password", "Password", password=True),
        View(
            key=_k(state, "login"),
            kind=Kind.BUTTON,
            bounds=col.take(140),
            text="Sign in",
            ident="login",
            on_tap="submit",
        ),
    ]
    if state.error:
        views.append(
            View(key=_k(state, "error"), kind=Kind.TEXT, bounds=col.take(80), text=state.error)
        )
    return views


def _home(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    views = _menu(state, frame, exclude=("menu", "home"), title="Home")
    first_button = views[1].bounds[1]
    # the clock sits between the title and the entries
    clock_box = (frame.margin, first_button, frame.width - frame.margin, first_button + 80)
    for view in views[1:]:
        left, top, right, bottom = view.bounds
        view.bounds = (left, top + 112, right, bottom + 112)
    clock = View(
        key=_k(state, "clock"), kind=Kind.TEXT, bounds=clock_box, text=inp.clock_text, ident="clock"
    )
    return [views[0], clock, *views[1:]]


def _dialog(state: ScreenState, frame: Frame, inp: SceneInput) -> list[Window]:
    full = (0, 0, frame.width, frame.height)
    host_col = _Column(frame)
    host_text = View(
        key=_k(state, "host_title"), kind=Kind.TEXT, bounds=host_col.take(100), text="Dialog demo"
    )
    host_content = View(
        key=_k(state, "host"),
        kind=Kind.CONTAINER,
        bounds=(0, frame.top, frame.width, frame.bottom),
        ident="content",
        children=[host_text],
    )
    host = Window(
        id=1,
        root=window_root(inp.platform, _k(state, "decor"), full, [host_content]),
        bounds=full,
        package=DEMO_PACKAGE,
        title=DEMO_TITLE,
        active=False,
    )
    m = frame.margin
    top = frame.height // 2 - 300
    box = (m, top, frame.width - m, top + 600)
    title = View(
        key=_k(state, "alert_title"),
        kind=Kind.TEXT,
        bounds=(m + 64, top + 48, frame.width - m - 64, top + 148),
        text="Discard draft?",
        ident="android:id/alertTitle",
        heading=True,
    )
    message = View(
        key=_k(state, "alert_message"),
        kind=Kind.TEXT,
        bounds=(m + 64, top + 180, frame.width - m - 64, top + 340),
        text="Your unsaved changes will be lost.",
        ident="android:id/message",
    )
    button_top = top + 420
    mid = frame.width // 2
    cancel = View(
        key=_k(state, "cancel"),
        kind=Kind.BUTTON,
        bounds=(m + 64, button_top, mid - 16, button_top + 140),
        text="Cancel",
        ident="android:id/button2",
        on_tap="dialog:cancel",
    )
    ok = View(
        key=_k(state, "ok"),
        kind=Kind.BUTTON,
        bounds=(mid + 16, button_top, frame.width - m - 64, button_top + 140),
        text="OK",
        ident="android:id/button1",
        on_tap="dialog:ok",
    )
    buttons = View(
        key=_k(state, "buttons"),
        kind=Kind.CONTAINER,
        bounds=(m + 64, button_top, frame.width - m - 64, button_top + 140),
        ident="android:id/buttonPanel",
        children=[cancel, ok],
    )
    panel = View(
        key=_k(state, "panel"),
        kind=Kind.ALERT,
        bounds=box,
        text="Discard draft?",
        ident="android:id/parentPanel",
        on_tap=None,
        children=[title, message, buttons],
    )
    marker = View(
        key=_k(state, "root"),
        kind=Kind.CONTAINER,
        bounds=box,
        ident="__screen_dialog",
        children=[panel],
    )
    dialog = Window(
        id=2,
        root=window_root(inp.platform, _k(state, "dialog_decor"), box, [marker]),
        bounds=box,
        package=DEMO_PACKAGE,
        layer=1,
        title="Alert",
    )
    return [host, dialog]


def _list(state: ScreenState, frame: Frame) -> list[View]:
    col = _Column(frame)
    heading = _heading(state, col, "List")
    selection_box = col.take(80)
    views = [heading]
    if state.selected is not None:
        views.append(
            View(
                key=_k(state, "selection"),
                kind=Kind.TEXT,
                bounds=selection_box,
                text=f"Selected: {state.selected}",
                ident="selection",
            )
        )
    offset = state.offsets.get("list", 0)
    area = col.rest()
    views.append(
        _recycler(
            state,
            "list",
            area,
            LIST_PAGE,
            [f"Item {i + 1}" for i in range(LIST_ITEMS)],
            offset,
            "row",
            "select",
        )
    )
    return views


def _recycler(
    state: ScreenState,
    local: str,
    area: Box,
    page: int,
    items: list[str],
    offset: int,
    row_ident: str,
    intent: str,
) -> View:
    left, top, right, bottom = area
    row_h = (bottom - top) // page
    rows: list[View] = []
    for slot in range(page):
        index = offset + slot
        if index >= len(items):
            break
        y = top + slot * row_h
        row_box = (left, y, right, y + row_h)
        title = View(
            key=_k(state, f"{local}.row{slot}.title"),
            kind=Kind.TEXT,
            bounds=(left + 48, y + 24, right - 48, y + row_h - 24),
            text=items[index],
            ident=f"{row_ident}_title",
            content=f"{local}:{index}",
        )
        rows.append(
            View(
                key=_k(state, f"{local}.row{slot}"),
                kind=Kind.ROW,
                bounds=row_box,
                ident=row_ident,
                item=index,
                content=f"{local}:{index}",
                on_tap=f"{intent}:{items[index]}",
                children=[title],
            )
        )
    return View(
        key=_k(state, local),
        kind=Kind.LIST,
        bounds=area,
        ident=local,
        rows=len(items),
        can_scroll_forward=offset + page < len(items),
        can_scroll_backward=offset > 0,
        children=rows,
    )


def _ambiguous(state: ScreenState, frame: Frame) -> list[View]:
    col = _Column(frame)
    views = [_heading(state, col, "Choose a plan")]
    for n, plan in enumerate(("Basic plan", "Pro plan")):
        box = col.take(300)
        left, top, right, _ = box
        label = View(
            key=_k(state, f"plan{n}.label"),
            kind=Kind.TEXT,
            bounds=(left + 32, top + 24, right - 32, top + 104),
            text=plan,
        )
        button = View(
            key=_k(state, f"plan{n}.continue"),
            kind=Kind.BUTTON,
            bounds=(left + 32, top + 136, right - 32, top + 276),
            text="Continue",
            on_tap=f"choose:{plan}",
        )
        views.append(
            View(
                key=_k(state, f"plan{n}"), kind=Kind.CONTAINER, bounds=box, children=[label, button]
            )
        )
    if state.selected is not None:
        views.append(
            View(
                key=_k(state, "choice"),
                kind=Kind.TEXT,
                bounds=col.take(80),
                text=f"Chose {state.selected}",
            )
        )
    return views


def _settings(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    col = _Column(frame)
    heading = _heading(state, col, "Settings")
    heading.ident = None  # Compose-like: no resource ids at all
    heading.compose = True
    views = [heading]
    ios = inp.platform is Platform.IOS
    for name, label in TOGGLES:
        box = col.take(140, 24)
        toggle = View(
            key=_k(state, f"toggle.{name}"),
            kind=Kind.TOGGLE,
            bounds=box,
            checked=inp.toggles.get(name, False),
            compose=True,
            on_tap=f"toggle:{name}",
        )
        if ios:
            toggle.text = label
        else:
            left, top, right, bottom = box
            toggle.children.append(
                View(
                    key=_k(state, f"toggle.{name}.label"),
                    kind=Kind.TEXT,
                    bounds=(left + 32, top + 30, right - 240, bottom - 30),
                    text=label,
                    compose=True,
                )
            )
        views.append(toggle)
    return views


def _search(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    col = _Column(frame)
    views = [
        _heading(state, col, "Find anything"),
        _input(state, col, "query", "Search", password=False),
    ]
    query = state.fields.get("query", "")
    status_box = col.take(80)
    if not query.strip():
        views.append(
            View(key=_k(state, "status"), kind=Kind.TEXT, bounds=status_box, text="Type to search")
        )
        return views
    if not inp.search_ready:
        views.append(
            View(key=_k(state, "progress"), kind=Kind.PROGRESS, bounds=status_box, ident="progress")
        )
        return views
    matches = search_matches(query)
    if not matches:
        views.append(
            View(key=_k(state, "status"), kind=Kind.TEXT, bounds=status_box, text="No results")
        )
        return views
    offset = min(state.offsets.get("results", 0), max(0, len(matches) - SEARCH_PAGE))
    views.append(
        _recycler(state, "results", col.rest(), SEARCH_PAGE, matches, offset, "result", "pick")
    )
    return views
