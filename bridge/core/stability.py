"""StabilityTracker: is the screen settled? Fed observations, asked at a given time.

Rules (times are milliseconds passed in by the caller; nothing here reads a clock):
- before any observation the state is UNKNOWN and ``stable_since_ms`` is None;
- an observation whose ``(tree_hash, layout_hash)`` differs from the previous one is a change:
  the screen has been settled since that observation's time at the earliest;
- an observation the agent itself flags unsettled (``agent_stable=False``: it saw events during
  its quiet period) keeps the state TRANSITIONING and ``stable_since_ms`` None until the next
  settled observation, which starts the quiet window afresh at its own time;
- ``state(now)`` is STABLE when ``now - stable_since_ms >= stable_for_ms``, else TRANSITIONING.

Observation times never go backwards: an observation older than the previous one is counted
at the previous one's time (a late delivery cannot make the screen look settled longer).
"""

from __future__ import annotations

from bridge.wire.enums import Stability


class StabilityTracker:
    """Tracks one device's screen. Not thread-safe; one per device (or per action wait)."""

    __slots__ = ("_hashes", "_last_at", "_since", "observations", "stable_for_ms")

    def __init__(self, stable_for_ms: int) -> None:
        if stable_for_ms < 0:
            raise ValueError("stable_for_ms must be >= 0")
        self.stable_for_ms = stable_for_ms
        self.observations = 0
        self._hashes: tuple[str, str] | None = None
        self._last_at: int | None = None
        self._since: int | None = None

    def observe(
        self, tree_hash: str, layout_hash: str, at_ms: int, *, agent_stable: bool = True
    ) -> bool:
        """Record a capture seen at ``at_ms``. Returns True when it changed the screen's
        hashes (the first observation counts as a change)."""
        at = at_ms if self._last_at is None else max(at_ms, self._last_at)
        hashes = (tree_hash, layout_hash)
        changed = hashes != self._hashes
        self._hashes = hashes
        self._last_at = at
        self.observations += 1
        if not agent_stable:
            self._since = None
        elif changed or self._since is None:
            self._since = at
        return changed

    @property
    def stable_since_ms(self) -> int | None:
        """Time of the last change (or of the first settled observation after the agent said
        unsettled); None before any observation and while the agent reports unsettled."""
        return self._since

    @property
    def stable_at_ms(self) -> int | None:
        """When the screen becomes STABLE if nothing changes meanwhile (None: not foreseeable)."""
        return None if self._since is None else self._since + self.stable_for_ms

    @property
    def last_observed_ms(self) -> int | None:
        return self._last_at

    def state(self, now_ms: int) -> Stability:
        if self._last_at is None:
            return Stability.UNKNOWN
        if self._since is None:
            return Stability.TRANSITIONING
        if now_ms - self._since >= self.stable_for_ms:
            return Stability.STABLE
        return Stability.TRANSITIONING
