"""Agent round trips, side by side for the simulated device, the Java agent core in host mode
(scripts/run-android-agent-host) and the Swift agent core in host mode (scripts/run-ios-agent-host):
capture -> hub snapshot (a capture command over the agent link plus normalization) and an
action's round trip through the hub (act SET_TEXT with NODE_VALUE_EQUALS verification,
stableForMs 0). The Java and Swift agents are skipped, and say so, when no JDK or no Swift
toolchain is installed."""

from __future__ import annotations

import secrets
import shutil
import statistics
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from bridge.client import build_query, connect
from bridge.core.identity import IdAllocator
from bridge.core.normalize import SnapshotContext, normalize
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.hub.logs import configure
from bridge.net.agent_link import AgentLink
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.agent_link import AgentStatus, CaptureCommand, TreePush
from bridge.wire.conditions import ValueEquals
from bridge.wire.enums import ActionVerb, VerificationPolicy

ROOT = Path(__file__).resolve().parents[2]
HUB_TOKEN = secrets.token_urlsafe(16)


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@asynccontextmanager
async def _sim() -> AsyncIterator[tuple[str, str]]:
    from bridge.devices.sim import SimConfig, SimDevice

    token = secrets.token_urlsafe(16)
    sim = SimDevice(SimConfig(token=token, scene="login", animations=False))
    async with anyio.create_task_group() as tg:
        port = await tg.start(sim.serve)
        yield f"ws://127.0.0.1:{port}", token
        tg.cancel_scope.cancel()


@asynccontextmanager
async def _java() -> AsyncIterator[tuple[str, str]]:
    token = secrets.token_urlsafe(16)
    argv = [str(ROOT / "scripts" / "run-android-agent-host"), "--port", "0", "--token", token]
    proc = await anyio.to_thread.run_sync(
        lambda: subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
        )
    )
    try:
        assert proc.stdout is not None
        line = await anyio.to_thread.run_sync(proc.stdout.readline)
        if not line.startswith("READY "):
            raise RuntimeError(f"the Java agent did not start: {line!r}")
        yield line.split()[1], token
    finally:
        proc.terminate()
        await anyio.to_thread.run_sync(proc.wait)


@asynccontextmanager
async def _swift() -> AsyncIterator[tuple[str, str]]:
    token = secrets.token_urlsafe(16)
    argv = [str(ROOT / "scripts" / "run-ios-agent-host"), "--port", "0", "--token", token]
    proc = await anyio.to_thread.run_sync(
        lambda: subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
        )
    )
    try:
        assert proc.stdout is not None
        line = await anyio.to_thread.run_sync(proc.stdout.readline)
        if not line.startswith("READY "):
            raise RuntimeError(f"the Swift agent did not start: {line!r}")
        yield line.split()[1], token
    finally:
        proc.terminate()
        await anyio.to_thread.run_sync(proc.wait)


def _have_swift() -> bool:
    return shutil.which("swift") is not None or Path("/opt/swift/usr/bin/swift").exists()


async def _capture_round_trips(url: str, token: str, runs: int) -> list[float]:
    async def ignore_tree(_: TreePush) -> None:
        return None

    async def ignore_status(_: AgentStatus) -> None:
        return None

    link = AgentLink(url, token, on_tree=ignore_tree, on_status=ignore_status)
    await link.connect()
    out: list[float] = []
    ids = IdAllocator()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_swallow, link)
        for i in range(runs + 3):
            t0 = time.perf_counter()
            reply = await link.command(lambda cid: CaptureCommand(id=cid))
            assert reply.tree is not None
            normalize(reply.tree, SnapshotContext("bench", f"s_{i + 1}", 0), ids)
            if i >= 3:
                out.append((time.perf_counter() - t0) * 1000)
        tg.cancel_scope.cancel()
    await link.close()
    return out


async def _swallow(link: AgentLink) -> None:
    try:
        await link.run()
    except Exception:  # the bench closes the link on purpose
        return


async def _action_round_trips(url: str, token: str, runs: int) -> list[float]:
    hub = Hub(
        HubConfig(
            port=0,
            sim=False,
            tokens={HUB_TOKEN: Principal("controller", "bench")},
            agents=[AgentTarget(url, token)],
        )
    )
    out: list[float] = []
    async with anyio.create_task_group() as tg:
        await tg.start(hub.run)
        device_id = next(iter(hub.service.devices))
        async with connect(f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="b") as c:
            dev = c.device(device_id)
            for i in range(runs + 3):
                found = await dev.find(build_query(resource_id="username"))
                value = f"user{i}"
                t0 = time.perf_counter()
                await dev.act(
                    ActionRequest(
                        action=ActionVerb.SET_TEXT,
                        target=found.matches[0].ref,
                        value=value,
                        verify=Verify(
                            policy=VerificationPolicy.NODE_VALUE_EQUALS,
                            expected=ValueEquals(equals=value),
                            timeout_ms=3000,
                            stable_for_ms=0,
                        ),
                    )
                )
                if i >= 3:
                    out.append((time.perf_counter() - t0) * 1000)
        tg.cancel_scope.cancel()
    return out


def run(quick: bool) -> list[str]:
    runs = 10 if quick else 50
    configure(json_lines=True, level=40)  # errors only: the hub logs every action otherwise
    lines = [
        f"agents: {runs} runs each; capture = capture command over the agent link + "
        "normalize; act = SET_TEXT + NODE_VALUE_EQUALS through the hub (stableForMs 0)",
        "  agent              capture p50  capture p99   act p50   act p99  (ms)",
    ]
    agents: list[tuple[str, Callable[[], object]]] = [("simulated (Python)", _sim)]
    if shutil.which("javac") and shutil.which("java"):
        agents.append(("Java core, host", _java))
    else:
        lines.append("  (no JDK: the Java agent is not measured)")
    if _have_swift():
        agents.append(("Swift core, host", _swift))
    else:
        lines.append("  (no Swift toolchain: the Swift agent is not measured)")
    results: dict[str, tuple[list[float], list[float]]] = {}

    async def main() -> None:
        for name, starter in agents:
            async with starter() as (url, token):  # type: ignore[attr-defined]
                caps = await _capture_round_trips(url, token, runs)
                acts = await _action_round_trips(url, token, runs)
                results[name] = (caps, acts)

    anyio.run(main)
    configure(json_lines=True)
    for name, (caps, acts) in results.items():
        lines.append(
            f"  {name:18} {statistics.median(caps):11.2f}  {_pct(caps, 0.99):11.2f}  "
            f"{statistics.median(acts):8.2f}  {_pct(acts, 0.99):8.2f}"
        )
    c1, a1 = results["simulated (Python)"]
    for name, short in (("Java core, host", "java"), ("Swift core, host", "swift")):
        if name in results:
            c2, a2 = results[name]
            lines.append(
                f"  {short}/sim ratio: capture "
                f"{statistics.median(c2) / statistics.median(c1):.2f}x, "
                f"act {statistics.median(a2) / statistics.median(a1):.2f}x"
            )
    return lines
