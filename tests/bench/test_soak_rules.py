"""The soak's judgement (``bridge.bench.soak``): RSS growth compares the medians of the first
and last windows, so one sample on an agent kill's transient is not a leak and a steady climb
is; a verify the agent's death cut short is the hub answering what it knew."""

from __future__ import annotations

from bridge.bench.soak import RSS_WINDOW_S, _stability, _window_medians


def test_a_spike_at_the_end_is_not_growth_and_a_climb_is() -> None:
    flat = [(t * 2.0, 170.0) for t in range(900)]
    spiked = [*flat[:-1], (flat[-1][0], 230.0)]  # the last sample: an agent kill
    first, last = _window_medians(spiked, RSS_WINDOW_S, 166.0, 230.0)
    assert (first, last) == (170.0, 170.0)
    climbing = [(t * 2.0, 170.0 + t * 0.05) for t in range(900)]
    first, last = _window_medians(climbing, RSS_WINDOW_S, 170.0, 215.0)
    assert (last - first) / first > 0.10, "a leak of 45 MB in 30 min still fails"
    assert _window_medians([], RSS_WINDOW_S, 1.0, 2.0) == (1.0, 2.0)


def test_the_stability_of_an_answer() -> None:
    unknown = {"type": "result", "result": {"observation": {"stability": "UNKNOWN"}}}
    assert _stability(unknown) == "UNKNOWN"
    assert _stability({"type": "error", "error": {}}) is None
    assert _stability({"type": "result", "result": "x"}) is None
