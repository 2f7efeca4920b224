"""Where a device's log lines and screen recordings come from, per kind of device.

- a device whose device layer registered a ``DeviceMedia`` with the hub (the simulated
  device in process, Android through adb, an iPhone through pymobiledevice3, a Simulator
  through ``xcrun simctl``) uses its log source, crash reports and recorder (if any), its
  app manager for app install / uninstall / list when its agent offers none, and its app
  processes (an iPhone's DVT process control) for app launch / terminate when its agent does
  not announce ``app`` / ``terminate`` (an agent that announces them is always preferred);
- recording falls back to screenshots over the agent link at the asked frame rate, encoded
  on the hub (``bridge.hub.recording``), for every device that offers ``screenshot``.

A ``LogSource`` runs until cancelled and hands lines to ``emit`` as they come; it never
holds more than one batch. A ``Recorder`` writes an MP4 of at most ``max_bytes`` and returns
its bytes when ``stop`` is set or ``seconds`` have passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import anyio

from bridge.core.media import Recording
from bridge.wire.agent_link import InstalledApp
from bridge.wire.device_media import CrashReport, LogLine

Emit = Callable[[Sequence[LogLine]], None]


class LogSource(Protocol):
    name: str

    async def run(self, emit: Emit) -> None:
        """Hand lines written from now on to ``emit`` until cancelled."""
        ...


class Recorder(Protocol):
    name: str

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        """Record until ``stop`` is set or ``seconds`` passed; at most ``max_bytes``."""
        ...


class AppManager(Protocol):
    """Installs, removes and lists apps from the hub's side (an iPhone's installation proxy,
    ``simctl``), for devices whose agent cannot (the XCUITest runner)."""

    async def list_apps(self) -> Sequence[InstalledApp]: ...
    async def install(self, path: Path) -> str | None:
        """Install the package at ``path`` (the hub's file); the installed app's id if known."""
        ...

    async def uninstall(self, app_id: str) -> None: ...


class AppProcesses(Protocol):
    """Launches and terminates apps from the hub's side (an iPhone's DVT process control), for
    devices whose agent does not announce ``app`` / ``terminate``."""

    async def launch(self, app_id: str) -> int:
        """Start ``app_id`` afresh (an instance already running is stopped first); its pid.
        Raises ``bridge.core.media.AppNotInstalled`` when the device has no such app."""
        ...

    async def terminate(self, app_id: str) -> int:
        """Kill every process of ``app_id``; how many. Raises
        ``bridge.core.media.AppNotRunning`` when it has none."""
        ...


class DeviceMedia(Protocol):
    """A device layer's media access (registered by the driver that links the device)."""

    def log_source(self) -> LogSource | None: ...
    def recorder(self, fps: int) -> Recorder | None: ...
    async def crashes(self, app: str | None) -> Sequence[CrashReport]: ...
    def app_manager(self) -> AppManager | None: ...
    def processes(self) -> AppProcesses | None: ...
