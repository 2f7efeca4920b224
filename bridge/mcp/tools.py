"""The tool registry and the reading tools: devices, screen, find, wait, screenshot, lease.

Each tool is a ``ToolSpec``: typed arguments and result (``bridge.mcp.schemas``), a short
description for the model, annotations, and ``run(ctx, args) -> ToolOutcome``. ``run``
raises ``ToolRefusal`` for what the model can act on and lets ``bridge.client`` errors
through (``bridge.mcp.server`` maps them with ``bridge.mcp.refusals``). The acting tools
live in ``bridge.mcp.acting``.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
    ScreenshotArgs,
    ScreenshotOutput,
    WaitArgs,
    WaitOutput,
)
from bridge.mcp.session import McpSession, activity_entry
from bridge.mcp.targets import condition_of, query_of
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import VerificationResult

MAX_MATCHES_SHOWN = 50

T = TypeVar("T")
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
    hub_ms: float = 0.0
    """Time spent waiting on the hub's answer to the action (reported in the result's
    ``_meta`` as ``mobridge/hubMs``, so the MCP layer's own cost can be measured)."""

    async def timed(self, call: Awaitable[T]) -> T:
        """Await a hub call, adding its duration to ``hub_ms``."""
        started = time.perf_counter()
        try:
            return await call
        finally:
            self.hub_ms += (time.perf_counter() - started) * 1000

    async def device_of(self, requested: str | None) -> str:
        self.device = await self.session.device_id(requested)
        return self.device


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    structured: Any = None
    """Small structured facts for programs (None: text only)."""
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
    docs: dict[str, str] = field(default_factory=dict)
    """Per-parameter descriptions that say more than ``bridge.mcp.lean.PARAM_DOCS``."""


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
    view_id, view, _ = await ctx.session.look(
        device, goal=args.goal, max_tokens=args.max_tokens, since=args.since
    )
    return ToolOutcome(f"view {view_id} · {view.text}")


async def find(ctx: ToolContext, args: FindArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    result = await hub.device(device).find(query_of(args.query))
    matches = []
    lines = [f"{result.count} match(es) on {device}"]
    for m in result.matches[:MAX_MATCHES_SHOWN]:
        handle = ctx.session.handles.handle_for(
            device, m.node.node_id, generation=result.generation, role=m.node.role
        )
        matches.append(
            Match(
                handle=handle,
                role=m.node.role.value,
                name=node_name(m.node),
                reason=m.reason,
                bounds=m.node.bounds,
            )
        )
        lines.append(f"{render_line(m.node, handle)} · {m.reason}")
    if result.count > MAX_MATCHES_SHOWN:
        lines.append(f"… {result.count - MAX_MATCHES_SHOWN} more (narrow the query)")
    if result.count > 1:
        lines.append("several nodes match: act on one by its handle, or narrow the query")
    out = FindOutput(device=device, count=result.count, matches=tuple(matches))
    return ToolOutcome("\n".join(lines), out)


# ---- wait ---------------------------------------------------------------------------------


async def wait(ctx: ToolContext, args: WaitArgs) -> ToolOutcome:
    """Waits at the hub; sends MCP progress while waiting (when the caller asked for it).
    Cancelling the MCP request cancels the hub's wait (bridge.client sends ``cancel``)."""
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    condition = condition_of(args.condition)
    budget = args.timeout_ms
    if budget is None:
        budget = 10_000 if isinstance(condition, ScreenShown) else 5_000
    result = None
    async with anyio.create_task_group() as tg:
        if ctx.progress_token is not None:
            tg.start_soon(_progress, ctx, ctx.progress_token, budget)
        result = await hub.device(device).wait(condition, args.timeout_ms)
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
        result = await dev.acquire_lease(args.mode, alerts=args.alerts)
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
        "The devices: id (every tool's `device`), platform, model, online, holder.",
        NoArgs,
        DevicesOutput,
        devices,
    ),
    ToolSpec(
        "screen",
        "Read the screen",
        'The screen, a line per element (handle, role, "name", =value, hint, #id, flags). '
        "Actions answer with the new screen already.",
        ScreenArgs,
        NoArgs,
        screen,
    ),
    ToolSpec(
        "find",
        "Find elements",
        "Every element matching a query, with its handle and why.",
        FindArgs,
        FindOutput,
        find,
    ),
    ToolSpec(
        "wait",
        "Wait for a condition",
        "Wait until a condition holds (a timeout is met: false).",
        WaitArgs,
        WaitOutput,
        wait,
    ),
    ToolSpec(
        "screenshot",
        "Take a screenshot",
        "The screen as a PNG (and a link).",
        ScreenshotArgs,
        ScreenshotOutput,
        screenshot,
    ),
    ToolSpec(
        "activity",
        "Recent activity",
        "What every client (agents, people) did lately, oldest first.",
        ActivityArgs,
        ActivityOutput,
        activity,
    ),
    ToolSpec(
        "lease",
        "Acquire or release the device lease",
        "Hold the device so others cannot act, or let it go (a person or script may take it).",
        LeaseArgs,
        LeaseOutput,
        lease,
        read_only=False,
    ),
)
