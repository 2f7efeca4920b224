"""Method + path -> command (sans-I/O). Paths are served at ``/`` and under ``/wd/hub``.

``route`` returns the command's name and the path's variables (``session``, ``element``,
``name``), or raises ``WebDriverError``: ``unknown command`` for a path no command has,
``unknown method`` for a known path with another method.
"""

from __future__ import annotations

from bridge.webdriver.errors import WebDriverError

_S = "/session/{session}"
_E = _S + "/element/{element}"
ROUTES: tuple[tuple[str, str, str], ...] = (
    ("GET", "/status", "status"),
    ("POST", "/session", "new_session"),
    ("DELETE", _S, "delete_session"),
    ("GET", _S, "get_session"),
    ("GET", _S + "/timeouts", "get_timeouts"),
    ("POST", _S + "/timeouts", "set_timeouts"),
    ("POST", _S + "/element", "find_element"),
    ("POST", _S + "/elements", "find_elements"),
    ("GET", _S + "/element/active", "active_element"),
    ("POST", _E + "/element", "find_element"),
    ("POST", _E + "/elements", "find_elements"),
    ("POST", _E + "/click", "element_click"),
    ("POST", _E + "/clear", "element_clear"),
    ("POST", _E + "/value", "element_send_keys"),
    ("GET", _E + "/text", "element_text"),
    ("GET", _E + "/attribute/{name}", "element_attribute"),
    ("GET", _E + "/property/{name}", "element_attribute"),
    ("GET", _E + "/rect", "element_rect"),
    ("GET", _E + "/location", "element_location"),
    ("GET", _E + "/location_in_view", "element_location"),
    ("GET", _E + "/size", "element_size"),
    ("GET", _E + "/displayed", "element_displayed"),
    ("GET", _E + "/enabled", "element_enabled"),
    ("GET", _E + "/selected", "element_selected"),
    ("GET", _E + "/name", "element_name"),
    ("GET", _E + "/screenshot", "element_screenshot"),
    ("GET", _S + "/source", "page_source"),
    ("GET", _S + "/screenshot", "screenshot"),
    ("POST", _S + "/actions", "perform_actions"),
    ("DELETE", _S + "/actions", "release_actions"),
    ("POST", _S + "/back", "back"),
    ("POST", _S + "/url", "open_url"),
    ("GET", _S + "/orientation", "get_orientation"),
    ("POST", _S + "/orientation", "set_orientation"),
    ("GET", _S + "/window/rect", "window_rect"),
    ("GET", _S + "/window/size", "window_rect"),
    ("GET", _S + "/window/{name}/size", "window_rect"),
    ("GET", _S + "/window", "window_handle"),
    ("GET", _S + "/window/handles", "window_handles"),
    ("POST", _S + "/execute/sync", "execute"),
    ("POST", _S + "/execute/async", "execute"),
    ("POST", _S + "/execute", "execute"),
    ("GET", _S + "/contexts", "contexts"),
    ("GET", _S + "/context", "get_context"),
    ("POST", _S + "/context", "set_context"),
    ("GET", _S + "/appium/settings", "get_settings"),
    ("POST", _S + "/appium/settings", "set_settings"),
    ("POST", _S + "/alert/accept", "mobile:acceptAlert"),
    ("POST", _S + "/alert/dismiss", "mobile:dismissAlert"),
    ("GET", _S + "/alert/text", "alert_text"),
    # Appium's legacy endpoints (clients before the mobile: commands), onto the same handlers
    ("POST", _S + "/appium/device/hide_keyboard", "mobile:hideKeyboard"),
    ("GET", _S + "/appium/device/is_keyboard_shown", "mobile:isKeyboardShown"),
    ("POST", _S + "/appium/device/press_keycode", "mobile:pressKey"),
    ("POST", _S + "/appium/device/terminate_app", "mobile:terminateApp"),
    ("POST", _S + "/appium/device/activate_app", "mobile:activateApp"),
    ("POST", _S + "/appium/device/app_state", "mobile:queryAppState"),
    ("POST", _S + "/appium/device/app_installed", "mobile:isAppInstalled"),
    ("POST", _S + "/appium/device/remove_app", "mobile:removeApp"),
    ("POST", _S + "/appium/device/install_app", "mobile:installApp"),
    ("GET", _S + "/appium/device/current_package", "mobile:getCurrentPackage"),
    ("POST", _S + "/appium/device/get_clipboard", "mobile:getClipboard"),
    ("POST", _S + "/appium/device/set_clipboard", "mobile:setClipboard"),
    ("POST", _S + "/appium/device/open_notifications", "mobile:openNotifications"),
)


def _compile() -> dict[int, list[tuple[list[str], dict[str, str]]]]:
    table: dict[int, list[tuple[list[str], dict[str, str]]]] = {}
    for method, path, name in ROUTES:
        parts = [p for p in path.split("/") if p]
        table.setdefault(len(parts), []).append((parts, {"method": method, "name": name}))
    return table


_TABLE = _compile()


def route(method: str, segments: list[str]) -> tuple[str, dict[str, str]]:
    """The command for ``method`` on the path ``segments`` and its path variables."""
    if segments[:2] == ["wd", "hub"]:
        segments = segments[2:]
    known_path = False
    method = "GET" if method == "HEAD" else method
    for parts, info in _TABLE.get(len(segments), ()):
        variables: dict[str, str] = {}
        for want, got in zip(parts, segments, strict=True):
            if want.startswith("{"):
                variables[want[1:-1]] = got
            elif want != got:
                break
        else:
            known_path = True
            if info["method"] == method:
                return info["name"], variables
    if known_path:
        raise WebDriverError("unknown method", f"{method} is not allowed on /{'/'.join(segments)}")
    raise WebDriverError(
        "unknown command", f"{method} /{'/'.join(segments)} is not a command this endpoint has"
    )
