"""The demo app's screens (and the launcher) as pure functions of state -> windows of views.

Screens of ``dev.mobridge.demo``: menu, login, home, dialog, list, ambiguous, settings, game,
search, and camera (not in the menu; ``bridge.devices.sim.camera``). Every screen's
content root carries the marker id ``__screen_<id>`` (qualified as
``dev.mobridge.demo:id/__screen_<id>`` on Android by the flavour step). The launcher belongs
to ``dev.mobridge.launcher`` and has no marker.

Invariants:
- a builder reads state and never changes it; the same state and inputs give equal views;
- view keys are ``<instance serial>:<local key>``: a screen opened again is a new instance
  with new keys (a new Activity), so a handle of the old instance never reaches the new one;
- list rows are recycled views (see ``bridge.devices.sim.lists``);
- a password never enters a view: inputs marked ``password`` carry no text.
"""

from __future__ import annotations

from bridge.devices.sim.camera import camera_content, camera_windows
from bridge.devices.sim.layout import (
    Column,
    Frame,
    SceneInput,
    ScreenState,
    heading_text,
    text_input,
    view_key,
    window_root,
)
from bridge.devices.sim.lists import list_screen, search_screen
from bridge.devices.sim.views import Drawn, Kind, View, Window
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
HIDDEN_SCREENS: tuple[str, ...] = ("camera", "web", "web2")
"""Screens the menu does not list (a deep link or the start scene opens them)."""
TOGGLES: tuple[tuple[str, str], ...] = (
    ("wifi", "Wi-Fi"),
    ("bluetooth", "Bluetooth"),
    ("dark", "Dark mode"),
)


def build_screen(state: ScreenState, frame: Frame, inp: SceneInput) -> list[Window]:
    """The windows of one demo screen (one, or two for the dialog)."""
    if state.screen == "dialog":
        return _dialog(state, frame, inp)
    content = _content(state, frame, inp)
    if state.screen == "camera":
        marker = View(key=view_key(state, "root"), kind=Kind.CONTAINER,
                      bounds=(0, frame.top, frame.width, frame.bottom),
                      ident="__screen_camera", children=content)  # fmt: skip
        return camera_windows(state, frame, inp, marker, (DEMO_PACKAGE, DEMO_TITLE))
    marker = View(
        key=view_key(state, "root"),
        kind=Kind.CONTAINER,
        bounds=(0, frame.top, frame.width, frame.bottom),
        ident=f"__screen_{state.screen}",
        compose=state.screen == "settings",
        children=content,
    )
    full = (0, 0, frame.width, frame.height)
    root = window_root(inp.platform, view_key(state, "decor"), full, [marker])
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
            return list_screen(state, frame)
        case "ambiguous":
            return _ambiguous(state, frame)
        case "settings":
            return _settings(state, frame, inp)
        case "game":
            area = (0, frame.top, frame.width, frame.bottom)
            drawn = game_canvas(frame, int(state.fields.get("score", str(GAME_SCORE))))
            views = [
                View(key=view_key(state, "surface"), kind=Kind.SURFACE, bounds=area, drawn=drawn)
            ]
            board = state.fields.get("board")
            if board:  # what the last touch on the board did, drawn over it
                box = (frame.margin, frame.top + 48, frame.width - frame.margin, frame.top + 148)
                views.append(
                    View(key=view_key(state, "board"), kind=Kind.TEXT, bounds=box, text=board,
                         ident="board")
                )  # fmt: skip
            return views
        case "search":
            return search_screen(state, frame, inp)
        case "camera":
            return camera_content(state, frame, inp)
        case "web":
            return _web(state, frame, inp)
        case "web2":
            return _two_webviews(state, frame, inp)
    raise ValueError(f"unknown screen {state.screen!r}")


GAME_SCORE = 120
"""The game's score when it opens; each tap on PLAY adds ``GAME_STEP``."""
GAME_STEP = 10
GAME_MENU = ("Options", "High Scores", "Quit")


def play_box(frame: Frame) -> tuple[int, int, int, int]:
    """Where the game draws its PLAY button (device pixels)."""
    mid = frame.width // 2
    return (mid - 200, frame.top + 1087, mid + 200, frame.top + 1227)


def game_canvas(frame: Frame, score: int) -> tuple[Drawn, ...]:
    """What the game draws on its surface: the score, a PLAY button and a menu: words only
    the screenshot shows (the surface is one CANVAS node to the accessibility tree)."""
    top = frame.top
    menu = tuple(
        Drawn(word, (120, top + 1420 + 140 * i, 620, top + 1500 + 140 * i), px=56)
        for i, word in enumerate(GAME_MENU)
    )
    return (
        Drawn(f"SCORE {score}", (frame.width // 2 - 20, top + 220, frame.width - 64, top + 320)),
        Drawn("PLAY", play_box(frame), filled=True, px=80),
        *menu,
    )


def _menu(state: ScreenState, frame: Frame, exclude: tuple[str, ...], title: str) -> list[View]:
    col = Column(frame)
    views = [heading_text(state, col, title)]
    for screen in SCREENS:
        if screen in exclude:
            continue
        views.append(
            View(
                key=view_key(state, f"open_{screen}"),
                kind=Kind.BUTTON,
                bounds=col.take(140, 24),
                text=SCREEN_TITLES[screen],
                ident=f"open_{screen}",
                on_tap=f"nav:{screen}",
            )
        )
    if state.fields.get("arguments"):  # what the app was launched with (APP_OPEN arguments)
        views.append(
            View(
                key=view_key(state, "launch_arguments"),
                kind=Kind.TEXT,
                bounds=col.take(80),
                text=f"Launched with {state.fields['arguments']}",
                ident="launch_arguments",
            )
        )
    return views


def _login(state: ScreenState, frame: Frame) -> list[View]:
    col = Column(frame)
    views = [
        heading_text(state, col, "Welcome"),
        text_input(state, col, "username", "Username", password=False),
        text_input(state, col, "password", "Password", password=True),
        View(
            key=view_key(state, "login"),
            kind=Kind.BUTTON,
            bounds=col.take(140),
            text="Sign in",
            ident="login",
            on_tap="submit",
        ),
    ]
    if state.error:
        views.append(
            View(
                key=view_key(state, "error"), kind=Kind.TEXT, bounds=col.take(80), text=state.error
            )
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
        key=view_key(state, "clock"),
        kind=Kind.TEXT,
        bounds=clock_box,
        text=inp.clock_text,
        ident="clock",
    )
    return [views[0], clock, *views[1:]]


def _dialog(state: ScreenState, frame: Frame, inp: SceneInput) -> list[Window]:
    full = (0, 0, frame.width, frame.height)
    host_col = Column(frame)
    host_text = View(
        key=view_key(state, "host_title"),
        kind=Kind.TEXT,
        bounds=host_col.take(100),
        text="Dialog demo",
    )
    host_content = View(
        key=view_key(state, "host"),
        kind=Kind.CONTAINER,
        bounds=(0, frame.top, frame.width, frame.bottom),
        ident="content",
        children=[host_text],
    )
    host = Window(
        id=1,
        root=window_root(inp.platform, view_key(state, "decor"), full, [host_content]),
        bounds=full,
        package=DEMO_PACKAGE,
        title=DEMO_TITLE,
        active=False,
    )
    m = frame.margin
    top = frame.height // 2 - 300
    box = (m, top, frame.width - m, top + 600)
    title = View(
        key=view_key(state, "alert_title"),
        kind=Kind.TEXT,
        bounds=(m + 64, top + 48, frame.width - m - 64, top + 148),
        text="Discard draft?",
        ident="android:id/alertTitle",
        heading=True,
    )
    message = View(
        key=view_key(state, "alert_message"),
        kind=Kind.TEXT,
        bounds=(m + 64, top + 180, frame.width - m - 64, top + 340),
        text="Your unsaved changes will be lost.",
        ident="android:id/message",
    )
    button_top = top + 420
    mid = frame.width // 2
    cancel = View(
        key=view_key(state, "cancel"),
        kind=Kind.BUTTON,
        bounds=(m + 64, button_top, mid - 16, button_top + 140),
        text="Cancel",
        ident="android:id/button2",
        on_tap="dialog:cancel",
    )
    ok = View(
        key=view_key(state, "ok"),
        kind=Kind.BUTTON,
        bounds=(mid + 16, button_top, frame.width - m - 64, button_top + 140),
        text="OK",
        ident="android:id/button1",
        on_tap="dialog:ok",
    )
    buttons = View(
        key=view_key(state, "buttons"),
        kind=Kind.CONTAINER,
        bounds=(m + 64, button_top, frame.width - m - 64, button_top + 140),
        ident="android:id/buttonPanel",
        children=[cancel, ok],
    )
    panel = View(
        key=view_key(state, "panel"),
        kind=Kind.ALERT,
        bounds=box,
        text="Discard draft?",
        ident="android:id/parentPanel",
        children=[title, message, buttons],
    )
    marker = View(
        key=view_key(state, "root"),
        kind=Kind.CONTAINER,
        bounds=box,
        ident="__screen_dialog",
        children=[panel],
    )
    dialog = Window(
        id=2,
        root=window_root(inp.platform, view_key(state, "dialog_decor"), box, [marker]),
        bounds=box,
        package=DEMO_PACKAGE,
        layer=1,
        title="Alert",
    )
    return [host, dialog]


def _ambiguous(state: ScreenState, frame: Frame) -> list[View]:
    col = Column(frame)
    views = [heading_text(state, col, "Choose a plan")]
    for n, plan in enumerate(("Basic plan", "Pro plan")):
        box = col.take(300)
        left, top, right, _ = box
        label = View(
            key=view_key(state, f"plan{n}.label"),
            kind=Kind.TEXT,
            bounds=(left + 32, top + 24, right - 32, top + 104),
            text=plan,
        )
        button = View(
            key=view_key(state, f"plan{n}.continue"),
            kind=Kind.BUTTON,
            bounds=(left + 32, top + 136, right - 32, top + 276),
            text="Continue",
            on_tap=f"choose:{plan}",
        )
        views.append(
            View(
                key=view_key(state, f"plan{n}"),
                kind=Kind.CONTAINER,
                bounds=box,
                children=[label, button],
            )
        )
    if state.selected is not None:
        views.append(
            View(
                key=view_key(state, "choice"),
                kind=Kind.TEXT,
                bounds=col.take(80),
                text=f"Chose {state.selected}",
            )
        )
    return views


WEB_PAGE = "shop.html"
"""The local page the web screen's WebView shows (``bridge/devices/sim/web/``)."""


def _web(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    """A hybrid screen: a native title and "Continue" above a WebView showing the local web
    shop (a login form, a list, a modal; ``bridge.devices.sim.webview``)."""
    col = Column(frame)
    views = [
        heading_text(state, col, "Web sign-in"),
        View(
            key=view_key(state, "native_continue"),
            kind=Kind.BUTTON,
            bounds=col.take(120, 16),
            text="Continue",
            ident="native_continue",
            on_tap="choose:native",
        ),
    ]
    if state.selected is not None:
        views.append(
            View(key=view_key(state, "continued"), kind=Kind.TEXT, bounds=col.take(64, 16),
                 text="Continued in the app", ident="continued")
        )  # fmt: skip
    _, top, _, bottom = col.rest()
    views.append(
        View(
            key=view_key(state, "webview"),
            kind=Kind.WEBVIEW,
            bounds=(0, top, frame.width, bottom),
            ident="webview",
            text=inp.web_status,
        )
    )
    return views


def _two_webviews(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    """Two WebViews on one screen: the web shop above, a news page below
    (``bridge.devices.sim.webview.PAGES``); each page is merged under its own WebView."""
    col = Column(frame)
    views = [heading_text(state, col, "Two web views")]
    _, top, _, bottom = col.rest()
    middle = (top + bottom) // 2
    for ident, box in (("webview", (0, top, frame.width, middle - 8)),
                       ("news", (0, middle + 8, frame.width, bottom))):  # fmt: skip
        views.append(
            View(key=view_key(state, ident), kind=Kind.WEBVIEW, bounds=box, ident=ident,
                 text=inp.web_status)
        )  # fmt: skip
    return views


def _settings(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    col = Column(frame)
    heading = heading_text(state, col, "Settings")
    heading.ident = None  # Compose-like: no resource ids at all
    heading.compose = True
    views = [heading]
    ios = inp.platform is Platform.IOS
    for name, label in TOGGLES:
        box = col.take(140, 24)
        toggle = View(
            key=view_key(state, f"toggle.{name}"),
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
                    key=view_key(state, f"toggle.{name}.label"),
                    kind=Kind.TEXT,
                    bounds=(left + 32, top + 30, right - 240, bottom - 30),
                    text=label,
                    compose=True,
                )
            )
        views.append(toggle)
    return views
