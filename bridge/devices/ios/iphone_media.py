"""An iPhone's log, crash reports and screen recording for the hub, through pymobiledevice3
(the hub's ``DeviceMedia`` for ``--ios UDID``; the ``ios`` extra).

Exactly these calls (pymobiledevice3 >= 8, all async; checked against the installed release by
tests/devices/test_ios_media_surface.py):

- ``lockdown.create_using_usbmux(serial=udid)`` -> a lockdown provider (``product_version``,
  ``close()``); iOS 17 and later reach DVT through ``tunneld.api.get_tunneld_device_by_udid``;
- log: ``OsTraceService(lockdown=provider).syslog()`` -> async iterator of ``SyslogEntry``
  (``pid``, ``level`` a ``SyslogLogLevel`` NOTICE/INFO/DEBUG/USER_ACTION/ERROR/FAULT,
  ``image_name``, ``message``, ``label`` with ``subsystem`` / ``category``);
- crash reports: ``CrashReportsManager(provider).ls(path, depth)`` -> names (``.ips``);
- recording: ``DvtProvider(provider)`` and ``Screenshot(dvt)``, both async context managers,
  ``Screenshot.get_screenshot()`` -> PNG bytes, taken at the asked frame rate and encoded to
  H.264 on the hub (``bridge.core.mp4_encoder``, in a worker thread);
- apps: ``InstallationProxyService(lockdown=provider)`` with ``install_from_local(package_path)``,
  ``uninstall(bundle_identifier)`` and ``get_apps(bundle_identifiers=[...])`` -> a dict keyed
  by bundle id;
- launch / terminate: ``ProcessControl(dvt)`` and ``DeviceInfo(dvt)`` (async context managers
  on a ``DvtProvider``), ``ProcessControl.launch(bundle_id, kill_existing=True)`` -> the new
  pid, ``DeviceInfo.proclist()`` -> dicts with ``pid`` and (for apps) ``bundleIdentifier``,
  ``ProcessControl.kill(pid)`` (SIGKILL, answered by the device before the channel closes).
  A DVT failure (``DTXNsError``, ``DTXProtocolError``, the ``AssertionError`` of a launch the
  device answered with pid 0) becomes an OSError naming the app.

Every provider this module opens is closed when its use ends.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from bridge.core.media import AppNotInstalled, AppNotRunning, Recording
from bridge.devices.ios.config import RUNNER_BUNDLE_ID
from bridge.devices.ios.plan import TUNNEL_FROM, major_version
from bridge.devices.ios.pmd3 import IosSetupError
from bridge.wire.agent_link import MAX_APPS, InstalledApp
from bridge.wire.device_media import MAX_LOG_TEXT, CrashReport, LogLevel, LogLine

LEVELS: dict[str, LogLevel] = {
    "NOTICE": "info",
    "INFO": "info",
    "DEBUG": "debug",
    "USER_ACTION": "info",
    "ERROR": "error",
    "FAULT": "fatal",
}
MAX_CRASHES = 64


@dataclass(frozen=True)
class MediaCalls:
    create_using_usbmux: Callable[..., Any]
    get_tunneld_device_by_udid: Callable[[str], Any]
    os_trace_service: Any
    crash_reports_manager: Any
    dvt_provider: Any
    screenshot: Any
    installation_proxy: Any
    process_control: Any
    device_info: Any
    dvt_errors: tuple[type[BaseException], ...]


def load_media_calls() -> MediaCalls:
    """The real calls; IosSetupError naming the extra when pymobiledevice3 is missing."""
    try:
        lockdown = importlib.import_module("pymobiledevice3.lockdown")
        tunneld = importlib.import_module("pymobiledevice3.tunneld.api")
        os_trace = importlib.import_module("pymobiledevice3.services.os_trace")
        crashes = importlib.import_module("pymobiledevice3.services.crash_reports")
        dvt = importlib.import_module("pymobiledevice3.services.dvt.instruments.dvt_provider")
        shot = importlib.import_module("pymobiledevice3.services.dvt.instruments.screenshot")
        proxy = importlib.import_module("pymobiledevice3.services.installation_proxy")
        control = importlib.import_module(
            "pymobiledevice3.services.dvt.instruments.process_control"
        )
        info = importlib.import_module("pymobiledevice3.services.dvt.instruments.device_info")
        dtx = importlib.import_module("pymobiledevice3.dtx.exceptions")
    except ImportError as error:
        raise IosSetupError(
            f"pymobiledevice3 is not installed ({error}): pip install 'mobridge[ios]'"
        ) from error
    return MediaCalls(
        create_using_usbmux=lockdown.create_using_usbmux,
        get_tunneld_device_by_udid=tunneld.get_tunneld_device_by_udid,
        os_trace_service=os_trace.OsTraceService,
        crash_reports_manager=crashes.CrashReportsManager,
        dvt_provider=dvt.DvtProvider,
        screenshot=shot.Screenshot,
        installation_proxy=proxy.InstallationProxyService,
        process_control=control.ProcessControl,
        device_info=info.DeviceInfo,
        dvt_errors=(dtx.DTXNsError, dtx.DTXProtocolError, AssertionError),
    )


def syslog_line(entry: Any, seq: int) -> LogLine:
    label = getattr(entry, "label", None)
    tag = (label.subsystem or label.category) if label is not None else None
    image = str(getattr(entry, "image_name", "") or "")
    level = getattr(getattr(entry, "level", None), "name", "INFO")
    pid = getattr(entry, "pid", None)
    return LogLine(
        seq=seq,
        level=LEVELS.get(level, "info"),
        text=str(entry.message)[:MAX_LOG_TEXT],
        tag=str(tag)[:128] if tag else None,
        app=image.rsplit("/", 1)[-1][:255] or None,
        pid=pid if isinstance(pid, int) and pid >= 0 else None,
    )


class IphoneMedia:
    """The hub's ``DeviceMedia`` for one iPhone (module docstring)."""

    def __init__(self, udid: str, calls: Callable[[], MediaCalls] = load_media_calls) -> None:
        self.udid = udid
        self._calls = calls
        self.loaded: MediaCalls | None = None

    def calls(self) -> MediaCalls:
        if self.loaded is None:
            self.loaded = self._calls()
        return self.loaded

    async def lockdown(self) -> Any:
        return await self.calls().create_using_usbmux(serial=self.udid)

    async def dvt_lockdown(self) -> Any:
        """The provider DVT runs over (lockdown below iOS 17, tunneld's RSD from 17); the
        caller closes it."""
        lockdown = await self.lockdown()
        if major_version(str(lockdown.product_version)) < TUNNEL_FROM:
            return lockdown
        await lockdown.close()
        rsd = await self.calls().get_tunneld_device_by_udid(self.udid)
        if rsd is None:
            raise OSError(f"tunneld has no tunnel to {self.udid}: start it (docs/ios.md)")
        return rsd

    def log_source(self) -> SyslogSource:
        return SyslogSource(self)

    def recorder(self, fps: int) -> DvtRecorder:
        return DvtRecorder(self, fps)

    def app_manager(self) -> IphoneApps:
        return IphoneApps(self)

    def processes(self) -> IphoneProcesses:
        return IphoneProcesses(self)

    async def crashes(self, app: str | None) -> Sequence[CrashReport]:
        provider = await self.lockdown()
        try:
            names = await self.calls().crash_reports_manager(provider).ls("/", 1)
        finally:
            await provider.close()
        reports = [
            CrashReport(name=str(name).rsplit("/", 1)[-1][:255], app=_app_of(str(name)))
            for name in names
            if str(name).endswith(".ips")
        ]
        chosen = [r for r in reports if app is None or r.app == app.rsplit(".", 1)[-1]]
        return sorted(chosen, key=lambda r: r.name, reverse=True)[:MAX_CRASHES]


def _app_of(name: str) -> str | None:
    base = name.rsplit("/", 1)[-1]
    return base.split("-", 1)[0] or None


class SyslogSource:
    name = "syslog"

    def __init__(self, media: IphoneMedia) -> None:
        self.media = media

    async def run(self, emit: Callable[[Sequence[LogLine]], None]) -> None:
        provider = await self.media.lockdown()
        try:
            service = self.media.calls().os_trace_service(lockdown=provider)
            seq = 1
            async for entry in service.syslog():
                emit([syslog_line(entry, seq)])
                seq += 1
        finally:
            with anyio.CancelScope(shield=True):
                await provider.close()


class DvtRecorder:
    name = "dvt-screenshots"

    def __init__(self, media: IphoneMedia, fps: int) -> None:
        self.media = media
        self.fps = fps

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        from bridge.core.mp4_encoder import Mp4Encoder  # PyAV: the media extra, on use

        calls = self.media.calls()
        encoder = Mp4Encoder(self.fps)
        provider = await self.media.dvt_lockdown()
        started = anyio.current_time()
        reason: str | None = None
        truncated = False
        try:
            async with calls.dvt_provider(provider) as dvt, calls.screenshot(dvt) as shot:
                due = started
                while not stop.is_set() and anyio.current_time() - started < seconds:
                    png = await shot.get_screenshot()
                    at_ms = int((anyio.current_time() - started) * 1000)
                    await anyio.to_thread.run_sync(encoder.add_png, bytes(png), at_ms)
                    if encoder.size >= max_bytes:
                        truncated, reason = True, f"the recording reached its cap of {max_bytes}"
                        break
                    due += 1 / self.fps
                    wait = due - anyio.current_time()
                    if wait > 0:
                        with anyio.move_on_after(wait):
                            await stop.wait()
                    else:
                        due = anyio.current_time()
        finally:
            with anyio.CancelScope(shield=True):
                await provider.close()
        elapsed = int((anyio.current_time() - started) * 1000)
        data = await anyio.to_thread.run_sync(encoder.finish)
        return Recording(
            data, encoder.frames, encoder.width, encoder.height, elapsed, truncated, reason
        )


class IphoneApps:
    """The installation proxy: ``install_from_local(path)`` (blocking in this release: run in a
    worker thread), ``uninstall(bundle_id)`` and ``get_apps()`` (async)."""

    def __init__(self, media: IphoneMedia) -> None:
        self.media = media

    async def install(self, path: Path) -> str | None:
        provider = await self.media.lockdown()
        try:
            proxy = self.media.calls().installation_proxy(lockdown=provider)
            if inspect.iscoroutinefunction(proxy.install_from_local):
                await proxy.install_from_local(str(path))
            else:  # blocking in this release
                await anyio.to_thread.run_sync(proxy.install_from_local, str(path))
        finally:
            await provider.close()
        return None

    async def uninstall(self, app_id: str) -> None:
        provider = await self.media.lockdown()
        try:
            await self.media.calls().installation_proxy(lockdown=provider).uninstall(app_id)
        finally:
            await provider.close()

    async def list_apps(self) -> list[InstalledApp]:
        provider = await self.media.lockdown()
        try:
            apps = await self.media.calls().installation_proxy(lockdown=provider).get_apps()
        finally:
            await provider.close()
        return [
            InstalledApp(
                app_id=str(bundle)[:255],
                name=str(info.get("CFBundleDisplayName") or info.get("CFBundleName") or "")[:256]
                or None,
                system=info.get("ApplicationType") == "System",
            )
            for bundle, info in apps.items()
            if isinstance(info, dict)
        ][:MAX_APPS]


class IphoneProcesses:
    """Launch and terminate through DVT process control (module docstring). A launch first asks
    the installation proxy whether the app is there (``AppNotInstalled`` when not); a
    terminate kills every process whose ``bundleIdentifier`` is the app id (``AppNotRunning``
    when none). The runner's own bundle id is refused (ValueError) before any call: killing or
    restarting it would drop the device's link. Every provider opened is closed, also on
    failure."""

    def __init__(self, media: IphoneMedia) -> None:
        self.media = media

    @staticmethod
    def _not_the_runner(app_id: str) -> None:
        if app_id == RUNNER_BUNDLE_ID:
            raise ValueError(f"{app_id} is mobridge's own runner: the hub never stops it")

    async def _installed(self, app_id: str) -> bool:
        provider = await self.media.lockdown()
        try:
            proxy = self.media.calls().installation_proxy(lockdown=provider)
            found = await proxy.get_apps(bundle_identifiers=[app_id])
        finally:
            await provider.close()
        return app_id in found

    async def launch(self, app_id: str) -> int:
        self._not_the_runner(app_id)
        if not await self._installed(app_id):
            raise AppNotInstalled(app_id)
        calls = self.media.calls()
        provider = await self.media.dvt_lockdown()
        try:
            async with calls.dvt_provider(provider) as dvt, calls.process_control(dvt) as pc:
                pid = await pc.launch(app_id, kill_existing=True)
        except calls.dvt_errors as exc:
            raise OSError(f"launching {app_id} failed: {exc or type(exc).__name__}") from exc
        finally:
            with anyio.CancelScope(shield=True):
                await provider.close()
        return int(pid)

    async def terminate(self, app_id: str) -> int:
        self._not_the_runner(app_id)
        calls = self.media.calls()
        provider = await self.media.dvt_lockdown()
        try:
            async with (
                calls.dvt_provider(provider) as dvt,
                calls.device_info(dvt) as info,
                calls.process_control(dvt) as pc,
            ):
                pids = [
                    int(proc["pid"])
                    for proc in await info.proclist()
                    if isinstance(proc, dict) and proc.get("bundleIdentifier") == app_id
                ]
                for pid in pids:
                    await pc.kill(pid)
        except calls.dvt_errors as exc:
            raise OSError(f"terminating {app_id} failed: {exc or type(exc).__name__}") from exc
        finally:
            with anyio.CancelScope(shield=True):
                await provider.close()
        if not pids:
            raise AppNotRunning(app_id)
        return len(pids)
