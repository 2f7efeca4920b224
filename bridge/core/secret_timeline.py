"""When, during a recording the device makes itself, the screen showed a secret, and where
(pure: the caller notes ``MaskPlan``s with times in ms since the recording began).

A device's own recorder (Android ``screenrecord``, a Simulator's ``simctl io recordVideo``)
films the screen as it is; the hub masks its file afterwards (``bridge.core.video_mask``,
run by ``bridge.hub.recording``) from this timeline. Rules:

- ``note(at_ms, plan)`` while the recording runs (the caller samples every few tens of ms
  and at its end); consecutive equal plans make one span; a clear plan ends the open span;
- at most ``MAX_SPANS`` spans: past them, the rest of the recording is one ``HOLD`` span
  (every frame from there black), never an unbounded list;
- ``plan_for(start_ms, end_ms)``: what a frame that may have been shown at any time in
  ``[start_ms, end_ms]`` needs: HOLD when a hold span meets that window (where the secret
  went was unknown: the whole frame), else the union of the regions of the spans that meet
  it, else CLEAR. The caller widens the window by what it does not know about the device's
  clock (when its first frame was taken).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bridge.core.pixel_mask import CLEAR, HOLD, MaskPlan

MAX_SPANS: Final = 4096


@dataclass
class Span:
    start_ms: int
    end_ms: int | None
    """None: still open (until the recording's end)."""
    plan: MaskPlan


class SecretTimeline:
    def __init__(self, max_spans: int = MAX_SPANS) -> None:
        self.spans: list[Span] = []
        self.max_spans = max_spans

    def __bool__(self) -> bool:
        return bool(self.spans)

    def note(self, at_ms: int, plan: MaskPlan) -> None:
        open_span = self.spans[-1] if self.spans and self.spans[-1].end_ms is None else None
        if open_span is not None:
            if open_span.plan == plan or (
                open_span.plan.hold and len(self.spans) >= self.max_spans
            ):
                return
            open_span.end_ms = at_ms
        if plan.clear:
            return
        if len(self.spans) >= self.max_spans - 1:
            plan = HOLD  # the last span: everything from here on is black
        self.spans.append(Span(at_ms, None, plan))

    def plan_for(self, start_ms: int, end_ms: int) -> MaskPlan:
        out = CLEAR
        for span in self.spans:
            if span.start_ms > end_ms or (span.end_ms is not None and span.end_ms < start_ms):
                continue
            if span.plan.hold:
                return HOLD
            out = out.union(span.plan)
        return out
