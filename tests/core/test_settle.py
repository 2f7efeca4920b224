"""The settle rule (bridge.core.settle): the device's push cadence, the quiet time a stable
push vouches for, and which window applies before and after the expected effect."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bridge.core.settle import (
    CADENCE_PUSHES,
    MAX_CADENCE_MS,
    MIN_WINDOW_MS,
    PushCadence,
    effect_window_ms,
    is_settled,
    quiet_since,
)


def test_cadence_is_unknown_until_a_stable_push_reports_its_quiet() -> None:
    cadence = PushCadence()
    assert cadence.quiet_ms is None
    cadence.observe(False, 40)  # an animation frame: not a quiet period
    cadence.observe(True, 0)  # an agent that does not report quiet
    assert cadence.quiet_ms is None
    cadence.observe(True, 57)
    cadence.observe(True, 50)
    cadence.observe(True, 300)
    assert cadence.quiet_ms == 50


def test_cadence_forgets_old_pushes_and_caps_hostile_values() -> None:
    cadence = PushCadence()
    cadence.observe(True, 20)
    for _ in range(CADENCE_PUSHES):
        cadence.observe(True, 10**9)
    assert cadence.quiet_ms == MAX_CADENCE_MS


def test_a_stable_push_vouches_for_its_quiet_but_time_never_goes_back() -> None:
    assert quiet_since(1000, 50, 0) == 950
    assert quiet_since(1000, 0, 0) == 1000
    assert quiet_since(1000, 500, 800) == 800
    assert quiet_since(1000, -5, 0) == 1000


def test_the_effect_window_follows_the_cadence_within_bounds() -> None:
    assert effect_window_ms(300, None) == 300  # no cadence known: the whole window
    assert effect_window_ms(300, 50) == 100
    assert effect_window_ms(300, 10) == MIN_WINDOW_MS
    assert effect_window_ms(300, 400) == 300  # never longer than the caller asked
    assert effect_window_ms(0, 50) == 0


def settled(
    now: int, seen: bool, *, stable_for: int = 300, cadence: int | None = 50, stable: bool = True
) -> bool:
    return is_settled(
        now,
        quiet_since_ms=1000,
        agent_stable=stable,
        effect_seen=seen,
        stable_for_ms=stable_for,
        cadence_ms=cadence,
    )


def test_before_the_effect_the_whole_window_applies() -> None:
    assert not settled(1150, False)
    assert settled(1300, False)
    assert not settled(1099, True)
    assert settled(1100, True)
    assert not settled(1299, True, cadence=None)  # an agent without a cadence: no shortcut


def test_an_animating_screen_is_never_settled() -> None:
    assert not settled(10**6, True, stable_for=0, stable=False)


@given(
    stable_for=st.integers(0, 10_000),
    cadence=st.one_of(st.none(), st.integers(1, 10_000)),
    elapsed=st.integers(0, 20_000),
)
def test_seeing_the_effect_never_makes_the_wait_longer(
    stable_for: int, cadence: int | None, elapsed: int
) -> None:
    if settled(1000 + elapsed, False, stable_for=stable_for, cadence=cadence):
        assert settled(1000 + elapsed, True, stable_for=stable_for, cadence=cadence)
