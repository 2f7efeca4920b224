"""MCP benchmark: a 20-step agent session three ways (``bridge.bench.mcp_session``), the screen
outline's size, and how soon a subscribed agent hears of a change.

0. The agent session: bytes the model reads and wall time, beside mobile-mcp's and
   Playwright-MCP's ways and the Python client (see ``bridge.bench.mcp_session``).

1. Token economy, on every real dump in ``../shared/data/real-dumps`` (skipped with a note when
   absent): characters of the raw page source, of the compact snapshot JSON, and of the
   outline ``mobridge mcp``'s ``screen`` tool returns; medians, largest, and ratios.
2. ``resources/updated`` latency: a hub in this process with the simulated device, ``mobridge
   mcp`` as a separate process (stdio, the MCP SDK's client here, subscribed to the screen
   resource), a second hub client in this process that changes the screen (SET_TEXT) and a
   watcher that records when the hub's delta arrives; latency = the notification's arrival
   minus the delta's, per change, changes spaced beyond the coalescing window.
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from pathlib import Path

import msgspec

DUMPS = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-dumps"


def _outline_sizes() -> list[str]:
    from bridge.core.importers import ImportFailure, import_dump
    from bridge.core.normalize import NormalizeFailure, SnapshotContext, normalize
    from bridge.mcp.outline import build_outline

    if not DUMPS.is_dir():
        return [f"outline size: skipped ({DUMPS} is absent)"]
    rows: list[tuple[int, int, int, str]] = []
    for path in sorted(p for p in DUMPS.rglob("*") if p.suffix in (".xml", ".json")):
        data = path.read_bytes()
        raw = import_dump(data, str(path))
        if isinstance(raw, ImportFailure):
            continue
        norm = normalize(raw, SnapshotContext("bench", "s_1", 0))
        if isinstance(norm, NormalizeFailure):
            continue
        outline = build_outline(norm.compact, lambda n: f"e{n.node_id[1:]}")
        compact = len(msgspec.json.encode(norm.compact).decode())
        rows.append((len(outline.text), compact, len(data.decode(errors="replace")), path.name))
    columns = [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]]
    med = [statistics.median(c) for c in columns]
    big = [max(c) for c in columns]
    biggest = max(rows)
    ratios = [r[2] / r[0] for r in rows], [r[1] / r[0] for r in rows]
    return [
        f"outline size on {len(rows)} real dumps (characters)",
        f"{'':>10} {'outline':>9} {'compact JSON':>13} {'page source':>12}",
        f"{'median':>10} {med[0]:>9.0f} {med[1]:>13.0f} {med[2]:>12.0f}",
        f"{'largest':>10} {big[0]:>9} {big[1]:>13} {big[2]:>12}",
        f"largest outline: {biggest[3]} ({biggest[0]} vs {biggest[1]} compact JSON, "
        f"{biggest[2]} page source)",
        f"median ratio: page source / outline {statistics.median(ratios[0]):.1f}x, "
        f"compact JSON / outline {statistics.median(ratios[1]):.1f}x",
    ]


async def _latency(changes: int) -> list[float]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
    from pydantic import AnyUrl

    from bridge.client import build_query, connect
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal

    token = "bench-mcp-token"
    hub = Hub(
        HubConfig(port=0, tokens={token: Principal("controller", "bench")}, sim_scene="login")
    )
    notices: list[float] = []

    async def record(message: object) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ResourceUpdatedNotification
        ):
            notices.append(time.monotonic())

    latencies: list[float] = []
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        url = f"ws://127.0.0.1:{port}/v1"
        device = next(iter(hub.service.devices))
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "bridge.cli", "mcp", "--url", url, "--token", token],
            env=dict(os.environ),
        )
        with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, message_handler=record) as mcp,
                connect(url, token=token, name="bench-changer") as changer,
            ):
                await mcp.initialize()
                uri = f"mobridge://devices/{device}/screen"
                await mcp.subscribe_resource(AnyUrl(uri))
                dev = changer.device(device)
                field = build_query(resource_id="dev.mobridge.demo:id/username")
                async with dev.watch() as watch:
                    await watch.__anext__()
                    for i in range(changes):
                        async with anyio.create_task_group() as act:
                            act.start_soon(dev.type_text, field, f"v{i}")
                            await watch.__anext__()
                            at = time.monotonic()
                        await anyio.sleep(0.6)
                        later = [n for n in notices if n >= at - 0.05]
                        if later:
                            latencies.append(max(0.0, later[0] - at))
        tg.cancel_scope.cancel()
    return latencies


def run(quick: bool) -> list[str]:
    import anyio

    try:
        import mcp  # noqa: F401  (the MCP SDK: `mobridge mcp` and the bench's client)
    except ImportError:
        return [
            "mcp: skipped (needs the MCP SDK, the mcp extra: "
            "MOBRIDGE_EXTRAS=mcp scripts/bench --only mcp)"
        ]
    from bridge.bench.mcp_session import run_sessions
    from bridge.hub.logs import configure

    configure(level=logging.WARNING, stream=sys.stderr)
    lines = run_sessions(2 if quick else 5)
    lines.extend(_outline_sizes())
    changes = 5 if quick else 20
    latencies = anyio.run(_latency, changes)
    ms = sorted(x * 1000 for x in latencies)
    lines.append(
        f"resources/updated after a screen change ({len(ms)}/{changes} changes announced): "
        f"median {statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms"
        if ms
        else "resources/updated: no notification arrived"
    )
    return lines
