"""MCP benchmark: a scripted 20-step agent session on the simulated phone, three ways.

A hub in this process with the simulated device (scene ``login``); ``mobridge mcp`` as its own
process (stdio) driven by the MCP SDK's client; an observer connection here that records the
full screen after every step (outside the timed calls). Steps: log in (a secret by
reference), an ambiguous choice (refused with candidates, then one chosen by handle), a list
scrolled twice and an item picked after a goal-focused look, a dialog cancelled, a settings
toggle and a wait for its state.

Bytes the model reads:

- mobridge: ``tools/list`` plus every tool result (its text and its structured content);
- mobile-mcp's way: the same actions, each answered by a short line, then a full element list
  (``mobile_list_elements_on_screen``: every element with a type, text, label, value,
  identifier and rect, as JSON) after every action, built from the same screens;
- Playwright-MCP's way: every action answered with a full accessibility snapshot of the page
  (every node, nested, with a ref, a role, a name and states), built from the same screens.

Neither peer's tool list is counted (we do not have them here): both columns undercount.
Wall time: the sum of the MCP calls' round trips, beside the same steps done with the
Python client (``bridge.client``) against a fresh hub, each run ``runs`` times (medians).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from bridge.mcp.lean import TOOL_LIST_CAP

SECRET_ENV = "MOBRIDGE_SECRET_DEMO_PASSWORD"
TOOL_LIST_BEFORE = 16_374
"""``tools/list`` bytes (compact JSON, 26 tools) before issue 41 grouped and shrank it."""

Step = tuple[str, dict[str, Any]]
STEPS: tuple[Step, ...] = (
    ("act", {"action": "SET_TEXT", "target": "Username", "text": "demo"}),
    ("act", {"action": "SET_TEXT", "target": "Password", "valueRef": "secret://demo_password"}),
    ("act", {"target": "Sign in", "expect": {"kind": "screen", "name": "home"}}),
    ("act", {"target": "Ambiguous"}),
    ("act", {"target": "Continue"}),  # refused: two candidates
    ("act", {"target": "$candidate"}),
    ("press", {"button": "BACK"}),
    ("act", {"target": "List"}),
    ("act", {"action": "SCROLL", "direction": "up", "target": {"role": "LIST"}}),
    ("act", {"action": "SCROLL", "direction": "up", "target": {"role": "LIST"}}),
    ("screen", {"goal": "Item 25"}),
    ("act", {"target": "Item 25"}),
    ("press", {"button": "BACK"}),
    ("act", {"target": "Dialog"}),
    ("act", {"target": "Cancel"}),
    ("act", {"target": "Settings"}),
    ("act", {"target": "Wi-Fi"}),
    ("wait", {"condition": {"kind": "state", "query": "Wi-Fi", "state": {"checked": False}}}),
    ("act", {"target": "Dark mode"}),
    ("press", {"button": "BACK"}),
)


@dataclass
class SessionRun:
    wall_s: float = 0.0
    tool_list_bytes: int = 0
    result_bytes: list[int] = field(default_factory=list)
    mobile_bytes: list[int] = field(default_factory=list)
    playwright_bytes: list[int] = field(default_factory=list)
    act_ms: list[float] = field(default_factory=list)
    overhead_ms: list[float] = field(default_factory=list)
    """Per action: the MCP round trip minus the hub's answer time measured in the server."""
    errors: list[str] = field(default_factory=list)


def mobile_mcp_list(snapshot: Any) -> str:
    """mobile-mcp's element list of a screen: every element with a name or id, with its rect."""
    elements = []
    for n in snapshot.nodes:
        if not (n.text or n.label or n.value or n.hint or n.resource_id):
            continue
        left, top, right, bottom = n.bounds or (0, 0, 0, 0)
        elements.append(
            {
                "type": n.class_name or n.role.value,
                "text": n.text or "",
                "label": n.label or n.hint or "",
                "name": n.label or "",
                "value": n.value or "",
                "identifier": n.resource_id or "",
                "rect": {"x": left, "y": top, "width": right - left, "height": bottom - top},
                "focused": bool(n.state and n.state.focused),
            }
        )
    return "Found these elements on screen: " + msgspec.json.encode(elements).decode()


def playwright_snapshot(snapshot: Any) -> str:
    """A Playwright-MCP-style page snapshot: every node nested, with a ref, role, name, states."""
    depth: dict[str | None, int] = {None: -1}
    lines = ["### Page state", f"- Page URL: app://{snapshot.package_name}", "```yaml"]
    for i, n in enumerate(snapshot.nodes):
        level = depth.get(n.parent_id, -1) + 1
        depth[n.node_id] = level
        name = n.label or n.text or n.hint or ""
        parts = [f"- {n.role.value.lower()}"]
        if name:
            parts.append(f'"{name}"')
        st = n.state
        if st is not None:
            for flag in ("checked", "selected", "focused", "disabled"):
                if flag == "disabled" and st.enabled is False:
                    parts.append("[disabled]")
                elif flag != "disabled" and getattr(st, flag, None):
                    parts.append(f"[{flag}]")
        parts.append(f"[ref=e{i + 1}]")
        if n.value:
            parts.append(f": {n.value}")
        lines.append("  " * level + " ".join(parts))
    lines.append("```")
    return "\n".join(lines)


def _size(result: Any) -> int:
    """What the model reads of a tool result: its text and its structured content."""
    size = sum(len(c.text.encode()) for c in result.content if c.type == "text")
    if result.structuredContent is not None:
        size += len(msgspec.json.encode(result.structuredContent))
    return size


async def mcp_session(hub_url: str, token: str, device: str, run: SessionRun) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from bridge.client import connect

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--url", hub_url, "--token", token],
        env=dict(os.environ),
    )
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as mcp,
            connect(hub_url, token=token, name="bench-observer") as observer,
        ):
            await mcp.initialize()
            started = time.perf_counter()
            listed = await mcp.list_tools()
            run.wall_s += time.perf_counter() - started
            run.tool_list_bytes = len(listed.model_dump_json(by_alias=True, exclude_none=True))
            await mcp.call_tool("devices", {})  # opens the hub session (not counted)
            dev = observer.device(device)
            candidate = ""
            for tool, args in STEPS:
                if args.get("target") == "$candidate":
                    args = {**args, "target": candidate}
                started = time.perf_counter()
                result = await mcp.call_tool(tool, args)
                took = time.perf_counter() - started
                run.wall_s += took
                hub_ms = (result.meta or {}).get("mobridge/hubMs")
                if tool in ("act", "press") and not result.isError and hub_ms is not None:
                    run.act_ms.append(took * 1000)
                    run.overhead_ms.append(took * 1000 - float(hub_ms))
                text = "\n".join(c.text for c in result.content if c.type == "text")
                if result.isError:
                    run.errors.append(text.splitlines()[0])
                    cands = [ln.split()[1] for ln in text.splitlines() if "candidate e" in ln]
                    candidate = cands[0] if cands else candidate
                run.result_bytes.append(_size(result))
                full = (await dev.snapshot(compact=False)).snapshot
                short = len(f"Performed {tool} {args.get('target', args)!s}".encode())
                run.mobile_bytes.append(short + len(mobile_mcp_list(full).encode()))
                run.playwright_bytes.append(short + len(playwright_snapshot(full).encode()))


async def client_session(hub_url: str, token: str, device: str) -> tuple[float, list[float]]:
    """The same steps with the Python client: total seconds and each action's milliseconds."""
    from bridge.client import AmbiguousError, build_query, connect
    from bridge.wire.action import ActionRequest
    from bridge.wire.conditions import StateIs
    from bridge.wire.enums import ActionVerb, Role
    from bridge.wire.query import QueryState, SemanticQuery

    async with connect(hub_url, token=token, name="bench-python") as hub:
        dev = hub.device(device)
        await dev.snapshot()
        total = 0.0
        acts: list[float] = []

        async def timed(call: Callable[[], Awaitable[Any]], action: bool = True) -> Any:
            nonlocal total
            started = time.perf_counter()
            try:
                return await call()
            finally:
                took = time.perf_counter() - started
                total += took
                if action:
                    acts.append(took * 1000)

        q = build_query
        await timed(lambda: dev.type_text(q(text="Username"), "demo"))
        await timed(lambda: dev.type_text(q(text="Password"), value_ref="secret://demo_password"))
        await timed(lambda: dev.tap(q(text="Sign in")))
        await timed(lambda: dev.tap(q(text="Ambiguous")))
        refs = []
        try:
            await timed(lambda: dev.tap(q(text="Continue")))
        except AmbiguousError as exc:
            refs = list(exc.candidates)
        await timed(lambda: dev.act(ActionRequest(action=ActionVerb.CLICK, target=refs[0])))
        await timed(dev.back)
        await timed(lambda: dev.tap(q(text="List")))

        await timed(lambda: dev.scroll(SemanticQuery(role=Role.LIST)))
        await timed(lambda: dev.scroll(SemanticQuery(role=Role.LIST)))
        await timed(dev.snapshot, action=False)
        await timed(lambda: dev.tap(q(text="Item 25")))
        await timed(dev.back)
        await timed(lambda: dev.tap(q(text="Dialog")))
        await timed(lambda: dev.tap(q(text="Cancel")))
        await timed(lambda: dev.tap(q(text="Settings")))
        await timed(lambda: dev.tap(q(text="Wi-Fi")))
        checked = StateIs(query=q(text="Wi-Fi"), state=QueryState(checked=False))
        await timed(lambda: dev.wait(checked), action=False)
        await timed(lambda: dev.tap(q(text="Dark mode")))
        await timed(dev.back)
        return total, acts


async def _with_hub(body: Callable[[str, str, str], Awaitable[Any]]) -> Any:
    import anyio

    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal

    token = "bench-mcp-session"
    hub = Hub(
        HubConfig(port=0, tokens={token: Principal("controller", "bench")}, sim_scene="login")
    )
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        device = next(iter(hub.service.devices))
        try:
            return await body(f"ws://127.0.0.1:{port}/v1", token, device)
        finally:
            tg.cancel_scope.cancel()


def run_sessions(runs: int) -> list[str]:
    import anyio

    os.environ.setdefault(SECRET_ENV, "bench-secret")
    mcp_runs: list[SessionRun] = []
    py_totals: list[float] = []
    py_acts: list[float] = []
    for _ in range(runs):
        session = SessionRun()

        async def one(url: str, token: str, device: str, session: SessionRun = session) -> None:
            await mcp_session(url, token, device, session)

        anyio.run(_with_hub, one)
        mcp_runs.append(session)
        total, acts = anyio.run(_with_hub, client_session)
        py_totals.append(total)
        py_acts.extend(acts)
    last = mcp_runs[-1]
    ours = last.tool_list_bytes + sum(last.result_bytes)
    mobile = sum(last.mobile_bytes)
    playwright = sum(last.playwright_bytes)
    wall = statistics.median(r.wall_s for r in mcp_runs)
    py_wall = statistics.median(py_totals)
    mcp_act = statistics.median(ms for r in mcp_runs for ms in r.act_ms)
    py_act = statistics.median(py_acts)
    over = sorted(ms for r in mcp_runs for ms in r.overhead_ms)
    return [
        f"agent session: {len(STEPS)} steps on the simulated phone (login, ambiguous choice, "
        f"list scroll, dialog, settings toggle), {runs} run(s), medians",
        f"refusals the agent read: {', '.join(last.errors) or 'none'}",
        f"{'':<34} {'bytes read':>11} {'vs mobridge':>12}",
        f"{'mobridge mcp (tools/list + results)':<34} {ours:>11,} {1.0:>11.1f}x",
        f"{'  of which tools/list':<34} {last.tool_list_bytes:>11,}  (issue 41's start: "
        f"{TOOL_LIST_BEFORE:,} for 26 tools; cap {TOOL_LIST_CAP:,})",
        f"{'mobile-mcp way (list after each)':<34} {mobile:>11,} {mobile / ours:>11.1f}x",
        f"{'Playwright-MCP way (snapshot each)':<34} {playwright:>11,} {playwright / ours:>11.1f}x",
        f"mobridge / mobile-mcp bytes: {ours / mobile:.3f} with our tool list and not theirs, "
        f"{sum(last.result_bytes) / mobile:.3f} results only (goal <= 0.200); "
        f"vs Playwright-MCP results only {sum(last.result_bytes) / playwright:.3f}",
        f"wall time: mcp {wall * 1000:.0f} ms, python client {py_wall * 1000:.0f} ms, "
        f"ratio {wall / py_wall:.3f} (goal <= 1.10)",
        f"per action (median): mcp {mcp_act:.1f} ms, python client {py_act:.1f} ms "
        f"(separate runs: the device's settle time varies)",
        f"MCP layer per action, same calls (round trip minus the hub's answer inside the "
        f"server): median {statistics.median(over):.1f} ms, p90 {over[int(len(over) * 0.9)]:.1f}"
        f" ms over {len(over)} actions (goal <= 10 ms)",
    ]
