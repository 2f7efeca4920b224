"""A live mirror whose frames the device encodes (Android's ``screenrecord``) passes them
through untouched, so the hub cannot paint a secret black in them. ``SecretSwitch`` runs that
source only while the screen shows no secret (``MirrorSink.mask_plan`` clear) and the hub's
own encoding of the agent's screenshots, masked (``bridge.hub.mirror_shots``), while it does.

Rules:

- a unit the device's encoder hands over while the plan is not clear is dropped, and the
  device's source is stopped at once (its later frames would refer to the dropped one);
- while the plan is not clear the fallback runs (its first frame is a key frame, and viewers
  get the new config with it); with no fallback (no ``screenshot`` capability) nothing is
  sent: viewers keep the last picture;
- once the plan is clear again the device's source starts again (``screenrecord``'s first
  unit is a key frame with its SPS and PPS).

The plan is looked at every ``POLL_S`` and at each unit, so a secret appears in no frame the
hub knows of; what no capture has shown yet (a field holding a secret scrolled back into view
before the agent's next tree) is outside what the hub can know (docs/design.md).
"""

from __future__ import annotations

from typing import Any, Final

import anyio

from bridge.core.h264 import AccessUnit, MirrorSink
from bridge.core.pixel_mask import MaskPlan

POLL_S: Final = 0.05


class _Filter:
    """The sink the device's source writes to: passes units while the plan is clear."""

    def __init__(self, sink: MirrorSink, stop: anyio.CancelScope) -> None:
        self.sink = sink
        self.stop = stop
        self.dropped = 0

    def emit(self, unit: AccessUnit, at_ms: int, width: int, height: int) -> None:
        if self.stop.cancel_called or not self.sink.mask_plan().clear:
            self.dropped += 1
            self.stop.cancel()
            return
        self.sink.emit(unit, at_ms, width, height)

    def key_wanted(self) -> bool:
        return self.sink.key_wanted()

    def mask_plan(self) -> MaskPlan:
        return self.sink.mask_plan()


class SecretSwitch:
    """``primary`` (passes the device's encoding through) while no secret shows, else
    ``fallback`` (encodes on the hub, masked) or nothing (module rules)."""

    def __init__(self, primary: Any, fallback: Any | None) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name
        self.showing = primary.name
        """The source whose frames go out now (the viewers' ``mirror.config`` says it)."""
        self.switches = 0
        self.dropped = 0

    async def run(self, sink: MirrorSink) -> None:
        while True:
            if sink.mask_plan().clear:
                await self._primary(sink)
            else:
                self.switches += 1
                await self._masked(sink)

    async def _primary(self, sink: MirrorSink) -> None:
        self.showing = self.primary.name
        with anyio.CancelScope() as scope:
            relay = _Filter(sink, scope)
            async with anyio.create_task_group() as tg:

                async def watch() -> None:
                    await _until(sink, clear=False)
                    scope.cancel()

                tg.start_soon(watch)
                await self.primary.run(relay)
                scope.cancel()
        self.dropped += relay.dropped

    async def _masked(self, sink: MirrorSink) -> None:
        if self.fallback is not None:
            self.showing = self.fallback.name
        async with anyio.create_task_group() as tg:
            if self.fallback is not None:
                tg.start_soon(self.fallback.run, sink)
            await _until(sink, clear=True)
            tg.cancel_scope.cancel()


async def _until(sink: MirrorSink, *, clear: bool) -> None:
    """Return once the plan is (``clear``) or is not clear; polled every ``POLL_S`` (a plan
    follows captures and typing, which have no one event to wait on)."""
    while True:
        if sink.mask_plan().clear is clear:
            return
        await anyio.sleep(POLL_S)
