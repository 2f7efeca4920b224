"""Recording a flow from what is done to a device through the hub.

The hub announces every ``act`` / ``global`` / ``app`` as an ``action`` event to the sessions
watching the device, whoever asked (CLI, dashboard, MCP, scripts). ``Recorder`` turns the
successful ones into flow steps, using the **semantic target each action was resolved from**
(the event's ``query``; for an action on a NodeRef, the acted node's role and label) — never
coordinates, so the flow replays on any screen size.

What an event does not carry is not invented:
- a typed secret keeps the reference that was typed (the event's ``valueRef``:
  ``secret://pw`` stays ``secret://pw``); a typed text is taken from the action's observed
  diff (the field's new value); a field whose value is not observable (a password typed as
  plain text) is recorded as ``secret: secret://<field>``, to be provided to the hub at
  replay (the header lists every secret the flow needs);
- a deep link's URL is not in the event: it is left as a comment to complete;
- refusals are written as comments (what was refused and why), not as steps.

The flow starts and ends with ``assertScreen`` on the screen markers shown when recording
started and stopped, so a replay checks it reaches the same end screen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from bridge.client import ClientError, HubConnection
from bridge.flows.yaml_out import dump_mapping, dump_steps
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.conditions import Stable
from bridge.wire.enums import MatchMode
from bridge.wire.query import SemanticQuery, TextMatch
from bridge.wire.snapshot import ScreenSnapshot

MARKER = re.compile(r"(?:^|[:/])__screen_(?P<name>.+)$")
_KEYS = {
    "BACK": "back",
    "HOME": "home",
    "RECENTS": "recents",
    "NOTIFICATION_SHADE": "notifications",
}
_VERBS = {
    "CLICK": "tap",
    "LONG_CLICK": "longPress",
    "SET_TEXT": "inputText",
    "CLEAR_TEXT": "eraseText",
    "SCROLL_FORWARD": "scroll",
    "SCROLL_BACKWARD": "scroll",
}


def screen_markers(snapshot: ScreenSnapshot) -> list[str]:
    """The screen names whose ``__screen_<name>`` marker the snapshot shows."""
    names: list[str] = []
    for node in snapshot.nodes:
        for ident in (node.resource_id, node.automation_id):
            found = MARKER.search(ident or "")
            if found and found.group("name") not in names:
                names.append(found.group("name"))
    return names


def _literal(text: str) -> str:
    """A recorded text as a flow string (``${`` written ``$${`` so it is not a variable)."""
    return text.replace("${", "$${")


def _text(match: TextMatch) -> str:
    return _literal(match.value)


def flow_target(query: SemanticQuery) -> Any:
    """A wire SemanticQuery in the flow's short form (a bare string when it is only a text)."""
    out: dict[str, Any] = {}
    modes = {m.match for m in (query.text, query.label) if m is not None}
    if query.within is not None and query.within.text is not None:
        modes.add(query.within.text.match)
    if query.text is not None:
        out["text"] = _text(query.text)
    if query.label is not None:
        out["label"] = _text(query.label)
    if query.resource_id is not None:
        out["id"] = _literal(query.resource_id)
    if query.role is not None:
        out["role"] = query.role.value
    w = query.within
    if w is not None:
        if w.text is not None and w.role is None and w.resource_id is None:
            out["within"] = _text(w.text)
        else:
            inner: dict[str, Any] = {}
            if w.text is not None:
                inner["text"] = _text(w.text)
            if w.role is not None:
                inner["role"] = w.role.value
            if w.resource_id is not None:
                inner["id"] = _literal(w.resource_id)
            out["within"] = inner
    if query.nth is not None:
        out["nth"] = query.nth
    if query.state is not None:
        state = {
            k: getattr(query.state, k)
            for k in ("enabled", "checked", "selected", "focused", "clickable")
            if getattr(query.state, k) is not None
        }
        if state:
            out["state"] = state
    if query.first_visible is not None:
        out["firstVisible"] = query.first_visible
    mode = next(iter(modes)) if len(modes) == 1 else MatchMode.NORMALIZED_EXACT
    if mode is not MatchMode.NORMALIZED_EXACT:
        out["match"] = mode.value
    if list(out) == ["text"]:
        return out["text"]
    return out


def _slug(target: Any) -> str:
    if isinstance(target, str):
        word = target
    else:
        word = str(target.get("id") or target.get("text") or target.get("label") or "value")
    word = word.rsplit("/", 1)[-1]
    return re.sub(r"[^a-z0-9]+", "_", word.lower()).strip("_")[:40] or "value"


@dataclass
class Recorder:
    """Collects steps for one device (feed it every event; it keeps what concerns it)."""

    device: str
    app_id: str | None
    start_markers: list[str] = field(default_factory=list)
    steps: list[Any] = field(default_factory=list)
    """Step mappings, or ``("comment", text)`` tuples."""
    secrets: list[str] = field(default_factory=list)
    end_markers: list[str] | None = None

    def add(self, event: ActionEvent) -> str | None:
        """Record ``event``; returns a line saying what was recorded (None: not this device)."""
        if event.device != self.device:
            return None
        if event.action.startswith("AUTO_") and event.error is None:  # a lease's alert option
            note = f"{event.message or 'an alert was answered'} (write alert: ... to replay it)"
            self.steps.append(("comment", note))
            return f"# {note}"
        if event.error is not None or event.result is None:
            what = _describe_event(event)
            note = f"refused, not recorded: {what}: {event.error.value if event.error else '?'}"
            if event.message:
                note += f" ({event.message[:160]})"
            self.steps.append(("comment", note))
            return f"# {note}"
        step = self._step(event)
        if isinstance(step, tuple):
            self.steps.append(step)
            return f"# {step[1]}"
        self.steps.append(step)
        return dump_steps([step]).strip()

    def _step(self, event: ActionEvent) -> dict[str, Any] | tuple[str, str]:
        captured = _capability_step(event)
        if captured is not None:
            return captured
        if event.verb == "global":
            key = _KEYS.get(event.action)
            if key is None:
                return ("comment", f"not recordable: {event.action}")
            return {"pressKey": key}
        if event.verb == "app":
            if event.action == "APP_OPEN":
                return {"launchApp": None}
            if event.action == "APP_CLOSE_UI":
                return {"stopApp": None}
            if event.action == "APP_BRING_TO_FRONT":
                return ("comment", "the app was brought to the front (no step: replays start it)")
            return ("comment", "openLink: <URL> (the hub's action event does not carry the URL)")
        name = _VERBS.get(event.action)
        target = self._target(event)
        if name is None or target is None:
            return ("comment", f"not recordable: {_describe_event(event)}")
        if name == "inputText":
            typed = None if event.value_ref is not None else _typed_value(event)
            if typed is None:
                ref = event.value_ref or f"secret://{_slug(target)}"
                if ref not in self.secrets:
                    self.secrets.append(ref)
                return {"inputText": {"into": target, "secret": ref}}
            return {"inputText": {"into": target, "text": _literal(typed)}}
        if name == "scroll":
            direction = "forward" if event.action == "SCROLL_FORWARD" else "backward"
            spec: dict[str, Any] = {"in": target}
            if direction != "forward":
                spec["direction"] = direction
            return {"scroll": spec}
        return {name: target}

    def _target(self, event: ActionEvent) -> Any:
        if event.query is not None:
            return flow_target(event.query)
        t = event.target
        if t is None or (t.label is None and t.role is None):
            return None
        out: dict[str, Any] = {}
        if t.label is not None:
            out["text"] = _literal(t.label)
        if t.role is not None:
            out["role"] = t.role.value
        return out

    def render(self, name: str | None = None, fmt: str = "mobridge") -> str:
        """The flow file's text, in mobridge's format or (``fmt`` ``maestro``) Maestro's."""
        if fmt == "maestro":
            from bridge.flows.maestro.export import render

            steps: list[Any] = (
                [{"assertScreen": self.start_markers[-1]}] if self.start_markers else []
            )
            steps.extend(self.steps)
            if self.end_markers:
                steps.append({"assertScreen": self.end_markers[-1]})
            return render(self.app_id or "UNKNOWN.APP", name, self.device, steps, self.secrets)
        lines = [f"# Recorded by `mobridge record {self.device}`."]
        for ref in self.secrets:
            env = "MOBRIDGE_SECRET_" + re.sub(r"[^A-Za-z0-9]", "_", ref[9:]).upper()
            lines.append(f"# Needs {ref} on the hub at replay (e.g. {env}=...).")
        header: dict[str, Any] = {"appId": self.app_id or "UNKNOWN.APP"}
        if name:
            header["name"] = name
        body: list[Any] = []
        if self.start_markers:
            body.append({"assertScreen": self.start_markers[-1]})
        body.extend(self.steps)
        if self.end_markers:
            body.append({"assertScreen": self.end_markers[-1]})
        text = "\n".join(lines) + "\n" + dump_mapping(header) + "---\n" + dump_steps(body)
        if not any(not isinstance(s, tuple) for s in body):
            text += "[]\n"
        return text


_PERMISSION = re.compile(r"^permission (grant|revoke|reset) ([a-z]+) (\S+)$")
_LOCATION = re.compile(r"^location set to (-?[0-9.]+),(-?[0-9.]+)$")
_PRESSED = re.compile(r"^alert press '(.*)'$")


def _capability_step(event: ActionEvent) -> dict[str, Any] | tuple[str, str] | None:
    """The step of a device-capability event (issue 21), from its verb and message (which
    never carry clipboard text: a clipboard step is a comment); None: not one of them."""
    said = event.message or ""
    match event.verb, event.action:
        case "alert", "ACCEPT" | "DISMISS":
            return {"alert": event.action.lower()}
        case "alert", "PRESS":
            pressed = _PRESSED.match(said)
            return {"alert": {"button": pressed.group(1)}} if pressed else ("comment", said)
        case "permission", _:
            got = _PERMISSION.match(said)
            if got is None:
                return ("comment", f"not recordable: {said}")
            spec: dict[str, Any] = {"permission": got.group(2), "action": got.group(1)}
            spec["appId"] = got.group(3)
            if got.group(1) == "grant":
                spec["approve"] = True
            return {"setPermission": spec}
        case "location", "LOCATION_CLEAR":
            return {"clearLocation": None}
        case "location", _:
            where = _LOCATION.match(said)
            if where is None:
                return ("comment", f"not recordable: {said}")
            return {"setLocation": {"latitude": float(where.group(1)),
                                    "longitude": float(where.group(2))}}  # fmt: skip
        case "keyboard", _:
            return {"hideKeyboard": None}
        case "clipboard", _:
            return ("comment", f"{said}: setClipboard: <TEXT> (the text is never recorded)")
        case "gesture", "pinch" | "two_finger_tap":
            return ("comment", f"{said} (write pinch / twoFingerTap with its element)")
    return None


def _typed_value(event: ActionEvent) -> str | None:
    """The field's new value, from the action's observed diff (None when not observable)."""
    result = event.result
    diff = result.observation.diff if result is not None else None
    if diff is None:
        return None
    values = [
        change.fields["value"].after
        for change in diff.changed
        if "value" in change.fields and isinstance(change.fields["value"].after, str)
    ]
    if len(values) != 1 or "••" in values[0]:
        return None
    value: str = values[0]
    return value


def _describe_event(event: ActionEvent) -> str:
    if event.query is not None:
        target = flow_target(event.query)
    elif event.target is not None:
        target = event.target.label or (event.target.role.value if event.target.role else "")
    else:
        target = ""
    return f"{event.action} {target}".strip()


async def record_device(
    conn: HubConnection,
    device_id: str,
    output: Path,
    *,
    name: str | None = None,
    count: int | None = None,
    duration_s: float | None = None,
    on_step: Callable[[str], None] | None = None,
    ready: Callable[[], None] | None = None,
    stop: anyio.Event | None = None,
    fmt: str = "mobridge",
) -> Recorder:
    """Record ``device_id`` into ``output`` until ``stop`` is set (Ctrl-C), ``count`` steps
    were recorded, or ``duration_s`` passed; returns the recorder in every one of these
    cases (a cancellation of the caller still raises). The file is rewritten after every
    step (an abrupt stop keeps what was recorded) and once more at the end with the final
    ``assertScreen``.
    ``ready`` is called once the recorder is watching (actions from then on are recorded).
    ``fmt``: ``mobridge`` (its YAML) or ``maestro`` (Maestro's format)."""
    device = conn.device(device_id)

    def save(recorder: Recorder) -> None:
        tmp = output.with_name(output.name + ".part")
        tmp.write_text(recorder.render(name, fmt), encoding="utf-8")
        tmp.replace(output)

    async with conn.events(1024) as events, device.watch(settled=True) as watch:
        start = (await device.snapshot(compact=False)).snapshot
        recorder = Recorder(device_id, start.app_id, screen_markers(start))
        save(recorder)
        recorded = 0

        async def drain() -> None:
            async for _ in watch:  # keeps this session watching (action events come with it)
                pass

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(drain)
                if ready is not None:
                    ready()
                with anyio.move_on_after(
                    math.inf if duration_s is None else duration_s
                ) as recording:
                    if stop is not None:

                        async def stopper() -> None:
                            await stop.wait()
                            recording.cancel()

                        tg.start_soon(stopper)
                    async for event in events:
                        if not isinstance(event, ActionEvent):
                            continue
                        line = recorder.add(event)
                        if line is None:
                            continue
                        save(recorder)
                        if on_step is not None:
                            on_step(line)
                        if not line.startswith("#"):
                            recorded += 1
                            if count is not None and recorded >= count:
                                break
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                try:
                    await device.wait(Stable(for_ms=300), 3000)
                    end = (await device.snapshot(compact=False)).snapshot
                    recorder.end_markers = screen_markers(end)
                except ClientError:
                    pass
                save(recorder)
    return recorder
