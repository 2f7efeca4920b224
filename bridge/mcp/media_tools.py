"""The device-media tool ``media``: ``kind`` ``logs`` (the device's log for a few seconds)
or ``record`` (a screen recording written to an MP4 file at ``path``); crash reports are the
CLI's ``crashes`` and the client's ``crashes()`` (left out here with the app and level
filters: the tool list has a byte cap; one tool for both for the same reason). Installing a
local file is the ``app`` tool's ``install`` with ``path`` (``bridge.mcp.device_tools``).

A read: an observer may call it, and the hub shows each use to the device's watchers (``logs``
/ ``record`` action events). Caps: 1 to 30 s; ``logs`` returns the newest ``MAX_LINES`` lines;
a recording is made at 10 fps; ``grep`` (RE2, on text and tag) is the one filter. Log lines have the
secrets the hub typed masked by the hub.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Literal

import anyio
import msgspec

from bridge.client import ProtocolFailure
from bridge.mcp.refusals import ToolRefusal
from bridge.mcp.schemas import DeviceArg, McpStruct
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.device_media import LogLine
from bridge.wire.enums import ProtocolErrorCode

LEVEL_LETTERS = {"verbose": "V", "debug": "D", "info": "I", "warn": "W", "error": "E", "fatal": "F"}


MAX_LINES = 100


class MediaArgs(McpStruct, frozen=True):
    kind: Literal["logs", "record"] = "logs"
    """What to get (the tool's description says each)."""
    device: DeviceArg | None = None
    seconds: Annotated[int, msgspec.Meta(ge=1, le=30)] = 5
    grep: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None


class LogsOutput(McpStruct, frozen=True):
    device: str
    lines: int
    lost: int = 0


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


async def media(ctx: ToolContext, args: MediaArgs) -> ToolOutcome:
    if args.kind == "record":
        return await record(ctx, args)
    return await logs(ctx, args)


async def logs(ctx: ToolContext, args: MediaArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    kept: list[LogLine] = []
    lost = 0
    try:
        async with dev.logs(grep=args.grep) as events:
            with anyio.move_on_after(args.seconds):
                async for event in events:
                    lost += event.gap
                    kept.extend(event.lines)
                    del kept[:-MAX_LINES]
    except ProtocolFailure as exc:
        if exc.code is not ProtocolErrorCode.INVALID_PARAMS:
            raise
        raise ToolRefusal("INVALID_ARGUMENTS", exc.message, ("grep is an RE2 pattern",)) from exc
    head = f"{len(kept)} log line(s) from {device} in {args.seconds} s"
    if lost:
        head += f" ({lost} lost: the log ran faster than it could be read)"
    text = "\n".join([head, *(_line(line) for line in kept)])
    return ToolOutcome(text, LogsOutput(device=device, lines=len(kept), lost=lost))


async def record(ctx: ToolContext, args: MediaArgs) -> ToolOutcome:
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
    made, data = await ctx.timed(dev.record(args.seconds, fps=10))
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
        "media",
        "Logs & video",
        "logs: next seconds' lines; record: MP4 at path.",
        MediaArgs,
        LogsOutput,
        media,
        docs={"kind": "logs (default)"},
    ),
)
