"""The WebDriver commands of a session, each one or a few hub requests.

Every handler takes the session, the path variables and the decoded JSON body, and returns
the W3C ``value`` (or raises ``WebDriverError``). Element handlers send the element's
NodeRef; the hub resolves it and refuses a node that is gone (``stale element reference``)
or ambiguous (``invalid selector``), so nothing is tapped by guess. ``mobile:`` commands live
in ``bridge.webdriver.mobile``.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from bridge.client.errors import ClientError
from bridge.core.query import QueryRejected, run_query
from bridge.webdriver import locators, pointer_actions
from bridge.webdriver.calls import body_object, device_of, hub_call, png
from bridge.webdriver.errors import WebDriverError, invalid_argument
from bridge.webdriver.pointer_actions import ELEMENT_KEY
from bridge.webdriver.session import WdSession, hub_failure
from bridge.webdriver.uiselector import ScrollIntoView
from bridge.wire.action import ActionRequest, ActionResult
from bridge.wire.enums import ActionVerb, GestureKind, KeyName, Orientation
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery, TextMatch

Handler = Callable[[WdSession, dict[str, str], Any], Awaitable[Any]]
MAX_IMPLICIT_MS = 600_000
MAX_SCROLLS = 20
MAX_TEXT = 64 * 1024


# ---- session ---------------------------------------------------------------------------------


async def get_timeouts(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return {
        "implicit": session.implicit_wait_ms,
        "pageLoad": session.page_load_ms,
        "script": session.script_ms,
    }


async def set_timeouts(session: WdSession, _: dict[str, str], body: Any) -> Any:
    body = body_object(body)
    for key, attr in (("implicit", "implicit_wait_ms"), ("pageLoad", "page_load_ms"),
                      ("script", "script_ms"), ("ms", None)):  # fmt: skip
        if key not in body:
            continue
        value = body[key]
        if value is None and key == "script":
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise invalid_argument(f"timeout {key} must be a number of milliseconds >= 0")
        if attr is None:  # legacy {"type": "implicit", "ms": N}
            if body.get("type") == "implicit":
                session.implicit_wait_ms = int(min(value, MAX_IMPLICIT_MS))
            continue
        setattr(session, attr, int(min(value, MAX_IMPLICIT_MS)))
    return None


async def get_session(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return session.capabilities


# ---- finding ---------------------------------------------------------------------------------


def _locator(body: Any) -> tuple[str, str]:
    body = body_object(body)
    using, value = body.get("using"), body.get("value")
    if not isinstance(using, str) or not isinstance(value, str):
        raise invalid_argument('find takes {"using": STRATEGY, "value": STRING}')
    return using, value


async def _search(
    session: WdSession, using: str, value: str, within_id: str | None, wait_ms: int | None = None
) -> list[str]:
    """Node ids the locator finds now; with an implicit wait (the session's, or ``wait_ms``),
    re-evaluated at each screen the hub pushes until one matches or the wait ends (no
    polling)."""
    wait = session.implicit_wait_ms if wait_ms is None else wait_ms
    deadline = anyio.current_time() + wait / 1000
    while True:
        source = session.source()
        within = None
        if within_id is not None:
            node = session.node(within_id)
            within = source.element_of(node.node_id)
        if using == "xpath":  # lxml drops the GIL while it evaluates: the hub's loop runs on
            found = await anyio.to_thread.run_sync(
                locators.find, source, using, value, within, limiter=session.xpath_limiter
            )
        else:
            found = locators.find(source, using, value, within)
        if isinstance(found, ScrollIntoView):
            return await _scroll_into_view(session, found, deadline)
        ids = [n for n in (source.node_id_of(e) for e in found) if n is not None]
        if ids or not await session.next_change(deadline):
            return ids


async def _scroll_into_view(session: WdSession, plan: ScrollIntoView, deadline: float) -> list[str]:
    """Scroll the scrollable forward (hub SCROLL_FORWARD on its ref) until the target shows,
    at most ``MAX_SCROLLS`` times or until a scroll changes nothing."""
    device = device_of(session)
    for _ in range(MAX_SCROLLS + 1):
        source = session.source()
        scope = source.elements[1:]
        found = [source.node_id_of(e) for e in plan.target.select(scope)]
        ids = [n for n in found if n is not None]
        if ids:
            return ids
        containers = [source.node_id_of(e) for e in plan.scrollable.select(scope)]
        container = next((c for c in containers if c is not None), None)
        if container is None:
            if not await session.next_change(deadline):
                return []
            continue
        element = session.remember(container, 1, "UiScrollable")
        ref = session.elements[element].ref
        result = await hub_call(session, device.scroll(ref, True))
        await session.caught_up(result.observation.after_snapshot_id)
        if not result.observation.screen_changed:
            return []
    return []


async def found_now(session: WdSession, using: str, value: str) -> list[str]:
    """Node ids the locator finds on the current screen, without waiting."""
    return await _search(session, using, value, None, wait_ms=0)


async def find_element(session: WdSession, path: dict[str, str], body: Any) -> Any:
    using, value = _locator(body)
    ids = await _search(session, using, value, path.get("element"))
    if not ids:
        raise WebDriverError(
            "no such element", f"NODE_NOT_FOUND: no element matches {using} {value!r}"
        )
    described = f"{using} {value!r}"
    if len(ids) > 1 and session.caps.strict:
        raise WebDriverError(
            "invalid selector",
            f"AMBIGUOUS_MATCH: {len(ids)} elements match {described} "
            f"({_candidates(session, ids)}); mobridge:strict refuses to pick one: narrow the "
            "locator, or find_elements and choose",
        )
    return {ELEMENT_KEY: session.remember(ids[0], len(ids), described, tuple(ids[:16]))}


async def find_elements(session: WdSession, path: dict[str, str], body: Any) -> Any:
    using, value = _locator(body)
    ids = await _search(session, using, value, path.get("element"))
    return [{ELEMENT_KEY: session.remember(n, 1, f"{using} {value!r}")} for n in ids]


def _candidates(session: WdSession, ids: list[str]) -> str:
    tree = session.tree()
    words = []
    for node_id in ids[:5]:
        node = tree.by_id.get(node_id)
        if node is None:
            continue
        name = node.label or node.text or node.hint or node.resource_id or node.node_id
        where = f" at {list(node.bounds)}" if node.bounds else ""
        words.append(f"{node.role.value.lower()} {name!r}{where}")
    more = f", and {len(ids) - 5} more" if len(ids) > 5 else ""
    return "; ".join(words) + more


async def active_element(session: WdSession, _: dict[str, str], __: Any) -> Any:
    focused = [n for n in session.current().nodes if n.effective_state.focused]
    if not focused:
        raise WebDriverError("no such element", "NODE_NOT_FOUND: nothing has the focus")
    return {ELEMENT_KEY: session.remember(focused[-1].node_id, 1, "the focused element")}


# ---- element actions ---------------------------------------------------------------------------


AMBIGUOUS_HINT = (
    "; mobridge does not act on the first of several: narrow the locator, pick one with "
    "find_elements, or set mobridge:firstMatch to true for Appium's first match"
)


def _actable(session: WdSession, element_id: str) -> tuple[NodeRef | None, SemanticQuery | None]:
    """What to send for an action on the element: its ref; or, when its locator matched
    several nodes (and the session did not ask for Appium's first match), the query that
    finds those look-alikes, so the hub refuses AMBIGUOUS_MATCH where every watcher sees it.
    Several matches that no query tells apart are refused here."""
    entry = session.entry(element_id)
    if entry.among <= 1 or session.caps.first_match:
        return entry.ref, None
    node = session.node(element_id)  # gone: stale, whatever else matched
    query = _look_alike_query(session, node)
    if query is not None:
        return None, query
    raise WebDriverError(
        "invalid selector",
        f"AMBIGUOUS_MATCH: {entry.among} elements matched {entry.locator} when this element "
        f"was found ({_candidates(session, list(entry.matched))})" + AMBIGUOUS_HINT,
    )


def _look_alike_query(session: WdSession, node: SemanticNode) -> SemanticQuery | None:
    """A query by the node's role and name that matches it and at least one other node on
    the current screen, or None."""
    if node.label:
        query = SemanticQuery(role=node.role, label=TextMatch(value=node.label[:1024]))
    elif node.text:
        query = SemanticQuery(role=node.role, text=TextMatch(value=node.text[:1024]))
    else:
        return None
    found = run_query(session.tree(), query)
    if isinstance(found, QueryRejected):
        return None
    ids = {m.node.node_id for m in found.items}
    return query if node.node_id in ids and len(ids) >= 2 else None


async def _act(
    session: WdSession, element_id: str, request: ActionRequest, query: SemanticQuery | None
) -> ActionResult:
    device = device_of(session)
    try:
        result: ActionResult = await session.approved(lambda c: device.act(request, c, query=query))
    except ClientError as exc:
        hint = AMBIGUOUS_HINT if query is not None else ""
        raise hub_failure(exc, on_element=True, hint=hint) from None
    await session.caught_up(result.observation.after_snapshot_id)
    return result


async def element_click(session: WdSession, path: dict[str, str], _: Any) -> Any:
    ref, query = _actable(session, path["element"])
    request = ActionRequest(action=ActionVerb.CLICK, target=ref)
    await _act(session, path["element"], request, query)
    return None


async def element_clear(session: WdSession, path: dict[str, str], _: Any) -> Any:
    ref, query = _actable(session, path["element"])
    request = ActionRequest(action=ActionVerb.CLEAR_TEXT, target=ref)
    await _act(session, path["element"], request, query)
    return None


def keys_text(body: Any) -> str:
    body = body_object(body)
    text = body.get("text")
    if text is None and isinstance(body.get("value"), list):
        text = "".join(str(v) for v in body["value"])
    if not isinstance(text, str):
        raise invalid_argument('send keys takes {"text": STRING}')
    if len(text) > MAX_TEXT:
        raise invalid_argument(f"more than {MAX_TEXT} characters")
    return text


async def element_send_keys(session: WdSession, path: dict[str, str], body: Any) -> Any:
    """SET_TEXT with the text (``secret://NAME`` types the hub's secret); a trailing Enter
    (``\\ue007`` or ``\\n``) is pressed as ENTER afterwards."""
    text = keys_text(body)
    submit = text.endswith(("\ue007", "\ue006", "\n"))
    text = "".join(c for c in text.rstrip("\ue007\ue006\n") if not "\ue000" <= c <= "\uf8ff")
    ref, query = _actable(session, path["element"])
    if text.startswith("secret://"):
        request = ActionRequest(action=ActionVerb.SET_TEXT, target=ref, value_ref=text)
    else:
        request = ActionRequest(action=ActionVerb.SET_TEXT, target=ref, value=text)
    await _act(session, path["element"], request, query)
    if submit:
        device = device_of(session)
        await hub_call(
            session, session.approved(lambda c: device.press_key(KeyName.ENTER, confirm=c))
        )
    return None


# ---- the screen ----------------------------------------------------------------------------


async def screenshot(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return base64.b64encode(await png(session)).decode()


async def page_source(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return session.source().xml()


async def back(session: WdSession, _: dict[str, str], __: Any) -> Any:
    device = device_of(session)
    result = await hub_call(session, device.back())
    await session.caught_up(result.observation.after_snapshot_id)
    return None


async def get_orientation(session: WdSession, _: dict[str, str], __: Any) -> Any:
    """The live snapshot's orientation (the stream is current: no round trip)."""
    landscape = session.current().orientation is Orientation.LANDSCAPE
    return "LANDSCAPE" if landscape else "PORTRAIT"


async def set_orientation(session: WdSession, _: dict[str, str], body: Any) -> Any:
    wanted = str(body_object(body).get("orientation", "")).upper()
    if wanted not in ("PORTRAIT", "LANDSCAPE"):
        raise invalid_argument("orientation is PORTRAIT or LANDSCAPE")
    device = device_of(session)
    result = await hub_call(session, device.set_orientation(Orientation[wanted]))
    await session.caught_up(result.observation.after_snapshot_id)
    return None


async def window_rect(session: WdSession, _: dict[str, str], __: Any) -> Any:
    """The screen's size: asked of the device once per orientation the live snapshot shows
    (scripts ask before every swipe), then remembered for the session."""
    orientation = session.current().orientation
    size = session.screen_sizes.get(orientation)
    if size is None:
        shown = await hub_call(session, device_of(session).display())
        size = session.screen_sizes[shown.orientation] = (shown.width, shown.height)
    return {"x": 0, "y": 0, "width": size[0], "height": size[1]}


async def window_handle(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return "NATIVE_APP"


async def window_handles(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return ["NATIVE_APP"]


async def contexts(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return ["NATIVE_APP"]


async def get_context(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return "NATIVE_APP"


async def set_context(session: WdSession, _: dict[str, str], body: Any) -> Any:
    name = body_object(body).get("name")
    if name != "NATIVE_APP":
        raise WebDriverError(
            "no such context", f"context {name!r}: this device has NATIVE_APP only"
        )
    return None


async def get_settings(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return {}


async def set_settings(session: WdSession, _: dict[str, str], body: Any) -> Any:
    body_object(body)
    return None


# ---- W3C actions -----------------------------------------------------------------------------


def center_of(session: WdSession, element_id: str) -> tuple[int, int]:
    node = session.node(element_id)
    if node.bounds is None:
        raise WebDriverError("move target out of bounds", "the element has no bounds")
    left, top, right, bottom = node.bounds
    return (left + right) // 2, (top + bottom) // 2


async def _dispatch(device: Any, step: pointer_actions.Plan, confirm: Any) -> ActionResult:
    """One planned gesture as its hub request."""
    if isinstance(step, pointer_actions.Tap):
        kind = GestureKind.TAP if step.count == 1 else GestureKind.DOUBLE_TAP
        return await device.gesture(kind, [(step.x, step.y)], confirm=confirm)  # type: ignore[no-any-return]
    if isinstance(step, pointer_actions.LongPress):
        held = min(step.duration_ms, 10_000)
        return await device.long_press_at(step.x, step.y, held, confirm=confirm)  # type: ignore[no-any-return]
    if isinstance(step, pointer_actions.Swipe):
        took = min(max(step.duration_ms, 50), 10_000)
        return await device.gesture(  # type: ignore[no-any-return]
            GestureKind.SWIPE, step.points, duration_ms=took, confirm=confirm
        )
    if isinstance(step, pointer_actions.Pinch):
        return await device.pinch(step.scale, at=(step.x, step.y), confirm=confirm)  # type: ignore[no-any-return]
    if isinstance(step, pointer_actions.TwoFingerTap):
        return await device.two_finger_tap(at=(step.x, step.y))  # type: ignore[no-any-return]
    if isinstance(step, pointer_actions.TypeKeys):
        return await device.type_focused(step.text, confirm=confirm)  # type: ignore[no-any-return]
    return await device.press_key(KeyName(step.key), confirm=confirm)  # type: ignore[no-any-return]


async def run_plan(session: WdSession, plans: list[pointer_actions.Plan]) -> ActionResult | None:
    """Run the gestures in order, each through the hub; answers the last result."""
    device = device_of(session)
    last: ActionResult | None = None
    for step in plans:

        def send(confirm: Any, step: pointer_actions.Plan = step) -> Awaitable[ActionResult]:
            return _dispatch(device, step, confirm)

        last = await hub_call(session, session.approved(send))
        assert last is not None
        await session.caught_up(last.observation.after_snapshot_id)
    return last


async def perform_actions(session: WdSession, _: dict[str, str], body: Any) -> Any:
    plans = pointer_actions.plan(body, lambda element: center_of(session, element))
    await run_plan(session, plans)
    return None


async def release_actions(session: WdSession, _: dict[str, str], __: Any) -> Any:
    return None  # every perform releases what it pressed
