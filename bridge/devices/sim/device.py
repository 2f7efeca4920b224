"""The simulated phone as a pure state machine: the demo app's back stack, its screens' state,
the launcher, the clipboard, and time-driven changes (animations, the clock, search results).

Rules:
- no I/O and no clock: every method takes ``now`` (simulated seconds, from the caller's time
  source); ``scene(now)`` is a pure function of state and ``now``;
- an action either changes state at once (the caller already spent the action's simulated
  latency) or reports why not, as an ``Outcome`` (never an exception for expected failures);
- screen transitions slide the top window's content in over ``FRAMES`` frames of
  ``FRAME_S`` seconds; ``animating(now)`` is true until the last frame has been shown;
- the back stack: BACK pops; BACK on the app's first screen leaves to the launcher (the app
  finishes); HOME and APP_CLOSE_UI leave to the launcher keeping the stack;
- the demo user is ``demo`` with any non-empty password; the password only lives in the login
  screen's state and never reaches a view;
- touches at points hit-test the top window: the deepest clickable view reacts to a tap (a
  double tap is two taps at the same point, so a switch toggles twice); the game board (a
  drawing surface) reports each touch it gets in a text drawn over it; a long press focuses
  an input; a swipe scrolls the deepest list under its first point;
- the orientation turns the frame (``layout.landscape``) and the capture's ``rotation``;
- installed apps: the demo app and the launcher are part of the system image (never
  uninstalled); simulated packages (JSON ``{"appId", "name"}``) add user apps; terminating
  the demo app kills its process: the back stack is gone and the launcher comes to front.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from bridge.devices.sim import camera, scenes
from bridge.devices.sim.layout import FRAMES, Frame, SceneInput, ScreenState, landscape
from bridge.devices.sim.scenes import DEMO_PACKAGE, HIDDEN_SCREENS, LAUNCHER_PACKAGE, SCREENS
from bridge.devices.sim.views import (
    Kind,
    Scene,
    View,
    centre,
    contains,
    deepest_at,
    deepest_scrollable_at,
    hit,
    shift,
)
from bridge.wire.agent_link import AlertInfo, InstalledApp
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    AppAction,
    GlobalAction,
    Orientation,
    Platform,
)

FRAMES_PER_TRANSITION = 4
FRAME_S = 0.040
SEARCH_DELAY_S = 0.300
CLOCK_BASE_S = 9 * 3600
DEEP_LINK_SCHEME = "mobridge-demo://"
DEMO_USER = "demo"
INVALID_CREDENTIALS = "Invalid credentials"
START_SCENES: tuple[str, ...] = (*SCREENS, *HIDDEN_SCREENS, "launcher")
PERMISSIONS: tuple[str, ...] = (
    "camera",
    "microphone",
    "location",
    "photos",
    "contacts",
    "calendar",
    "notifications",
)
"""The permission names the simulated device knows (mobridge's ``Permission`` values)."""
MIN_ZOOM, MAX_ZOOM = 0.25, 8.0
DEFAULT_TOGGLES: dict[str, bool] = {"wifi": True, "bluetooth": False, "dark": False}
"""The demo app's settings when it starts with no state. It stores nothing on disk: its state
(the back stack, the settings) lives in its process, so a terminate loses all of it."""
SYSTEM_APPS: tuple[InstalledApp, ...] = (
    InstalledApp(app_id=DEMO_PACKAGE, name="Mobridge Demo", system=True),
    InstalledApp(app_id=LAUNCHER_PACKAGE, name="Launcher", system=True),
)
MAX_PACKAGE = 4096
"""Largest simulated package (bytes of JSON)."""
MAX_USER_APPS = 64
MAX_VOLUME = 15
MAX_WEB_TOUCHES = 16
_APP_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one command on the device (becomes a ``Reply``)."""

    ok: bool
    method: ActionMethod | None = None
    code: str | None = None
    message: str | None = None
    text: str | None = None


OK = Outcome(ok=True)


def failed(code: str, message: str) -> Outcome:
    return Outcome(ok=False, code=code, message=message)


class DemoDevice:
    """One simulated phone running the demo app."""

    def __init__(
        self,
        platform: Platform,
        *,
        now: float,
        start: str = "menu",
        animations: bool = True,
    ) -> None:
        if start not in START_SCENES:
            raise ValueError(f"unknown start scene {start!r}; choose one of {START_SCENES}")
        self.platform = platform
        self.orientation = Orientation.PORTRAIT
        self.animations = animations
        self.apps: dict[str, InstalledApp] = {a.app_id: a for a in SYSTEM_APPS}
        self.volume = 7
        self.started_at = now
        self.changed_at = now
        self.clipboard = ""
        self.permissions: dict[tuple[str, str], bool] = {}
        """(app id, permission) -> granted; absent: not asked yet."""
        self.asking = False
        """The system dialog asking for the demo app's camera is up."""
        self.location: tuple[float, float] | None = None
        self.network: dict[str, bool] = {"airplane": False, "wifi": True, "data": True}
        """Airplane mode, Wi-Fi and mobile data (issue 35); airplane mode turns both radios
        off and, turned off again, back to what they were."""
        self._radios_before_airplane: dict[str, bool] | None = None
        self.zoom = 1.0
        self.touch: str | None = None
        self.web_status: str | None = None
        """What the WebView shows while its page is not up (set by the server)."""
        self.web_touches: list[tuple[str, str, int, int]] = []
        """Touches that landed in a WebView, for its page: (the WebView's ident, kind, x,
        y) relative to the WebView's box in device pixels. The server hands them to the
        page and clears the list; at most ``MAX_WEB_TOUCHES`` wait."""
        self.toggles: dict[str, bool] = dict(DEFAULT_TOGGLES)
        self.transition_at: float | None = None
        self._serial = 0
        self.launcher_serial = self._next_serial()
        self.stack: list[ScreenState] = []
        self.foreground = start != "launcher"
        if start != "launcher":
            self.stack.append(self._new("menu"))
            if start != "menu":
                self.stack.append(self._new(start))

    @property
    def frame(self) -> Frame:
        natural = FRAMES[self.platform]
        return natural if self.orientation is Orientation.PORTRAIT else landscape(natural)

    # ---- time ---------------------------------------------------------------------------

    def animating(self, now: float) -> bool:
        t = self.transition_at
        return t is not None and now - t < FRAMES_PER_TRANSITION * FRAME_S

    def clock_text(self, now: float) -> str:
        total = (CLOCK_BASE_S + math.floor(now - self.started_at)) % 86400
        return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"

    def _clock_visible(self) -> bool:
        return self.foreground and bool(self.stack) and self.stack[-1].screen == "home"

    def _search_due(self) -> float | None:
        top = self.top
        if top is None or top.screen != "search" or top.query_at is None:
            return None
        return top.query_at + SEARCH_DELAY_S

    def next_change_at(self, now: float) -> float | None:
        """When the screen will next change by itself (None: not before an action)."""
        times: list[float] = []
        t = self.transition_at
        if t is not None and self.animating(now):
            frame = int((now - t) / FRAME_S)
            times.append(t + (frame + 1) * FRAME_S)
        if self._clock_visible():
            elapsed = now - self.started_at
            times.append(self.started_at + math.floor(elapsed) + 1.0)
        due = self._search_due()
        if due is not None and due > now:
            times.append(due)
        return min(times) if times else None

    def last_change_at(self, now: float) -> float:
        """The latest instant at or before ``now`` when the screen changed."""
        last = self.changed_at
        t = self.transition_at
        if t is not None:
            last = max(last, min(now, t + FRAMES_PER_TRANSITION * FRAME_S))
        if self._clock_visible():
            last = max(last, self.started_at + math.floor(now - self.started_at))
        due = self._search_due()
        if due is not None and due <= now:
            last = max(last, due)
        return min(last, now)

    # ---- rendering ----------------------------------------------------------------------

    @property
    def top(self) -> ScreenState | None:
        return self.stack[-1] if self.foreground and self.stack else None

    def scene(self, now: float) -> Scene:
        top = self.top
        if top is None:
            windows = scenes.build_launcher(self.launcher_serial, self.frame, self.platform)
            package = LAUNCHER_PACKAGE
        else:
            due = self._search_due()
            inp = SceneInput(
                platform=self.platform,
                toggles=dict(self.toggles),
                clock_text=self.clock_text(now),
                search_ready=due is not None and now >= due,
                camera=self._camera_state(),
                asking=self._asking_now(),
                location=self.location,
                zoom=self.zoom,
                touch=self.touch,
                web_status=self.web_status,
            )
            windows = scenes.build_screen(top, self.frame, inp)
            package = DEMO_PACKAGE
        animating = self.animating(now)
        if animating and self.transition_at is not None:
            frame = int((now - self.transition_at) / FRAME_S)
            dx = self.frame.width * (FRAMES_PER_TRANSITION - frame) // (FRAMES_PER_TRANSITION + 1)
            for child in windows[-1].root.children:
                shift(child, dx, self.frame.width)
        focus = f"{top.serial}:{top.focus}" if top is not None and top.focus else None
        return Scene(
            package=package,
            windows=windows,
            width=self.frame.width,
            height=self.frame.height,
            animating=animating,
            focus_key=focus,
            rotation=0 if self.orientation is Orientation.PORTRAIT else 90,
        )

    # ---- navigation ---------------------------------------------------------------------

    def _next_serial(self) -> int:
        self._serial += 1
        return self._serial

    def _new(self, screen: str) -> ScreenState:
        if screen == "camera" and (DEMO_PACKAGE, "camera") not in self.permissions:
            self.asking = True  # the app asks for the camera as its screen opens
        return ScreenState(screen=screen, serial=self._next_serial())

    def _changed(self, now: float, transition: bool = False) -> None:
        self.changed_at = now
        if transition and self.animations:
            self.transition_at = now

    def _push(self, screen: str, now: float) -> None:
        self.stack.append(self._new(screen))
        self.foreground = True
        self._changed(now, transition=True)

    def _pop(self, now: float) -> None:
        if self.stack:
            self.stack.pop()
        if not self.stack:
            self.foreground = False
        self._changed(now, transition=True)

    def _to_launcher(self, now: float) -> None:
        if self.foreground:
            self.foreground = False
            self._changed(now, transition=True)

    def _bring_to_front(self, now: float) -> None:
        if not self.stack:
            self.stack.append(self._new("menu"))
        if not self.foreground:
            self.foreground = True
            self._changed(now, transition=True)

    # ---- commands -----------------------------------------------------------------------

    def global_action(self, action: GlobalAction, now: float) -> Outcome:
        match action:
            case GlobalAction.BACK:
                if self._asking_now():  # BACK on the permission dialog denies
                    self._answer_permission(False, now)
                    return OK
                if self.foreground:
                    self._pop(now)
                return OK
            case GlobalAction.HOME:
                self._to_launcher(now)
                return OK
        return failed("UNSUPPORTED", f"{action.value} is not simulated")

    def app(
        self,
        action: AppAction,
        app_id: str | None,
        uri: str | None,
        now: float,
        arguments: dict[str, str] | None = None,
    ) -> Outcome:
        """An app command; APP_OPEN's ``arguments`` are what the demo app was launched with
        (its menu lists them)."""
        if app_id is not None and app_id not in self.apps:
            return failed("NOT_FOUND", f"app {app_id} is not installed")
        if app_id not in (None, DEMO_PACKAGE, LAUNCHER_PACKAGE):
            return failed("UNSUPPORTED", f"app {app_id} has no screens in the simulated device")
        if app_id == LAUNCHER_PACKAGE:
            if action is AppAction.APP_CLOSE_UI:
                return OK
            self._to_launcher(now)
            return OK
        match action:
            case AppAction.APP_OPEN:
                menu = self._new("menu")
                if arguments:
                    menu.fields["arguments"] = ", ".join(
                        f"{k}={v}" for k, v in sorted(arguments.items())
                    )[:200]
                self.stack = [menu]
                self.foreground = True
                self._changed(now, transition=True)
            case AppAction.APP_BRING_TO_FRONT:
                self._bring_to_front(now)
            case AppAction.APP_CLOSE_UI:
                self._to_launcher(now)
            case AppAction.APP_DEEP_LINK:
                return self._deep_link(uri, now)
        return OK

    def _deep_link(self, uri: str | None, now: float) -> Outcome:
        if not uri or not uri.startswith(DEEP_LINK_SCHEME):
            return failed("NOT_FOUND", f"no activity handles {uri!r}")
        screen = uri[len(DEEP_LINK_SCHEME) :].split("/", 1)[0].split("?", 1)[0]
        if screen not in SCREENS and screen not in HIDDEN_SCREENS:
            return failed("NOT_FOUND", f"the demo app has no screen {screen!r}")
        self.stack = [self._new("menu")]
        if screen != "menu":
            self.stack.append(self._new(screen))
        self.foreground = True
        self._changed(now, transition=True)
        return OK

    def set_clipboard(self, text: str, now: float) -> Outcome:
        self.clipboard = text
        return OK

    # ---- issue 21 capabilities: alerts, permissions, location, multi-touch, keyboard ---------

    def _camera_state(self) -> str:
        granted = self.permissions.get((DEMO_PACKAGE, "camera"))
        return "not asked" if granted is None else "granted" if granted else "denied"

    def _asking_now(self) -> bool:
        top = self.top
        return self.asking and top is not None and top.screen == "camera"

    def alerts(self, now: float) -> tuple[AlertInfo, ...]:
        """The alerts on screen: the permission dialog, or the demo app's dialog."""
        top = self.top
        if self._asking_now():
            buttons = camera.PERMISSION_BUTTONS
            return (AlertInfo(title=camera.PERMISSION_TITLE, buttons=buttons, system=True),)
        if top is not None and top.screen == "dialog":
            return (
                AlertInfo(
                    title=camera.DIALOG_TITLE,
                    message=camera.DIALOG_MESSAGE,
                    buttons=camera.DIALOG_BUTTONS,
                ),
            )
        return ()

    def answer_alert(self, action: str, button: str | None, now: float) -> Outcome:
        """``accept`` / ``dismiss`` / ``press`` (``button``) the alert on screen."""
        shown = self.alerts(now)
        if not shown:
            return failed("NOT_FOUND", "no alert is on screen")
        buttons = shown[0].buttons
        if action == "press":
            wanted = (button or "").strip().casefold()
            matches = [b for b in buttons if b.casefold() == wanted]
            if not matches:
                return failed(
                    "NOT_FOUND",
                    f"the alert has no button {button!r}; its buttons: {', '.join(buttons)}",
                )
            positive = matches[0] == buttons[-1]
        elif action in ("accept", "dismiss"):
            positive = action == "accept"
        else:
            return failed("BAD_COMMAND", f"unknown alert action {action!r}")
        if self._asking_now():
            self._answer_permission(positive, now)
        else:
            self._pop(now)  # the demo dialog: either button closes it
        return OK

    def _answer_permission(self, granted: bool, now: float) -> None:
        self.permissions[(DEMO_PACKAGE, "camera")] = granted
        self.asking = False
        self._changed(now)

    def set_permission(self, action: str, app_id: str, permission: str, now: float) -> Outcome:
        if app_id not in self.apps:
            return failed("NOT_FOUND", f"app {app_id} is not installed")
        if permission not in PERMISSIONS:
            return failed("BAD_COMMAND", f"unknown permission {permission!r}")
        key = (app_id, permission)
        match action:
            case "grant":
                self.permissions[key] = True
            case "revoke":
                self.permissions[key] = False
            case "reset":
                self.permissions.pop(key, None)
            case _:
                return failed("BAD_COMMAND", f"unknown permission action {action!r}")
        if key == (DEMO_PACKAGE, "camera") and action != "reset":
            self.asking = False  # decided: the system no longer asks
        self._changed(now)
        return OK

    def set_location(self, latitude: float | None, longitude: float | None, now: float) -> Outcome:
        if latitude is None or longitude is None:
            self.location = None
        elif not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
            return failed("BAD_COMMAND", f"no such place: {latitude}, {longitude}")
        else:
            self.location = (latitude, longitude)
        self._changed(now)
        return OK

    def set_network(
        self, airplane: bool | None, wifi: bool | None, data: bool | None, now: float
    ) -> Outcome:
        """Switch the simulated radios (each given: on/off), as a phone does: airplane mode on
        turns Wi-Fi and data off; off again restores them; a radio switched on while in
        airplane mode is on (phones allow Wi-Fi in flight)."""
        net = self.network
        if airplane is not None and airplane != net["airplane"]:
            if airplane:
                self._radios_before_airplane = {"wifi": net["wifi"], "data": net["data"]}
                net.update(airplane=True, wifi=False, data=False)
            else:
                before = self._radios_before_airplane or {"wifi": True, "data": True}
                net.update(airplane=False, **before)
                self._radios_before_airplane = None
        if wifi is not None:
            net["wifi"] = wifi
        if data is not None:
            net["data"] = data
        return OK

    def multi_touch(self, kind: str, x: int, y: int, scale: float, now: float) -> Outcome:
        """A pinch scales the camera screen's photo when it lands on it; every multi-touch
        gesture is told on the camera screen, and on the game board when it lands there."""
        if kind == "pinch":
            said = f"Pinched x{scale:g} at ({x}, {y})"
        elif kind == "two_finger_tap":
            said = f"Two-finger tap at ({x}, {y})"
        else:
            return failed("UNSUPPORTED", f"multi-touch {kind!r} is not simulated")
        self.touch = said
        if self._on_board(x, y, now, said):
            return OK
        top = self.top
        windows = self.scene(now).windows
        if kind == "pinch" and top is not None and top.screen == "camera" and windows:
            view = deepest_at(windows[-1].root, x, y)
            if view is not None and view.ident == "photo":
                self.zoom = max(MIN_ZOOM, min(MAX_ZOOM, self.zoom * scale))
        self._changed(now)
        return OK

    def hide_keyboard(self, now: float) -> Outcome:
        """The focused input loses the focus (the keyboard goes); its text stays."""
        top = self.top
        if top is not None and top.focus is not None:
            top.focus = None
            self._changed(now)
        return OK

    def tap(self, x: int, y: int, now: float) -> Outcome:
        """A tap at a point: the deepest clickable view of the top window there reacts."""
        if self._on_board(x, y, now, f"Tapped at ({x}, {y})"):
            return OK
        windows = self.scene(now).windows
        if not windows:
            return OK
        window = windows[-1]  # the top window is modal: taps outside it do nothing
        if not contains(window.bounds, x, y):
            return OK
        path = hit(window.root, x, y)
        if path is not None and not self._into_web(path[-1], "tap", x, y):
            self._click(path[-1], now)
        return OK

    def _into_web(self, view: View, kind: str, x: int, y: int) -> bool:
        """A touch on a WebView goes to its page (queued for the server); True if so."""
        if view.kind is not Kind.WEBVIEW:
            return False
        if len(self.web_touches) < MAX_WEB_TOUCHES:
            ident = view.ident or "webview"
            self.web_touches.append((ident, kind, x - view.bounds[0], y - view.bounds[1]))
        return True

    def double_tap(self, x: int, y: int, now: float) -> Outcome:
        """The board tells a double tap apart; anything else gets two taps."""
        if self._on_board(x, y, now, f"Double-tapped at ({x}, {y})"):
            return OK
        self.tap(x, y, now)
        return self.tap(x, y, now)

    def long_press(self, x: int, y: int, now: float, duration_ms: int = 0) -> Outcome:
        held = f" for {duration_ms} ms" if duration_ms else ""
        if self._on_board(x, y, now, f"Long-pressed at ({x}, {y}){held}"):
            return OK
        windows = self.scene(now).windows
        if windows:
            path = hit(windows[-1].root, x, y)
            if path is not None and self._into_web(path[-1], "long_press", x, y):
                return OK
            if path is not None and path[-1].kind is Kind.INPUT:
                self._focus(path[-1], now)
        return OK

    def swipe(self, x0: int, y0: int, x1: int, y1: int, now: float) -> Outcome:
        if self._on_board(x0, y0, now, f"Swiped from ({x0}, {y0}) to ({x1}, {y1})"):
            return OK
        windows = self.scene(now).windows
        if not windows:
            return OK
        at = hit(windows[-1].root, x0, y0)
        if at is not None and at[-1].kind is Kind.WEBVIEW:  # the page scrolls itself
            if len(self.web_touches) < MAX_WEB_TOUCHES:
                left, top = at[-1].bounds[0], at[-1].bounds[1]
                ident = at[-1].ident or "webview"
                self.web_touches.append((ident, "scroll", x0 - left, y0 - top))
                self.web_touches.append((ident, "scroll_by", x1 - x0, y1 - y0))
            return OK
        path = deepest_scrollable_at(windows[-1].root, x0, y0)
        if path is None or abs(y1 - y0) < 48:
            return OK
        self._scroll(path[-1], forward=y1 < y0, now=now)
        return OK

    def _on_board(self, x: int, y: int, now: float, said: str) -> bool:
        """Whether (x, y) is on the game board; if so it shows ``said``."""
        top = self.top
        windows = self.scene(now).windows
        if top is None or top.screen != "game" or not windows:
            return False
        view = deepest_at(windows[-1].root, x, y)
        if view is None or view.kind not in (Kind.SURFACE, Kind.TEXT):
            return False
        top.fields["board"] = said
        if contains(scenes.play_box(self.frame), x, y):  # the canvas's PLAY button
            score = int(top.fields.get("score", str(scenes.GAME_SCORE)))
            top.fields["score"] = str(score + scenes.GAME_STEP)
        self._changed(now)
        return True

    # ---- orientation and apps -----------------------------------------------------------

    def rotate(self, orientation: Orientation, now: float) -> Outcome:
        if orientation is not self.orientation:
            self.orientation = orientation
            self._changed(now)
        return OK

    def installed(self) -> tuple[InstalledApp, ...]:
        return tuple(self.apps.values())

    def terminate(self, app_id: str, now: float) -> Outcome:
        if app_id not in self.apps:
            return failed("NOT_FOUND", f"app {app_id} is not installed")
        self._reset_app(app_id, now)
        return OK

    def clear(self, app_id: str, now: float) -> Outcome:
        """Clear the app's data (``pm clear``): the app is stopped and everything it kept — the
        settings, the signed-in session, every screen's fields — is back to a first start."""
        if app_id not in self.apps:
            return failed("NOT_FOUND", f"app {app_id} is not installed")
        self._reset_app(app_id, now)
        return OK

    def _reset_app(self, app_id: str, now: float) -> None:
        """Stop ``app_id``; for the demo app that is all of its state (it stores nothing)."""
        if app_id == DEMO_PACKAGE:
            # the process is gone, and all the app's state with it (it stores nothing)
            self.toggles = dict(DEFAULT_TOGGLES)
            if self.stack:
                self.stack = []
                if self.foreground:
                    self.foreground = False
                    self._changed(now, transition=True)

    def install(self, package: bytes, now: float) -> Outcome:
        """Install a simulated package: JSON ``{"appId": ..., "name": ...}``."""
        app = _parse_package(package)
        if app is None:
            return failed(
                "FAILED",
                'not a simulated package: expected JSON {"appId": "<id>", "name": "<name>"} '
                f"of at most {MAX_PACKAGE} bytes",
            )
        known = self.apps.get(app.app_id)
        if known is not None and known.system:
            return failed("FAILED", f"{app.app_id} is a system app; it cannot be replaced")
        if known is None and len(self.apps) >= len(SYSTEM_APPS) + MAX_USER_APPS:
            return failed("FAILED", "the simulated device is full")
        self.apps[app.app_id] = app
        return Outcome(ok=True, text=app.app_id)

    def uninstall(self, app_id: str, now: float) -> Outcome:
        known = self.apps.get(app_id)
        if known is None:
            return failed("NOT_FOUND", f"app {app_id} is not installed")
        if known.system:
            return failed("FAILED", f"{app_id} is part of the system image; it cannot be removed")
        del self.apps[app_id]
        return OK

    def type_text(self, text: str, now: float) -> Outcome:
        top = self.top
        if top is None or top.focus is None:
            return failed("FAILED", "no input has the focus")
        self._set_field(top, top.focus, top.fields.get(top.focus, "") + text, now)
        return OK

    def key(self, name: str, now: float) -> Outcome:
        key = name.strip().upper().removeprefix("KEYCODE_")
        top = self.top
        if key == "BACK":
            return self.global_action(GlobalAction.BACK, now)
        if key == "HOME":
            return self.global_action(GlobalAction.HOME, now)
        if key in ("DEL", "BACKSPACE", "DELETE"):
            if top is None or top.focus is None:
                return OK
            self._set_field(top, top.focus, top.fields.get(top.focus, "")[:-1], now)
            return OK
        if key in ("ENTER", "RETURN"):
            if top is not None and top.screen == "login" and top.focus is not None:
                self._run("submit", top, now)
            return OK
        if key in ("TAB", "DPAD_DOWN", "DPAD_UP"):
            if top is not None:
                self._next_focus(top, now, backward=key == "DPAD_UP")
            return OK
        if key in ("VOLUME_UP", "VOLUME_DOWN", "VOLUME_MUTE"):
            step = {"VOLUME_UP": 1, "VOLUME_DOWN": -1}.get(key)
            self.volume = 0 if step is None else max(0, min(MAX_VOLUME, self.volume + step))
            return OK  # the volume has no view: nothing on screen changes
        if key == "APP_SWITCH":
            return self.global_action(GlobalAction.RECENTS, now)
        if key == "SPACE":
            return self.type_text(" ", now) if top is not None and top.focus else OK
        if len(key) == 1 and key.isalnum():
            return self.type_text(key.lower(), now) if top is not None and top.focus else OK
        return failed("UNSUPPORTED", f"key {name!r} is not simulated")

    def node_action(
        self,
        path: list[View],
        verb: ActionVerb,
        text: str | None,
        *,
        allow_ancestor: bool,
        allow_gesture: bool,
        now: float,
    ) -> Outcome:
        """Act on the live view at the end of ``path``: its own action, else an ancestor's
        (``allow_ancestor``), else a gesture at its centre (``allow_gesture``)."""
        view = path[-1]
        if _supports(view, verb):
            return self._perform(view, verb, text, ActionMethod.ACCESSIBILITY_ACTION, now)
        if view.password and verb is ActionVerb.COPY:
            return failed("FAILED", "a password field cannot be copied")
        if allow_ancestor and verb in _ANCESTOR_VERBS:
            for ancestor in reversed(path[:-1]):
                if _supports(ancestor, verb) and _encloses(ancestor.bounds, view.bounds):
                    method = ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR
                    return self._perform(ancestor, verb, text, method, now)
        if allow_gesture and verb in (ActionVerb.CLICK, ActionVerb.LONG_CLICK):
            left, top, right, bottom = view.bounds
            if right <= left or bottom <= top:
                return failed("FAILED", "the node has no visible area to tap")
            x, y = centre(view.bounds)
            if verb is ActionVerb.CLICK:
                self.tap(x, y, now)
            else:
                self.long_press(x, y, now)
            return Outcome(ok=True, method=ActionMethod.GESTURE_FALLBACK)
        return failed("UNSUPPORTED", f"{verb.value} is not supported by this node")

    # ---- internals ----------------------------------------------------------------------

    def _perform(
        self, view: View, verb: ActionVerb, text: str | None, method: ActionMethod, now: float
    ) -> Outcome:
        done = Outcome(ok=True, method=method)
        match verb:
            case ActionVerb.CLICK:
                self._click(view, now)
            case ActionVerb.LONG_CLICK | ActionVerb.FOCUS:
                if verb is ActionVerb.FOCUS or view.kind is Kind.INPUT:
                    self._focus(view, now)
            case ActionVerb.SET_TEXT | ActionVerb.CLEAR_TEXT | ActionVerb.PASTE:
                owner = self._owner(view)
                if owner is None:
                    return failed("FAILED", "the input is not on the foreground screen")
                state, local = owner
                if verb is ActionVerb.SET_TEXT:
                    if text is None:
                        return failed("FAILED", "SET_TEXT needs text")
                    value = text
                elif verb is ActionVerb.CLEAR_TEXT:
                    value = ""
                else:
                    value = state.fields.get(local, "") + self.clipboard
                state.focus = local
                self._set_field(state, local, value, now)
            case ActionVerb.SCROLL_FORWARD | ActionVerb.SCROLL_BACKWARD:
                if not self._scroll(view, forward=verb is ActionVerb.SCROLL_FORWARD, now=now):
                    return failed("FAILED", "the list cannot scroll further that way")
            case ActionVerb.COPY:
                self.clipboard = view.text or ""
            case ActionVerb.DISMISS:
                self._pop(now)
            case _:
                return failed("UNSUPPORTED", f"{verb.value} is not simulated")
        return done

    def _owner(self, view: View) -> tuple[ScreenState, str] | None:
        serial, _, local = view.key.partition(":")
        top = self.top
        if top is None or str(top.serial) != serial:
            return None
        return top, local

    def _focus(self, view: View, now: float) -> None:
        owner = self._owner(view)
        if owner is not None and view.kind is Kind.INPUT:
            owner[0].focus = owner[1]
            self._changed(now)

    def _next_focus(self, state: ScreenState, now: float, backward: bool = False) -> None:
        inputs = {"login": ["username", "password"], "search": ["query"]}.get(state.screen, [])
        if not inputs:
            return
        current = inputs.index(state.focus) if state.focus in inputs else -1
        state.focus = inputs[(current + (-1 if backward else 1)) % len(inputs)]
        self._changed(now)

    def _set_field(self, state: ScreenState, local: str, value: str, now: float) -> None:
        state.fields[local] = value
        if state.screen == "search" and local == "query":
            state.query_at = now
            state.offsets.pop("results", None)
        self._changed(now)

    def _scroll(self, view: View, *, forward: bool, now: float) -> bool:
        owner = self._owner(view)
        if owner is None or view.kind is not Kind.LIST:
            return False
        state, local = owner
        page = max(1, len(view.children))
        total = view.rows or 0
        offset = state.offsets.get(local, 0)
        wanted = offset + page if forward else offset - page
        wanted = max(0, min(wanted, max(0, total - page)))
        if wanted == offset:
            return False
        state.offsets[local] = wanted
        self._changed(now)
        return True

    def _click(self, view: View, now: float) -> None:
        if view.on_tap is None:
            return
        if view.on_tap == "launch":
            self._bring_to_front(now)
            return
        owner = self._owner(view)
        if owner is not None:
            self._run(view.on_tap, owner[0], now)

    def _run(self, intent: str, state: ScreenState, now: float) -> None:
        verb, _, arg = intent.partition(":")
        match verb:
            case "nav":
                self._push(arg, now)
            case "focus":
                state.focus = arg
                self._changed(now)
            case "submit":
                user = state.fields.get("username", "").strip()
                if user == DEMO_USER and state.fields.get("password", ""):
                    self.stack[-1] = self._new("home")  # login replaces itself with home
                    self._changed(now, transition=True)
                else:
                    state.error = INVALID_CREDENTIALS
                    self._changed(now)
            case "dialog":
                self._pop(now)
            case "perm":
                if arg == "ask":
                    if (DEMO_PACKAGE, "camera") not in self.permissions:
                        self.asking = True
                        self._changed(now)
                else:
                    self._answer_permission(arg == "allow", now)
            case "select" | "choose" | "pick":
                state.selected = arg
                self._changed(now)
            case "toggle":
                self.toggles[arg] = not self.toggles.get(arg, False)
                self._changed(now)


_ANCESTOR_VERBS = frozenset(
    {
        ActionVerb.CLICK,
        ActionVerb.LONG_CLICK,
        ActionVerb.SCROLL_FORWARD,
        ActionVerb.SCROLL_BACKWARD,
    }
)


def _supports(view: View, verb: ActionVerb) -> bool:
    match verb:
        case ActionVerb.CLICK:
            return view.clickable
        case ActionVerb.LONG_CLICK:
            return view.long_clickable
        case ActionVerb.SET_TEXT | ActionVerb.CLEAR_TEXT | ActionVerb.PASTE:
            return view.editable
        case ActionVerb.FOCUS:
            return view.kind is Kind.INPUT
        case ActionVerb.SCROLL_FORWARD | ActionVerb.SCROLL_BACKWARD:
            return view.scrollable
        case ActionVerb.COPY:
            return view.kind in (Kind.TEXT, Kind.INPUT) and bool(view.text) and not view.password
        case ActionVerb.DISMISS:
            return view.kind is Kind.ALERT
    return False


def _encloses(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and outer[2] >= inner[2]
        and outer[3] >= inner[3]
    )


def _parse_package(data: bytes) -> InstalledApp | None:
    if len(data) > MAX_PACKAGE:
        return None
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or set(doc) - {"appId", "name"}:
        return None
    app_id, name = doc.get("appId"), doc.get("name")
    if not isinstance(app_id, str) or not isinstance(name, (str, type(None))):
        return None
    if not _APP_ID.fullmatch(app_id) or len(app_id) > 255 or (name is not None and len(name) > 256):
        return None
    return InstalledApp(app_id=app_id, name=name)
