"""The push debouncer: every frame of an animation, quiet-period pushes, the cap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.devices.sim.debounce import PushDebouncer

QUIET = 0.05
CAP = 0.3


def test_animation_frames_push_at_once_unstable_then_a_stable_one() -> None:
    d = PushDebouncer(QUIET, CAP)
    d.pushed(b"a", False, 0.0)
    decisions = [d.observe(0.04 * i, f"f{i}".encode(), True) for i in range(1, 5)]
    assert all(x is not None and not x.stable and x.quiet_ms == 0 for x in decisions)
    assert d.observe(0.20, b"final", False) is None  # not quiet yet
    assert d.wake_at() == 0.20 + QUIET
    final = d.observe(0.26, b"final", False)
    assert final is not None and final.stable and final.quiet_ms == 60
    assert d.observe(0.5, b"final", False) is None  # nothing new: nothing pushed


def test_continuous_change_is_pushed_by_the_cap_as_unstable() -> None:
    d = PushDebouncer(QUIET, CAP)
    d.pushed(b"start", False, 0.0)
    pushes = []
    for i in range(1, 40):
        decision = d.observe(i * 0.02, f"s{i}".encode(), False)
        if decision is not None:
            pushes.append((i * 0.02, decision))
    assert pushes, "the cap forces a push while the screen keeps changing"
    first_at, first = pushes[0]
    assert first_at <= 0.02 + CAP + 1e-9
    assert not first.stable


def test_going_back_to_the_pushed_state_cancels_the_pending_push() -> None:
    d = PushDebouncer(QUIET, CAP)
    d.pushed(b"a", False, 0.0)
    assert d.observe(0.01, b"b", False) is None
    assert d.observe(0.02, b"a", False) is None
    assert d.wake_at() is None
    assert d.observe(1.0, b"a", False) is None


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0.001, max_value=0.2),
            st.sampled_from([b"a", b"b", b"c"]),
            st.booleans(),
        ),
        max_size=60,
    )
)
def test_invariants(steps: list[tuple[float, bytes, bool]]) -> None:
    d = PushDebouncer(QUIET, CAP)
    d.pushed(b"a", False, 0.0)
    now = 0.0
    last_pushed: tuple[bytes, bool] = (b"a", False)
    last_change = 0.0
    seen: tuple[bytes, bool] = last_pushed
    for gap, sig, animating in steps:
        now += gap
        if (sig, animating) != seen:
            seen = (sig, animating)
            last_change = now
        decision = d.observe(now, sig, animating)
        if decision is None:
            # nothing pushed: either nothing new, or still inside the quiet period and the cap
            assert (sig, animating) == last_pushed or (not animating and now - last_change < QUIET)
            continue
        assert (sig, animating) != last_pushed, "never the same state twice in a row"
        if animating:
            assert not decision.stable
        if decision.stable:
            assert now - last_change >= QUIET
        last_pushed = (sig, animating)
