"""The fair device queue: dispatch is serialized, observation is not (without a lease).

Rules (one ``DeviceRuntime`` has one ``action_lock`` and one ``DispatchLog``):
- every action takes the device's ``action_lock`` (anyio's lock is FIFO: actions run in
  arrival order) for its checks and its dispatch, and notes the dispatch in the log;
- then, when nobody holds a lease on the device, it gives the lock up (``ActionSlot.
  release_for_observe``) before observing/verifying, so one controller's long verify (up
  to 60 s) never holds other controllers' actions; with a lease the lock is kept until the
  action is done, as before (the holder's actions stay strictly one after another);
- an action that observed without the lock asks the log which other sessions' actions
  were dispatched since its own (``DispatchLog.since``) and reports them with its result,
  so a verification is never silently confounded by someone else's action.

The log is bounded (``LOG_SIZE`` entries); an action that overlapped more than that many
others reports the newest ``LOG_SIZE`` and ``DispatchLog.since`` says how many were left out.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import Final

import anyio
import msgspec

from bridge.wire.action import ConcurrentAction, Evidence, Verification

LOG_SIZE: Final = 64


@dataclass(frozen=True, slots=True)
class Dispatched:
    seq: int
    session: str
    client: str
    verb: str
    action: str


class DispatchLog:
    """The device's last ``LOG_SIZE`` dispatches, numbered in order."""

    def __init__(self) -> None:
        self._entries: deque[Dispatched] = deque(maxlen=LOG_SIZE)
        self.seq = 0

    def note(self, session: str, client: str, verb: str, action: str) -> int:
        """Record a dispatch; returns its number (the mark for ``since``)."""
        self.seq += 1
        self._entries.append(Dispatched(self.seq, session, client, verb, action))
        return self.seq

    def since(self, mark: int, session: str) -> tuple[tuple[Dispatched, ...], int]:
        """Other sessions' dispatches after ``mark``, oldest first, and how many of them the
        bounded log no longer holds."""
        found = tuple(e for e in self._entries if e.seq > mark and e.session != session)
        oldest = self._entries[0].seq if self._entries else self.seq + 1
        return found, max(0, oldest - (mark + 1))


class ActionSlot:
    """``async with ActionSlot(device.action_lock) as slot``: holds the lock from entry until
    ``release_for_observe`` (when there is no lease) or the block's end."""

    def __init__(self, lock: anyio.Lock) -> None:
        self._lock = lock
        self.held = False

    async def __aenter__(self) -> ActionSlot:
        await self._lock.acquire()
        self.held = True
        return self

    def release_for_observe(self, leased: bool) -> None:
        """Give the lock up before observing unless the device is ``leased``."""
        if self.held and not leased:
            self.held = False
            self._lock.release()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.held:
            self.held = False
            self._lock.release()


def with_concurrent(
    verification: Verification | None, log: DispatchLog, mark: int, session: str
) -> Verification | None:
    """``verification`` with one ``concurrent`` evidence per other session's action the log
    holds since ``mark`` (unchanged when there was none, or no verification)."""
    if verification is None:
        return None
    found, lost = log.since(mark, session)
    if not found and not lost:
        return verification
    extra = [
        Evidence(
            what=f"another client's action ran during this verification: {e.client} "
            f"{e.verb} {e.action}",
            concurrent=ConcurrentAction(
                session=e.session, client=e.client, verb=e.verb, action=e.action
            ),
        )
        for e in found
    ]
    if lost:
        extra.insert(0, Evidence(what=f"{lost} more actions ran during this verification"))
    return msgspec.structs.replace(verification, evidence=(*verification.evidence, *extra))
