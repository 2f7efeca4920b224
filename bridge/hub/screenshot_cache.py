"""ScreenshotCache: one device screenshot per screen generation, shared by every viewer.

Rules:
- a ``screenshot`` request for a device is answered from the picture of the device's current
  generation when one is kept (and its capture is still in the ``CaptureStore``): no device
  screenshot, the same capture id, no second journal entry;
- at most one device screenshot per device is in flight (single-flight): a request that
  arrives while one is taken for the generation it wants waits for it and shares it; one
  that wants a newer generation waits, then looks again (so one device never takes two at
  once);
- a picture is kept under a generation only when the device showed that generation both
  when the screenshot was asked for and when it arrived (otherwise the screen changed while
  it was taken and it belongs to no one generation: the callers get it, the cache does not);
- ``fresh`` skips the lookup (it still waits its turn behind a screenshot in flight) and
  replaces the kept picture; each session may ask ``FRESH_BURST`` at once and
  ``FRESH_PER_S`` a second after that; past it the request is refused RATE_LIMITED;
- at most ``KEPT_GENERATIONS`` pictures are remembered per device (the bytes live in the
  ``CaptureStore``, which bounds them).

Waiting is cancellable per caller (``cancel``) without stopping the shared screenshot: the
screenshot runs in a task of its own (``spawn``, set by the composition root), never in the
task of the request that started it. Counts are in ``statistics`` (``/v1/stats`` ``pictures``).
"""

from __future__ import annotations

import dataclasses
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import anyio

from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest
from bridge.net.ratelimit import TokenBucket
from bridge.wire.enums import ProtocolErrorCode

KEPT_GENERATIONS: Final = 8
FRESH_BURST: Final = 3
FRESH_PER_S: Final = 1.0
MAX_FRESH_SESSIONS: Final = 4096


@dataclass(frozen=True)
class Shot:
    """One device screenshot kept by the hub: its capture id, size, and the generation it
    belongs to (None: the screen changed while it was taken)."""

    capture: str
    width: int
    height: int
    size: int
    generation: int | None


Take = Callable[[DeviceRuntime], Awaitable[Shot]]
"""Takes one device screenshot, stores it and journals it; raises the hub's refusals."""


@dataclass(eq=False)
class _Flight:
    generation: int | None
    done: anyio.Event = field(default_factory=anyio.Event)
    shot: Shot | None = None
    error: BaseException | None = None


@dataclass
class PictureCounts:
    requests: int = 0
    device_screenshots: int = 0
    shared: int = 0
    """Requests answered by another request's device screenshot (kept or in flight)."""
    fresh: int = 0
    fresh_refused: int = 0
    failed: int = 0


class ScreenshotCache:
    def __init__(
        self,
        take: Take,
        has_capture: Callable[[str], bool],
        *,
        fresh_burst: float = FRESH_BURST,
        fresh_per_s: float = FRESH_PER_S,
    ) -> None:
        self._take = take
        self._has = has_capture
        self.fresh_burst = fresh_burst
        self.fresh_per_s = fresh_per_s
        self._kept: dict[str, OrderedDict[int, Shot]] = {}
        self._flights: dict[str, _Flight] = {}
        self._fresh: OrderedDict[str, TokenBucket] = OrderedDict()
        self.counts = PictureCounts()
        self.spawn: Callable[..., Any] | None = None
        """Starts a task in the hub's task group (the composition root sets it); without it a
        screenshot runs shielded in the task of the request that started it."""

    def kept(self, device: str, generation: int) -> Shot | None:
        """The picture kept for ``generation`` of ``device`` whose capture is still stored."""
        shot = self._kept.get(device, OrderedDict()).get(generation)
        return shot if shot is not None and self._has(shot.capture) else None

    async def screenshot(
        self, device: DeviceRuntime, *, fresh: bool = False, session: str | None = None
    ) -> tuple[Shot, bool]:
        """The picture of ``device``'s current screen and whether it was shared (module
        rules). Raises what ``take`` raises, and BadRequest RATE_LIMITED for a ``fresh``
        past the session's bound."""
        self.counts.requests += 1
        if fresh:
            self._allow_fresh(session)
            self.counts.fresh += 1
        while True:
            wanted = device.current.generation if device.current is not None else None
            if not fresh and wanted is not None:
                hit = self.kept(device.id, wanted)
                if hit is not None:
                    self.counts.shared += 1
                    return hit, True
            flight = self._flights.get(device.id)
            if flight is None:
                return await self._start(device, wanted), False
            await flight.done.wait()
            if not fresh and flight.generation == wanted:
                if flight.error is not None:
                    raise flight.error
                assert flight.shot is not None
                self.counts.shared += 1
                return flight.shot, True

    async def _start(self, device: DeviceRuntime, wanted: int | None) -> Shot:
        flight = _Flight(wanted)
        self._flights[device.id] = flight
        if self.spawn is not None:
            self.spawn(self._fly, device, flight)
        else:
            with anyio.CancelScope(shield=True):
                await self._fly(device, flight)
        await flight.done.wait()
        if flight.error is not None:
            raise flight.error
        assert flight.shot is not None
        return flight.shot

    async def _fly(self, device: DeviceRuntime, flight: _Flight) -> None:
        try:
            self.counts.device_screenshots += 1
            shot = await self._take(device)
            after = device.current.generation if device.current is not None else None
            if flight.generation is not None and after == flight.generation:
                shot = dataclasses.replace(shot, generation=flight.generation)
                kept = self._kept.setdefault(device.id, OrderedDict())
                kept[flight.generation] = shot
                kept.move_to_end(flight.generation)
                while len(kept) > KEPT_GENERATIONS:
                    kept.popitem(last=False)
            else:
                shot = dataclasses.replace(shot, generation=None)
            flight.shot = shot
        except Exception as exc:  # every waiter gets the refusal, the hub goes on
            self.counts.failed += 1
            flight.error = exc
        finally:
            if self._flights.get(device.id) is flight:
                del self._flights[device.id]
            flight.done.set()

    def _allow_fresh(self, session: str | None) -> None:
        key = session or ""
        bucket = self._fresh.get(key)
        if bucket is None:
            bucket = TokenBucket(self.fresh_per_s, self.fresh_burst)
            self._fresh[key] = bucket
            while len(self._fresh) > MAX_FRESH_SESSIONS:
                self._fresh.popitem(last=False)
        if not bucket.allow(time.monotonic()):
            self.counts.fresh_refused += 1
            raise BadRequest(
                ProtocolErrorCode.RATE_LIMITED,
                f"at most {self.fresh_burst:g} fresh screenshots at once and "
                f"{self.fresh_per_s:g} a second per session; ask without fresh to share the "
                "picture of the current screen",
            )

    def drop_session(self, session: str) -> None:
        self._fresh.pop(session, None)

    def statistics(self) -> dict[str, Any]:
        return {
            **vars(self.counts),
            "kept": sum(len(k) for k in self._kept.values()),
            "in_flight": len(self._flights),
        }
