"""The simulated device's media for the hub (its ``DeviceMedia``): its own log, read in
process, and its crash reports (it never crashes: none). Recording uses the hub's default,
the device's own frames (screenshots) encoded on the hub, unless ``recorder`` asks for the
device-side recorder a phone has (``bridge.devices.sim.recorder``: unmasked, like
``screenrecord``).

The simulated device runs in the hub's process, like its package stager, so the hub reads
its log directly instead of over the agent link (whose protocol the phone agents share).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import anyio

from bridge.devices.sim.device_log import DeviceLog
from bridge.devices.sim.mirror import SimFrames
from bridge.devices.sim.views import Scene
from bridge.wire.device_media import MAX_LOG_BATCH, CrashReport, LogLine

POLL_S = 0.05


class SimLogSource:
    name = "device"

    def __init__(self, log: DeviceLog) -> None:
        self.log = log

    async def run(self, emit: Callable[[Sequence[LogLine]], None]) -> None:
        """Hand lines written from now on to ``emit`` until cancelled."""
        after = self.log.seq
        while True:
            lines = self.log.after(after, MAX_LOG_BATCH)
            if lines:
                emit(lines)
                after = lines[-1].seq
            if len(lines) < MAX_LOG_BATCH:
                await anyio.sleep(POLL_S)


class SimMedia:
    def __init__(
        self, log: DeviceLog, scene: Callable[[], Scene] | None = None, recorder: bool = False
    ) -> None:
        self.log = log
        self.scene = scene
        self.device_recorder = recorder
        self.recorders: list[Any] = []
        """The device-side recorders made, the newest last (at most 4 kept; tests)."""

    def mirror_source(self, fps: int) -> SimFrames | None:
        """The live mirror from the device's own frames (``bridge.devices.sim.mirror``)."""
        return SimFrames(self.scene, fps) if self.scene is not None else None

    def log_source(self) -> SimLogSource:
        return SimLogSource(self.log)

    def recorder(self, fps: int) -> Any:
        if self.device_recorder and self.scene is not None:
            from bridge.devices.sim.recorder import SimScreenRecorder

            made = SimScreenRecorder(self.scene, fps)
            self.recorders = [*self.recorders[-3:], made]
            return made
        return None

    async def crashes(self, app: str | None) -> Sequence[CrashReport]:
        return ()

    def app_manager(self) -> None:
        """The agent installs and lists apps itself."""
        return None

    def processes(self) -> None:
        """The agent launches and terminates apps itself."""
        return None
