"""An Android device's log, screen recording and crash reports for the hub, through adb (the
hub's ``DeviceMedia``; no agent involved).

- log: ``logcat -d -v epoch -T <time>`` polled every ``POLL_S`` — each poll returns the lines
  written since the newest one seen (at most ``MAX_POLL_LINES``); a line's app is the name of
  its process (``ps -A -o PID,NAME``, refreshed every ``PS_REFRESH_S``). The first poll only
  notes the device's clock, so a subscription starts with what is written from then on. Lines
  lost between polls (the ring buffer wrapped past the last line seen, or a poll hit
  ``MAX_POLL_LINES``) are said, as a ``warn`` line tagged ``mobridge`` (``lost_lines``), never
  silently skipped (issue 34);
- recording: ``screenrecord --bit-rate B [--size WxH] --time-limit N`` (N at most
  ``MAX_SCREENRECORD_S``, the tool's own limit; B ``BIT_RATE``; the size scaled so its long
  side is at most ``MAX_SIDE``, from ``wm size``) into
  ``/data/local/tmp/mobridge-rec-<random>.mp4``, started in the background with its pid
  written beside the file; stopping early sends SIGINT to that pid only (``pkill`` would stop
  every recording on the phone, anyone's), and the tool then finishes the file; the file is
  read over adb, refused past the cap, and deleted;
- crash reports: the ``crash`` log buffer (``logcat -d -b crash -v epoch``), one report per
  ``FATAL EXCEPTION`` block.

All adb calls are blocking adbutils calls run in worker threads (``blocking``).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from bridge.core.media import Recording, probe_mp4
from bridge.devices.android.adb import AdbDeviceLike, blocking, run_shell
from bridge.devices.android.mirror import ScreenrecordStream
from bridge.wire.device_media import MAX_LOG_TEXT, CrashReport, LogLevel, LogLine

POLL_S = 0.5
PS_REFRESH_S = 5.0
MAX_POLL_LINES = 2000
MAX_SCREENRECORD_S = 180
BIT_RATE = 6_000_000
"""Bits per second of a recording (the tool's default, 20 Mbit/s on recent phones, fills
the hub's cap in under a minute)."""
MAX_SIDE = 1280
"""The long side of a recording, in pixels (a multiple of 16, which every encoder takes)."""
WM_SIZE = re.compile(r"(?:Override|Physical) size:\s*(\d+)x(\d+)")
LEVELS: dict[str, LogLevel] = {
    "V": "verbose",
    "D": "debug",
    "I": "info",
    "W": "warn",
    "E": "error",
    "F": "fatal",
    "A": "fatal",
}
EPOCH_LINE = re.compile(
    r"^\s*(?P<sec>\d+)\.(?P<ms>\d{3})\s+(?P<pid>\d+)\s+\d+\s+(?P<level>[VDIWEFA])\s+"
    r"(?P<tag>.*?)\s*:\s(?P<text>.*)$"
)


def parse_logcat(text: str, apps: dict[int, str], first_seq: int) -> list[LogLine]:
    """``logcat -v epoch`` output as lines numbered from ``first_seq`` (others skipped)."""
    out: list[LogLine] = []
    for raw in text.splitlines():
        found = EPOCH_LINE.match(raw)
        if found is None:
            continue
        pid = int(found["pid"])
        out.append(
            LogLine(
                seq=first_seq + len(out),
                level=LEVELS[found["level"]],
                text=found["text"][:MAX_LOG_TEXT],
                tag=found["tag"][:128] or None,
                app=apps.get(pid),
                pid=pid,
                at_ms=int(found["sec"]) * 1000 + int(found["ms"]),
            )
        )
    return out


def lost_lines(
    seen_last: str, returned: Sequence[str], hit_cap: bool, seq: int, at_ms: int | None
) -> LogLine | None:
    """The line that says lines were lost between two polls, or None: ``-T`` repeats the
    lines of the time it starts at, so a last-seen line missing from the answer means the ring
    buffer wrapped past it; an answer of ``MAX_POLL_LINES`` lines may have left some out."""
    if hit_cap:
        why = f"a poll returned its limit of {MAX_POLL_LINES} lines; lines may be missing"
    elif seen_last and returned and seen_last not in returned:
        why = "the log buffer wrapped between two polls; lines written in between are missing"
    else:
        return None
    return LogLine(seq=seq, level="warn", text=f"mobridge: {why}", tag="mobridge", at_ms=at_ms)


def screenrecord_command(remote: str, limit_s: int, size: tuple[int, int] | None) -> str:
    """The shell line that records in the background and writes the tool's pid beside the
    file, then waits for it (so the adb call returns when the recording ends)."""
    size_arg = f"--size {size[0]}x{size[1]} " if size else ""
    return (
        f"screenrecord --bit-rate {BIT_RATE} {size_arg}--time-limit {limit_s} {remote} & "
        f"echo $! > {remote}.pid; wait"
    )


def stop_command(remote: str) -> str:
    """SIGINT to this recording's own screenrecord (the pid written beside its file)."""
    return f"kill -INT $(cat {remote}.pid)"


def recording_size(wm_size: str) -> tuple[int, int] | None:
    """The screen's size (``wm size``: the override when set) scaled so the long side is at
    most ``MAX_SIDE``, both sides multiples of 16; None when unreadable (the tool's default)."""
    found = WM_SIZE.findall(wm_size)
    if not found:
        return None
    w, h = (int(v) for v in found[-1])  # "Override size" comes after "Physical size"
    if w <= 0 or h <= 0:
        return None
    f = min(1.0, MAX_SIDE / max(w, h))
    return max(16, int(w * f) // 16 * 16), max(16, int(h * f) // 16 * 16)


def parse_ps(text: str) -> dict[int, str]:
    apps: dict[int, str] = {}
    for row in text.splitlines()[1:]:
        parts = row.split()
        if len(parts) >= 2 and parts[0].isdigit():
            apps[int(parts[0])] = parts[-1][:255]
    return apps


def parse_crashes(text: str, app: str | None) -> list[CrashReport]:
    """One report per ``FATAL EXCEPTION`` block of the crash buffer (newest first)."""
    reports: list[CrashReport] = []
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        found = EPOCH_LINE.match(raw)
        if found is None:
            continue
        body = found["text"]
        if body.startswith("FATAL EXCEPTION"):
            current = {"at": int(found["sec"]) * 1000 + int(found["ms"]), "app": None, "lines": []}
            reports.append(CrashReport(name=f"crash@{current['at']}", at_ms=current["at"]))
            continue
        if current is None:
            continue
        process = re.match(r"Process: ([^,\s]+)", body)
        if process:
            current["app"] = process.group(1)
        elif len(current["lines"]) < 3:
            current["lines"].append(body.strip())
        reports[-1] = CrashReport(
            name=reports[-1].name,
            app=current["app"],
            at_ms=current["at"],
            summary=" | ".join(current["lines"])[:MAX_LOG_TEXT],
        )
    chosen = [r for r in reports if app is None or r.app == app]
    return list(reversed(chosen))


class LogcatSource:
    name = "logcat"

    def __init__(self, device: AdbDeviceLike, clock: Callable[[], float]) -> None:
        self.device = device
        self.clock = clock

    async def run(self, emit: Callable[[Sequence[LogLine]], None]) -> None:
        """Hand lines written from now on to ``emit`` until cancelled."""
        since = (await self._shell("date +%s.%N", 10.0)).strip()[:14] or "0"
        apps: dict[int, str] = {}
        apps_at = -PS_REFRESH_S
        seq = 1
        seen_last = ""
        while True:
            now = self.clock()
            if now - apps_at >= PS_REFRESH_S:
                apps = parse_ps(await self._shell("ps -A -o PID,NAME", 10.0))
                apps_at = now
            text = await self._shell(f"logcat -d -v epoch -T {since} -t {MAX_POLL_LINES}", 15.0)
            lines = parse_logcat(text, apps, seq)
            raw = [ln.text for ln in lines]
            lost = lost_lines(
                seen_last, raw, len(lines) >= MAX_POLL_LINES, seq, lines[0].at_ms if lines else None
            )
            # -T repeats the lines of the time it starts at: skip up to the last one seen
            if seen_last and seen_last in raw:
                lines = lines[raw.index(seen_last) + 1 :]
            if lost is not None:
                lines = [lost, *lines]
            if lines:
                renumbered = [
                    LogLine(
                        seq=seq + i,
                        level=ln.level,
                        text=ln.text,
                        tag=ln.tag,
                        app=ln.app,
                        pid=ln.pid,
                        at_ms=ln.at_ms,
                    )
                    for i, ln in enumerate(lines)
                ]
                emit(renumbered)
                seq += len(renumbered)
                last = renumbered[-1]
                since = f"{(last.at_ms or 0) // 1000}.{(last.at_ms or 0) % 1000:03d}"
                seen_last = last.text
            await anyio.sleep(POLL_S)

    async def _shell(self, command: str, limit_s: float) -> str:
        out = await blocking(run_shell, self.device, command, limit_s)
        return out.decode("utf-8", "replace")


class ScreenrecordRecorder:
    name = "screenrecord"

    def __init__(self, device: AdbDeviceLike) -> None:
        self.device = device

    async def record(self, seconds: int, stop: anyio.Event, max_bytes: int) -> Recording:
        limit = max(1, min(seconds, MAX_SCREENRECORD_S))
        remote = f"/data/local/tmp/mobridge-rec-{secrets.token_hex(6)}.mp4"
        started = anyio.current_time()
        reason = (
            None
            if seconds <= MAX_SCREENRECORD_S
            else (f"screenrecord records at most {MAX_SCREENRECORD_S} s")
        )
        wm = await blocking(run_shell, self.device, "wm size", 10.0)
        size = recording_size(wm.decode("utf-8", "replace"))
        async with anyio.create_task_group() as tg:

            async def interrupt() -> None:
                await stop.wait()
                await blocking(run_shell, self.device, stop_command(remote), 10.0)

            tg.start_soon(interrupt)
            await blocking(
                run_shell, self.device, screenrecord_command(remote, limit, size), limit + 15.0
            )
            tg.cancel_scope.cancel()
        elapsed = int((anyio.current_time() - started) * 1000)
        data = await blocking(self.device.sync.read_bytes, remote)
        await blocking(run_shell, self.device, f"rm -f {remote} {remote}.pid", 10.0)
        truncated = len(data) > max_bytes
        if truncated:
            data = b""
            reason = f"the device's file passed the cap of {max_bytes} bytes; it was dropped"
        frames, width, height = probe_mp4(data)
        return Recording(data, frames, width, height, elapsed, truncated, reason)


class AndroidMedia:
    """The hub's ``DeviceMedia`` for one Android device reached by adb."""

    def __init__(self, device: AdbDeviceLike, clock: Callable[[], float]) -> None:
        self.device = device
        self.clock = clock

    def log_source(self) -> LogcatSource:
        return LogcatSource(self.device, self.clock)

    def recorder(self, fps: int) -> ScreenrecordRecorder:
        return ScreenrecordRecorder(self.device)

    def mirror_source(self, fps: int) -> ScreenrecordStream:
        """The live mirror from the device's own encoder (``bridge.devices.android.mirror``);
        it sends frames as the screen changes, whatever ``fps``."""
        return ScreenrecordStream(self.device)

    async def crashes(self, app: str | None) -> Sequence[CrashReport]:
        out = await blocking(run_shell, self.device, "logcat -d -b crash -v epoch", 15.0)
        return parse_crashes(out.decode("utf-8", "replace"), app)

    def app_manager(self) -> None:
        """The agent installs and lists apps itself."""
        return None

    def processes(self) -> None:
        """The agent launches and terminates apps itself."""
        return None
