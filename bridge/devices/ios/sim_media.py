"""An iOS Simulator's log, screen recording and crash reports for the hub, through ``xcrun
simctl`` on this Mac (the hub's ``DeviceMedia`` for ``--ios-simulator UDID``).

- log: ``xcrun simctl spawn UDID log stream --style ndjson --level debug``; one JSON object
  per line (``eventMessage``, ``messageType``, ``processImagePath``, ``subsystem``,
  ``category``, ``processID``, ``timestamp``); lines are read bounded (``MAX_LINE``), a line
  that is not such an object is skipped; the process is killed when the subscription ends;
- recording: ``xcrun simctl io UDID recordVideo --codec=h264 --force FILE`` into a private
  temporary file, stopped with SIGINT (simctl then finishes the file) at ``seconds`` or on
  ``stop``; the file is read, refused past the cap, and deleted;
- crash reports: the ``.ips`` files of ``~/Library/Logs/DiagnosticReports`` (newest first;
  the Simulator's apps crash into the Mac's folder), their first line as the summary.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from bridge.core.media import Recording, probe_mp4
from bridge.wire.agent_link import MAX_APPS, InstalledApp
from bridge.wire.device_media import MAX_LOG_TEXT, CrashReport, LogLevel, LogLine

MAX_LINE = 64 * 1024
MAX_CRASHES = 64
LEVELS: dict[str, LogLevel] = {
    "Debug": "debug",
    "Info": "info",
    "Default": "info",
    "Error": "error",
    "Fault": "fatal",
}


def parse_ndjson(line: str, seq: int) -> LogLine | None:
    """One ``log stream --style ndjson`` line as a LogLine (None: not a log event)."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or "eventMessage" not in event:
        return None
    image = str(event.get("processImagePath") or "")
    process = image.rsplit("/", 1)[-1] or None
    tag = event.get("subsystem") or event.get("category") or process
    pid = event.get("processID")
    return LogLine(
        seq=seq,
        level=LEVELS.get(str(event.get("messageType")), "info"),
        text=str(event["eventMessage"])[:MAX_LOG_TEXT],
        tag=str(tag)[:128] if tag else None,
        app=process[:255] if process else None,
        pid=pid if isinstance(pid, int) and pid >= 0 else None,
    )


class SimctlLogSource:
    name = "simctl"

    def __init__(self, xcrun: str, udid: str) -> None:
        self.argv = [xcrun, "simctl", "spawn", udid, "log", "stream", "--style", "ndjson"]
        self.argv += ["--level", "debug"]

    async def run(self, emit: Callable[[Sequence[LogLine]], None]) -> None:
        process = await anyio.open_process(self.argv, stderr=subprocess.DEVNULL)
        seq = 1
        buffer = b""
        try:
            assert process.stdout is not None
            async for chunk in process.stdout:
                buffer += chunk
                lines = buffer.split(b"\n")
                buffer = lines.pop()
                if len(buffer) > MAX_LINE:
                    buffer = b""  # an endless line is dropped, not held
                batch: list[LogLine] = []
                for raw in lines:
                    parsed = parse_ndjson(raw[:MAX_LINE].decode("utf-8", "replace"), seq)
                    if parsed is not None:
                        batch.append(parsed)
                        seq += 1
                if batch:
                    emit(batch)
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    process.kill()
                await process.wait()


class SimctlRecorder:
    name = "simctl"

    def __init__(self, xcrun: str, udid: str) -> None:
        self.xcrun = xcrun
        self.udid = udid

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        fd, name = tempfile.mkstemp(prefix="mobridge-rec-", suffix=".mp4")
        os.close(fd)
        argv = [self.xcrun, "simctl", "io", self.udid, "recordVideo", "--codec=h264", "--force"]
        started = anyio.current_time()
        try:
            process = await anyio.open_process(
                [*argv, name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            with anyio.move_on_after(seconds):
                await stop.wait()
            if process.returncode is None:
                process.send_signal(signal.SIGINT)
            with anyio.move_on_after(15) as late:
                await process.wait()
            if late.cancelled_caught:
                process.kill()
                await process.wait()
            elapsed = int((anyio.current_time() - started) * 1000)
            data = await anyio.Path(name).read_bytes()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.Path(name).unlink(missing_ok=True)
        reason = None
        truncated = len(data) > max_bytes
        if truncated:
            data, reason = b"", f"simctl's file passed the cap of {max_bytes} bytes; it was dropped"
        frames, width, height = probe_mp4(data)
        return Recording(data, frames, width, height, elapsed, truncated, reason)


def list_crashes(folder: Path, app: str | None) -> list[CrashReport]:
    """The ``.ips`` reports of ``folder`` (newest first, at most ``MAX_CRASHES``)."""
    files = folder.glob("*.ips") if folder.is_dir() else iter(())
    found = [
        (file.stat().st_mtime, file)
        for file in files
        if app is None or file.name.startswith(app.rsplit(".", 1)[-1]) or app in file.name
    ]
    found.sort(reverse=True)
    out: list[CrashReport] = []
    for mtime, file in found[:MAX_CRASHES]:
        with file.open("rb") as f:
            head = f.readline(MAX_LOG_TEXT).decode("utf-8", "replace").strip()
        name: Any = None
        try:
            name = json.loads(head).get("app_name")
        except (ValueError, AttributeError):
            name = None
        out.append(
            CrashReport(
                name=file.name[:255],
                app=str(name)[:255] if name else None,
                at_ms=int(mtime * 1000),
                summary=head[:MAX_LOG_TEXT],
            )
        )
    return out


class SimctlMedia:
    """The hub's ``DeviceMedia`` for one Simulator (module docstring)."""

    def __init__(self, xcrun: str, udid: str, reports: Path | None = None) -> None:
        self.xcrun = xcrun
        self.udid = udid
        self.reports = reports or Path.home() / "Library" / "Logs" / "DiagnosticReports"

    def log_source(self) -> SimctlLogSource:
        return SimctlLogSource(self.xcrun, self.udid)

    def recorder(self, fps: int) -> SimctlRecorder:
        return SimctlRecorder(self.xcrun, self.udid)

    async def crashes(self, app: str | None) -> Sequence[CrashReport]:
        return await anyio.to_thread.run_sync(list_crashes, self.reports, app)

    def app_manager(self) -> SimctlApps:
        return SimctlApps(self.xcrun, self.udid)

    def processes(self) -> None:
        """The Simulator's runner launches and terminates apps itself."""
        return None


class SimctlApps:
    """``xcrun simctl install|uninstall|listapps UDID`` (``listapps`` prints a property list;
    ``plutil -convert json`` reads it, both on the same Mac)."""

    def __init__(self, xcrun: str, udid: str) -> None:
        self.xcrun = xcrun
        self.udid = udid

    async def _run(self, *argv: str) -> bytes:
        done = await anyio.run_process([self.xcrun, "simctl", *argv], check=False)
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(f"simctl {argv[0]} failed: {said[-1] if said else done.returncode}")
        return bytes(done.stdout)

    async def install(self, path: Path) -> str | None:
        await self._run("install", self.udid, str(path))
        return None

    async def uninstall(self, app_id: str) -> None:
        await self._run("uninstall", self.udid, app_id)

    async def list_apps(self) -> list[InstalledApp]:
        listed = await self._run("listapps", self.udid)
        converted = await anyio.run_process(
            ["plutil", "-convert", "json", "-o", "-", "-"], input=listed, check=False
        )
        if converted.returncode != 0:
            raise RuntimeError("simctl listapps printed no property list")
        apps = json.loads(converted.stdout)
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
