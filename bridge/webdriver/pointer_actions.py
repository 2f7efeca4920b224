"""W3C actions (``POST /session/{id}/actions``) read as the gestures the hub performs
(sans-I/O).

The sources' actions are laid on W3C ticks (a tick lasts as long as its longest action);
each pointer's presses become one gesture each, in time order:

- one finger pressed and released within ``SLOP`` pixels: a tap, a long press when held for
  ``LONG_PRESS_MS`` or more, a double tap when a second tap follows within
  ``DOUBLE_TAP_MS``;
- one finger that moved: a swipe along its path (at most 64 points) over the time it was
  down;
- two fingers down together: a pinch around their first midpoint with scale = final
  distance / first distance, or a two-finger tap when neither moved;
- key sources: characters are typed into the focused field, W3C's special keys (Enter,
  Backspace, Tab, Delete, arrows) pressed as keys.

``center_of(element_id)`` gives an element's centre for ``origin`` elements. Anything else
(three fingers, a pen's pressure, a wheel) raises ``WebDriverError("invalid argument")`` or
``unsupported operation``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.webdriver.errors import WebDriverError

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
SLOP = 12
LONG_PRESS_MS = 500
DOUBLE_TAP_MS = 400
MAX_ACTIONS = 1024
MAX_DURATION_MS = 60_000
MAX_POINTS = 64
SPECIAL_KEYS = {
    "\ue007": "ENTER",
    "\ue006": "ENTER",
    "\ue003": "DEL",
    "\ue004": "TAB",
    "\ue017": "FORWARD_DEL",
    "\ue00c": "ESCAPE",
    "\ue013": "DPAD_UP",
    "\ue015": "DPAD_DOWN",
    "\ue012": "DPAD_LEFT",
    "\ue014": "DPAD_RIGHT",
    "\ue011": "MOVE_HOME",
    "\ue010": "MOVE_END",
    "\ue00e": "PAGE_UP",
    "\ue00f": "PAGE_DOWN",
    "\ue00d": "SPACE",
}


@dataclass(frozen=True)
class Tap:
    x: int
    y: int
    count: int = 1


@dataclass(frozen=True)
class LongPress:
    x: int
    y: int
    duration_ms: int


@dataclass(frozen=True)
class Swipe:
    points: tuple[tuple[int, int], ...]
    duration_ms: int


@dataclass(frozen=True)
class Pinch:
    x: int
    y: int
    scale: float


@dataclass(frozen=True)
class TwoFingerTap:
    x: int
    y: int


@dataclass(frozen=True)
class TypeKeys:
    text: str


@dataclass(frozen=True)
class PressKey:
    key: str


Plan = Tap | LongPress | Swipe | Pinch | TwoFingerTap | TypeKeys | PressKey


@dataclass
class _Press:
    start_ms: int
    path: list[tuple[int, int, int]] = field(default_factory=list)
    """(t_ms, x, y) while down, the press point first."""
    end_ms: int | None = None


def _bad(message: str) -> WebDriverError:
    return WebDriverError("invalid argument", message)


def _duration(action: dict[str, Any]) -> int:
    value = action.get("duration", 0) or 0
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _bad("an action's duration must be a number >= 0")
    return int(min(value, MAX_DURATION_MS))


def plan(body: Any, center_of: Callable[[str], tuple[int, int]]) -> list[Plan]:
    """The gestures of a W3C actions body, in the order they happen."""
    if not isinstance(body, dict) or not isinstance(body.get("actions"), list):
        raise _bad('the body must be {"actions": [...]}')
    sources = body["actions"]
    if sum(len(s.get("actions", ())) for s in sources if isinstance(s, dict)) > MAX_ACTIONS:
        raise _bad(f"more than {MAX_ACTIONS} actions")
    ticks = max((len(s.get("actions", ())) for s in sources if isinstance(s, dict)), default=0)
    starts = [0]
    for i in range(ticks):
        longest = 0
        for source in sources:
            actions = source.get("actions", ()) if isinstance(source, dict) else ()
            if i < len(actions) and isinstance(actions[i], dict):
                longest = max(longest, _duration(actions[i]))
        starts.append(starts[-1] + longest)
    timed: list[tuple[int, int, Plan]] = []
    pointers: list[list[_Press]] = []
    for order, source in enumerate(sources):
        if not isinstance(source, dict):
            raise _bad("each input source must be an object")
        kind = source.get("type")
        actions = source.get("actions", [])
        if not isinstance(actions, list):
            raise _bad("an input source's actions must be a list")
        if kind == "pointer":
            pointers.append(_pointer(actions, starts, center_of))
        elif kind == "key":
            timed.extend((t, order, p) for t, p in _keys(actions, starts))
        elif kind in ("none", "wheel"):
            if kind == "wheel" and any(a.get("type") == "scroll" for a in actions):
                raise WebDriverError("unsupported operation", "wheel scrolls are not performed")
        else:
            raise _bad(f"input source type {kind!r}")
    timed.extend(_gestures(pointers))
    timed.sort(key=lambda item: (item[0], item[1]))
    return _merge_double_taps([p for _, _, p in timed], [t for t, _, _ in timed])


def _point(
    action: dict[str, Any], at: tuple[int, int], center_of: Callable[[str], tuple[int, int]]
) -> tuple[int, int]:
    x, y = action.get("x", 0), action.get("y", 0)
    if (
        isinstance(x, bool)
        or isinstance(y, bool)
        or not isinstance(x, int | float)
        or not isinstance(y, int | float)
    ):
        raise _bad("pointerMove x and y must be numbers")
    if not (math.isfinite(x) and math.isfinite(y)) or abs(x) > 1e6 or abs(y) > 1e6:
        raise _bad("pointerMove x and y must be finite screen coordinates")
    origin = action.get("origin", "viewport")
    if origin == "viewport" or origin is None:
        return round(x), round(y)
    if origin == "pointer":
        return at[0] + round(x), at[1] + round(y)
    if isinstance(origin, dict):
        element = origin.get(ELEMENT_KEY) or origin.get("ELEMENT")
        if isinstance(element, str):
            cx, cy = center_of(element)
            return cx + round(x), cy + round(y)
    raise _bad(f"pointerMove origin {origin!r}")


def _pointer(
    actions: list[Any], starts: list[int], center_of: Callable[[str], tuple[int, int]]
) -> list[_Press]:
    presses: list[_Press] = []
    at = (0, 0)
    down: _Press | None = None
    for i, action in enumerate(actions):
        if not isinstance(action, dict):
            raise _bad("each action must be an object")
        kind = action.get("type")
        t0 = starts[i]
        if kind == "pointerMove":
            at = _point(action, at, center_of)
            if down is not None:
                down.path.append((t0 + _duration(action), at[0], at[1]))
        elif kind == "pointerDown":
            if down is None:
                down = _Press(t0, [(t0, at[0], at[1])])
        elif kind == "pointerUp":
            if down is not None:
                down.end_ms = t0
                presses.append(down)
                down = None
        elif kind == "pause":
            continue
        elif kind == "pointerCancel":
            down = None
        else:
            raise _bad(f"pointer action type {kind!r}")
    if down is not None:  # never released: released at the end
        down.end_ms = starts[len(actions)] if len(actions) < len(starts) else starts[-1]
        presses.append(down)
    return presses


def _moved(press: _Press) -> bool:
    _, x0, y0 = press.path[0]
    return any(abs(x - x0) > SLOP or abs(y - y0) > SLOP for _, x, y in press.path)


def _one(press: _Press) -> Plan:
    _, x0, y0 = press.path[0]
    held = max(0, (press.end_ms or press.start_ms) - press.start_ms)
    if not _moved(press):
        if held >= LONG_PRESS_MS:
            return LongPress(x0, y0, held)
        return Tap(x0, y0)
    points = [(x, y) for _, x, y in press.path]
    deduped = [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
    if len(deduped) > MAX_POINTS:
        step = (len(deduped) - 1) / (MAX_POINTS - 1)
        deduped = [deduped[round(i * step)] for i in range(MAX_POINTS)]
    return Swipe(tuple(deduped), max(1, held))


def _gestures(pointers: list[list[_Press]]) -> list[tuple[int, int, Plan]]:
    out: list[tuple[int, int, Plan]] = []
    used: set[int] = set()
    flat = [(p, i) for i, presses in enumerate(pointers) for p in presses]
    for a_index, (a, owner) in enumerate(flat):
        if id(a) in used:
            continue
        partner = next(
            (
                b
                for b, other in flat[a_index + 1 :]
                if other != owner and id(b) not in used and _overlap(a, b)
            ),
            None,
        )
        if partner is None:
            used.add(id(a))
            out.append((a.start_ms, owner, _one(a)))
            continue
        used |= {id(a), id(partner)}
        three = [p for p, o in flat if id(p) not in used and _overlap(a, p)]
        if three:
            raise WebDriverError("unsupported operation", "gestures of three or more fingers")
        out.append((a.start_ms, owner, _two(a, partner)))
    return out


def _overlap(a: _Press, b: _Press) -> bool:
    return a.start_ms <= (b.end_ms or b.start_ms) and b.start_ms <= (a.end_ms or a.start_ms)


def _two(a: _Press, b: _Press) -> Plan:
    (_, ax0, ay0), (_, bx0, by0) = a.path[0], b.path[0]
    (_, ax1, ay1), (_, bx1, by1) = a.path[-1], b.path[-1]
    cx, cy = (ax0 + bx0) // 2, (ay0 + by0) // 2
    if not _moved(a) and not _moved(b):
        return TwoFingerTap(cx, cy)
    first = math.hypot(ax0 - bx0, ay0 - by0)
    last = math.hypot(ax1 - bx1, ay1 - by1)
    if first < 1 or last < 1:
        raise _bad("a pinch needs the two fingers apart at its start and end")
    return Pinch(cx, cy, round(max(0.1, min(10.0, last / first)), 3))


def _merge_double_taps(plans: list[Plan], times: list[int]) -> list[Plan]:
    out: list[Plan] = []
    last_tap_at: int | None = None
    for p, t in zip(plans, times, strict=True):
        if (
            isinstance(p, Tap)
            and out
            and isinstance(out[-1], Tap)
            and out[-1].count == 1
            and last_tap_at is not None
            and t - last_tap_at <= DOUBLE_TAP_MS
            and abs(out[-1].x - p.x) <= SLOP
            and abs(out[-1].y - p.y) <= SLOP
        ):
            out[-1] = Tap(out[-1].x, out[-1].y, 2)
            last_tap_at = None
            continue
        out.append(p)
        last_tap_at = t if isinstance(p, Tap) else None
    return out


def _keys(actions: list[Any], starts: list[int]) -> list[tuple[int, Plan]]:
    out: list[tuple[int, Plan]] = []
    text: list[str] = []
    text_at = 0
    for i, action in enumerate(actions):
        if not isinstance(action, dict):
            raise _bad("each action must be an object")
        if action.get("type") != "keyDown":
            continue
        value = action.get("value")
        if not isinstance(value, str) or (len(value) != 1 and len(value.encode("utf-16-le")) > 4):
            raise _bad("a key action's value is one character")
        special = SPECIAL_KEYS.get(value)
        if special is None and "\ue000" <= value <= "\uf8ff":
            continue  # modifiers and keys the device has no use for
        if special is not None:
            if text:
                out.append((text_at, TypeKeys("".join(text))))
                text = []
            out.append((starts[i], PressKey(special)))
        else:
            if not text:
                text_at = starts[i]
            text.append(value)
    if text:
        out.append((text_at, TypeKeys("".join(text))))
    return out
