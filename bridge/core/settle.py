"""When an action's result may be answered: the settle rule, and the device's push cadence.

Rules (times are milliseconds passed in by the caller; nothing here reads a clock):

- the screen is *quiet since* the time of its last change. A push the agent calls ``stable``
  carries ``quiet_ms``, how long the agent had seen no event when it captured; the change it
  shows is at least that old, so the quiet time counts from ``received - quiet_ms`` (never
  before the previous change's quiet time: times do not go backwards). A push the agent calls
  unstable (an animation frame) is no quiet at all until the next stable one;
- the device's *push cadence* is its own quiet period: the smallest ``quiet_ms`` of its last
  ``CADENCE_PUSHES`` stable pushes (an agent debounces, so no stable push comes sooner after
  a change). Unknown (None) until a stable push reports a positive ``quiet_ms``;
- once the *expected effect is seen* — the caller's verification holds, or (no expectation)
  the screen changed after the dispatch — the result is settled when the screen has been quiet
  for ``effect_window_ms``: twice the cadence, at least ``MIN_WINDOW_MS``, at most the
  caller's ``stable_for_ms``. A change that comes later than that window after the last one is
  a new event, not part of this action's effect (the fixed window only moved that line);
- before the effect is seen, or with no cadence known, the whole ``stable_for_ms`` applies, as
  it always did; so a tap that changes nothing still waits the full window for a late effect.
"""

from __future__ import annotations

from collections import deque

CADENCE_PUSHES = 8
"""How many recent stable pushes the cadence is taken from."""
MIN_WINDOW_MS = 60
"""The shortest quiet window after the expected effect, whatever the cadence says."""
MAX_CADENCE_MS = 5_000
"""A reported ``quiet_ms`` above this is counted as this much (hostile or stale agents)."""


class PushCadence:
    """The quiet period of one device's agent, learned from its stable pushes."""

    __slots__ = ("_recent",)

    def __init__(self) -> None:
        self._recent: deque[int] = deque(maxlen=CADENCE_PUSHES)

    def observe(self, stable: bool, quiet_ms: int) -> None:
        """Record one push (any push: only stable ones with a positive ``quiet_ms`` count)."""
        if stable and quiet_ms > 0:
            self._recent.append(min(quiet_ms, MAX_CADENCE_MS))

    @property
    def quiet_ms(self) -> int | None:
        """The agent's quiet period (ms); None while no stable push reported one."""
        return min(self._recent) if self._recent else None


def quiet_since(received_ms: int, quiet_ms: int, previous_ms: int) -> int:
    """When the screen a stable push shows last changed: ``quiet_ms`` before its receipt,
    never before ``previous_ms`` (the previous change's quiet time)."""
    return max(previous_ms, received_ms - min(max(0, quiet_ms), MAX_CADENCE_MS))


def effect_window_ms(stable_for_ms: int, cadence_ms: int | None) -> int:
    """The quiet window once the expected effect is seen (see the module rules)."""
    if cadence_ms is None:
        return stable_for_ms
    return min(stable_for_ms, max(MIN_WINDOW_MS, 2 * cadence_ms))


def settle_window_ms(stable_for_ms: int, cadence_ms: int | None, effect_seen: bool) -> int:
    """The quiet window that applies now: the effect's window once it is seen, else the
    caller's ``stable_for_ms``."""
    return effect_window_ms(stable_for_ms, cadence_ms) if effect_seen else stable_for_ms


def is_settled(
    now_ms: int,
    *,
    quiet_since_ms: int,
    agent_stable: bool,
    effect_seen: bool,
    stable_for_ms: int,
    cadence_ms: int | None,
) -> bool:
    """Whether an action's observation may end now: the agent calls the screen stable, and it
    has been quiet for the window that applies (``effect_window_ms`` once the effect is seen,
    else ``stable_for_ms``). ``quiet_since_ms``: the later of the screen's quiet time and the
    moment the observation began."""
    if not agent_stable:
        return False
    return now_ms - quiet_since_ms >= settle_window_ms(stable_for_ms, cadence_ms, effect_seen)
