"""Recorded steps written as a Maestro flow (``mobridge record --format maestro``,
``mobridge history --flow FILE --format maestro``), so a session recorded through the hub
runs on Maestro — and back here, where ``mobridge test`` reads Maestro's format.

The recorder's steps (mobridge's short form: ``tap: TARGET``, ``inputText: {into, text}``, ...)
are translated one by one:

- a target becomes a Maestro selector: its text (or label: Maestro's ``text`` also matches an
  element's accessibility label) escaped as a regular expression, since Maestro matches texts
  as full-match patterns; ``id`` likewise; ``within`` becomes ``childOf``; ``nth`` ``index``;
  state keys stay; a role has no Maestro equivalent and is left out;
- typing into a field is ``tapOn`` the field, then ``inputText`` (a secret becomes
  ``${NAME}``, listed in the header's comment: Maestro has no secrets, give it with ``-e``);
- the flow starts with ``launchApp`` (what mobridge's default reset does before a test);
- ``assertScreen NAME`` becomes ``assertVisible: {id: ".*__screen_NAME"}`` (the marker's id,
  qualified on Android);
- what Maestro cannot say (an alert answer, a permission, notifications) stays a comment.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_META = re.compile(r"([\\^$.|?*+()\[\]{}])")
_KEYS = {
    "back": "back",
    "home": "Home",
    "enter": "Enter",
    "del": "Backspace",
    "tab": "Tab",
    "escape": "Escape",
    "volume_up": "Volume Up",
    "volume_down": "Volume Down",
    "dpad_up": "Remote Dpad Up",
    "dpad_down": "Remote Dpad Down",
    "dpad_left": "Remote Dpad Left",
    "dpad_right": "Remote Dpad Right",
    "dpad_center": "Remote Dpad Center",
    "media_play_pause": "Remote Media Play Pause",
    "menu": "Remote Menu",
}
"""mobridge key -> Maestro's key name (``back`` is its own command)."""


def escape(text: str) -> str:
    """``text`` as a Maestro pattern that matches exactly it (``${`` kept literal too)."""
    return _META.sub(r"\\\1", text).replace("$${", "\\${")


def selector(target: Any) -> Any:
    """A recorded target as a Maestro selector (a bare text when that says it all)."""
    if isinstance(target, str):
        return escape(target)
    out: dict[str, Any] = {}
    words = target.get("text") or target.get("label")
    if words is not None:
        out["text"] = escape(str(words))
    if target.get("id") is not None:
        out["id"] = escape(str(target["id"]))
    within = target.get("within")
    if isinstance(within, str):
        out["childOf"] = escape(within)
    elif isinstance(within, dict) and (within.get("text") or within.get("id")):
        out["childOf"] = selector(within)
    if target.get("nth") is not None:
        out["index"] = target["nth"]
    states = target.get("state") or {}
    out.update(
        {k: v for k, v in states.items() if k in ("enabled", "checked", "selected", "focused")}
    )
    if not out:
        return None
    return out["text"] if list(out) == ["text"] else out


def _secret_name(ref: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", ref.removeprefix("secret://")).upper() or "SECRET"


def commands(step: Any) -> list[Any]:
    """The Maestro commands of one recorded step (a comment is ``("comment", text)``)."""
    if isinstance(step, tuple):
        return [step]
    ((name, value),) = step.items()
    match name:
        case "launchApp" | "stopApp" | "hideKeyboard":
            return [{name: None}]
        case "tap" | "longPress" | "eraseText":
            target = selector(value)
            if target is None:
                return [("comment", f"{name}: an element without words or id")]
            if name == "eraseText":
                return [{"tapOn": target}, {"eraseText": None}]
            return [{"tapOn" if name == "tap" else "longPressOn": target}]
        case "inputText":
            out: list[Any] = []
            if value.get("into") is not None:
                target = selector(value["into"])
                if target is not None:
                    out.append({"tapOn": target})
            if value.get("secret") is not None:
                out.append({"inputText": "${" + _secret_name(value["secret"]) + "}"})
            else:
                out.append({"inputText": str(value.get("text", ""))})
            return out
        case "scroll":
            backward = isinstance(value, dict) and value.get("direction") == "backward"
            return [{"swipe": {"direction": "DOWN"}}] if backward else [{"scroll": None}]
        case "pressKey":
            key = _KEYS.get(str(value))
            if key == "back":
                return [{"back": None}]
            if key is None:
                return [("comment", f"pressKey {value}: Maestro has no such key")]
            return [{"pressKey": key}]
        case "assertScreen":
            return [{"assertVisible": {"id": f".*__screen_{escape(str(value))}"}}]
        case "setLocation":
            return [
                {"setLocation": {"latitude": value["latitude"], "longitude": value["longitude"]}}
            ]
    return [("comment", f"{name}: no Maestro command says this ({_short(step)})")]


def _short(step: Any) -> str:
    text = yaml.safe_dump(step, default_flow_style=True, width=1000).strip()
    return text if len(text) <= 120 else text[:119] + "…"


def render(app_id: str, name: str | None, device: str, body: list[Any], secrets: list[str]) -> str:
    """The Maestro flow file's text for recorded ``body`` (mobridge steps and comments)."""
    from bridge.flows.yaml_out import dump_mapping, dump_steps

    lines = [f"# Recorded by `mobridge record {device} --format maestro`."]
    lines.extend(
        f"# Needs ${{{_secret_name(ref)}}}: maestro test -e {_secret_name(ref)}=... "
        "(mobridge test --env ...)"
        for ref in secrets
    )
    header: dict[str, Any] = {"appId": app_id}
    if name:
        header["name"] = name
    out: list[Any] = [{"launchApp": None}]  # a Maestro flow opens its app (mobridge: the reset)
    for step in body:
        out.extend(commands(step))
    text = "\n".join(lines) + "\n" + dump_mapping(header) + "---\n" + dump_steps(out)
    if not any(not isinstance(s, tuple) for s in out):
        text += "[]\n"
    return text
