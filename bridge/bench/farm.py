"""Farm benchmark: delta latency to 1,500 subscribers over three hubs vs 500 on one hub.

Everything is real and on 127.0.0.1: ``nats-server``, three hubs (``mobridge serve --farm``,
each its own process), the bench agent (``bridge.bench.hub_agent.BenchAgent``, in this process)
attached to hub A, and subscriber processes (``bridge.bench.farm_subscribers``, 250
subscribers each). Side by side in one run:

1. one hub: 500 subscribers on hub A (the device is A's own);
2. three hubs: 500 subscribers on each of A, B and C; B and C relay A's stream (each hub
   subscribes once to the owner's NATS subject and fans out to its own subscribers).

Latency is ``t0`` (just before the agent sends a push) -> a subscriber process reads the
delta (``CLOCK_MONOTONIC``, shared by every process on the machine). The next change is
pushed once every subscriber has the previous one. The machine is small (2 cores): every
process — NATS, three hubs, the subscriber processes — shares them, so the ratio between the
two setups is the figure to read, not the absolute milliseconds.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.abc

from bridge.bench.hub import CLIENT_TOKEN, percentile
from bridge.bench.hub_agent import AGENT_TOKEN, BenchAgent

ROOT = Path(__file__).resolve().parents[2]
PER_PROCESS = 250
WAIT_S = 10.0


@dataclass(frozen=True)
class Sizes:
    per_hub: int = 500
    changes: int = 100
    warmup: int = 10


FULL = Sizes()
QUICK = Sizes(per_hub=250, changes=30, warmup=5)


def run(quick: bool) -> list[str]:
    return measure(QUICK if quick else FULL)


def _nats_server() -> str | None:
    found = shutil.which("nats-server")
    if found is None and Path("/usr/sbin/nats-server").exists():
        found = "/usr/sbin/nats-server"
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(sizes: Sizes) -> list[str]:
    binary = _nats_server()
    if binary is None:
        return ["farm: no nats-server (scripts/system-packages --install installs it); skipped"]
    with tempfile.TemporaryDirectory(prefix="mobridge-farm-bench-") as tmp:
        return anyio.run(_measure, sizes, binary, Path(tmp))


@contextmanager
def _process(command: list[str], log: Path, **kw: Any) -> Any:
    with open(log, "ab") as sink:
        proc = subprocess.Popen(command, stderr=sink, cwd=ROOT, **kw)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def _hub_port(proc: subprocess.Popen[str]) -> int:
    assert proc.stdout is not None
    port = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("mobridge hub listening on ws://127.0.0.1:"):
            port = int(line.rsplit(":", 1)[1].split("/")[0])
        if line.startswith("devices:"):
            return port
    raise RuntimeError("a bench hub did not start")


class _Signal:
    """Wakes every waiter when a subscriber process says something."""

    def __init__(self) -> None:
        self._event = anyio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = anyio.Event()

    async def until(self, check: Any, within_s: float) -> bool:
        """Wait until ``check()`` holds (True) or ``within_s`` passed (False)."""
        with anyio.move_on_after(within_s):
            while not check():
                await self._event.wait()
        return bool(check())


NEWS = _Signal()


@dataclass
class _Pool:
    """One subscriber process, driven over its stdin/stdout."""

    hub: str
    proc: subprocess.Popen[str]
    count: int = 0
    seq: int = 0
    done: set[int] = field(default_factory=set)
    times: dict[int, list[int]] = field(default_factory=dict)
    resyncs: int = 0
    reported: bool = False

    @property
    def stdout(self) -> IO[str]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()


async def _read_lines(pool: _Pool) -> None:
    while True:
        line = await anyio.to_thread.run_sync(pool.stdout.readline, abandon_on_cancel=True)
        if not line:
            NEWS.fire()
            return
        word, _, rest = line.strip().partition(" ")
        if word == "ready":
            seq, count = rest.split()
            pool.seq, pool.count = int(seq), int(count)
        elif word == "done":
            pool.done.add(int(rest))
        elif word.startswith("{"):
            report = json.loads(line)
            pool.times = {int(k): v for k, v in report["times"].items()}
            pool.resyncs = report["resyncs"]
            pool.reported = True
        NEWS.fire()


async def _series(
    agent: BenchAgent, pools: list[_Pool], sizes: Sizes
) -> tuple[dict[int, int], int]:
    """Push warm-up and measured changes; returns measured seq -> t0 and the misses."""
    base = max(p.seq for p in pools)
    t0s: dict[int, int] = {}
    missed = 0
    for i in range(1, sizes.warmup + sizes.changes + 1):
        seq = base + i
        t0 = agent.sent[await agent.push_change()]
        if not await NEWS.until(lambda s=seq: all(s in p.done for p in pools), WAIT_S):
            missed += 1
        if i > sizes.warmup:
            t0s[seq] = t0
        await anyio.sleep(0.002)
    return t0s, missed


async def _open_pools(hubs: dict[str, int], per_hub: int, stack: ExitStack) -> list[_Pool]:
    pools = []
    for name, port in hubs.items():
        left = per_hub
        while left > 0:
            n = min(PER_PROCESS, left)
            left -= n
            proc = stack.enter_context(
                _process(
                    [sys.executable, "-m", "bridge.bench.farm_subscribers",
                     f"ws://127.0.0.1:{port}/v1", str(n)],
                    Path(os.devnull),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )  # fmt: skip
            pools.append(_Pool(name, proc))
    return pools


async def _collect(pools: list[_Pool]) -> None:
    for pool in pools:
        pool.send("report")
    await NEWS.until(lambda: all(p.reported or p.proc.poll() is not None for p in pools), 30)


def _row(label: str, pools: list[_Pool], t0s: dict[int, int], missed: int) -> str:
    each: list[float] = []
    last: list[float] = []
    for seq, t0 in t0s.items():
        got = [t - t0 for p in pools for t in p.times.get(seq, [])]
        each += got
        if got:
            last.append(max(got))
    members = sum(p.count for p in pools)
    if not each:
        return f"  {label:<30} {members:>11} (no deltas arrived)"
    return (
        f"  {label:<30} {members:>11} {statistics.median(each) / 1e6:>8.2f} "
        f"{percentile(each, 99) / 1e6:>8.2f} {statistics.median(last) / 1e6:>9.2f} "
        f"{percentile(last, 99) / 1e6:>9.2f} {missed:>7} {sum(p.resyncs for p in pools):>8}"
    )


async def _measure(sizes: Sizes, binary: str, tmp: Path) -> list[str]:
    nats_port = _free_port()
    conf = tmp / "nats.conf"
    conf.write_text(f"listen: 127.0.0.1:{nats_port}\nmax_payload: 8MB\n", encoding="utf-8")
    agent = BenchAgent()
    lines: list[str] = []
    with ExitStack() as stack:
        stack.enter_context(_process([binary, "-c", str(conf)], tmp / "nats.log"))
        _wait_port(nats_port)
        async with anyio.create_task_group() as tg:
            agent_port = await tg.start(agent.serve)
            hubs: dict[str, int] = {}
            for name in ("A", "B", "C"):
                devices = (
                    ["--agent", f"ws://127.0.0.1:{agent_port}", "--agent-token", AGENT_TOKEN]
                    if name == "A"
                    else []
                )
                proc = stack.enter_context(
                    _process(
                        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--no-sim",
                         "--no-dashboard", "--farm-controller-token", CLIENT_TOKEN, "--log-json",
                         "--farm", f"nats://127.0.0.1:{nats_port}", "--farm-name", name,
                         *devices],
                        tmp / f"hub-{name}.log",
                        stdout=subprocess.PIPE,
                        text=True,
                        env={**os.environ, "PYTHONUNBUFFERED": "1"},
                    )
                )  # fmt: skip
                hubs[name] = await anyio.to_thread.run_sync(_hub_port, proc)
            await anyio.sleep(2.5)  # every hub heard every other (heartbeats: 1 s)
            header = (
                f"farm fan-out: agent push -> delta received, per subscriber ({sizes.changes} "
                f"changes of one text on a {len(agent.nodes)}-node screen; JSON, compact; "
                f"subscribers in processes of {PER_PROCESS})"
            )
            lines += [
                header,
                f"  {'setup':<30} {'subscribers':>11} {'p50 ms':>8} {'p99 ms':>8} "
                f"{'last p50':>9} {'last p99':>9} {'missed':>7} {'resyncs':>8}",
            ]
            with ExitStack() as subs:
                pools = await _open_pools({"A": hubs["A"]}, sizes.per_hub, subs)
                async with anyio.create_task_group() as readers:
                    for pool in pools:
                        readers.start_soon(_read_lines, pool)
                    await _ready(pools)
                    t0s, missed = await _series(agent, pools, sizes)
                    await _collect(pools)
                    lines.append(_row("one hub (A, its own device)", pools, t0s, missed))
                    _quit(pools)
                    readers.cancel_scope.cancel()
            with ExitStack() as subs:
                pools = await _open_pools(hubs, sizes.per_hub, subs)
                async with anyio.create_task_group() as readers:
                    for pool in pools:
                        readers.start_soon(_read_lines, pool)
                    await _ready(pools)
                    t0s, missed = await _series(agent, pools, sizes)
                    await _collect(pools)
                    lines.append(_row("three hubs (A owns the device)", pools, t0s, missed))
                    on_a = [p for p in pools if p.hub == "A"]
                    relayed = [p for p in pools if p.hub != "A"]
                    lines.append(_row("  of which on A (local)", on_a, t0s, missed))
                    lines.append(_row("  of which on B, C (relayed)", relayed, t0s, missed))
                    _quit(pools)
                    readers.cancel_scope.cancel()
            tg.cancel_scope.cancel()
    lines.append(
        "  (p50/p99 over every subscriber x change; last = the slowest subscriber of each "
        "change; every process of both setups shares this machine's cores)"
    )
    return lines


def _quit(pools: list[_Pool]) -> None:
    for pool in pools:
        try:
            pool.send("quit")
        except OSError:  # already gone
            pass


async def _ready(pools: list[_Pool]) -> None:
    ready = await NEWS.until(lambda: all(p.count or p.proc.poll() is not None for p in pools), 120)
    if not ready or not all(p.count for p in pools):
        raise RuntimeError("a subscriber process ended (or hung) before it was ready")
    seqs = {p.seq for p in pools}
    if len(seqs) != 1:  # every process joined the same stream at the same point
        raise RuntimeError(f"subscriber processes disagree on the stream's seq: {seqs}")
