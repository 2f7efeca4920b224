"""Who may act on a device: the lease book (pure; times are passed in as milliseconds).

Rules (tested in tests/core/test_leases.py):
- no lease held: any controller may act (observers never act, and never need a lease);
- ``exclusive``: one session holds it; others are blocked (POLICY_BLOCKED naming the holder
  and how long it has been idle) unless the lease has been idle for ``takeover_after_ms``,
  in which case a new ``acquire`` takes it over;
- ``shared``: several sessions hold it together; an exclusive request is blocked while other
  sessions share it (same takeover rule on the most recent activity);
- priorities: each holder has the priority of its client's declared kind (the caller maps
  kinds to numbers); an ``acquire`` whose priority is above every other holder's takes the
  lease at once (``preempted``, the previous holders named) — a person over a script over an
  agent. Equal or lower priority follows the rules above;
- ``touch`` records activity (every action by a holder); ``release`` and ``drop_session``
  (disconnect) free it. Actions are serialized per device elsewhere (the hub's FIFO lock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["exclusive", "shared"]
DEFAULT_TAKEOVER_MS = 5 * 60 * 1000


@dataclass
class Lease:
    mode: Mode
    holders: dict[str, str] = field(default_factory=dict)
    """session id -> client name, in acquisition order."""
    last_active_ms: int = 0
    priorities: dict[str, int] = field(default_factory=dict)
    """session id -> its priority (absent: 0)."""

    def idle_ms(self, now_ms: int) -> int:
        return max(0, now_ms - self.last_active_ms)


@dataclass(frozen=True, slots=True)
class Granted:
    lease: Lease
    change: str
    """acquired, joined, renewed or taken_over."""
    previous_holders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Blocked:
    holder_names: tuple[str, ...]
    idle_ms: int
    takeover_in_ms: int

    def message(self) -> str:
        who = ", ".join(self.holder_names) or "another session"
        return (
            f"the device is leased by {who}, idle for {self.idle_ms} ms; "
            f"takeover possible in {self.takeover_in_ms} ms"
        )


@dataclass
class LeaseBook:
    """The lease state of ONE device."""

    takeover_after_ms: int = DEFAULT_TAKEOVER_MS
    lease: Lease | None = None

    def acquire(
        self, session: str, client: str, mode: Mode, now_ms: int, priority: int = 0
    ) -> Granted | Blocked:
        lease = self.lease
        mine = {session: priority}
        if lease is None or not lease.holders:
            self.lease = Lease(mode, {session: client}, now_ms, mine)
            return Granted(self.lease, "acquired")
        others = tuple(s for s in lease.holders if s != session)
        if not others:
            lease.mode = mode
            lease.last_active_ms = now_ms
            lease.priorities[session] = priority
            return Granted(lease, "renewed")
        if priority > max(lease.priorities.get(s, 0) for s in others):
            self.lease = Lease(mode, {session: client}, now_ms, mine)
            return Granted(self.lease, "preempted", others)
        if lease.mode == "shared" and mode == "shared":
            lease.holders[session] = client
            lease.priorities[session] = priority
            lease.last_active_ms = now_ms
            return Granted(lease, "joined")
        idle = lease.idle_ms(now_ms)
        if idle >= self.takeover_after_ms:
            previous = tuple(lease.holders)
            self.lease = Lease(mode, {session: client}, now_ms, mine)
            return Granted(self.lease, "taken_over", previous)
        return Blocked(tuple(lease.holders[s] for s in others), idle, self.takeover_after_ms - idle)

    def may_act(self, session: str, now_ms: int) -> Blocked | None:
        """None when ``session`` may act now; the reason otherwise."""
        lease = self.lease
        if lease is None or not lease.holders or session in lease.holders:
            return None
        if lease.mode == "shared":
            return Blocked(
                tuple(lease.holders.values()),
                lease.idle_ms(now_ms),
                max(0, self.takeover_after_ms - lease.idle_ms(now_ms)),
            )
        idle = lease.idle_ms(now_ms)
        return Blocked(tuple(lease.holders.values()), idle, max(0, self.takeover_after_ms - idle))

    def touch(self, session: str, now_ms: int) -> None:
        if self.lease is not None and session in self.lease.holders:
            self.lease.last_active_ms = now_ms

    def release(self, session: str) -> bool:
        """True when ``session`` held the lease (and no longer does)."""
        lease = self.lease
        if lease is None or session not in lease.holders:
            return False
        del lease.holders[session]
        lease.priorities.pop(session, None)
        if not lease.holders:
            self.lease = None
        return True

    drop_session = release
