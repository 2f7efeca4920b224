#!/usr/bin/env python3
"""One-off measurement of the Java host agent's captures through a real hub (not a test, not a
benchmark claim: run it once and read the numbers).

For each scene given (default: large, deep) it starts ``scripts/run-android-agent-host --scene
S``, links a hub to it, then times N whole captures: the round trip of a ``capture`` command
over the hub's agent link (agent walk, JSON, websocket, decode) and the hub's normalization of
the tree it got. Prints p50/p99 in milliseconds. Then prints the fake's node and fetch counts
per scene (``SceneStats``: full vs compressed layout, fetches without and with prefetching).

    .venv/bin/python agents/android/tools/measure_host.py [--captures 30] [SCENE ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bridge.core.normalize import SnapshotContext, normalize  # noqa: E402
from bridge.hub.app import AgentTarget, Hub, HubConfig  # noqa: E402
from bridge.net.auth import Principal  # noqa: E402
from bridge.wire.agent_link import CaptureCommand  # noqa: E402

TOKEN = "measure-agent-token"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def measure(scene: str, url: str, captures: int) -> None:
    """Times ``captures`` captures of the agent at ``url`` (serving ``scene``) through a hub."""
    hub = Hub(
        HubConfig(
            port=0,
            sim=False,
            tokens={"t": Principal("controller", "measure")},
            agents=[AgentTarget(url, TOKEN)],
        )
    )
    async with anyio.create_task_group() as tg:
        await tg.start(hub.run)
        while not any(d.online for d in hub.service.devices.values()):  # noqa: ASYNC110
            await anyio.sleep(0.05)
        (device,) = hub.service.devices.values()
        link = device.link
        assert link is not None
        trips: list[float] = []
        norms: list[float] = []
        nodes = 0
        for i in range(captures + 3):  # the first three warm the JIT up and are dropped
            t0 = time.perf_counter()
            reply = await link.command(lambda cid: CaptureCommand(id=cid))
            t1 = time.perf_counter()
            assert reply.tree is not None
            normalize(reply.tree, SnapshotContext(device.id, f"s_m{i}", 0))
            t2 = time.perf_counter()
            nodes = len(reply.tree.nodes)
            if i >= 3:
                trips.append((t1 - t0) * 1000)
                norms.append((t2 - t1) * 1000)
        print(
            f"{scene}: {nodes} nodes, {captures} captures through the hub's agent link:"
            f" p50 {statistics.median(trips):.1f} ms, p99 {pct(trips, 99):.1f} ms;"
            f" hub normalization p50 {statistics.median(norms):.1f} ms,"
            f" p99 {pct(norms, 99):.1f} ms"
        )
        tg.cancel_scope.cancel()


def scene_stats() -> None:
    jar = ROOT / "agents/android/build/mobridge-agent-host.jar"
    env = subprocess.run(
        ["sh", "-c", ". agents/android/tools/java-env.sh && echo $JSON_JAR"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    subprocess.run(
        ["java", "-cp", f"{jar}:{env.stdout.strip()}", "dev.mobridge.agent.host.SceneStats"],
        cwd=ROOT,
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--captures", type=int, default=30)
    parser.add_argument("scenes", nargs="*", default=["large", "deep"])
    args = parser.parse_args()
    for scene in args.scenes:
        proc = subprocess.Popen(
            [
                str(ROOT / "scripts/run-android-agent-host"),
                *("--port", "0", "--token", TOKEN, "--scene", scene),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        try:
            assert proc.stdout is not None
            anyio.run(measure, scene, proc.stdout.readline().split()[1], args.captures)
        finally:
            proc.terminate()
            proc.wait(10)
    scene_stats()


if __name__ == "__main__":
    main()
