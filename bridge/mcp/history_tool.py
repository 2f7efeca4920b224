"""The ``history`` tool: a device's recorded past from the hub's journal, in one compact tool.

``at`` gives the screen as it was then (an outline without handles: a past screen cannot be
acted on); ``when`` the first and last time a text was on the screen; otherwise the timeline
of ``since``..``until``. Times as the hub takes them: ISO-8601, ``-5m``, ``now``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import msgspec

from bridge.mcp.outline import build_outline
from bridge.mcp.schemas import DeviceArg, McpStruct
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.enums import MatchMode
from bridge.wire.query import SemanticQuery, TextMatch

TimeArg = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, description="ISO-8601, -5m, -2h or now")
]


class HistoryArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    at: TimeArg | None = None
    when: Annotated[str, msgspec.Meta(max_length=200, description="text to look for")] | None = None
    since: TimeArg | None = None
    until: TimeArg | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200, description="timeline entries")] = 30


class HistoryOutput(McpStruct, frozen=True):
    device: str
    text: str


def _stamp(at_ms: int) -> str:
    moment = datetime.fromtimestamp(at_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at_ms % 1000:03d}Z"


async def history(ctx: ToolContext, args: HistoryArgs) -> ToolOutcome:
    device_id = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device_id)
    if args.at is not None:
        got = await dev.screen_at(args.at, compact=True)
        outline = build_outline(got.snapshot, lambda _: None)
        text = "\n".join((f"as of {_stamp(got.at_ms)} · {outline.header}", *outline.lines))
        return ToolOutcome(text, HistoryOutput(device=device_id, text=text))
    if args.when is not None:
        query = SemanticQuery(text=TextMatch(value=args.when, match=MatchMode.CONTAINS))
        found = await dev.when(query, args.since, args.until)
        if found.first_ms is None or found.last_ms is None:
            text = f"{args.when!r} never seen ({found.checked} recorded screens)"
        else:
            text = f"{args.when!r} first {_stamp(found.first_ms)}, last {_stamp(found.last_ms)}"
        return ToolOutcome(text, HistoryOutput(device=device_id, text=text))
    got_t = await dev.timeline(args.since, args.until, limit=args.limit)
    lines = [f"{device_id}: {len(got_t.entries)} entries, oldest first"]
    lines += [
        f"  {_stamp(e.at_ms)} {e.kind} {e.summary}" + (f" [{e.client}]" if e.client else "")
        for e in reversed(got_t.entries)
    ]
    text = "\n".join(lines)
    return ToolOutcome(text, HistoryOutput(device=device_id, text=text))


HISTORY_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "history",
        "A device's recorded past",
        "The journal: `at` the screen then; `when` a text was first/last shown; else the "
        "timeline (since/until): actions, refusals, screens, who.",
        HistoryArgs,
        HistoryOutput,
        history,
        docs={
            "at": "ISO-8601, -5m, -2h or now",
            "when": "a text",
            "since": "start (ISO-8601, -5m)",
            "until": "end (default: now)",
            "limit": "how many",
        },
    ),
)
