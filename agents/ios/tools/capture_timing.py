#!/usr/bin/env python3
"""Capture timing of the Swift host agent through the hub, per pathology scene (issue 20).

Starts ``scripts/run-ios-agent-host --scene NAME`` for each scene named, links a real hub to it
(127.0.0.1, in this process) and asks for ``--captures`` full captures through the hub's agent
link (the agent's capture, its JSON, the websocket and the hub's decode), each then normalized
as the hub does; prints p50/p99 of the round trip and of round trip + normalize, the node count
and the deepest level. A one-off measurement for the issue's note, not a test and not a
benchmark: figures meant for comparison come from ``scripts/bench``.

    .venv/bin/python agents/ios/tools/capture_timing.py large deep --captures 25
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bridge.core.normalize import SnapshotContext, normalize  # noqa: E402
from bridge.wire.agent_link import CaptureCommand  # noqa: E402
from tests.devices.ios_fakes.swift_host import swift_agent  # noqa: E402
from tests.hub.agent_hub import hub_on  # noqa: E402

TOKEN = "capture-timing-token"


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def _scene(name: str, captures: int) -> None:
    with swift_agent(TOKEN, 0, "--scene", name) as (_proc, url):
        async with hub_on(url, agent_token=TOKEN, hub_token="timing-hub", name="timing") as hub:
            (device,) = hub.service.devices.values()
            assert device.link is not None
            link = device.link
            trips: list[float] = []
            totals: list[float] = []
            nodes = depth = 0
            for i in range(captures + 2):  # two warm-up captures
                started = time.perf_counter()
                reply = await link.command(lambda cid: CaptureCommand(id=cid), timeout_s=30.0)
                trip = time.perf_counter() - started
                assert reply.ok and reply.tree is not None, reply.message
                normalize(reply.tree, SnapshotContext(device.id, f"s_{i}", 0))
                total = time.perf_counter() - started
                if i >= 2:
                    trips.append(trip * 1000)
                    totals.append(total * 1000)
                tree = reply.tree
                nodes = len(tree.nodes)
                levels = [0] * nodes
                for k, n in enumerate(tree.nodes):
                    levels[k] = levels[n.parent] + 1 if n.parent >= 0 else 0
                depth = max(levels)
            print(
                f"{name}: {nodes} nodes, {depth} levels; over {captures} captures through the hub: "
                f"link round trip p50 {statistics.median(trips):.1f} ms p99 {_pct(trips, 99):.1f} ms; "
                f"with normalize p50 {statistics.median(totals):.1f} ms p99 {_pct(totals, 99):.1f} ms"
            )


async def _main(scenes: list[str], captures: int) -> None:
    for s in scenes:
        await _scene(s, captures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="+")
    parser.add_argument("--captures", type=int, default=25)
    args = parser.parse_args()
    anyio.run(_main, args.scenes, max(1, min(args.captures, 1000)))


if __name__ == "__main__":
    main()
