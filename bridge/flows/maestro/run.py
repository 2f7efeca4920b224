"""Running the actions Maestro commands compile to (``bridge.flows.maestro.actions``) through
the hub, inside mobridge's runner (``FlowRunner`` hands each ``MaestroAction`` here).

Rules kept from mobridge: every action goes through the hub, which resolves the target and
verifies what happened (the runner holds the device's lease for the test, the journal and
observers see every action); a selector matching several elements is AMBIGUOUS_MATCH unless
it says ``index:`` — with ``first_match`` (``--first-match``) the first in document order is
taken and the choice is noted on the step. What Maestro does implicitly is done explicitly:
an element is waited for (up to 7 s) before it is acted on; a command no device here can do is
refused at its step with one line saying why (ACTION_UNSUPPORTED).

Selectors with relations (``below``, ``above``, ``leftOf``, ``rightOf``, ``containsChild``,
``containsDescendants``), a size or an id pattern are narrowed here from the hub's matches
(nearest to the anchor first); the chosen element's NodeRef is then acted on, and the hub
resolves it again (never a stale guess).
"""

from __future__ import annotations

import dataclasses
import math
import secrets
import string
import time
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
import re2

from bridge.client import HubError
from bridge.flows.maestro import actions as a
from bridge.flows.maestro.compile import Mistake, build
from bridge.flows.maestro.script import ScriptError, ScriptHost, split_template
from bridge.flows.report import Refusal, StepReport
from bridge.wire import conditions as wc
from bridge.wire.action import ActionRequest
from bridge.wire.client_protocol import FindMatch
from bridge.wire.enums import ActionVerb, ErrorCode, GestureKind, KeyName, VerificationResult
from bridge.wire.query import QueryState, SemanticQuery

if TYPE_CHECKING:
    from bridge.flows.compile import Flow, Step
    from bridge.flows.runner import FlowRunner

POLL_S = 0.25
MAX_ERASE_KEYS = 200
_VERBS = {"tap": ActionVerb.CLICK, "longPress": ActionVerb.LONG_CLICK}
_FIRST_NAMES = ("Ada", "Alan", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken")
_LAST_NAMES = ("Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov")
_CITIES = ("Lisbon", "Nairobi", "Osaka", "Quito", "Tromso", "Adelaide", "Montreal", "Porto")
_COUNTRIES = ("Portugal", "Kenya", "Japan", "Ecuador", "Norway", "Australia", "Canada")
_COLORS = ("Red", "Teal", "Amber", "Indigo", "Olive", "Maroon", "Coral", "Navy")


def start_host(runner: FlowRunner, flow: Flow) -> ScriptHost:
    """The test's JavaScript host: ``--env`` values, then the header's env (``${...}``
    evaluated in order; an ``--env`` of the same name wins), ``MAESTRO_FILENAME``."""
    host = ScriptHost(
        platform=runner.platform or "", variables=runner.variables, allow_http=runner.allow_http
    )
    host.define({"MAESTRO_FILENAME": flow.path.stem})
    for name, raw in flow.env.items():
        if name in runner.variables:
            continue
        try:
            value = host.interpolate(raw, flow.file, 1)
        except ScriptError:
            value = raw
        host.define({name: value})
    return host


def _failed(message: str, code: ErrorCode | None = None, refusal: Refusal | None = None) -> Any:
    from bridge.flows.runner import StepFailed

    if code is not None and refusal is None:
        refusal = Refusal(code=code.value, message=message)
    return StepFailed(message, refusal=refusal)


def evaluate(host: ScriptHost, data: Any, file: str, line: int) -> Any:
    """``data`` with every ``${...}`` in its strings evaluated (``commands`` left alone)."""
    if isinstance(data, str):
        return host.interpolate(data, file, line)
    if isinstance(data, dict):
        return {
            k: (v if k in ("commands", "label") else evaluate(host, v, file, line))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [evaluate(host, v, file, line) for v in data]
    return data


async def execute(runner: FlowRunner, step: Step, action: Any, report: StepReport) -> None:
    """Run one Maestro action for ``step`` (failures raise the runner's StepFailed)."""
    host = runner.script_host()
    try:
        await _execute(runner, host, step, action, report)
    except ScriptError as exc:
        raise _failed(f"JavaScript at {exc.where}: {exc.message}") from None


async def _execute(
    runner: FlowRunner, host: ScriptHost, step: Step, action: Any, report: StepReport
) -> None:
    dev = runner.device
    match action:
        case a.Templated():
            data = evaluate(host, action.data, action.file, action.line)
            app_id = host.interpolate(action.app_id, action.file, action.line)
            try:
                built = build(action.name, data, action.base, app_id, action.file, action.line)
            except Mistake as exc:
                raise _failed(f"{action.name} after ${{...}}: {exc.message}") from None
            report.expected = f"{action.name} with {_short(action.data)}"  # as written: a
            # ``${...}`` may hold a secret given with -e, never shown evaluated
            await _again(runner, host, step, built, report)
        case a.Scope():
            host.define(
                {
                    k: host.interpolate(v, step.place.file, step.place.line)
                    for k, v in action.env.items()
                }
            )
            await _again(runner, host, step, action.inner, report)
        case a.Refuse(reason=reason, platforms=platforms):
            if platforms is None or (runner.platform or "") in platforms:
                raise _failed(reason, ErrorCode.ACTION_UNSUPPORTED)
            if action.otherwise is not None:
                await _again(runner, host, step, action.otherwise, report)
        case a.Script(code=code, file=file, line=line, env=env):
            if "__template__" in env:  # evalScript: its ${...} are the script
                host.interpolate(code, step.place.file, step.place.line)
            else:
                values = {
                    k: host.interpolate(v, step.place.file, step.place.line) for k, v in env.items()
                }
                host.run(code, file, line, values)
            report.message = _short(host.output()) if host.output() else None
        case a.AssertTrue(condition=condition):
            said = host.interpolate(condition, step.place.file, step.place.line)
            report.expected = f"{condition} is true"
            if not host.truth(said):
                raise _failed(f"assertTrue: {condition} is {said!r}")
        case a.OnElement():
            await _on_element(runner, host, action, report)
        case a.AtPoint():
            x, y = await _xy(runner, action.x, action.y, action.percent)
            kind = {
                "tap": GestureKind.TAP,
                "doubleTap": GestureKind.DOUBLE_TAP,
                "longPress": GestureKind.LONG_PRESS,
            }[action.what]
            report.expected = f"{kind.value} at {x},{y}"
            for i in range(1 if action.what == "doubleTap" else action.repeat):
                if i:
                    await anyio.sleep(action.delay_ms / 1000)
                report.action_result = await runner._call(dev.gesture(kind, [(x, y)]))
        case a.Visible():
            await _visible(runner, action, report)
        case a.Typing():
            text = _typed(host, action)
            report.expected = "typed into the focused input"
            for key in action.ignored:
                report.notes.append(f"inputText: {key!r} ignored, as Maestro ignores it")
            if action.redact:
                report.notes.append("inputText: redact: typed text is never in a report")
            report.action_result = await runner._call(dev.type_focused(text))
        case a.Erase(count=count):
            await _erase(runner, count, report)
        case a.SwipeSpec():
            await _swipe(runner, action, report)
        case a.LaunchApp():
            await _launch(runner, action, report)
            if action.arguments:
                await _open_with_arguments(runner, action, report)
            else:
                await _again(runner, host, step, action.launch, report)
        case a.Screenshot():
            await _cropped_shot(runner, action, report)
        case a.ScreenScroll():
            report.action_result = await _swipe_dir(runner, "UP", None, 400)
        case a.ScrollTo():
            report.message = await _scroll_to(runner, action, report)
        case a.Settle(timeout_ms=timeout):
            waited = await runner._call(dev.wait(wc.Stable(for_ms=400), timeout))
            report.wait_result = waited
            report.message = (
                "the screen settled"
                if waited.result is VerificationResult.CONDITION_MET
                else f"still moving after {waited.elapsed_ms} ms (Maestro goes on too)"
            )
        case a.Travel(points=points, speed=speed):
            await _travel(runner, points, speed, report)
        case a.Network(airplane=airplane):
            await _network(runner, airplane, report)
        case _:  # pragma: no cover - every action above
            raise _failed(f"{type(action).__name__} is not runnable")


async def _again(
    runner: FlowRunner, host: ScriptHost, step: Step, action: Any, report: StepReport
) -> None:
    if isinstance(action, a.MaestroAction):
        await _execute(runner, host, step, action, report)
    else:
        await runner._execute(dataclasses.replace(step, action=action), report)


def _short(data: Any) -> str:
    text = msgspec.json.encode(data).decode()
    return text if len(text) <= 200 else text[:199] + "…"


# ---- elements ---------------------------------------------------------------------------------


def _center(node: Any) -> tuple[int, int] | None:
    b = node.bounds
    if b is None:
        return None
    return (b[0] + b[2]) // 2, (b[1] + b[3]) // 2


def _inside(node: Any, relative: tuple[float, float, bool]) -> tuple[int, int] | None:
    """The point ``relative`` names inside ``node``'s bounds (percent of its size, or pixels
    from its top-left corner), kept inside the bounds."""
    b = node.bounds
    if b is None:
        return None
    x, y, percent = relative
    w, h = b[2] - b[0], b[3] - b[1]
    dx, dy = (w * x / 100, h * y / 100) if percent else (x, y)
    return (
        int(min(b[0] + dx, b[2] - 1 if w > 0 else b[0])),
        int(min(b[1] + dy, b[3] - 1 if h > 0 else b[1])),
    )


def _short_id(resource_id: str | None) -> str:
    if resource_id is None:
        return ""
    return resource_id.split(":id/", 1)[-1]


async def _matches(runner: FlowRunner, pick: a.Pick) -> list[FindMatch]:
    """Every element ``pick`` selects now, in the order an ``index`` counts (document order;
    nearest to the anchor first when a relation is given)."""
    query = msgspec.structs.replace(pick.query, nth=None)
    found = await runner._call(runner.device.find(query))
    items = list(found.matches)
    if pick.id_regex is not None:
        pattern = re2.compile(f"(?is)\\A(?:{pick.id_regex})\\z")
        items = [
            m
            for m in items
            if any(
                pattern.search(i or "")
                for i in (m.node.resource_id, _short_id(m.node.resource_id), m.node.automation_id)
            )
        ]
    if pick.traits:
        items = [m for m in items if all(_has_trait(m.node, t) for t in pick.traits)]
    if pick.size is not None:
        w, h, tol = pick.size
        kept = []
        for m in items:
            b = m.node.bounds
            if b is None:
                continue
            if w is not None and abs((b[2] - b[0]) - w) > tol:
                continue
            if h is not None and abs((b[3] - b[1]) - h) > tol:
                continue
            kept.append(m)
        items = kept
    for relation, inner in pick.relations:
        anchors = await _matches(runner, inner)
        if inner.index is not None:
            anchors = anchors[inner.index : inner.index + 1]
        if not anchors:
            return []
        anchor = anchors[0].node
        items = _related(items, relation, anchor)
    return items


def _has_trait(node: Any, trait: str) -> bool:
    """Maestro's traits: ``text`` (the element has a text), ``long-text`` (over 200
    characters), ``square`` (width / height within 3 % of 1)."""
    if trait == "text":
        return bool(node.text)
    if trait == "long-text":
        return len(node.text or "") > 200
    b = node.bounds
    if b is None or b[3] <= b[1]:
        return False
    return bool(abs(1.0 - (b[2] - b[0]) / (b[3] - b[1])) < 0.03)


def _related(items: list[FindMatch], relation: str, anchor: Any) -> list[FindMatch]:
    ab = anchor.bounds
    if ab is None:
        return []
    ax, ay = (ab[0] + ab[2]) / 2, (ab[1] + ab[3]) / 2
    scored: list[tuple[float, FindMatch]] = []
    for m in items:
        b = m.node.bounds
        if b is None or m.node.node_id == anchor.node_id:
            continue
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        ok = {
            "below": cy > ab[3] - 1,
            "above": cy < ab[1] + 1,
            "leftOf": cx < ab[0] + 1,
            "rightOf": cx > ab[2] - 1,
            "containsChild": b[0] <= ab[0] and b[1] <= ab[1] and b[2] >= ab[2] and b[3] >= ab[3],
            "childOf": ab[0] <= b[0] and ab[1] <= b[1] and ab[2] >= b[2] and ab[3] >= b[3],
        }[relation]
        if ok:
            scored.append((math.hypot(cx - ax, cy - ay), m))
    scored.sort(key=lambda s: s[0])
    return [m for _, m in scored]


async def _one(runner: FlowRunner, pick: a.Pick, report: StepReport) -> FindMatch:
    """The one element ``pick`` selects (its ``index``, else the only match; with
    ``first_match``, the first of several, noted on the report)."""
    items = await _matches(runner, pick)
    if pick.index is not None:
        if pick.index >= len(items):
            raise _failed(
                f"no element {pick.said} (index {pick.index} of {len(items)} matches)",
                ErrorCode.NODE_NOT_FOUND,
            )
        return items[pick.index]
    if not items:
        raise _failed(f"no element matches {pick.said}", ErrorCode.NODE_NOT_FOUND)
    if len(items) > 1:
        if runner.first_match:
            report.notes.append(_choice(pick, items))
            return items[0]
        raise _ambiguous(pick, items)
    return items[0]


def _describe_node(m: FindMatch) -> str:
    n = m.node
    words = n.text or n.label or n.value or _short_id(n.resource_id) or ""
    return f"{n.role.value} {words!r} ({n.node_id})"


def _choice(pick: a.Pick, items: list[FindMatch]) -> str:
    listed = ", ".join(_describe_node(m) for m in items[1:6])
    return (
        f"--first-match: {len(items)} elements match {pick.said}: took the first, "
        f"{_describe_node(items[0])} (not {listed}); add 'index: 0' to say so"
    )


def _ambiguous(pick: a.Pick, items: list[FindMatch]) -> Any:
    from bridge.flows.runner import _candidate

    listed = ", ".join(_describe_node(m) for m in items[:6])
    message = (
        f"AMBIGUOUS_MATCH: {len(items)} elements match {pick.said}: {listed}; add "
        f"'index: 0' (or 1, ...) to the selector to pick one, or run with "
        f"--first-match"
    )
    refusal = Refusal(
        code=ErrorCode.AMBIGUOUS_MATCH.value,
        message=message,
        recovery=["add index: N to the selector"],
        candidates=[_candidate(m.ref) for m in items[:20]],
    )
    return _failed(message, refusal=refusal)


async def _wait_present(runner: FlowRunner, pick: a.Pick, wait_ms: int) -> None:
    """Wait (up to ``wait_ms``) for the selector to match something, as Maestro looks for an
    element before acting; a miss is left to the action, which the hub then refuses."""
    if pick.simple:
        query = (
            pick.query
            if pick.index is None
            else msgspec.structs.replace(pick.query, nth=pick.index)
        )
        await runner._call(runner.device.wait(wc.Present(query=query), wait_ms))
        return
    deadline = time.monotonic() + wait_ms / 1000
    while time.monotonic() < deadline:
        if await _matches(runner, pick):
            return
        await anyio.sleep(POLL_S)


async def _on_element(
    runner: FlowRunner, host: ScriptHost, action: a.OnElement, report: StepReport
) -> None:
    pick = action.pick
    if pick.unsupported is not None:
        raise _failed(f"selector {pick.said}: {pick.unsupported}", ErrorCode.ACTION_UNSUPPORTED)
    await _wait_present(runner, pick, action.wait_ms)
    if action.what == "copyText":
        match = await _one(runner, pick, report)
        node = match.node
        text = node.text or node.value or node.label or ""
        host.copied_text = text
        report.expected = f"the text of {pick.said}"
        report.message = f"copied {len(text)} characters"
        return
    report.expected = f"{action.what} on {pick.said}"
    for i in range(action.repeat):
        if i:
            await anyio.sleep(action.delay_ms / 1000)
        if action.relative is not None:  # a point inside the element, as a gesture there
            match = await _one(runner, pick, report)
            at = _inside(match.node, action.relative)
            if at is None:
                raise _failed(f"{pick.said} has no bounds to {action.what} inside")
            kind = {
                "tap": GestureKind.TAP,
                "doubleTap": GestureKind.DOUBLE_TAP,
                "longPress": GestureKind.LONG_PRESS,
            }[action.what]
            report.action_result = await runner._call(runner.device.gesture(kind, [at]))
            continue
        if action.what == "doubleTap":
            match = await _one(runner, pick, report)
            center = _center(match.node)
            if center is None:
                raise _failed(f"{pick.said} has no bounds to double-tap")
            report.action_result = await runner._call(
                runner.device.gesture(GestureKind.DOUBLE_TAP, [center])
            )
            continue
        request = ActionRequest(action=_VERBS[action.what], allow_gesture_fallback=True)
        if pick.simple and pick.index is None and not runner.first_match:
            report.action_result = await _act_hinted(runner, request, pick.query)
            continue
        match = await _one(runner, pick, report)
        report.action_result = await runner._act(request, None, match.ref)


async def _act_hinted(runner: FlowRunner, request: ActionRequest, query: SemanticQuery) -> Any:
    """``runner._act`` whose AMBIGUOUS_MATCH refusal also says how a Maestro flow picks one."""
    from bridge.flows.runner import StepFailed

    try:
        return await runner._act(request, query)
    except StepFailed as failed:
        if failed.refusal is None or failed.refusal.code != ErrorCode.AMBIGUOUS_MATCH.value:
            raise
        raise StepFailed(
            f"{failed.message}; add 'index: 0' (or 1, ...) to the selector to pick one, or run "
            "with --first-match",
            refusal=failed.refusal,
            result=failed.result,
        ) from None


async def _visible(runner: FlowRunner, action: a.Visible, report: StepReport) -> None:
    pick = action.pick
    word = "visible" if action.present else "not visible"
    report.expected = f"{pick.said} {word}"
    if pick.unsupported is not None:
        raise _failed(f"selector {pick.said}: {pick.unsupported}", ErrorCode.ACTION_UNSUPPORTED)
    if pick.simple:
        query = (
            pick.query
            if pick.index is None
            else msgspec.structs.replace(pick.query, nth=pick.index)
        )
        cond: wc.Condition = wc.Present(query=query) if action.present else wc.Absent(query=query)
        waited = await runner._call(runner.device.wait(cond, action.timeout_ms))
        report.wait_result = waited
        if waited.result is not VerificationResult.CONDITION_MET:
            raise _failed(
                f"expected {pick.said} {word}: {waited.result.value} after {waited.elapsed_ms} ms"
            )
        return
    deadline = time.monotonic() + action.timeout_ms / 1000
    while True:
        items = await _matches(runner, pick)
        if pick.index is not None:
            items = items[pick.index : pick.index + 1]
        if bool(items) == action.present:
            return
        if time.monotonic() >= deadline:
            raise _failed(f"expected {pick.said} {word} within {action.timeout_ms} ms")
        await anyio.sleep(POLL_S)


# ---- typing, keys, gestures -----------------------------------------------------------------


def _typed(host: ScriptHost, action: a.Typing) -> str:
    match action.kind:
        case "text":
            return action.text or ""
        case "paste":
            copied = host.copied_text
            if not copied:
                raise _failed("pasteText: nothing was copied (copyTextFrom first)")
            return copied
        case "randomNumber":
            first = secrets.choice("123456789")
            return first + "".join(secrets.choice(string.digits) for _ in range(action.length - 1))
        case "randomEmail":
            user = "".join(secrets.choice(string.ascii_lowercase) for _ in range(8))
            return f"{user}@example.com"
        case "randomPersonName":
            return f"{secrets.choice(_FIRST_NAMES)} {secrets.choice(_LAST_NAMES)}"
        case "randomCityName":
            return secrets.choice(_CITIES)
        case "randomCountryName":
            return secrets.choice(_COUNTRIES)
        case "randomColorName":
            return secrets.choice(_COLORS)
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(action.length))


async def _erase(runner: FlowRunner, count: int, report: StepReport) -> None:
    """``count`` characters before the cursor: the focused field's text shortened (one
    SET_TEXT or CLEAR_TEXT), else DEL pressed (at most ``MAX_ERASE_KEYS`` times)."""
    focused = SemanticQuery(state=QueryState(focused=True))
    found = await runner._call(runner.device.find(focused))
    fields = [m for m in found.matches if m.node.role.value == "INPUT"]
    if len(fields) == 1:
        field = fields[0]
        value = field.node.value or ""
        if count >= len(value):
            request = ActionRequest(action=ActionVerb.CLEAR_TEXT)
        else:
            request = ActionRequest(action=ActionVerb.SET_TEXT, value=value[: len(value) - count])
        report.expected = f"{count} characters erased"
        report.action_result = await runner._act(request, None, field.ref)
        return
    for _ in range(min(count, MAX_ERASE_KEYS)):
        report.action_result = await runner._call(runner.device.press_key(KeyName.DEL))


async def _xy(runner: FlowRunner, x: float, y: float, percent: bool) -> tuple[int, int]:
    if not percent:
        return int(x), int(y)
    shown = await runner._call(runner.device.display())
    return (
        min(int(shown.width * x / 100), max(shown.width - 1, 0)),
        min(int(shown.height * y / 100), max(shown.height - 1, 0)),
    )


_DIRS = {
    "UP": ((50, 70), (50, 30)),
    "DOWN": ((50, 30), (50, 70)),
    "LEFT": ((80, 50), (20, 50)),
    "RIGHT": ((20, 50), (80, 50)),
}
"""Maestro's directional swipes as screen percentages (start, end)."""


async def _swipe_dir(
    runner: FlowRunner, direction: str, at: tuple[int, int] | None, duration: int
) -> Any:
    (x1, y1), (x2, y2) = _DIRS[direction]
    start = await _xy(runner, x1, y1, True)
    end = await _xy(runner, x2, y2, True)
    if at is not None:
        dx, dy = end[0] - start[0], end[1] - start[1]
        start, end = at, (max(at[0] + dx, 0), max(at[1] + dy, 0))
    return await runner._call(runner.device.swipe_on_screen([start, end], duration))


async def _swipe(runner: FlowRunner, action: a.SwipeSpec, report: StepReport) -> None:
    if action.start is not None and action.end is not None:
        start = await _xy(runner, *action.start, action.percent)
        end = await _xy(runner, *action.end, action.percent)
        report.expected = f"swipe {start} -> {end}"
        report.action_result = await runner._call(
            runner.device.swipe_on_screen([start, end], action.duration_ms)
        )
        return
    at = None
    if action.pick is not None:
        await _wait_present(runner, action.pick, 7000)
        match = await _one(runner, action.pick, report)
        at = _center(match.node)
    direction = action.direction or "UP"
    report.expected = f"swipe {direction}"
    report.action_result = await _swipe_dir(runner, direction, at, action.duration_ms)


async def _scroll_to(runner: FlowRunner, action: a.ScrollTo, report: StepReport) -> str:
    """Swipe from the screen's centre (``direction``: where the content comes from; each
    swipe ``swipe_ms`` long) until ``visibility`` percent of the element is on screen —
    with ``center``, until its centre is near the screen's (at most 4 more swipes once it
    shows) — within ``timeout_ms``."""
    pick = action.pick
    report.expected = f"{pick.said} on screen"
    swipe = {"DOWN": "UP", "UP": "DOWN", "LEFT": "RIGHT", "RIGHT": "LEFT"}[action.direction]
    shown = await runner._call(runner.device.display())
    width, height = shown.width, shown.height
    deadline = time.monotonic() + action.timeout_ms / 1000
    swipes = centring = 0
    while True:
        seen, bounds = await _most_on_screen(runner, pick, width, height)
        if action.center and seen > 0.1 and bounds is not None and centring <= 4:
            if _near_centre(bounds, swipe, width, height):
                return f"centred after {swipes} swipe{'s' if swipes != 1 else ''}" + (
                    f" of {action.swipe_ms} ms"
                )
            centring += 1  # a slow swipe from the element's centre to the screen's
            start = ((bounds[0] + bounds[2]) // 2, (bounds[1] + bounds[3]) // 2)
            end = (start[0], height // 2) if swipe in ("UP", "DOWN") else (width // 2, start[1])
            slow = max(action.swipe_ms, 1000)
            report.action_result = await runner._call(
                runner.device.swipe_on_screen([start, end], slow)
            )
            swipes += 1
            if (await _most_on_screen(runner, pick, width, height))[0] <= 0.1:
                report.action_result = await runner._call(  # overshot: back where it was
                    runner.device.swipe_on_screen([end, start], slow)
                )
                report.notes.append(
                    f"centerElement: centring moved {pick.said} off the screen (this list "
                    "scrolls further than the swipe); swiped back, it is shown uncentred"
                )
                return f"on screen after {swipes + 1} swipes of {action.swipe_ms} ms"
            continue
        if seen > 0 and seen >= action.visibility / 100:
            return f"on screen after {swipes} swipe{'s' if swipes != 1 else ''}" + (
                f" of {action.swipe_ms} ms"
            )
        if time.monotonic() >= deadline or swipes >= 200:
            raise _failed(
                f"{pick.said} not on screen after {swipes} swipes ({action.timeout_ms} ms)",
                ErrorCode.NODE_NOT_FOUND,
            )
        report.action_result = await _swipe_from_centre(runner, swipe, action.swipe_ms)
        swipes += 1


async def _most_on_screen(
    runner: FlowRunner, pick: a.Pick, width: int, height: int
) -> tuple[float, tuple[int, int, int, int] | None]:
    """The largest share on screen of an element ``pick`` selects now (its ``index`` when
    given), and that element's bounds (0 and None: none is there)."""
    items = await _matches(runner, pick)
    if pick.index is not None:
        items = items[pick.index : pick.index + 1]
    best: tuple[float, tuple[int, int, int, int] | None] = (0.0, None)
    for m in items:
        share = _visible_share(m.node.bounds, width, height)
        if share > best[0]:
            best = (share, m.node.bounds)
    return best


def _visible_share(bounds: Any, width: int, height: int) -> float:
    """The share of an element's area on a ``width`` x ``height`` screen (0 to 1)."""
    if bounds is None:
        return 0.0
    x1, y1, x2, y2 = bounds
    area = (x2 - x1) * (y2 - y1)
    if area <= 0:
        return 0.0
    if x1 <= 0 and y1 <= 0 and x2 >= width and y2 >= height:
        return 1.0
    seen_w = max(0, min(x2, width) - max(x1, 0))
    seen_h = max(0, min(y2, height) - max(y1, 0))
    return float(seen_w * seen_h) / float(area)


def _near_centre(bounds: Any, direction: str, width: int, height: int) -> bool:
    """Maestro's "near the centre" for a swipe ``direction`` (UP: the content moves up):
    the element's centre within a fifth of the screen past the middle, on the side the
    content comes from."""
    x1, y1, x2, y2 = (float(v) for v in bounds)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    if direction in ("UP", "DOWN"):
        margin = height / 5
        return cy < height / 2 + margin if direction == "UP" else cy > height / 2 - margin
    margin = width / 5
    return cx < width / 2 + margin if direction == "LEFT" else cx > width / 2 - margin


async def _swipe_from_centre(runner: FlowRunner, swipe: str, duration_ms: int) -> Any:
    """A swipe ``swipe`` (UP: the content moves up) starting at the screen's centre."""
    (x1, y1), (x2, y2) = _DIRS[swipe]
    start = await _xy(runner, 50, 50, True)
    end = await _xy(runner, min(max(50 + x2 - x1, 0), 100), min(max(50 + y2 - y1, 0), 100), True)
    return await runner._call(runner.device.swipe_on_screen([start, end], duration_ms))


async def _launch(runner: FlowRunner, action: a.LaunchApp, report: StepReport) -> None:
    """``launchApp``'s permissions, set before the app opens (a grant is approved: the flow
    said allow), and what could not be applied named on the report."""
    from bridge.flows.runner import StepFailed

    app = action.launch.app_id
    dev: Any = runner.device
    for name in action.skipped:
        report.notes.append(f"launchApp: permission {name!r} is not one mobridge sets; skipped")
    for permission, verb in action.permissions:

        async def ask(confirm: Any, p: str = permission, v: str = verb) -> Any:
            return await dev.permission(v, app, p, confirm=confirm)

        try:
            await runner._approved(ask, True)
        except StepFailed as failed:
            raise StepFailed(
                f"launchApp permissions: {permission} {verb}: {failed.message}",
                refusal=failed.refusal,
                result=failed.result,
            ) from None
    if action.permissions:
        said = ", ".join(f"{p} {v}" for p, v in action.permissions)
        report.notes.append(f"launchApp: permissions set before launch ({said})")


async def _open_with_arguments(runner: FlowRunner, action: a.LaunchApp, report: StepReport) -> None:
    """``launchApp`` with ``arguments``: its ``clearState`` first (the hub's app.clear), then
    APP_OPEN carrying them (a device that takes none refuses: ACTION_UNSUPPORTED)."""
    from bridge.flows.compile import AppManage
    from bridge.flows.runner import _checked
    from bridge.wire.enums import AppAction

    launch = action.launch
    if launch.clear_state:
        report.action_result = await runner._manage(AppManage("clear", launch.app_id, approve=True))
    arguments = dict(action.arguments)
    # the count, not the arguments: their values (a list's items) may come from ``${...}``
    report.expected = f"{launch.app_id} open with {len(arguments)} launch argument(s)"
    result = await runner._call(
        runner.device.app(AppAction.APP_OPEN, launch.app_id, arguments=arguments)
    )
    report.action_result = _checked(result)


async def _cropped_shot(runner: FlowRunner, action: a.Screenshot, report: StepReport) -> None:
    """``takeScreenshot`` with ``cropOn``: the element found (waited for as a tap waits),
    then the screenshot cut to its bounds (scaled from screen points to the picture)."""
    pick = action.crop
    if pick.unsupported is not None:
        raise _failed(f"cropOn {pick.said}: {pick.unsupported}", ErrorCode.ACTION_UNSUPPORTED)
    await _wait_present(runner, pick, 7000)
    match = await _one(runner, pick, report)
    bounds = match.node.bounds
    if bounds is None:
        raise _failed(f"cropOn {pick.said}: the element has no bounds to crop to")
    shown = await runner._call(runner.device.display())
    report.expected = f"a screenshot of {pick.said}"
    report.screenshot = await runner._screenshot(
        action.name, quiet=False, crop=(bounds, shown.width, shown.height)
    )


# ---- device state -----------------------------------------------------------------------------


async def _travel(
    runner: FlowRunner, points: tuple[tuple[float, float], ...], speed: float, report: StepReport
) -> None:
    """Set the location at each point in turn, pausing as long as ``speed`` m/s takes
    between them (each pause at most 5 s)."""
    previous: tuple[float, float] | None = None
    for lat, lon in points:
        if previous is not None:
            metres = _distance(previous, (lat, lon))
            await anyio.sleep(min(metres / max(speed, 0.01), 5.0))
        report.action_result = await runner._call(runner.device.set_location(lat, lon))
        previous = (lat, lon)
    report.message = f"moved through {len(points)} points"


def _distance(p: tuple[float, float], q: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*p, *q))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_000 * math.asin(min(1.0, math.sqrt(h)))


async def _network(runner: FlowRunner, airplane: bool | None, report: StepReport) -> None:
    """``setAirplaneMode`` / ``toggleAirplaneMode`` through the hub's network action."""
    dev: Any = runner.device
    if not hasattr(dev, "network"):
        raise _failed("airplane mode: this hub has no network action", ErrorCode.ACTION_UNSUPPORTED)
    try:
        if airplane is None:
            state = await dev.network_state()
            airplane = not state.airplane
        report.action_result = await dev.network(airplane=airplane)
    except HubError as exc:
        from bridge.flows.runner import _refusal

        raise _failed(f"{exc.code.value}: {exc.envelope.message}", refusal=_refusal(exc)) from None
    report.message = f"airplane mode {'on' if airplane else 'off'}"


__all__ = ["evaluate", "execute", "split_template", "start_host"]
