"""``execute`` with ``mobile:`` commands (Appium's extension commands) mapped onto hub
requests. Scripts of any other kind are refused: a native context runs no JavaScript.

App lifecycle commands that name an app (``terminateApp``, ``removeApp``, ``installApp``)
approve the hub's objection themselves: the script named the app and the step, as
``--approve`` does on the command line. Unknown ``mobile:`` commands answer ``unsupported
operation`` listing the ones served.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from bridge.webdriver import pointer_actions
from bridge.webdriver.calls import body_object, device_of, hub_call
from bridge.webdriver.commands import center_of, found_now, run_plan
from bridge.webdriver.errors import WebDriverError, invalid_argument
from bridge.webdriver.pointer_actions import ELEMENT_KEY
from bridge.webdriver.session import WdSession
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb, AppAction, GlobalAction, KeyName
from bridge.wire.node import SemanticNode

MobileHandler = Callable[[WdSession, dict[str, Any]], Awaitable[Any]]

ANDROID_KEYCODES: dict[int, str] = {
    3: "HOME", 4: "BACK", 19: "DPAD_UP", 20: "DPAD_DOWN", 21: "DPAD_LEFT", 22: "DPAD_RIGHT",
    23: "DPAD_CENTER", 24: "VOLUME_UP", 25: "VOLUME_DOWN", 61: "TAB", 62: "SPACE",
    66: "ENTER", 67: "DEL", 82: "MENU", 84: "SEARCH", 85: "MEDIA_PLAY_PAUSE",
    92: "PAGE_UP", 93: "PAGE_DOWN", 111: "ESCAPE", 112: "FORWARD_DEL", 122: "MOVE_HOME",
    123: "MOVE_END", 164: "VOLUME_MUTE", 187: "APP_SWITCH",
}  # fmt: skip
IOS_BUTTONS = {"home": "HOME", "volumeup": "VOLUME_UP", "volumedown": "VOLUME_DOWN"}
APP_STATE_NOT_INSTALLED, APP_STATE_NOT_RUNNING, APP_STATE_FOREGROUND = 0, 1, 4


def _app_id(args: dict[str, Any]) -> str:
    app = args.get("appId") or args.get("bundleId")
    if not isinstance(app, str) or not app or len(app) > 256:
        raise invalid_argument("give appId (Android) or bundleId (iOS)")
    return app


async def _settle(session: WdSession, result: Any) -> Any:
    await session.caught_up(result.observation.after_snapshot_id)
    return result


async def activate_app(session: WdSession, args: dict[str, Any]) -> Any:
    device = device_of(session)
    await _settle(session, await hub_call(session, device.app(AppAction.APP_OPEN, _app_id(args))))
    return None


async def terminate_app(session: WdSession, args: dict[str, Any]) -> Any:
    device, app = device_of(session), _app_id(args)
    result = await hub_call(
        session, session.approved(lambda c: device.terminate_app(app, confirm=c), True)
    )
    await _settle(session, result)
    return True


async def remove_app(session: WdSession, args: dict[str, Any]) -> Any:
    device, app = device_of(session), _app_id(args)
    await hub_call(session, session.approved(lambda c: device.uninstall_app(app, confirm=c), True))
    return True


async def install_app(session: WdSession, args: dict[str, Any]) -> Any:
    path = args.get("app") or args.get("appPath")
    if not isinstance(path, str) or not path:
        raise invalid_argument("give app: the package's file name in the hub's --install-dir")
    name = os.path.basename(path)
    device = device_of(session)
    await hub_call(session, session.approved(lambda c: device.install_app(name, confirm=c), True))
    return None


async def query_app_state(session: WdSession, args: dict[str, Any]) -> Any:
    app = _app_id(args)
    listed = await hub_call(session, device_of(session).apps())
    if listed.foreground == app:
        return APP_STATE_FOREGROUND
    if any(a.app_id == app for a in listed.apps):
        return APP_STATE_NOT_RUNNING
    return APP_STATE_NOT_INSTALLED


async def is_app_installed(session: WdSession, args: dict[str, Any]) -> Any:
    app = _app_id(args)
    listed = await hub_call(session, device_of(session).apps())
    return any(a.app_id == app for a in listed.apps)


async def current_package(session: WdSession, args: dict[str, Any]) -> Any:
    snap = session.current()
    return snap.app_id or snap.package_name


async def get_clipboard(session: WdSession, args: dict[str, Any]) -> Any:
    text: str = await hub_call(session, device_of(session).clipboard())
    return base64.b64encode(text.encode()).decode()


async def set_clipboard(session: WdSession, args: dict[str, Any]) -> Any:
    content = args.get("content")
    if not isinstance(content, str):
        raise invalid_argument("setClipboard takes content (base64)")
    try:
        text = base64.b64decode(content, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise invalid_argument("setClipboard content must be base64 of UTF-8 text") from None
    await hub_call(session, device_of(session).set_clipboard(text))
    return None


def _alert(choice: str) -> Callable[[WdSession, dict[str, Any]], Awaitable[Any]]:
    async def answer(session: WdSession, args: dict[str, Any]) -> Any:
        button = args.get("buttonLabel")
        if button is not None and not isinstance(button, str):
            raise invalid_argument("buttonLabel must be a string")
        device = device_of(session)
        result = await hub_call(
            session,
            session.approved(
                lambda c: device.answer_alert(None if button else choice, button=button, confirm=c)
            ),
        )
        await _settle(session, result)
        return None

    return answer


async def hide_keyboard(session: WdSession, args: dict[str, Any]) -> Any:
    await hub_call(session, device_of(session).hide_keyboard())
    return None


def keyboard_shown(nodes: Sequence[SemanticNode]) -> bool:
    """Whether the snapshot holds a soft keyboard: the hub sums one up in a node whose hint
    says what hides it (Android), or keeps iOS's keyboard element."""
    return any(
        n.native_type == "XCUIElementTypeKeyboard"
        or (n.hint is not None and n.hint.endswith("hides the keyboard"))
        for n in nodes
    )


async def is_keyboard_shown(session: WdSession, args: dict[str, Any]) -> Any:
    return keyboard_shown(session.current().nodes)


async def alert_text(session: WdSession, _: dict[str, str], __: Any) -> Any:
    """W3C's alert text: the title and message of the alert on screen."""
    listed = await hub_call(session, device_of(session).alerts())
    if not listed.alerts:
        raise WebDriverError("no such alert", "no alert is on the screen")
    alert = listed.alerts[0]
    return "\n".join(part for part in (alert.title, alert.message) if part)


async def press_key(session: WdSession, args: dict[str, Any]) -> Any:
    code = args.get("keycode")
    name = ANDROID_KEYCODES.get(code) if isinstance(code, int) else None
    if name is None:
        raise WebDriverError(
            "unsupported operation",
            f"keycode {code!r}: the hub presses {sorted(ANDROID_KEYCODES)} "
            "(ENTER 66, DEL 67, BACK 4, HOME 3, ...)",
        )
    device = device_of(session)
    await _settle(
        session,
        await hub_call(
            session, session.approved(lambda c: device.press_key(KeyName(name), confirm=c))
        ),
    )
    return None


async def press_button(session: WdSession, args: dict[str, Any]) -> Any:
    raw = args.get("name")
    name = IOS_BUTTONS.get(str(raw).lower())
    if name is None:
        raise invalid_argument(f"pressButton name {raw!r}: home, volumeUp or volumeDown")
    device = device_of(session)
    await _settle(session, await hub_call(session, device.press_key(KeyName(name))))
    return None


async def open_notifications(session: WdSession, args: dict[str, Any]) -> Any:
    device = device_of(session)
    await _settle(
        session, await hub_call(session, device.global_action(GlobalAction.NOTIFICATION_SHADE))
    )
    return None


async def deep_link(session: WdSession, args: dict[str, Any]) -> Any:
    url = args.get("url")
    if not isinstance(url, str) or not url:
        raise invalid_argument("deepLink takes url")
    app = args.get("package") or args.get("bundleId")
    device = device_of(session)
    result = await hub_call(
        session, device.app(AppAction.APP_DEEP_LINK, app if isinstance(app, str) else None, url)
    )
    await _settle(session, result)
    return None


MAX_BACKGROUND_S = 60.0


async def background_app(session: WdSession, args: dict[str, Any]) -> Any:
    """HOME, then (``seconds`` >= 0, at most 60) the app that was in front comes back."""
    seconds = args.get("seconds", 5)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise invalid_argument("backgroundApp takes seconds (a number; negative: stay away)")
    snap = session.current()
    app = snap.app_id or snap.package_name
    device = device_of(session)
    await _settle(session, await hub_call(session, device.global_action(GlobalAction.HOME)))
    if seconds < 0:
        return None
    await anyio.sleep(min(float(seconds), MAX_BACKGROUND_S))
    result = await hub_call(session, device.app(AppAction.APP_BRING_TO_FRONT, app))
    await _settle(session, result)
    return None


async def start_activity(session: WdSession, args: dict[str, Any]) -> Any:
    """UiAutomator2's startActivity, as far as the hub can: the package is opened (its
    launcher activity; ``appActivity`` and intent extras are not honoured)."""
    package = args.get("appPackage") or args.get("package")
    if not isinstance(package, str) or not package:
        raise invalid_argument("startActivity takes appPackage")
    device = device_of(session)
    await _settle(session, await hub_call(session, device.app(AppAction.APP_OPEN, package)))
    return None


async def open_url(session: WdSession, _: dict[str, str], body: Any) -> Any:
    """``driver.get(url)``: a deep link, as UiAutomator2 and XCUITest treat it."""
    args = body_object(body)
    return await deep_link(session, {"url": args.get("url")})


def _area(session: WdSession, args: dict[str, Any]) -> tuple[int, int, int, int]:
    """The gesture's area: ``elementId``, else ``left/top/width/height``, else the screen."""
    element = args.get("elementId") or args.get("element")
    if isinstance(element, dict):
        element = element.get(ELEMENT_KEY)
    if isinstance(element, str):
        node = session.node(element)
        if node.bounds is None:
            raise WebDriverError("move target out of bounds", "the element has no bounds")
        return node.bounds
    if all(isinstance(args.get(k), int | float) for k in ("left", "top", "width", "height")):
        left, top = int(args["left"]), int(args["top"])
        return left, top, left + int(args["width"]), top + int(args["height"])
    screen = session.current().nodes[0].bounds
    if screen is None:
        raise WebDriverError("unknown error", "the screen has no size yet")
    return screen


def _percent(args: dict[str, Any], default: float) -> float:
    value = args.get("percent", default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise invalid_argument("percent is a number in (0, 1]")
    return float(value)


def _direction(args: dict[str, Any]) -> str:
    direction = str(args.get("direction", "")).lower()
    if direction not in ("up", "down", "left", "right"):
        raise invalid_argument("direction is up, down, left or right")
    return direction


async def _finger(session: WdSession, args: dict[str, Any], direction: str, percent: float) -> Any:
    """A swipe of the finger in ``direction`` across ``percent`` of the area."""
    left, top, right, bottom = _area(session, args)
    cx, cy = (left + right) // 2, (top + bottom) // 2
    dx = int((right - left) * percent / 2)
    dy = int((bottom - top) * percent / 2)
    start, end = {
        "up": ((cx, cy + dy), (cx, cy - dy)),
        "down": ((cx, cy - dy), (cx, cy + dy)),
        "left": ((cx + dx, cy), (cx - dx, cy)),
        "right": ((cx - dx, cy), (cx + dx, cy)),
    }[direction]
    return await run_plan(session, [pointer_actions.Swipe((start, end), 300)])


async def swipe_gesture(session: WdSession, args: dict[str, Any]) -> Any:
    await _finger(session, args, _direction(args), _percent(args, 0.5))
    return None


_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


async def scroll_gesture(session: WdSession, args: dict[str, Any]) -> Any:
    """UiAutomator2's scrollGesture: content moves ``direction`` (the finger the other
    way); answers whether the screen changed (more to scroll)."""
    result = await _finger(session, args, _OPPOSITE[_direction(args)], _percent(args, 0.7))
    return bool(result is not None and result.observation.screen_changed)


async def _scroll_until(session: WdSession, using: str, value: str, finger: str) -> None:
    """Swipe the screen (the finger towards ``finger``) until the locator finds something,
    at most 20 times or until a swipe changes nothing."""
    for _ in range(20):
        if await found_now(session, using, value):
            return
        result = await _finger(session, {}, finger, 0.6)
        if result is None or not result.observation.screen_changed:
            break
    if not await found_now(session, using, value):
        raise WebDriverError(
            "no such element", f"NODE_NOT_FOUND: {using} {value!r} after scrolling"
        )


async def scroll(session: WdSession, args: dict[str, Any]) -> Any:
    """UiAutomator2's ``scroll`` (``strategy`` + ``selector``: scroll until found) or
    XCUITest's (``direction`` on ``elementId`` or the screen; with ``name`` or
    ``predicateString``: scroll that way until it shows)."""
    strategy, selector = args.get("strategy"), args.get("selector")
    if isinstance(strategy, str) and isinstance(selector, str):
        await _scroll_until(session, strategy, selector, "up")
        return None
    direction = _direction(args) if "direction" in args else "down"
    for key, using in (("name", "accessibility id"), ("predicateString", "-ios predicate string")):
        wanted = args.get(key)
        if isinstance(wanted, str) and wanted:
            await _scroll_until(session, using, wanted, _OPPOSITE[direction])
            return None
    element = args.get("elementId") or args.get("element")
    if isinstance(element, str) and direction in ("up", "down"):
        ref = session.entry(element).ref
        verb = ActionVerb.SCROLL_FORWARD if direction == "down" else ActionVerb.SCROLL_BACKWARD
        device = device_of(session)
        result = await hub_call(
            session, device.act(ActionRequest(action=verb, target=ref)), on_element=True
        )
        await _settle(session, result)
        return None
    await _finger(session, args, _OPPOSITE[direction], 0.6)
    return None


def _pinch(opening: bool) -> Callable[[WdSession, dict[str, Any]], Awaitable[Any]]:
    async def pinch(session: WdSession, args: dict[str, Any]) -> Any:
        left, top, right, bottom = _area(session, args)
        percent = _percent(args, 0.5)
        scale = 1 + 2 * percent if opening else max(0.1, 1 - 0.9 * percent)
        center = ((left + right) // 2, (top + bottom) // 2)
        await run_plan(session, [pointer_actions.Pinch(center[0], center[1], round(scale, 3))])
        return None

    return pinch


async def ios_pinch(session: WdSession, args: dict[str, Any]) -> Any:
    scale = args.get("scale")
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0.05 <= scale <= 20:
        raise invalid_argument("pinch takes scale (above 1 zooms in)")
    left, top, right, bottom = _area(session, args)
    await run_plan(
        session, [pointer_actions.Pinch((left + right) // 2, (top + bottom) // 2, float(scale))]
    )
    return None


def _point_args(session: WdSession, args: dict[str, Any]) -> tuple[int, int]:
    element = args.get("elementId") or args.get("element")
    if isinstance(element, str):
        return center_of(session, element)
    x, y = args.get("x"), args.get("y")
    if isinstance(x, int | float) and isinstance(y, int | float) and not isinstance(x, bool):
        return int(x), int(y)
    raise invalid_argument("give elementId or x and y")


def _tap(count: int, long: bool = False) -> Callable[[WdSession, dict[str, Any]], Awaitable[Any]]:
    async def tap(session: WdSession, args: dict[str, Any]) -> Any:
        x, y = _point_args(session, args)
        if long:
            duration = args.get("duration", 1000)
            ms = (
                int(duration * 1000)
                if isinstance(duration, float) and duration < 60
                else int(duration)
            )
            step: pointer_actions.Plan = pointer_actions.LongPress(x, y, max(1, min(ms, 10_000)))
        else:
            step = pointer_actions.Tap(x, y, count)
        await run_plan(session, [step])
        return None

    return tap


async def ios_swipe(session: WdSession, args: dict[str, Any]) -> Any:
    await _finger(session, args, _direction(args), 0.6)
    return None


MOBILE: dict[str, MobileHandler] = {
    "activateApp": activate_app,
    "terminateApp": terminate_app,
    "installApp": install_app,
    "removeApp": remove_app,
    "queryAppState": query_app_state,
    "isAppInstalled": is_app_installed,
    "getCurrentPackage": current_package,
    "getClipboard": get_clipboard,
    "setClipboard": set_clipboard,
    "acceptAlert": _alert("accept"),
    "dismissAlert": _alert("dismiss"),
    "hideKeyboard": hide_keyboard,
    "isKeyboardShown": is_keyboard_shown,
    "pressKey": press_key,
    "pressButton": press_button,
    "openNotifications": open_notifications,
    "deepLink": deep_link,
    "backgroundApp": background_app,
    "startActivity": start_activity,
    "scroll": scroll,
    "scrollGesture": scroll_gesture,
    "swipeGesture": swipe_gesture,
    "swipe": ios_swipe,
    "pinchOpenGesture": _pinch(True),
    "pinchCloseGesture": _pinch(False),
    "pinch": ios_pinch,
    "clickGesture": _tap(1),
    "tap": _tap(1),
    "doubleClickGesture": _tap(2),
    "doubleTap": _tap(2),
    "longClickGesture": _tap(1, long=True),
    "touchAndHold": _tap(1, long=True),
}


def legacy(name: str) -> Callable[[WdSession, dict[str, str], Any], Awaitable[Any]]:
    """A legacy ``/appium/device/...`` endpoint (or W3C's alert endpoints): the body is the
    ``mobile:`` command's arguments (``appId`` and ``bundleId`` are both accepted)."""
    handler = MOBILE[name]

    async def run(session: WdSession, _: dict[str, str], body: Any) -> Any:
        args = body_object(body)
        if "appPath" in args and "app" not in args:
            args = {**args, "app": args["appPath"]}
        return await handler(session, args)

    return run


async def execute(session: WdSession, _: dict[str, str], body: Any) -> Any:
    body = body_object(body)
    script = body.get("script")
    if not isinstance(script, str):
        raise invalid_argument('execute takes {"script": ..., "args": [...]}')
    name = script.strip()
    if not name.startswith("mobile:"):
        raise WebDriverError(
            "unsupported operation",
            "the NATIVE_APP context runs no JavaScript; use a mobile: command",
        )
    command = name[len("mobile:") :].strip()
    handler = MOBILE.get(command)
    if handler is None:
        raise WebDriverError(
            "unsupported operation",
            f"mobile: {command[:64]} is not served; served: {', '.join(sorted(MOBILE))}",
        )
    raw_args = body.get("args", [])
    if isinstance(raw_args, dict):
        args = raw_args
    elif isinstance(raw_args, list) and (not raw_args or isinstance(raw_args[0], dict)):
        args = raw_args[0] if raw_args else {}
    else:
        raise invalid_argument("mobile: commands take one object of arguments")
    return await handler(session, args)
