"""Maestro's flow format as data: every documented command, the keys each accepts, what a
bare word or a scalar value means, and Maestro's key names and enums.

This table is what ``bridge.flows.maestro.compile`` checks a Maestro file against (unknown
command or key: a mistake at its line and column, with the closest real name) and what
docs/flows.md's Maestro table describes. Names and shapes follow Maestro's own reader
(facts, not code): a selector given as a string is its ``text``; enum values compare
case-insensitively (``DOWN``, ``down``); numbers may be written as strings (``times: "3"``).
"""

from __future__ import annotations

from dataclasses import dataclass

COMMON = frozenset({"label", "optional"})
"""Keys every command's mapping may carry: ``label`` names the step in reports."""

SELECTOR_KEYS = frozenset(
    {
        "text",
        "id",
        "index",
        "enabled",
        "checked",
        "focused",
        "selected",
        "width",
        "height",
        "tolerance",
        "below",
        "above",
        "leftOf",
        "rightOf",
        "containsChild",
        "childOf",
        "containsDescendants",
        "traits",
        "css",
    }
)
"""What finds an element (``text``/``id`` are full-match regular expressions)."""
RELATIONS = ("below", "above", "leftOf", "rightOf", "containsChild", "childOf")

TAP_KEYS = (
    SELECTOR_KEYS
    | COMMON
    | {
        "point",
        "retryTapIfNoChange",
        "waitUntilVisible",
        "repeat",
        "delay",
        "waitToSettleTimeoutMs",
    }
)


@dataclass(frozen=True)
class Command:
    """One Maestro command: the keys of its mapping form, whether it may be a bare word,
    and what a scalar value is (``selector``, ``text``, ``app``, ``file``, ``key``, ``int``,
    ``path``, ``script``, ``url``, ``value``, ``query``; None: no scalar form)."""

    keys: frozenset[str]
    bare: bool = False
    scalar: str | None = None
    list_form: bool = False
    """A list value is accepted (``addMedia: [a.png]``)."""


def _c(
    keys: set[str] | frozenset[str],
    bare: bool = False,
    scalar: str | None = None,
    list_form: bool = False,
) -> Command:
    return Command(frozenset(keys) | COMMON, bare, scalar, list_form)


COMMANDS: dict[str, Command] = {
    "tapOn": _c(TAP_KEYS, scalar="selector"),
    "doubleTapOn": _c(TAP_KEYS, scalar="selector"),
    "longPressOn": _c(TAP_KEYS, scalar="selector"),
    "assertVisible": _c(SELECTOR_KEYS, scalar="selector"),
    "assertNotVisible": _c(SELECTOR_KEYS, scalar="selector"),
    "copyTextFrom": _c(SELECTOR_KEYS, scalar="selector"),
    "assertTrue": _c({"condition"}, scalar="text"),
    "assertWithAI": _c({"assertion"}, scalar="text"),
    "assertNoDefectsWithAI": _c(set(), bare=True),
    "extractTextWithAI": _c({"query", "outputVariable"}, scalar="text"),
    "back": _c(set(), bare=True),
    "clearKeychain": _c(set(), bare=True),
    "hideKeyboard": _c(set(), bare=True),
    "pasteText": _c(set(), bare=True),
    "scroll": _c(set(), bare=True),
    "inputText": _c({"text", "redact"}, scalar="text"),
    "inputRandomText": _c({"length"}, bare=True, scalar="int"),
    "inputRandomNumber": _c({"length"}, bare=True, scalar="int"),
    "inputRandomEmail": _c(set(), bare=True),
    "inputRandomPersonName": _c(set(), bare=True),
    "inputRandomCityName": _c(set(), bare=True),
    "inputRandomCountryName": _c(set(), bare=True),
    "inputRandomColorName": _c(set(), bare=True),
    "launchApp": _c(
        {"appId", "clearState", "clearKeychain", "stopApp", "permissions", "arguments"},
        bare=True,
        scalar="app",
    ),
    "swipe": _c({"direction", "start", "end", "from", "duration", "waitToSettleTimeoutMs"}),
    "openLink": _c({"link", "browser", "autoVerify"}, scalar="url"),
    "openBrowser": _c(set(), scalar="url"),
    "pressKey": _c({"key"}, scalar="key"),
    "eraseText": _c({"charactersToErase"}, bare=True, scalar="int"),
    "action": _c(set(), scalar="text"),
    "takeScreenshot": _c({"path", "cropOn"}, scalar="path"),
    "assertScreenshot": _c({"path", "cropOn", "thresholdPercentage"}, scalar="path"),
    "extendedWaitUntil": _c({"visible", "notVisible", "timeout"}),
    "stopApp": _c({"appId"}, bare=True, scalar="app"),
    "killApp": _c({"appId"}, bare=True, scalar="app"),
    "clearState": _c({"appId"}, bare=True, scalar="app"),
    "runFlow": _c({"file", "commands", "when", "env"}, scalar="file"),
    "setDarkMode": _c({"value"}, scalar="value"),
    "toggleDarkMode": _c(set(), bare=True),
    "assertDarkMode": _c(set(), bare=True),
    "assertLightMode": _c(set(), bare=True),
    "setLocation": _c({"latitude", "longitude"}),
    "repeat": _c({"times", "while", "commands"}),
    "runScript": _c({"file", "env", "when"}, scalar="file"),
    "waitForAnimationToEnd": _c({"timeout"}, bare=True),
    "evalScript": _c({"script"}, scalar="script"),
    "scrollUntilVisible": _c(
        {
            "element",
            "direction",
            "timeout",
            "speed",
            "visibilityPercentage",
            "centerElement",
            "waitToSettleTimeoutMs",
        }
    ),
    "travel": _c({"points", "speed"}),
    "startRecording": _c({"path"}, scalar="path"),
    "stopRecording": _c(set(), bare=True),
    "addMedia": _c({"files"}, list_form=True),
    "setAirplaneMode": _c({"value"}, scalar="value"),
    "toggleAirplaneMode": _c(set(), bare=True),
    "retry": _c({"maxRetries", "file", "commands", "env"}),
    "setOrientation": _c({"orientation"}, scalar="value"),
    "setClipboard": _c({"text"}, scalar="text"),
    "setPermissions": _c({"appId", "permissions"}),
}
"""Maestro command -> its shape."""

LENIENT = frozenset({"inputText"})
"""Commands whose mapping Maestro reads leniently: keys it does not know are ignored (its
reader takes ``text`` and ``label`` from the mapping and nothing else), so they load here
too and the step's report names each ignored key."""

NO_TIMEOUT = frozenset({"assertVisible", "assertNotVisible", "tapOn", "doubleTapOn", "longPressOn"})
"""Commands people give a ``timeout`` that Maestro does not read (a mistake in Maestro too:
``extendedWaitUntil`` is the waiting assertion)."""

HEADER_KEYS = frozenset(
    {"appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete", "jsEngine"}
)
"""A Maestro header's documented keys (Maestro keeps any other key as an extension; so do
we)."""

WORKSPACE_KEYS = frozenset(
    {
        "flows",
        "includeTags",
        "excludeTags",
        "executionOrder",
        "disableRetries",
        "testOutputDir",
        "platform",
        "baselineBranch",
        "notifications",
        "local",
    }
)
"""A workspace ``config.yaml``'s keys (the ones that change what runs are honoured)."""

KEYS: dict[str, str] = {
    "enter": "enter",
    "backspace": "del",
    "back": "back",
    "home": "home",
    "volume up": "volume_up",
    "volume down": "volume_down",
    "remote dpad up": "dpad_up",
    "remote dpad down": "dpad_down",
    "remote dpad left": "dpad_left",
    "remote dpad right": "dpad_right",
    "remote dpad center": "dpad_center",
    "remote media play pause": "media_play_pause",
    "escape": "escape",
    "tab": "tab",
    "remote menu": "menu",
}
"""Maestro key names (case-insensitive) -> mobridge's key (``pressKey`` of mobridge YAML)."""

UNSUPPORTED_KEYS = frozenset(
    {
        "lock",
        "power",
        "remote media stop",
        "remote media next",
        "remote media previous",
        "remote media rewind",
        "remote media fast forward",
        "remote system navigation up",
        "remote system navigation down",
        "remote button a",
        "remote button b",
        "tv input",
        "tv input hdmi 1",
        "tv input hdmi 2",
        "tv input hdmi 3",
    }
)
"""Maestro key names no mobridge device presses: they load and are refused at the step."""

DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
ORIENTATIONS = {
    "PORTRAIT": "portrait",
    "LANDSCAPE_LEFT": "landscape",
    "LANDSCAPE_RIGHT": "landscape",
    "UPSIDE_DOWN": None,
}
"""Maestro orientations -> mobridge's (None: no device here turns upside down)."""
PLATFORMS = ("android", "ios", "web")
PERMISSION_VALUES = ("allow", "deny", "unset")
PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "location": "location",
    "photos": "photos",
    "medialibrary": "photos",
    "contacts": "contacts",
    "calendar": "calendar",
    "notifications": "notifications",
}
"""Maestro permission names (lower case) -> mobridge's ``setPermission`` names."""
TRAITS = ("text", "square", "long-text")
"""Maestro's element traits (``traits: text square``; all must hold)."""
AI_COMMANDS = frozenset({"assertWithAI", "assertNoDefectsWithAI", "extractTextWithAI"})
