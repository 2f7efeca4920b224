"""``snapshot.get`` with ``fresh``: a capture the agent makes now, not the newest one held.

The hub sends the agent a ``capture`` command, feeds the reply's tree to the device's normal
ingest (as a push with reason ``capture``: masking, caps, generations and subscribers' deltas
all happen as for any push) and answers once the device's current capture is that tree or a
newer one. Invariants: at most one such capture is in flight per device (concurrent callers
share it, so a client looping ``fresh`` costs the agent one capture at a time); the whole wait
is bounded by ``FRESH_TIMEOUT_S``; a device without a link, or offline, is refused at once.
"""

from __future__ import annotations

import weakref

import anyio

from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.errors import offline, refusal
from bridge.net.agent_link import AgentLost, CaptureFailed
from bridge.wire.enums import ErrorCode

FRESH_TIMEOUT_S = 10.0


class _Flight:
    """One capture in flight: its waiters read ``capture_no`` (or ``error``) once ``done``."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.capture_no: int | None = None
        self.error: Exception | None = None


_flights: weakref.WeakKeyDictionary[DeviceRuntime, _Flight] = weakref.WeakKeyDictionary()


async def fresh_capture(device: DeviceRuntime, timeout_s: float = FRESH_TIMEOUT_S) -> Capture:
    """The device's capture made of a tree its agent captured after this call (or a newer one).
    Raises the hub's ``Refusal`` (DEVICE_OFFLINE when there is no link or it dropped,
    ACTION_REJECTED when the agent could not capture or the tree never became current)."""
    link = device.link
    if link is None or not device.online:
        raise offline(device.id, device.offline_reason)
    flight = _flights.get(device)
    if flight is None:
        flight = _Flight()
        _flights[device] = flight
        try:
            tree = await link.capture_now(stable=device.agent_stable, timeout_s=timeout_s)
            flight.capture_no = tree.capture
        except (AgentLost, TimeoutError, CaptureFailed) as exc:
            flight.error = exc
        finally:
            if _flights.get(device) is flight:
                del _flights[device]
            flight.done.set()
    else:
        with anyio.move_on_after(timeout_s):
            await flight.done.wait()
    if isinstance(flight.error, AgentLost):
        raise offline(device.id, str(flight.error))
    if flight.error is not None or flight.capture_no is None:
        raise refusal(
            ErrorCode.ACTION_REJECTED,
            f"device {device.id} did not capture: {flight.error or 'no answer in time'}",
            ("retry", "read the newest snapshot without fresh"),
        )
    wanted = flight.capture_no
    with anyio.move_on_after(timeout_s):
        while True:
            changed = device.changed
            current = device.current
            if current is not None and current.capture_no >= wanted:
                return current
            await changed.wait()
    raise refusal(
        ErrorCode.ACTION_REJECTED,
        f"device {device.id}: the requested capture was not ingested within {timeout_s:g} s",
        ("retry", "check the device's health: mobridge devices"),
    )
