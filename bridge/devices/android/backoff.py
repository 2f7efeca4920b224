"""Restart delays for the Android driver: exponential, capped, reset after a healthy run.

Invariants: the first delay is ``initial``; each next one is the previous times ``factor``;
no delay exceeds ``cap``; ``reset`` starts over at ``initial``. Pure: the caller sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Backoff:
    initial: float = 1.0
    cap: float = 30.0
    factor: float = 2.0
    _next: float = field(init=False)

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.cap < self.initial or self.factor < 1:
            raise ValueError("backoff needs 0 < initial <= cap and factor >= 1")
        self._next = self.initial

    def next_delay(self) -> float:
        delay = self._next
        self._next = min(self.cap, self._next * self.factor)
        return delay

    def reset(self) -> None:
        self._next = self.initial
