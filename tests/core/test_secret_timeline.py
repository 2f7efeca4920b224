"""``SecretTimeline``: spans of equal plans, a window meets them, bounded in spans."""

from __future__ import annotations

from bridge.core.pixel_mask import CLEAR, HOLD, MaskPlan
from bridge.core.secret_timeline import SecretTimeline

A = MaskPlan(False, ((0, 0, 10, 10),), (0, 0, 100, 100))
B = MaskPlan(False, ((50, 50, 60, 60),), (0, 0, 100, 100))


def test_spans_and_windows() -> None:
    line = SecretTimeline()
    line.note(0, CLEAR)
    assert not line
    line.note(100, HOLD)
    line.note(150, HOLD)
    line.note(200, A)
    line.note(300, A)
    line.note(400, CLEAR)
    line.note(500, B)  # open until the end
    assert [(s.start_ms, s.end_ms) for s in line.spans] == [(100, 200), (200, 400), (500, None)]
    assert line.plan_for(0, 90) == CLEAR
    assert line.plan_for(0, 120).hold  # the hold: the whole frame
    assert line.plan_for(250, 260) == A
    assert line.plan_for(410, 490) == CLEAR
    assert line.plan_for(350, 10_000).regions == A.regions + B.regions
    assert line.plan_for(9_000, 9_500) == B


def test_past_its_bound_the_rest_is_black() -> None:
    line = SecretTimeline(max_spans=4)
    for i in range(10):
        line.note(i * 10, A if i % 2 == 0 else CLEAR)
    assert len(line.spans) == 4
    assert line.spans[-1].plan.hold and line.spans[-1].end_ms is None
    assert line.plan_for(10_000, 10_001).hold
