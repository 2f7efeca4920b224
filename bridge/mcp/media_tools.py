"""The device-media tools: ``logs`` (the device's log for a few seconds, or its crash
reports) and ``record`` (a screen recording written to an MP4 file). Installing a local file
is the ``app`` tool's ``install`` with ``path`` (``bridge.mcp.device_tools``).

Both are reads: an observer may call them, and the hub shows each to the device's watchers
(``logs`` / ``record`` action events). Caps: ``logs`` listens 1 to 30 s and returns at most
``maxLines`` lines (the newest); ``record`` records 1 to 60 s. Log lines have the secrets the
hub typed masked by the hub.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import anyio
import msgspec

from bridge.client import ProtocolFailure
from bridge.mcp.refusals import ToolRefusal
from bridge.mcp.schemas import DeviceArg, McpStruct
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.device_media import LogLevel, LogLine
from bridge.wire.enums import ProtocolErrorCode

LEVEL_LETTERS = {"verbose": "V", "debug": "D", "info": "I", "warn": "W", "error": "E", "fatal": "F"}


class LogsArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    seconds: Annotated[int, msgspec.Meta(ge=1, le=30)] = 5
    app: Annotated[str, msgspec.Meta(min_length=1, max_length=255)] | None = None
    level: LogLevel | None = None
    grep: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None
    max_lines: Annotated[int, msgspec.Meta(ge=1, le=500)] = 100
    crashes: bool = False


class LogsOutput(McpStruct, frozen=True):
    device: str
    lines: int
    lost: int = 0


class RecordArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    seconds: Annotated[int, msgspec.Meta(ge=1, le=60)] = 5
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    fps: Annotated[int, msgspec.Meta(ge=1, le=30)] = 10


class RecordOutput(McpStruct, frozen=True):
    device: str
    path: str
    bytes: int
    frames: int
    duration_ms: int
    width: int
    height: int


def _line(line: LogLine) -> str:
    tag = f"{line.tag}: " if line.tag else ""
    return f"{LEVEL_LETTERS[line.level]} {line.app or '-'} {tag}{line.text}"


async def logs(ctx: ToolContext, args: LogsArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    if args.crashes:
        listed = await dev.crashes(args.app)
        text = "\n".join(
            [f"{len(listed.crashes)} crash report(s) on {device}"]
            + [f"  {c.name} · {c.app or '?'} · {c.summary}" for c in listed.crashes]
        )
        return ToolOutcome(text, LogsOutput(device=device, lines=len(listed.crashes)))
    kept: list[LogLine] = []
    lost = 0
    try:
        async with dev.logs(app=args.app, level=args.level, grep=args.grep) as events:
            with anyio.move_on_after(args.seconds):
                async for event in events:
                    lost += event.gap
                    kept.extend(event.lines)
                    del kept[: -args.max_lines]
    except ProtocolFailure as exc:
        if exc.code is not ProtocolErrorCode.INVALID_PARAMS:
            raise
        raise ToolRefusal("INVALID_ARGUMENTS", exc.message, ("grep is an RE2 pattern",)) from exc
    head = f"{len(kept)} log line(s) from {device} in {args.seconds} s"
    if lost:
        head += f" ({lost} lost: the log ran faster than it could be read)"
    text = "\n".join([head, *(_line(line) for line in kept)])
    return ToolOutcome(text, LogsOutput(device=device, lines=len(kept), lost=lost))


async def record(ctx: ToolContext, args: RecordArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    if args.path is not None:
        out = Path(args.path)
        if not await anyio.Path(out.parent).is_dir():
            raise ToolRefusal(
                "INVALID_ARGUMENTS",
                f"no directory {out.parent} for {out.name}",
                ("pass a path in an existing directory, or omit path",),
            )
    else:
        folder = Path(tempfile.gettempdir()) / "mobridge-recordings"
        await anyio.Path(folder).mkdir(mode=0o700, exist_ok=True)
        out = folder / f"{device}-{anyio.current_time():.0f}.mp4"
    made, data = await ctx.timed(dev.record(args.seconds, fps=args.fps))
    await anyio.Path(out).write_bytes(data)
    text = (
        f"recorded {made.duration_ms / 1000:.1f} s of {device}: {out} "
        f"({made.bytes} bytes, {made.frames} frames, {made.width}x{made.height})"
    )
    return ToolOutcome(
        text,
        RecordOutput(
            device=device,
            path=str(out),
            bytes=made.bytes,
            frames=made.frames,
            duration_ms=made.duration_ms,
            width=made.width,
            height=made.height,
        ),
    )


MEDIA_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "logs",
        "Read the device log",
        "The log lines the device writes during the next few seconds (filter by app, level, "
        "grep RE2), or its crash reports (crashes: true).",
        LogsArgs,
        LogsOutput,
        logs,
    ),
    ToolSpec(
        "record",
        "Record the screen",
        "Record the screen for some seconds into an MP4 (H.264) file; returns its path.",
        RecordArgs,
        RecordOutput,
        record,
    ),
)
