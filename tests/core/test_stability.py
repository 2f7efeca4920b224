from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.stability import StabilityTracker
from bridge.wire.enums import Stability


def test_unknown_before_any_observation() -> None:
    tracker = StabilityTracker(400)
    assert tracker.state(10_000) is Stability.UNKNOWN
    assert tracker.stable_since_ms is None
    assert tracker.stable_at_ms is None


def test_stable_after_quiet_window() -> None:
    tracker = StabilityTracker(400)
    assert tracker.observe("t1", "l1", 1000) is True
    assert tracker.state(1000) is Stability.TRANSITIONING
    assert tracker.state(1399) is Stability.TRANSITIONING
    assert tracker.state(1400) is Stability.STABLE
    assert tracker.stable_since_ms == 1000
    assert tracker.stable_at_ms == 1400


def test_same_hashes_do_not_reset_the_window() -> None:
    tracker = StabilityTracker(400)
    tracker.observe("t1", "l1", 1000)
    assert tracker.observe("t1", "l1", 1300) is False
    assert tracker.stable_since_ms == 1000
    assert tracker.state(1400) is Stability.STABLE


@pytest.mark.parametrize(("tree", "layout"), [("t2", "l1"), ("t1", "l2"), ("t2", "l2")])
def test_any_hash_change_restarts_the_window(tree: str, layout: str) -> None:
    tracker = StabilityTracker(400)
    tracker.observe("t1", "l1", 1000)
    assert tracker.observe(tree, layout, 1300) is True
    assert tracker.stable_since_ms == 1300
    assert tracker.state(1500) is Stability.TRANSITIONING
    assert tracker.state(1700) is Stability.STABLE


def test_agent_unstable_keeps_transitioning() -> None:
    tracker = StabilityTracker(400)
    tracker.observe("t1", "l1", 1000, agent_stable=False)
    assert tracker.stable_since_ms is None
    assert tracker.state(1_000_000) is Stability.TRANSITIONING
    # the next settled capture, even with the same hashes, starts the window afresh
    tracker.observe("t1", "l1", 2000)
    assert tracker.stable_since_ms == 2000
    assert tracker.state(2399) is Stability.TRANSITIONING
    assert tracker.state(2400) is Stability.STABLE


def test_late_observation_cannot_go_back_in_time() -> None:
    tracker = StabilityTracker(400)
    tracker.observe("t1", "l1", 1000)
    tracker.observe("t2", "l1", 500)  # delivered late: counted at 1000
    assert tracker.stable_since_ms == 1000
    assert tracker.last_observed_ms == 1000


def test_zero_window_is_stable_at_once() -> None:
    tracker = StabilityTracker(0)
    tracker.observe("t1", "l1", 7)
    assert tracker.state(7) is Stability.STABLE


def test_negative_window_refused() -> None:
    with pytest.raises(ValueError, match="stable_for_ms"):
        StabilityTracker(-1)


_obs = st.lists(
    st.tuples(st.sampled_from("ab"), st.sampled_from("xy"), st.integers(0, 50), st.booleans()),
    min_size=1,
    max_size=20,
)


@given(_obs, st.integers(0, 300), st.integers(0, 300))
def test_state_matches_a_reference_model(
    steps: list[tuple[str, str, int, bool]], window: int, extra: int
) -> None:
    tracker = StabilityTracker(window)
    now = 0
    since: int | None = None
    prev: tuple[str, str] | None = None
    for tree, layout, gap, agent_stable in steps:
        now += gap
        tracker.observe(tree, layout, now, agent_stable=agent_stable)
        if not agent_stable:
            since = None
        elif (tree, layout) != prev or since is None:
            since = now
        prev = (tree, layout)
    assert tracker.stable_since_ms == since
    expected = (
        Stability.TRANSITIONING
        if since is None or now + extra - since < window
        else Stability.STABLE
    )
    assert tracker.state(now + extra) is expected
    assert tracker.observations == len(steps)
