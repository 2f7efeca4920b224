"""A Simulator's log, recording and crash reports through ``xcrun simctl``, against a fake
``xcrun`` (a script that checks the exact command line and answers as simctl would: ndjson log
events, then a recording written when it gets SIGINT)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import anyio
import pytest

from bridge.devices.ios.sim_media import SimctlMedia, parse_ndjson
from bridge.wire.device_media import LogLine
from tests.devices.test_android_media import _tiny_mp4

pytestmark = pytest.mark.anyio
UDID = "8A1F5E2C-0000-4000-8000-000000000001"

FAKE_XCRUN = """#!{python}
import json, signal, sys, time, shutil
argv = sys.argv[1:]
with open({log!r}, "a") as f:
    f.write(" ".join(argv) + "\\n")
if argv == ["simctl", "spawn", {udid!r}, "log", "stream", "--style", "ndjson", "--level", "debug"]:
    events = [
        {{"eventMessage": "app started", "messageType": "Default", "processID": 77,
          "processImagePath": "/apps/Shop.app/Shop", "subsystem": "com.example.shop"}},
        "not json",
        {{"eventMessage": "payment failed", "messageType": "Error", "processID": 77,
          "processImagePath": "/apps/Shop.app/Shop", "category": "pay"}},
    ]
    for e in events:
        print(e if isinstance(e, str) else json.dumps(e), flush=True)
    time.sleep(60)
elif argv[:5] == ["simctl", "io", {udid!r}, "recordVideo", "--codec=h264"] and argv[5] == "--force":
    out = argv[6]
    def done(*_):
        shutil.copy({mp4!r}, out)
        sys.exit(0)
    signal.signal(signal.SIGINT, done)
    with open({log!r}, "a") as f:
        f.write("recording\\n")  # the test stops it only once it can be stopped
    time.sleep(60)
    sys.exit(3)
elif argv[:3] == ["simctl", "install", {udid!r}] and len(argv) == 4:
    sys.exit(0)
elif argv == ["simctl", "uninstall", {udid!r}, "com.example.gone"]:
    print("An error was encountered (code=2): not installed", file=sys.stderr)
    sys.exit(2)
elif argv[:3] == ["simctl", "uninstall", {udid!r}] and len(argv) == 4:
    sys.exit(0)
else:
    sys.exit(64)
"""


def fake_xcrun(tmp: Path) -> tuple[Path, Path]:
    log = tmp / "xcrun.log"
    mp4 = tmp / "clip.mp4"
    mp4.write_bytes(_tiny_mp4())
    xcrun = tmp / "xcrun"
    xcrun.write_text(
        FAKE_XCRUN.format(python=sys.executable, log=str(log), udid=UDID, mp4=str(mp4))
    )
    xcrun.chmod(xcrun.stat().st_mode | stat.S_IXUSR)
    return xcrun, log


async def test_log_stream_records_and_crash_reports(tmp_path: Path) -> None:
    xcrun, log = fake_xcrun(tmp_path)
    reports = tmp_path / "DiagnosticReports"
    reports.mkdir()
    (reports / "Shop-2026-12-02-101010.ips").write_text(
        json.dumps({"app_name": "Shop", "bug_type": "309"}) + "\n{...}\n"
    )
    media = SimctlMedia(str(xcrun), UDID, reports)
    got: list[LogLine] = []
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(media.log_source().run, got.extend)
            while len(got) < 2:
                await anyio.sleep(0.05)
            tg.cancel_scope.cancel()
    assert [(ln.seq, ln.level, ln.text, ln.app, ln.tag) for ln in got] == [
        (1, "info", "app started", "Shop", "com.example.shop"),
        (2, "error", "payment failed", "Shop", "pay"),
    ]
    stop = anyio.Event()
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:

            async def later() -> None:
                while "recording\n" not in (log.read_text() if log.exists() else ""):
                    await anyio.sleep(0.05)
                stop.set()

            tg.start_soon(later)
            made = await media.recorder(10).record(30, stop, 1 << 20)
    assert made.frames == 3 and (made.width, made.height) == (64, 128), made
    assert made.data == (tmp_path / "clip.mp4").read_bytes()
    crashes = await media.crashes(None)
    assert [(c.name, c.app) for c in crashes] == [("Shop-2026-12-02-101010.ips", "Shop")]
    assert await media.crashes("com.example.other") == []
    apps = media.app_manager()
    await apps.install(tmp_path / "Shop.app")
    await apps.uninstall("com.example.shop")
    with pytest.raises(RuntimeError, match="not installed"):
        await apps.uninstall("com.example.gone")
    calls = log.read_text().splitlines()
    assert f"simctl install {UDID} {tmp_path / 'Shop.app'}" in calls
    assert f"simctl uninstall {UDID} com.example.shop" in calls
    assert calls[0].startswith(f"simctl spawn {UDID} log stream")
    assert calls[1].startswith(f"simctl io {UDID} recordVideo --codec=h264 --force ")


def test_ndjson_lines_that_are_no_events_are_skipped() -> None:
    assert parse_ndjson("Filtering the log data using ...", 1) is None
    assert parse_ndjson('{"traceID": 1}', 1) is None
    line = parse_ndjson('{"eventMessage": "x", "messageType": "Fault", "processID": -1}', 5)
    assert line is not None and (line.level, line.pid, line.seq) == ("fatal", None, 5)
