"""When the simulated agent pushes a tree: a pure debouncer over observed screen states.

Rules (times are simulated seconds, passed in):
- a state is (signature of the raw tree, animating); a push happens only for a state other
  than the last one pushed;
- while an animation runs every new frame is pushed at once with ``stable`` false, so the hub
  sees the transition;
- otherwise a change is pushed once the screen was quiet for ``quiet`` seconds, or ``cap``
  seconds after the first unpushed change even if it keeps changing; a push is ``stable``
  only when the quiet period was reached, and carries ``quiet_ms`` (time since the last
  change);
- ``wake_at`` says when to look again for a pending change (None: nothing pending).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PushDecision:
    stable: bool
    quiet_ms: int


class PushDebouncer:
    def __init__(self, quiet: float = 0.050, cap: float = 0.300) -> None:
        self.quiet = quiet
        self.cap = cap
        self._pushed: tuple[bytes, bool] | None = None
        self._seen: tuple[bytes, bool] | None = None
        self._last_change = 0.0
        self._pending_since: float | None = None

    def pushed(self, signature: bytes, animating: bool, now: float) -> None:
        """Record a push made outside ``observe`` (the initial tree)."""
        self._pushed = self._seen = (signature, animating)
        self._last_change = now
        self._pending_since = None

    def observe(self, now: float, signature: bytes, animating: bool) -> PushDecision | None:
        state = (signature, animating)
        if state != self._seen:
            self._seen = state
            self._last_change = now
            if self._pending_since is None:
                self._pending_since = now
        if state == self._pushed:
            self._pending_since = None
            return None
        quiet_for = max(0.0, now - self._last_change)
        pending_for = now - (self._pending_since if self._pending_since is not None else now)
        if animating or quiet_for >= self.quiet or pending_for >= self.cap:
            self._pushed = state
            self._pending_since = None
            stable = not animating and quiet_for >= self.quiet
            return PushDecision(stable=stable, quiet_ms=int(quiet_for * 1000))
        return None

    def wake_at(self) -> float | None:
        if self._pending_since is None:
            return None
        return min(self._last_change + self.quiet, self._pending_since + self.cap)
