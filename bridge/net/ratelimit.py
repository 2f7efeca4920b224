"""A token bucket per connection (time passed in by the caller)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TokenBucket:
    rate_per_s: float
    burst: float
    tokens: float = -1.0
    last_s: float = 0.0

    def allow(self, now_s: float) -> bool:
        if self.tokens < 0:
            self.tokens, self.last_s = self.burst, now_s
        self.tokens = min(self.burst, self.tokens + (now_s - self.last_s) * self.rate_per_s)
        self.last_s = now_s
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
