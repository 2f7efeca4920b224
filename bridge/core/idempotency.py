"""Idempotency keys: a retry with the same key inside the window gets the first outcome.

Pure bookkeeping; the hub stores an awaitable per key so a retry arriving while the first
attempt runs waits for it instead of executing twice. Entries expire ``window_ms`` after
they were started; the table is capped (oldest evicted first).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
DEFAULT_WINDOW_MS = 10 * 60 * 1000


@dataclass
class IdempotencyTable(Generic[T]):
    window_ms: int = DEFAULT_WINDOW_MS
    capacity: int = 4096
    entries: OrderedDict[tuple[str, str], tuple[int, T]] = field(default_factory=OrderedDict)

    def get(self, scope: str, key: str, now_ms: int) -> T | None:
        self._expire(now_ms)
        hit = self.entries.get((scope, key))
        return hit[1] if hit is not None else None

    def put(self, scope: str, key: str, value: T, now_ms: int) -> None:
        self._expire(now_ms)
        self.entries[(scope, key)] = (now_ms, value)
        while len(self.entries) > self.capacity:
            self.entries.popitem(last=False)

    def forget(self, scope: str, key: str) -> None:
        """Drop ``key`` (its first attempt never started, so a retry may run it)."""
        self.entries.pop((scope, key), None)

    def _expire(self, now_ms: int) -> None:
        while self.entries:
            first = next(iter(self.entries))
            if now_ms - self.entries[first][0] < self.window_ms:
                break
            del self.entries[first]
