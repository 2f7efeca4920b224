"""Allocation: ``devices.acquire`` — lease any free device a selector accepts, or wait in
line for one.

Invariants:
- one FIFO queue per hub, at most ``MAX_WAITERS`` long (past it: RATE_LIMITED); every
  granting round walks it in arrival order, so an earlier waiter always gets first pick of
  what frees up (a later one may be served first only with a device the earlier one's
  selector refuses);
- rounds never overlap (one lock); one runs when a request arrives, when ``wake`` is called
  (a local lease ended, the farm heard a hub) and every ``TICK_S`` while anyone waits;
- a candidate is leased through the ordinary lease path — locally ``HubService.lease``,
  on another hub a forwarded ``lease.acquire`` that its owner decides — so a device two hubs
  both try goes to the first the owner sees, and the other tries its next candidate; in a
  farm, the queue is fair per hub and first-come at each owner;
- a selector no known device matches, on a hub alone (no farm) with at least one device, is
  refused at once (nothing it could wait for): the refusal names the devices there are. With
  no device yet (agents still connecting) or in a farm (hubs still joining) it waits;
- the lease belongs to the waiter's session: it ends with ``lease.release`` or when the
  session closes, like any lease. A waiter whose session closes leaves the queue.

Caller duty: ``HubService`` routes ``devices.acquire`` here and calls ``wake`` after a local
lease is released; the farm calls ``wake`` when it hears a hub.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from bridge.core.selector import describe, free, matches
from bridge.hub.errors import BadRequest, Refusal, refusal
from bridge.wire.acquire import AcquireResult, AcquireWaiter, DevicesAcquire
from bridge.wire.client_protocol import DeviceSummary
from bridge.wire.enums import ErrorCode, ProtocolErrorCode

if TYPE_CHECKING:
    from bridge.net.client_server import Session

MAX_WAITERS = 256
TICK_S = 0.5
RemoteLease = Callable[["Session", DeviceSummary, Any], Awaitable[str | None]]
"""Lease a device of another hub for the session: None when granted, else why not."""


@dataclass(eq=False)
class Waiter:
    session: Session
    request: DevicesAcquire
    since_ms: int
    result: AcquireResult | None = None
    done: anyio.Event = field(default_factory=anyio.Event)


class Allocator:
    def __init__(
        self,
        *,
        clock_ms: Callable[[], int],
        local: Callable[[], Sequence[DeviceSummary]],
        lease_local: Callable[[Session, str], str | None],
    ) -> None:
        self.clock_ms = clock_ms
        self.local = local
        self.lease_local = lease_local
        self.remote: Callable[[Session], Sequence[DeviceSummary]] | None = None
        self.lease_remote: RemoteLease | None = None
        self.queue: deque[Waiter] = deque()
        self.granted = 0
        self.timed_out = 0
        self._lock = anyio.Lock()
        self._changed = anyio.Event()

    def wake(self) -> None:
        """Something may have become free: run a round soon."""
        self._changed.set()

    async def acquire(self, session: Session, request: DevicesAcquire) -> AcquireResult:
        """The leased device, or raise (BadRequest: not allowed / queue full; Refusal:
        nothing became free within the timeout)."""
        if session.role != "controller":
            raise BadRequest(ProtocolErrorCode.FORBIDDEN, "observers never need a lease")
        if len(self.queue) >= MAX_WAITERS:
            raise BadRequest(
                ProtocolErrorCode.RATE_LIMITED,
                f"{MAX_WAITERS} clients already wait for a device on this hub; retry later",
            )
        waiter = Waiter(session, request, self.clock_ms())
        if (hopeless := self._hopeless(waiter)) is not None:
            raise hopeless
        self.queue.append(waiter)
        deadline = anyio.current_time() + request.timeout_ms / 1000
        try:
            await self._round()
            while not waiter.done.is_set():
                left = deadline - anyio.current_time()
                if left <= 0:
                    break
                changed = self._changed
                with anyio.move_on_after(min(left, TICK_S)):
                    await changed.wait()
                await self._round()
        finally:
            if waiter in self.queue:
                self.queue.remove(waiter)
        if waiter.result is not None:
            return waiter.result
        self.timed_out += 1
        raise self._none_free(waiter)

    def _hopeless(self, waiter: Waiter) -> Refusal | None:
        """The refusal for a selector nothing here could ever satisfy (module docstring)."""
        if self.remote is not None:
            return None
        devices = list(self.local())
        if not devices or any(matches(waiter.request.selector, d) for d in devices):
            return None
        there = ", ".join(f"{d.id} ({d.platform.value.lower()})" for d in devices[:8])
        return refusal(
            ErrorCode.POLICY_BLOCKED,
            f"no device of this hub matches {describe(waiter.request.selector)} (it has: "
            f"{there}); waiting would not help",
            (
                "list the devices and their tags: mobridge devices (devices.list)",
                "attach a matching device to this hub, or ask a hub that has one",
            ),
        )

    def _none_free(self, waiter: Waiter) -> Refusal:
        selector = describe(waiter.request.selector)
        known = [d for d in self._candidates(waiter.session) if matches(waiter.request.selector, d)]
        why = (
            f"{len(known)} device(s) match, none became free"
            if known
            else "no device of this hub" + (" or the farm" if self.remote else "") + " matches"
        )
        return refusal(
            ErrorCode.POLICY_BLOCKED,
            f"no free device for {selector} within {waiter.request.timeout_ms} ms: {why} "
            f"({len(self.queue)} other(s) waiting)",
            (
                "retry with a longer timeout (mobridge acquire --timeout, at most 10m; "
                "timeoutMs on the wire)",
                "list devices (devices.list) to see who holds the matching ones",
            ),
        )

    def _candidates(self, session: Session) -> list[DeviceSummary]:
        out = list(self.local())
        if self.remote is not None:
            out.extend(self.remote(session))
        return out

    async def _round(self) -> None:
        async with self._lock:
            self._changed = anyio.Event()
            for waiter in list(self.queue):
                if waiter.done.is_set() or waiter.session.closed:
                    continue
                for device in self._candidates(waiter.session):
                    if not (matches(waiter.request.selector, device) and free(device)):
                        continue
                    if await self._lease(waiter, device) is None:
                        self.granted += 1
                        waiter.result = AcquireResult(
                            device=device.id,
                            platform=device.platform,
                            owner=device.owner,
                            model=device.model,
                            os_version=device.os_version,
                            tags=device.tags,
                            waited_ms=max(0, self.clock_ms() - waiter.since_ms),
                        )
                        if waiter in self.queue:
                            self.queue.remove(waiter)
                        waiter.done.set()
                        break

    async def _lease(self, waiter: Waiter, device: DeviceSummary) -> str | None:
        local = {d.id for d in self.local()}
        if device.id in local:
            return self.lease_local(waiter.session, device.id)
        if self.lease_remote is None:
            return "not a device of this hub"
        return await self.lease_remote(waiter.session, device, waiter.request.id)

    def waiting(self) -> tuple[AcquireWaiter, ...]:
        now = self.clock_ms()
        return tuple(
            AcquireWaiter(
                client=w.session.client_name or w.session.id,
                selector=describe(w.request.selector),
                waited_ms=max(0, now - w.since_ms),
            )
            for w in self.queue
        )

    def statistics(self) -> dict[str, Any]:
        now = self.clock_ms()
        return {
            "waiting": [
                {
                    "session": w.session.id,
                    "client": w.session.client_name,
                    "selector": describe(w.request.selector),
                    "waited_ms": max(0, now - w.since_ms),
                }
                for w in self.queue
            ],
            "granted": self.granted,
            "timed_out": self.timed_out,
        }
