"""LAYER 4 — the device-media commands: ``logs DEVICE`` (the device's log as it is written,
``--app``, ``--level``, ``--grep`` RE2, ``--seconds``/``--count`` to stop), ``screenrecord
DEVICE -o FILE`` (an MP4, ``--seconds N`` or until Ctrl-C, ``--fps``, ``--max-mb``) and
``crashes DEVICE``. ``app DEVICE install FILE`` (a local file streamed to the hub) is planned
by ``bridge.cli.device`` with the other ``app`` actions.

Bad input ends in one line and exit 2 before anything is sent: ``--seconds`` outside 1 to
600, a ``--grep`` RE2 refuses (said by the hub, also exit 2), an output file in a missing
directory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, cast

import anyio
import msgspec

from bridge.cli.client import Plan, common_options, run_on_session
from bridge.cli.failures import UsageError
from bridge.cli.render import emit, say
from bridge.client import HubConnection
from bridge.client.media import check_seconds
from bridge.wire.device_media import (
    LOG_LEVELS,
    MAX_RECORD_FPS,
    MAX_RECORD_SECONDS,
    MAX_RECORDING_BYTES,
    LogLevel,
    LogLine,
)

LEVEL_LETTERS = {"verbose": "V", "debug": "D", "info": "I", "warn": "W", "error": "E", "fatal": "F"}
LEVEL_NAMES: dict[str, str] = {name: name for name in LOG_LEVELS}
LEVEL_NAMES.update({letter.lower(): name for name, letter in LEVEL_LETTERS.items()})


def add_media_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = common_options()
    p = subparsers.add_parser(
        "logs", parents=[common], help="the device's log as it is written (Ctrl-C stops)"
    )
    p.set_defaults(handler=run_media, media_command="logs")
    p.add_argument("device")
    p.add_argument("--app", metavar="APP_ID", help="only lines of this app")
    p.add_argument(
        "--level",
        metavar="LEVEL",
        help="this level and above: verbose, debug, info, warn, error, fatal (or V D I W E F)",
    )
    p.add_argument("--grep", metavar="RE", help="only lines matching this RE2 pattern")
    p.add_argument("--seconds", type=int, metavar="N", help="stop after N seconds")
    p.add_argument("--count", type=int, metavar="N", help="stop after N lines")
    p = subparsers.add_parser(
        "screenrecord", parents=[common], help="record the screen to an MP4 (H.264) file"
    )
    p.set_defaults(handler=run_media, media_command="screenrecord")
    p.add_argument("device")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the MP4")
    p.add_argument(
        "--seconds",
        type=int,
        metavar="N",
        help=f"record N seconds (1 to {MAX_RECORD_SECONDS}; default: until Ctrl-C)",
    )
    p.add_argument("--fps", type=int, default=10, help="frames per second the hub encodes")
    p.add_argument("--max-mb", type=int, metavar="MB", help="stop when the file reaches MB")
    p = subparsers.add_parser("crashes", parents=[common], help="the device's crash reports")
    p.set_defaults(handler=run_media, media_command="crashes")
    p.add_argument("device")
    p.add_argument("--app", metavar="APP_ID", help="only this app's")


def level_arg(text: str | None) -> LogLevel | None:
    if text is None:
        return None
    name = LEVEL_NAMES.get(text.strip().lower())
    if name is None:
        raise UsageError(
            f"--level {text}: choose verbose, debug, info, warn, error or fatal (or V D I W E F)"
        )
    return cast("LogLevel", name)


def format_line(line: LogLine) -> str:
    where = f"{line.app} " if line.app else ""
    tag = f"{line.tag}: " if line.tag else ""
    return f"{LEVEL_LETTERS[line.level]} {where}{tag}{line.text}"


async def _logs(hub: HubConnection, args: argparse.Namespace) -> int:
    device = hub.device(args.device)
    human = sys.stdout.isatty() and not args.json
    shown = 0
    with anyio.move_on_after(args.seconds if args.seconds is not None else float("inf")):
        async with device.logs(app=args.app, level=level_arg(args.level), grep=args.grep) as logs:
            async for event in logs:
                if event.gap:
                    say(f"mobridge: {event.gap} lines lost (this reader fell behind)")
                for line in event.lines:
                    if human:
                        print(format_line(line), flush=True)
                    else:
                        emit(line)
                    shown += 1
                    if args.count is not None and shown >= args.count:
                        return 0
    if shown == 0:
        filters = ", ".join(
            f"{name} {value}"
            for name, value in (("--app", args.app), ("--level", args.level), ("--grep", args.grep))
            if value is not None
        )
        say(
            f"mobridge logs: no log lines from {args.device}"
            + (f" in {args.seconds} s" if args.seconds is not None else "")
            + (f" matching {filters}" if filters else "")
        )
    return 0


async def _screenrecord(hub: HubConnection, args: argparse.Namespace) -> int:
    device = hub.device(args.device)
    output = Path(args.output)
    max_bytes = args.max_mb * (1 << 20) if args.max_mb is not None else None
    started = await device.start_recording(seconds=args.seconds, fps=args.fps, max_bytes=max_bytes)
    say(f"mobridge: recording {args.device} ({args.seconds or 'until Ctrl-C'} s)")
    try:
        await anyio.sleep(args.seconds if args.seconds is not None else MAX_RECORD_SECONDS)
    finally:
        with anyio.CancelScope(shield=True):
            stopped = await device.stop_recording(started.recording)
            data = await device.read_recording(started.recording)
            await anyio.Path(output).write_bytes(data)
    if sys.stdout.isatty() and not args.json:
        print(
            f"{output}: {stopped.bytes} bytes, {stopped.frames} frames, "
            f"{stopped.duration_ms / 1000:.1f} s, {stopped.width}x{stopped.height}"
            + (f" ({stopped.reason})" if stopped.reason else "")
        )
    else:
        emit({**msgspec.to_builtins(stopped), "file": str(output)})
    return 0


async def _crashes(hub: HubConnection, args: argparse.Namespace) -> int:
    listed = await hub.device(args.device).crashes(args.app)
    if sys.stdout.isatty() and not args.json:
        for crash in listed.crashes:
            print(f"{crash.name}  {crash.app or ''}  {crash.summary}".rstrip())
        if not listed.crashes:
            print(f"{args.device}: no crash reports")
    else:
        emit(listed)
    return 0


def _check(args: argparse.Namespace) -> None:
    command: str = args.media_command
    seconds: int | None = getattr(args, "seconds", None)
    try:
        check_seconds(seconds)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if command == "logs":
        level_arg(args.level)
        if args.count is not None and args.count < 1:
            raise UsageError("--count N: N must be at least 1")
    if command == "screenrecord":
        if not 1 <= args.fps <= MAX_RECORD_FPS:
            raise UsageError(f"--fps {args.fps}: choose 1 to {MAX_RECORD_FPS}")
        if args.max_mb is not None and not 1 <= args.max_mb <= MAX_RECORDING_BYTES >> 20:
            raise UsageError(f"--max-mb {args.max_mb}: choose 1 to {MAX_RECORDING_BYTES >> 20}")
        parent = Path(args.output).parent
        if not parent.is_dir():
            raise UsageError(f"-o {args.output}: no directory {parent}; create it first")


def run_media(args: argparse.Namespace) -> int:
    runs: dict[str, Any] = {"logs": _logs, "screenrecord": _screenrecord, "crashes": _crashes}
    run = runs[args.media_command]

    async def plan(hub: HubConnection) -> int:
        return int(await run(hub, args))

    def prepare() -> Plan:
        _check(args)
        return plan

    return run_on_session(args, args.media_command, prepare)
