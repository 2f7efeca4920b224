"""The tool registry and the reading tools: devices, screen, find, wait, screenshot, lease.

Each tool is a ``ToolSpec``: typed arguments and result (``bridge.mcp.schemas``), a short
description for the model, annotations, and ``run(ctx, args) -> ToolOutcome``. ``run``
raises ``ToolRefusal`` for what the model can act on and lets ``bridge.client`` errors
through (``bridge.mcp.server`` maps them with ``bridge.mcp.refusals``). The acting tools
live in ``bridge.mcp.acting``.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types
from mcp.server.session import ServerSession
from pydantic import AnyUrl

from bridge.mcp.outline import node_name, render_line
from bridge.mcp.schemas import (
    ActivityArgs,
    ActivityOutput,
    DevicesOutput,
    FindArgs,
    FindOutput,
    LeaseArgs,
    LeaseOutput,
    Match,
    NoArgs,
    ScreenArgs,
    ScreenOutput,
    ScreenshotArgs,
    ScreenshotOutput,
    ScreenSize,
    WaitArgs,
    WaitOutput,
)
from bridge.mcp.session import McpSession, activity_entry
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import VerificationResult

PROGRESS_INTERVAL_S = 0.5
CAPTURE_URI = "mobridge://captures/{capture}"
SCREEN_URI = "mobridge://devices/{device}/screen"


@dataclass
class ToolContext:
    session: McpSession
    mcp: ServerSession
    request_id: str | int
    progress_token: str | int | None = None
    device: str | None = None
    """The device this call turned out to be about (refusals name its candidates' handles)."""

    async def device_of(self, requested: str | None) -> str:
        self.device = await self.session.device_id(requested)
        return self.device


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    structured: Any
    extra: Sequence[types.ContentBlock] = field(default_factory=tuple)


Runner = Callable[[ToolContext, Any], Awaitable[ToolOutcome]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    args: type[Any]
    output: type[Any]
    run: Runner
    read_only: bool = True
    destructive: bool = False


# ---- devices ------------------------------------------------------------------------------


async def devices(ctx: ToolContext, _: NoArgs) -> ToolOutcome:
    found = await ctx.session.devices()
    lines = []
    for d in found:
        state = "online" if d.online else "offline"
        holder = ""
        if d.lease is not None:
            who = ", ".join(d.lease.holder_names or d.lease.holders)
            holder = f" · lease {d.lease.mode} held by {who}"
        lines.append(f"{d.id} · {d.platform.value.lower()} · {d.model or '?'} · {state}{holder}")
    return ToolOutcome("\n".join(lines) or "no devices", DevicesOutput(devices=found))


# ---- screen and find ----------------------------------------------------------------------


async def screen(ctx: ToolContext, args: ScreenArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    view = await ctx.session.screen(device, args.max_lines)
    size = view.outline.size
    out = ScreenOutput(
        device=device,
        generation=view.snapshot.generation,
        outline=view.outline.text,
        handles=view.handles,
        snapshot=view.snapshot.snapshot,
        screens=view.outline.screens,
        size=None if size is None else ScreenSize(width=size[0], height=size[1]),
        lines_omitted=view.outline.omitted,
    )
    return ToolOutcome(view.outline.text, out)


async def find(ctx: ToolContext, args: FindArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    result = await hub.device(device).find(args.query)
    ctx.session.remember_finds(device, (result,))
    matches = []
    lines = [f"{result.count} match(es) on {device}"]
    for m in result.matches:
        handle = ctx.session.handles.handle_for(device, m.node.node_id)
        matches.append(
            Match(
                handle=handle,
                node_id=m.node.node_id,
                role=m.node.role.value,
                name=node_name(m.node),
                reason=m.reason,
                confidence=m.confidence,
                ref=m.ref,
            )
        )
        lines.append(f"{render_line(m.node, handle)} · {m.reason}")
    if result.count > 1:
        lines.append("several nodes match: act on one by its handle, or narrow the query")
    out = FindOutput(
        device=device,
        count=result.count,
        generation=result.generation,
        snapshot_id=result.snapshot_id,
        matches=tuple(matches),
    )
    return ToolOutcome("\n".join(lines), out)


# ---- wait ---------------------------------------------------------------------------------


async def wait(ctx: ToolContext, args: WaitArgs) -> ToolOutcome:
    """Waits at the hub; sends MCP progress while waiting (when the caller asked for it).
    Cancelling the MCP request cancels the hub's wait (bridge.client sends ``cancel``)."""
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    budget = args.timeout_ms
    if budget is None:
        budget = 10_000 if isinstance(args.condition, ScreenShown) else 5_000
    result = None
    async with anyio.create_task_group() as tg:
        if ctx.progress_token is not None:
            tg.start_soon(_progress, ctx, ctx.progress_token, budget)
        result = await hub.device(device).wait(args.condition, args.timeout_ms)
        tg.cancel_scope.cancel()
    assert result is not None
    met = result.result is VerificationResult.CONDITION_MET
    text = f"{result.result.value} after {result.elapsed_ms} ms"
    if not met and result.evidence:
        text += "\n" + "\n".join(
            f"  {e.what}: observed {e.observed!r}, expected {e.expected!r}"
            for e in result.evidence[:8]
        )
    return ToolOutcome(text, WaitOutput(device=device, met=met, result=result))


async def _progress(ctx: ToolContext, token: str | int, budget_ms: int) -> None:
    started = anyio.current_time()
    while True:
        await anyio.sleep(PROGRESS_INTERVAL_S)
        elapsed = int((anyio.current_time() - started) * 1000)
        await ctx.mcp.send_progress_notification(
            token,
            float(min(elapsed, budget_ms)),
            float(budget_ms),
            f"waiting: {elapsed / 1000:.1f} s of {budget_ms / 1000:.1f} s",
            related_request_id=str(ctx.request_id),
        )


# ---- screenshot and lease -----------------------------------------------------------------


async def screenshot(ctx: ToolContext, args: ScreenshotArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    dev = hub.device(device)
    result = await dev.screenshot()
    ctx.session.remember_capture(result)
    uri = CAPTURE_URI.format(capture=result.capture)
    extra: list[types.ContentBlock] = []
    if args.include_image:
        png = await dev.fetch_screenshot(result)
        extra.append(
            types.ImageContent(
                type="image", data=base64.b64encode(png).decode("ascii"), mimeType="image/png"
            )
        )
    extra.append(
        types.ResourceLink(
            type="resource_link",
            uri=AnyUrl(uri),
            name=f"capture {result.capture}",
            mimeType="image/png",
            size=result.bytes,
        )
    )
    out = ScreenshotOutput(
        device=device,
        uri=uri,
        width=result.width,
        height=result.height,
        bytes=result.bytes,
        url=result.url,
    )
    text = f"screenshot of {device}: {result.width}x{result.height} PNG, {uri}"
    return ToolOutcome(text, out, extra)


async def lease(ctx: ToolContext, args: LeaseArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    if args.action == "acquire":
        result = await dev.acquire_lease(args.mode)
    else:
        result = await dev.release_lease()
    if result.lease is None:
        text = f"{device}: no lease held; any controller may act"
    else:
        who = ", ".join(result.lease.holder_names or result.lease.holders)
        text = f"{device}: {result.lease.mode} lease held by {who}"
    return ToolOutcome(text, LeaseOutput(device=device, lease=result.lease))


async def activity(ctx: ToolContext, args: ActivityArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    history = await hub.device(device).history(args.limit)
    mine = hub.session.session if hub.session else None
    log = tuple(activity_entry(h.event, mine) for h in history.entries)
    lines = [f"{device}: the last {len(log)} event(s), oldest first"]
    for e, h in zip(log, history.entries, strict=True):
        who = "you" if e.mine else (e.client or "?")
        ago = f"{h.age_ms / 1000:.1f}s ago"
        if e.kind == "action":
            lines.append(f"  {ago} {who}: {e.action} {e.target or ''} -> {e.outcome}")
        elif e.kind == "lease":
            lines.append(f"  {ago} {who}: lease {e.outcome}")
        else:
            lines.append(f"  {ago} device {e.outcome}")
    return ToolOutcome("\n".join(lines), ActivityOutput(device=device, entries=log))


READING_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "devices",
        "List devices",
        "List the hub's devices: id, platform, model, online or offline, who holds the lease. "
        "Pass an id as `device` to the other tools (optional when there is one device).",
        NoArgs,
        DevicesOutput,
        devices,
    ),
    ToolSpec(
        "screen",
        "Read the screen",
        "The current screen as a compact outline, one line per meaningful node: handle, role, "
        'name in quotes, ="value", hint, #resource-id and state flags. Act on a node by its '
        "handle (e7). The structured content has the full compact snapshot JSON.",
        ScreenArgs,
        ScreenOutput,
        screen,
    ),
    ToolSpec(
        "find",
        "Find nodes",
        "Run a semantic query (role, text/label with match mode, resourceId, state, within, "
        "nth) on the current screen. Returns every match with a handle, a NodeRef and why it "
        "matched; several matches are listed, never narrowed by guessing.",
        FindArgs,
        FindOutput,
        find,
    ),
    ToolSpec(
        "wait",
        "Wait for a condition",
        "Wait until a condition holds: present/absent (query), value, state, screen (name), "
        "app (appId), stable (forMs), allOf/anyOf/not. Reports progress while waiting; a "
        "timeout is a result (met: false) with evidence, not an error.",
        WaitArgs,
        WaitOutput,
        wait,
    ),
    ToolSpec(
        "screenshot",
        "Take a screenshot",
        "Capture the screen as a PNG: returned as an image and as a resource link "
        "(mobridge://captures/<id>) that can be read again later.",
        ScreenshotArgs,
        ScreenshotOutput,
        screenshot,
    ),
    ToolSpec(
        "activity",
        "Recent activity on a device",
        "What every client of the hub (other agents included) did on the device lately, "
        "oldest first: actions with their outcome or refusal, lease changes.",
        ActivityArgs,
        ActivityOutput,
        activity,
    ),
    ToolSpec(
        "lease",
        "Acquire or release the device lease",
        "acquire an exclusive (or shared) lease so other agents cannot act on the device "
        "meanwhile, or release it. An idle lease can be taken over after a few minutes.",
        LeaseArgs,
        LeaseOutput,
        lease,
        read_only=False,
    ),
)
