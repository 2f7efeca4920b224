"""An iPhone's log, crash reports and recording through pymobiledevice3: the calls exist in the
installed release with the shapes ``bridge.devices.ios.iphone_media`` uses, and the module
drives fakes of exactly those shapes (syslog entries to lines, ``.ips`` names to reports, DVT
screenshots to an H.264 MP4), closing every provider it opened."""

from __future__ import annotations

import dataclasses
import enum
import importlib.util
import inspect
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import anyio
import av
import pytest
from PIL import Image

from bridge.core.media import AppNotInstalled, AppNotRunning
from bridge.devices.ios.config import RUNNER_BUNDLE_ID
from bridge.devices.ios.iphone_media import IphoneMedia, MediaCalls, load_media_calls
from bridge.wire.device_media import LogLine
from tests.skips import reason

pytestmark = pytest.mark.anyio
HAS_PMD3 = importlib.util.find_spec("pymobiledevice3") is not None
UDID = "00008110-000A1B2C3D4E801E"


def _params(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


@pytest.mark.skipif(
    not HAS_PMD3,
    reason=reason("pymobiledevice3 (the ios extra) is not installed", "MOBRIDGE_EXTRAS=ios"),
)
def test_the_real_calls_have_the_shapes_used() -> None:
    real = load_media_calls()
    assert inspect.iscoroutinefunction(real.create_using_usbmux)
    assert inspect.iscoroutinefunction(real.get_tunneld_device_by_udid)
    assert "lockdown" in _params(real.os_trace_service)
    assert inspect.isasyncgenfunction(real.os_trace_service.syslog)
    entry = importlib.import_module("pymobiledevice3.services.os_trace").SyslogEntry
    fields = {f.name for f in dataclasses.fields(entry)}
    assert {"pid", "level", "image_name", "message", "label"} <= fields
    levels = importlib.import_module("pymobiledevice3.services.os_trace").SyslogLogLevel
    assert {"NOTICE", "INFO", "DEBUG", "USER_ACTION", "ERROR", "FAULT"} <= set(levels.__members__)
    assert _params(real.crash_reports_manager)[:1] == ["lockdown"]
    assert _params(real.crash_reports_manager.ls)[:3] == ["self", "path", "depth"]
    assert inspect.iscoroutinefunction(real.crash_reports_manager.ls)
    assert _params(real.dvt_provider)[:1] == ["lockdown"]
    assert hasattr(real.dvt_provider, "__aenter__") and hasattr(real.screenshot, "__aenter__")
    assert _params(real.screenshot)[:1] == ["provider"]
    assert inspect.iscoroutinefunction(real.screenshot.get_screenshot)
    assert _params(real.installation_proxy)[:1] == ["lockdown"]
    assert _params(real.installation_proxy.install_from_local)[:2] == ["self", "package_path"]
    assert _params(real.installation_proxy.uninstall)[:2] == ["self", "bundle_identifier"]
    assert inspect.iscoroutinefunction(real.installation_proxy.uninstall)
    assert inspect.iscoroutinefunction(real.installation_proxy.get_apps)
    assert "bundle_identifiers" in _params(real.installation_proxy.get_apps)
    for service in (real.process_control, real.device_info):
        assert _params(service)[:1] == ["provider"]
        assert hasattr(service, "__aenter__") and hasattr(service, "__aexit__")
    launch = real.process_control.launch
    assert inspect.iscoroutinefunction(launch)
    assert _params(launch)[:2] == ["self", "bundle_id"] and "kill_existing" in _params(launch)
    assert inspect.signature(launch).return_annotation in (int, "int")
    assert inspect.iscoroutinefunction(real.process_control.kill)
    assert _params(real.process_control.kill) == ["self", "pid"]
    assert inspect.iscoroutinefunction(real.device_info.proclist)
    assert _params(real.device_info.proclist) == ["self"]
    assert all(issubclass(e, Exception) for e in real.dvt_errors)


class Level(enum.Enum):
    NOTICE = 0
    ERROR = 16


@dataclasses.dataclass
class Label:
    category: str
    subsystem: str


@dataclasses.dataclass
class Entry:
    pid: int
    level: Level
    image_name: str
    message: str
    label: Label | None = None


class FakeProvider:
    def __init__(self, calls: list[str], version: str = "16.7") -> None:
        self.calls = calls
        self.product_version = version

    async def close(self) -> None:
        self.calls.append("close")


def _png(shade: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (60, 130), (shade, 10, 10)).save(buf, "PNG")
    return buf.getvalue()


def fake_calls(calls: list[str]) -> MediaCalls:
    async def create_using_usbmux(*, serial: str) -> FakeProvider:
        calls.append(f"lockdown {serial}")
        return FakeProvider(calls)

    async def tunneld(udid: str) -> None:
        return None

    class OsTrace:
        def __init__(self, lockdown: Any) -> None:
            self.lockdown = lockdown

        async def syslog(self) -> AsyncIterator[Entry]:
            yield Entry(77, Level.NOTICE, "/var/App/Shop.app/Shop", "hello", Label("ui", "shop"))
            yield Entry(77, Level.ERROR, "/var/App/Shop.app/Shop", "payment failed")
            await anyio.sleep_forever()

    class Crashes:
        def __init__(self, lockdown: Any) -> None:
            pass

        async def ls(self, path: str = "/", depth: int = 1) -> list[str]:
            return ["/Shop-2026-12-02-101010.ips", "/Retired", "/Mail-2026-12-01-090000.ips"]

    class Dvt:
        def __init__(self, lockdown: Any) -> None:
            pass

        async def __aenter__(self) -> Dvt:
            return self

        async def __aexit__(self, *exc: object) -> None:
            calls.append("dvt closed")

    class Shot:
        taken = 0

        def __init__(self, provider: Any) -> None:
            pass

        async def __aenter__(self) -> Shot:
            return self

        async def __aexit__(self, *exc: object) -> None:
            pass

        async def get_screenshot(self) -> bytes:
            Shot.taken += 1
            calls.append("screenshot")
            return _png(Shot.taken * 20 % 255)

    class Proxy:
        apps: ClassVar[dict[str, dict[str, str]]] = {
            "com.apple.Preferences": {"CFBundleName": "Settings", "ApplicationType": "System"}
        }

        def __init__(self, lockdown: Any) -> None:
            pass

        def install_from_local(self, package_path: str) -> None:  # blocking, as released
            calls.append(f"install {package_path}")
            Proxy.apps["com.example.notes"] = {"CFBundleDisplayName": "Notes"}

        async def uninstall(self, bundle_identifier: str) -> None:
            Proxy.apps.pop(bundle_identifier)

        async def get_apps(
            self, bundle_identifiers: list[str] | None = None
        ) -> dict[str, dict[str, str]]:
            wanted = bundle_identifiers
            return {k: v for k, v in Proxy.apps.items() if wanted is None or k in wanted}

    class Opened:
        """A DVT service: an async context manager on the DVT provider."""

        def __init__(self, provider: Any) -> None:
            pass

        async def __aenter__(self) -> Any:
            return self

        async def __aexit__(self, *exc: object) -> None:
            pass

    class Control(Opened):
        async def launch(self, bundle_id: str, kill_existing: bool = True) -> int:
            if bundle_id == "com.example.broken":
                raise AssertionError  # the device answered pid 0
            calls.append(f"launch {bundle_id} kill_existing={kill_existing}")
            RUNNING.append({"pid": 400 + len(RUNNING), "bundleIdentifier": bundle_id})
            return int(RUNNING[-1]["pid"])

        async def kill(self, pid: int) -> None:
            calls.append(f"kill {pid}")
            RUNNING[:] = [p for p in RUNNING if p["pid"] != pid]

    class Info(Opened):
        async def proclist(self) -> list[dict[str, object]]:
            return [dict(p) for p in RUNNING] + [{"pid": 1, "name": "launchd"}]

    return MediaCalls(
        create_using_usbmux,
        tunneld,
        OsTrace,
        Crashes,
        Dvt,
        Shot,
        Proxy,
        Control,
        Info,
        (RuntimeError, AssertionError),
    )


RUNNING: list[dict[str, Any]] = []
"""The fake device's app processes (``proclist`` entries)."""


async def test_syslog_crashes_and_a_dvt_recording() -> None:
    calls: list[str] = []
    media = IphoneMedia(UDID, lambda: fake_calls(calls))
    got: list[LogLine] = []
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(media.log_source().run, got.extend)
            while len(got) < 2:
                await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
    assert [(ln.seq, ln.level, ln.text, ln.app, ln.tag) for ln in got] == [
        (1, "info", "hello", "Shop", "shop"),
        (2, "error", "payment failed", "Shop", None),
    ]
    crashes = await media.crashes(None)
    assert [c.name for c in crashes] == ["Shop-2026-12-02-101010.ips", "Mail-2026-12-01-090000.ips"]
    assert [c.name for c in await media.crashes("com.example.Shop")] == [
        "Shop-2026-12-02-101010.ips"
    ]
    # stopped once a third screenshot was asked for (two frames encoded by then), not after a
    # fixed second: under load the encoder's start alone can take that second
    stop = anyio.Event()

    async def stop_at_the_third_screenshot() -> None:
        while calls.count("screenshot") < 3:
            await anyio.sleep(0.01)
        stop.set()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_at_the_third_screenshot)
            made = await media.recorder(5).record(60, stop, 1 << 20)
    assert made.frames >= 2 and (made.width, made.height) == (60, 130)
    with av.open(io.BytesIO(made.data), mode="r") as container:
        assert sum(1 for _ in container.decode(video=0)) == made.frames
    assert calls.count("close") == calls.count(f"lockdown {UDID}") == 4
    assert "dvt closed" in calls
    apps = media.app_manager()
    assert [(a.app_id, a.name, a.system) for a in await apps.list_apps()] == [
        ("com.apple.Preferences", "Settings", True)
    ]
    await apps.install(Path("/tmp/Notes.ipa"))
    assert "install /tmp/Notes.ipa" in calls
    assert "com.example.notes" in [a.app_id for a in await apps.list_apps()]
    await apps.uninstall("com.example.notes")
    assert "com.example.notes" not in [a.app_id for a in await apps.list_apps()]
    assert calls.count("close") == calls.count(f"lockdown {UDID}")


async def test_launch_and_terminate_through_dvt_process_control() -> None:
    calls: list[str] = []
    RUNNING.clear()
    media = IphoneMedia(UDID, lambda: fake_calls(calls))
    procs = media.processes()
    pid = await procs.launch("com.apple.Preferences")
    assert "launch com.apple.Preferences kill_existing=True" in calls and pid == 400
    assert await procs.terminate("com.apple.Preferences") == 1
    assert "kill 400" in calls and RUNNING == []
    with pytest.raises(AppNotRunning):
        await procs.terminate("com.apple.Preferences")
    with pytest.raises(AppNotInstalled):
        await procs.launch("com.example.missing")
    assert not any(c.startswith("launch com.example.missing") for c in calls)
    apps = media.calls().installation_proxy.apps
    apps["com.example.broken"] = {"CFBundleName": "Broken"}
    try:
        with pytest.raises(OSError, match=r"launching com\.example\.broken failed"):
            await procs.launch("com.example.broken")
    finally:
        apps.pop("com.example.broken")
    for verb in (procs.launch, procs.terminate):
        with pytest.raises(ValueError, match="own runner"):
            await verb(RUNNER_BUNDLE_ID)
    assert calls.count("close") == calls.count(f"lockdown {UDID}")
