"""Hub benchmark: the hub in its own process, subscribers in a pool of worker processes, an
agent pushing real-sized trees over a real agent link. Every figure of issue 12's table is
measured here, side by side in one run, and printed with its target and the ratio.

Processes:
- the hub (``bridge.bench.hub_proc``): a real ``Hub`` on 127.0.0.1; it reports its own CPU
  time, RSS and GC pauses, which agent capture each generation came from, and the CPU of each
  ingest (prepare + commit, per thread);
- ``workers`` subscriber processes (``bridge.bench.hub_subscribers``), each holding many raw
  websocket connections (JSON, compact view, permessage-deflate offered as ``bridge.client``
  and browsers offer it), timing every delta they receive — classic ``delta`` subscribers
  (no ``patches``), so the fan-out figures compare with earlier runs;
- this process: the bench agent (``bridge.bench.hub_agent``, the agent-link server the hub
  connects to), the acting client, and the orchestration.

Per tree size (60, 1,000, 5,000 raw nodes: ``bridge.bench.hub_screens``) and subscriber count
(1, 10, 100, 500, 1,000) the agent changes one text at a fixed rate, open loop (it never
waits for the subscribers), and the table shows change -> subscriber latency (agent send ->
the subscriber's receipt, one clock for all processes), p50 and p99 over every subscriber and
change, the slowest subscriber's p99, the hub's CPU per change (its process CPU time over the
series / changes: decode, ingest, fan-out, frame writes), the ingest's share (prepare +
commit), CPU per extra subscriber (the slope from 1 to n subscribers), RSS, and what was
lost: pushes coalesced by the hub (a newer push arrived before the older was ingested),
deliveries missing, resyncs. Then: bytes per one-field change by format and view, as a classic
``delta`` and as the opt-in slim ``patch`` (the target row takes the patch form), the hub's
overhead per action (client round trip minus the agent's time), resolving a NodeRef inside
the hub, and offline import + normalize.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import msgspec
from anyio.streams.buffered import BufferedByteReceiveStream
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from bridge.bench.fanout_floor import usable
from bridge.bench.hub_agent import AGENT_TOKEN, DEVICE_ID, BenchAgent
from bridge.bench.hub_screens import INCREMENT_ID, OPEN_ID, count_text
from bridge.hub.event_loop import INSTALL_HINT, LOOPS, uvloop_installed
from bridge.wire.action import ActionRequest, ObserveMode, Verify
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    Act,
    ClientInfo,
    Find,
    Hello,
    Ping,
    Resolve,
    SnapshotGet,
)
from bridge.wire.codec import MAX_AGENT_FRAME, convert, encode
from bridge.wire.conditions import Present
from bridge.wire.enums import ActionVerb, VerificationPolicy
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery, TextMatch

CLIENT_TOKEN = "bench-controller-token"
PYSPY_ENV = "MOBRIDGE_BENCH_PYSPY"
"""Set (to a directory) to sample the hub with py-spy during the heaviest series."""
SETTLE_S = 5.0
"""How long after its series the bench waits at most for the last push's deltas."""


@dataclass(frozen=True)
class Sizes:
    """What one run measures; ``run`` picks FULL or QUICK, tests pass tiny ones."""

    trees: tuple[int, ...] = (60, 1000, 5000)
    subscribers: tuple[int, ...] = (1, 10, 100, 500, 1000)
    changes: int = 60
    warmup: int = 5
    rate_hz: float = 5.0
    workers: int = 4
    byte_samples: int = 10
    action_trees: tuple[int, ...] = (60, 1000)
    actions: int = 100
    resolve_tree: int = 1000
    resolves: int = 200
    offline: tuple[int, ...] = (1000, 5000)
    offline_runs: int = 7
    comparison_rounds: int = 2
    """Fresh hubs per mode in the side-by-side whole-tree row."""
    fanout_changes: int | None = None
    """Changes per series in the fan-out table (``FLOOR_TREE`` nodes) and its floor, whose
    p99 rows carry targets (None: ``changes``). A p99 over 60 changes is about the worst
    change's figure, and one slow second of a shared machine decides it; over 180 it is the
    second worst's. The table also gives the p99 of each block of ``changes`` changes."""


FULL = Sizes(fanout_changes=180)
QUICK = Sizes(
    trees=(60, 1000),
    subscribers=(1, 10, 100),
    changes=15,
    warmup=3,
    workers=2,
    byte_samples=5,
    actions=30,
    resolves=50,
    offline_runs=3,
    comparison_rounds=1,
)


def run(quick: bool) -> list[str]:
    return measure(QUICK if quick else FULL)


def measure(sizes: Sizes) -> list[str]:
    """Start the hub, the workers and the bench agent; run every series; the table lines."""
    return anyio.run(_measure, sizes)


# ---- numbers ------------------------------------------------------------------------------


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty sample."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _ms(ns: float | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:.2f}"


def _us(ns: float | None) -> str:
    return "-" if ns is None else f"{ns / 1e3:.2f}"


# ---- child processes ----------------------------------------------------------------------


class Child:
    """A child process spoken to in JSON lines (one answer line per command line)."""

    def __init__(self, proc: anyio.abc.Process) -> None:
        self.proc = proc
        assert proc.stdout is not None and proc.stdin is not None
        self._out = BufferedByteReceiveStream(proc.stdout)
        self._in = proc.stdin

    async def line(self, timeout_s: float = 120.0) -> Any:
        with anyio.fail_after(timeout_s):
            data = await self._out.receive_until(b"\n", 1 << 30)
        return msgspec.json.decode(data)

    async def call(self, command: Any, timeout_s: float = 120.0) -> Any:
        payload = command if isinstance(command, str) else json.dumps(command)
        await self._in.send(payload.encode() + b"\n")
        return await self.line(timeout_s)

    async def stop(self, farewell: str) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self._in.send(farewell.encode() + b"\n")
                with anyio.move_on_after(10):
                    await self.proc.wait()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()


@asynccontextmanager
async def child(module: str, *args: str) -> AsyncIterator[Child]:
    proc = await anyio.open_process(
        [sys.executable, "-m", module, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=None,
    )
    c = Child(proc)
    try:
        yield c
    finally:
        await c.stop('{"op": "quit"}' if module.endswith("subscribers") else "quit")


# ---- the hub's own figures ----------------------------------------------------------------


@dataclass
class HubStats:
    """What the hub process reported between two ``stats`` calls (merged)."""

    cpu_ns: int = 0
    sys_ns: int = 0
    """Of ``cpu_ns``, the time in the kernel (socket writes, TCP over loopback)."""
    rss_kb: int = 0
    commits: list[tuple[int, int, int, int]] = field(default_factory=list)
    resolve_ns: list[int] = field(default_factory=list)
    gc_ns: int = 0
    gc_max_ns: int = 0


class HubProcess:
    def __init__(self, proc: Child, port: int, pid: int) -> None:
        self.proc = proc
        self.pid = pid
        self.url = f"ws://127.0.0.1:{port}/v1"
        self.cpu_ns = 0
        self.sys_ns = 0

    async def stats(self) -> HubStats:
        raw = await self.proc.call("stats")
        return HubStats(
            cpu_ns=raw["cpu_ns"],
            sys_ns=raw["sys_ns"],
            rss_kb=raw["rss_kb"],
            commits=[tuple(c) for c in raw["commits"]],
            resolve_ns=raw["resolve_ns"],
            gc_ns=raw["gc_ns"],
            gc_max_ns=raw["gc_max_ns"],
        )

    async def window(self) -> HubStats:
        """Stats since the previous ``window`` (CPU as a difference)."""
        got = await self.stats()
        spent = got.cpu_ns - self.cpu_ns
        self.cpu_ns = got.cpu_ns
        got.cpu_ns = spent
        sys_spent = got.sys_ns - self.sys_ns
        self.sys_ns = got.sys_ns
        got.sys_ns = sys_spent
        return got


# ---- subscribers --------------------------------------------------------------------------


@dataclass
class Deliveries:
    """Deltas received in one series, across workers; ``key`` is (worker, connection)."""

    key: list[tuple[int, int]] = field(default_factory=list)
    generation: list[int] = field(default_factory=list)
    t_ns: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    resyncs: int = 0
    errors: int = 0
    cpu_ns: int = 0
    """The workers' CPU time since the previous report, summed."""
    deflate: int = 0
    """How many open subscriber connections negotiated permessage-deflate."""
    sample: str | None = None
    """A delta or patch frame one of the workers received last (JSON text), if any."""


class Pool:
    """The subscriber workers; ``ensure(n)`` spreads ``n`` subscribers over them."""

    def __init__(self, workers: list[Child], url: str) -> None:
        self.workers = workers
        self.url = url
        self.open = [0] * len(workers)
        self._cpu_ns = [0] * len(workers)
        self.lean = False
        """The open subscribers are lean (see ``hub_subscribers``)."""

    def _spread(self, n: int) -> list[int]:
        k = len(self.workers)
        return [n // k + (1 if i < n % k else 0) for i in range(k)]

    async def ensure(
        self, n: int, *, compact: bool = True, fmt: str = "json", lean: bool = False
    ) -> None:
        if lean != self.lean:  # another kind of subscriber: start over
            if any(self.open):
                await self.ensure(0, lean=self.lean)
            self.lean = lean

        async def adjust(i: int, want: int) -> None:
            have = self.open[i]
            if want > have:
                spec = {
                    "op": "open",
                    "n": want - have,
                    "url": self.url,
                    "token": CLIENT_TOKEN,
                    "device": DEVICE_ID,
                    "compact": compact,
                    "format": fmt,
                    "lean": lean,
                }
                self.open[i] = (await self.workers[i].call(spec, 600))["open"]
            elif want < have:
                self.open[i] = (await self.workers[i].call({"op": "close", "n": have - want}))[
                    "open"
                ]

        async with anyio.create_task_group() as tg:
            for i, want in enumerate(self._spread(n)):
                tg.start_soon(adjust, i, want)

    async def add(self, worker: int, *, compact: bool, fmt: str, patches: bool = False) -> int:
        """Open one more subscriber on ``worker`` (``patches``: it gets slim ``patch`` events,
        else classic ``delta`` events); returns its connection index there."""
        spec = {
            "op": "open",
            "n": 1,
            "url": self.url,
            "token": CLIENT_TOKEN,
            "device": DEVICE_ID,
            "compact": compact,
            "format": fmt,
            "patches": patches,
        }
        self.open[worker] = (await self.workers[worker].call(spec))["open"]
        return self.open[worker] - 1

    async def report(self) -> Deliveries:
        out = Deliveries()
        for w, worker in enumerate(self.workers):
            got = await worker.call({"op": "report"})
            out.key += [(w, c) for c in got["conn"]]
            out.generation += got["generation"]
            out.t_ns += got["t_ns"]
            out.size += got["size"]
            out.resyncs += got["resyncs"]
            out.errors += got["errors"]
            out.cpu_ns += got["cpu_ns"] - self._cpu_ns[w]
            out.deflate += got.get("deflate", 0)
            out.sample = got.get("sample") or out.sample
            self._cpu_ns[w] = got["cpu_ns"]
        return out


# ---- one series ---------------------------------------------------------------------------


@dataclass
class Row:
    tree: int
    subscribers: int
    p50_ns: float | None
    p99_ns: float | None
    slowest_p99_ns: float | None
    cpu_per_change_ns: float
    ingest_ns: float | None
    rss_kb: int
    coalesced: int
    missed: int
    resyncs: int
    gc_max_ns: int
    per_sub_ns: float | None = None
    kernel_share: float | None = None
    """Of the hub's CPU in the series, the share spent in the kernel."""
    subscribers_cpu_per_change_ns: float | None = None
    """The subscriber workers' CPU per change (they share the machine's cores with the hub)."""
    delta_bytes: float | None = None
    last_p99_ns: float | None = None
    """p99 over changes of the time until the *last* subscriber had the change (the fan-out
    complete), where ``p99_ns`` pools every (subscriber, change) delivery."""
    deflate: int = 0
    """Subscribers that negotiated permessage-deflate (of ``subscribers``)."""
    label: str = ""
    """How the row differs from the others (``whole``: the agent sent whole trees)."""
    sample: str | None = None
    """One delta frame of the series as a subscriber received it (JSON text): the floor
    sends this shape."""
    changes: int = 0
    """Changes pushed in the series."""
    block_p99_ns: list[float] = field(default_factory=list)
    """p99 of every delivery in each block of ``Sizes.changes`` consecutive changes (empty
    when the series is one block): how much a shorter series' p99 would have varied."""


@dataclass
class Bench:
    sizes: Sizes
    agent: BenchAgent
    hub: HubProcess
    pool: Pool

    async def _push_series(self, changes: int) -> list[int]:
        period = 1.0 / self.sizes.rate_hz
        captures: list[int] = []
        next_at = time.monotonic()
        for _ in range(changes):
            await anyio.sleep(max(0.0, next_at - time.monotonic()))
            captures.append(await self.agent.push_change())
            next_at += period
        return captures

    async def _settle(self, last_capture: int, into: HubStats) -> None:
        """Wait until the hub committed a generation at or after ``last_capture`` (or
        ``SETTLE_S``), then a little for the fan-out; hub figures merged into ``into``."""
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            if any(cap >= last_capture for _, cap, _, _ in into.commits):
                break
            await anyio.sleep(0.1)
            more = await self.hub.window()
            into.cpu_ns += more.cpu_ns
            into.sys_ns += more.sys_ns
            into.commits += more.commits
            into.rss_kb = more.rss_kb
            into.gc_ns += more.gc_ns
            into.gc_max_ns = max(into.gc_max_ns, more.gc_max_ns)
        await anyio.sleep(0.5)

    async def series(
        self,
        tree: int,
        subscribers: int,
        profile: str | None = None,
        *,
        lean: bool = False,
        changes: int | None = None,
    ) -> Row:
        """One series of ``changes`` (default ``Sizes.changes``) pushes to ``subscribers``."""
        sizes = self.sizes
        count = changes or sizes.changes
        await self.pool.ensure(subscribers, lean=lean)
        warm = await self._push_series(sizes.warmup)
        await self._settle(warm[-1], HubStats(commits=[(0, warm[-1], 0, 0)]))
        await self.pool.report()
        await self.hub.window()
        spy = await self._start_profile(profile)
        captures = await self._push_series(count)
        if spy is not None:
            await spy.wait()
        stats = await self.hub.window()
        await self._settle(captures[-1], stats)
        tail = await self.hub.window()
        stats.cpu_ns += tail.cpu_ns
        stats.sys_ns += tail.sys_ns
        stats.commits += tail.commits
        stats.rss_kb = tail.rss_kb or stats.rss_kb
        stats.gc_max_ns = max(stats.gc_max_ns, tail.gc_max_ns)
        got = await self.pool.report()
        capture_of = {g: c for g, c, _, _ in stats.commits if c in self.agent.sent}
        first = captures[0]
        capture_of = {g: c for g, c in capture_of.items() if c >= first}
        lat: list[float] = []
        per_conn: dict[tuple[int, int], list[float]] = {}
        last_of: dict[int, float] = {}
        sizes_seen: list[int] = []
        block_of = {cap: i // sizes.changes for i, cap in enumerate(captures)}
        blocks: dict[int, list[float]] = {}
        for key, gen, t, size in zip(got.key, got.generation, got.t_ns, got.size, strict=True):
            cap = capture_of.get(gen)
            if cap is None:
                continue
            ns = t - self.agent.sent[cap]
            lat.append(ns)
            blocks.setdefault(block_of.get(cap, 0), []).append(ns)
            last_of[gen] = max(last_of.get(gen, 0.0), ns)
            per_conn.setdefault(key, []).append(ns)
            sizes_seen.append(size)
        expected = len(capture_of) * subscribers
        ingest = [p + c for g, cap, p, c in stats.commits if g in capture_of]
        return Row(
            tree=tree,
            subscribers=subscribers,
            p50_ns=statistics.median(lat) if lat else None,
            p99_ns=percentile(lat, 99) if lat else None,
            slowest_p99_ns=max(percentile(v, 99) for v in per_conn.values()) if lat else None,
            cpu_per_change_ns=stats.cpu_ns / count,
            kernel_share=stats.sys_ns / stats.cpu_ns if stats.cpu_ns > 0 else None,
            subscribers_cpu_per_change_ns=got.cpu_ns / count,
            ingest_ns=statistics.median(ingest) if ingest else None,
            rss_kb=stats.rss_kb,
            coalesced=len(captures) - len(capture_of),
            missed=max(0, expected - len(lat)),
            resyncs=got.resyncs,
            gc_max_ns=stats.gc_max_ns,
            delta_bytes=statistics.median(sizes_seen) if sizes_seen else None,
            last_p99_ns=percentile(list(last_of.values()), 99) if last_of else None,
            deflate=got.deflate,
            sample=got.sample,
            changes=count,
            block_p99_ns=(
                [percentile(blocks[b], 99) for b in sorted(blocks)] if len(blocks) > 1 else []
            ),
        )

    async def _start_profile(self, out: str | None) -> anyio.abc.Process | None:
        exe = _pyspy()
        if out is None or exe is None:
            return None
        seconds = max(1, int(self.sizes.changes / self.sizes.rate_hz))
        return await anyio.open_process(
            [exe, "record", "--pid", str(self.hub.pid), "--duration", str(seconds),
             "--rate", "200", "--format", "raw", "--nolineno", "--nonblocking",
             "--output", out],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip

    async def switch_tree(self, tree: int) -> None:
        self.agent.set_screen(tree)
        pushed = await self.agent.push_change()
        stats = await self.hub.window()
        await self._settle(pushed, stats)


def _table(sizes: Sizes, tree: int, rows: list[Row]) -> list[str]:
    counts = sorted({r.changes or sizes.changes for r in rows}, reverse=True)
    also = "".join(f" ({n} for the * row)" for n in counts[1:])
    lines = [
        f"hub, {tree:,}-node tree: {counts[0]} changes{also} at {sizes.rate_hz:g}/s (one "
        "text; open loop), subscribers JSON compact in "
        f"{sizes.workers} worker processes",
        f"  {'subs':>5} {'p50 ms':>8} {'p99 ms':>8} {'slowest p99':>12} {'CPU/change ms':>14} "
        f"{'ingest ms':>10} {'CPU/sub µs':>11} {'RSS MB':>7} {'coalesced':>10} {'missed':>7} "
        f"{'resyncs':>8} {'GC max ms':>10} {'kernel %':>9} {'subs CPU/change ms':>19} "
        f"{'last p99 ms':>12} {'deflate':>8}",
    ]
    for r in rows:
        per_sub = "-" if r.per_sub_ns is None else f"{r.per_sub_ns / 1e3:.1f}"
        subs = f"{r.subscribers}{'*' if r.label else ''}"
        lines.append(
            f"  {subs:>5} {_ms(r.p50_ns):>8} {_ms(r.p99_ns):>8} "
            f"{_ms(r.slowest_p99_ns):>12} {_ms(r.cpu_per_change_ns):>14} {_ms(r.ingest_ns):>10} "
            f"{per_sub:>11} {r.rss_kb / 1024:>7.1f} {r.coalesced:>10} {r.missed:>7} "
            f"{r.resyncs:>8} {_ms(r.gc_max_ns):>10} {_pct(r.kernel_share):>9} "
            f"{_ms(r.subscribers_cpu_per_change_ns):>19} {_ms(r.last_p99_ns):>12} "
            f"{r.deflate:>8}"
        )
    lines.append(
        "  (the agent sends tree deltas; * = whole trees, the path agents without deltas take; "
        "kernel % = the hub's system CPU time over its CPU time; subs CPU = the subscriber "
        "worker processes', which run on the same cores; p99 pools every delivery, last p99 "
        "= p99 over changes of the last subscriber's receipt; deflate = subscribers that "
        "negotiated permessage-deflate)"
    )
    blocked = [r for r in rows if r.block_p99_ns]
    if blocked:
        lines.append(f"  p99 ms of each block of {sizes.changes} changes in these series:")
        lines += [
            f"  {r.subscribers:>5}   {' '.join(_ms(v) for v in r.block_p99_ns)}" for r in blocked
        ]
    return lines


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}"


# ---- bytes, actions, resolve --------------------------------------------------------------


class Client:
    """A raw websocket session of this process: requests answered in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = 0

    async def request(self, build: Any) -> tuple[Any, int]:
        """Send ``build(id)``; the decoded answer and its receive time (monotonic ns)."""
        self._ids += 1
        rid = self._ids
        await self.ws.send(encode(build(rid)), text=True)
        while True:
            frame = await self.ws.recv()
            t = time.monotonic_ns()
            msg = msgspec.json.decode(frame)
            if msg.get("id") == rid and msg.get("type") in ("result", "error", "protocol_error"):
                if msg["type"] != "result":
                    raise RuntimeError(f"hub refused a bench request: {str(msg)[:300]}")
                return msg["result"], t


@asynccontextmanager
async def open_client(url: str, name: str) -> AsyncIterator[Client]:
    ws = await connect(
        url,
        subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
        additional_headers={"Authorization": f"Bearer {CLIENT_TOKEN}"},
        max_size=MAX_AGENT_FRAME,
        ping_interval=None,
        close_timeout=1,
        proxy=None,
    )
    client = Client(ws)
    try:
        await client.request(lambda i: Hello(id=i, client=ClientInfo(name=name, kind="bench")))
        yield client
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await ws.close()


async def frame_bytes(bench: Bench, tree: int) -> tuple[list[str], float | None]:
    """Median change frame per format and view, as a classic ``delta`` and as a slim ``patch``
    (one subscriber of each form per format and view, on the same streams), and the snapshot
    they replace. Also returns the JSON compact ``patch`` median (the target row's figure)."""
    sizes = bench.sizes
    await bench.pool.ensure(0)
    views = [("json", True), ("json", False), ("msgpack", True), ("msgpack", False)]
    conns = [
        (
            await bench.pool.add(0, compact=c, fmt=f),
            await bench.pool.add(0, compact=c, fmt=f, patches=True),
        )
        for f, c in views
    ]
    await bench.pool.report()
    captures = await bench._push_series(sizes.byte_samples)
    await bench._settle(captures[-1], await bench.hub.window())
    got = await bench.pool.report()
    lines = [
        f"bytes per one-field change, {tree:,}-node tree: the delta frame and the patch frame "
        "(subscribe patches:true) vs the whole snapshot (uncompressed)",
        f"  {'format':<8} {'view':<8} {'delta B':>8} {'patch B':>8} {'snapshot B':>11} "
        f"{'snap/delta':>11}",
    ]
    json_compact_patch: float | None = None

    def median_of(conn: int) -> float:
        frames = [s for k, s in zip(got.key, got.size, strict=True) if k == (0, conn)]
        return statistics.median(frames) if frames else float("nan")

    async with open_client(bench.hub.url, "bench-bytes") as getter:
        for (fmt, compact), (classic, slim) in zip(views, conns, strict=True):
            result, _ = await getter.request(
                lambda i, c=compact: SnapshotGet(id=i, device=DEVICE_ID, compact=c)
            )
            snap = msgspec.json.encode(result["snapshot"])
            if fmt == "msgpack":
                snap = msgspec.msgpack.encode(result["snapshot"])
            delta, patch = median_of(classic), median_of(slim)
            if (fmt, compact) == ("json", True) and patch == patch:
                json_compact_patch = patch
            lines.append(
                f"  {fmt:<8} {'compact' if compact else 'full':<8} {delta:>8.0f} {patch:>8.0f} "
                f"{len(snap):>11,} {len(snap) / delta:>10.1f}x"
            )
    await bench.pool.ensure(0)
    return lines, json_compact_patch


@dataclass
class ActionFigures:
    tree: int
    verified: bool
    """EXPLICIT_CONDITION (the post-action tree ingested and checked) or DISPATCH_ONLY."""
    total_ns: list[int]
    agent_ns: list[int]
    ingest_ns: float | None
    ping_ns: list[int] = field(default_factory=list)
    """Round trips of ``ping`` on the same connection: one loopback round trip through the
    websocket stacks, the floor under each of the two an action makes (client <-> hub,
    hub <-> agent)."""

    @property
    def overhead_ns(self) -> list[int]:
        return [t - a for t, a in zip(self.total_ns, self.agent_ns, strict=True)]


async def action_overhead(bench: Bench, tree: int, verified: bool = True) -> ActionFigures:
    """Acts one at a time on the tree's increment button: ``verified``, each action waits
    for the post-action tree to show the new count (EXPLICIT_CONDITION); else the hub
    answers once the agent has replied (DISPATCH_ONLY with ``observe: none``, answered at
    dispatch: issue 41's row), and the agent replies before it pushes the new tree, as the
    Android agent and the simulated device do (the tree's ingest is not the action's)."""
    sizes = bench.sizes
    total: list[int] = []
    async with open_client(bench.hub.url, "bench-actor") as actor:
        query = SemanticQuery(resource_id=INCREMENT_ID)
        found, _ = await actor.request(lambda i: Find(id=i, device=DEVICE_ID, query=query))
        target = convert(found["matches"][0]["ref"], NodeRef)
        pings: list[int] = []
        for _ in range(max(5, sizes.actions // 2)):
            t0 = time.monotonic_ns()
            _, t1 = await actor.request(lambda i: Ping(id=i))
            pings.append(t1 - t0)
        bench.agent.reply_first = not verified
        warmup = max(1, sizes.warmup)
        for i in range(warmup + sizes.actions):
            if i == warmup:
                bench.agent.agent_ns.clear()
                await bench.hub.window()
                total.clear()
            expected = Present(
                query=SemanticQuery(text=TextMatch(value=count_text(bench.agent.count + 1)))
            )
            verify = (
                Verify(
                    policy=VerificationPolicy.EXPLICIT_CONDITION,
                    expected=expected,
                    timeout_ms=5000,
                    stable_for_ms=0,
                )
                if verified
                else Verify(policy=VerificationPolicy.DISPATCH_ONLY)
            )
            request = ActionRequest(action=ActionVerb.CLICK, target=target, verify=verify)
            observe: ObserveMode = "settle" if verified else "none"
            t0 = time.monotonic_ns()
            result, t1 = await actor.request(
                lambda i, r=request, o=observe: Act(id=i, device=DEVICE_ID, request=r, observe=o)
            )
            verification = result.get("verification") or {}
            if verified and verification.get("result") != "CONDITION_MET":
                raise RuntimeError(f"bench action not verified: {str(result)[:400]}")
            if not verified and (result.get("dispatch") or {}).get("status") != "DISPATCHED":
                raise RuntimeError(f"bench action not dispatched: {str(result)[:400]}")
            total.append(t1 - t0)
    bench.agent.reply_first = False
    stats = await bench.hub.window()
    ingest = [p + c for _, _, p, c in stats.commits]
    return ActionFigures(
        tree,
        verified,
        total,
        list(bench.agent.agent_ns),
        statistics.median(ingest) if ingest else None,
        pings,
    )


async def resolve_in_hub(bench: Bench, tree: int) -> list[int]:
    """Times of ``resolve_ref`` inside the hub for a ref to a row's Open button mid-list."""
    rows = (tree - 9) // 4
    async with open_client(bench.hub.url, "bench-resolver") as client:
        query = SemanticQuery(resource_id=f"{OPEN_ID}{rows // 2}")
        found, _ = await client.request(lambda i: Find(id=i, device=DEVICE_ID, query=query))
        ref = convert(found["matches"][0]["ref"], NodeRef)
        await bench.hub.window()
        for _ in range(bench.sizes.resolves):
            await client.request(lambda i: Resolve(id=i, device=DEVICE_ID, ref=ref))
    return (await bench.hub.window()).resolve_ns


def offline_in_fresh_process(nodes: int, runs: int) -> float:
    """``offline_normalize`` in a fresh interpreter, as ``mobridge snapshot FILE`` runs it
    (not in the bench's own process, whose heap by then holds every earlier section's
    objects: that measured its caches, 10-15% slower at 5,000 nodes)."""
    code = (
        "import sys; from bridge.bench.hub import offline_normalize; "
        "print(offline_normalize(int(sys.argv[1]), int(sys.argv[2])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(nodes), str(runs)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return float(done.stdout.strip().splitlines()[-1])


def offline_normalize(nodes: int, runs: int) -> float:
    """Median CPU ns (this process's) of importing a generated uiautomator dump and
    normalizing it (cold: a fresh engine each time)."""
    from bridge.bench.core import generated_xml
    from bridge.core.importers import ImportFailure, import_dump
    from bridge.core.normalize import SnapshotContext, normalize

    data = generated_xml(nodes)
    samples = []
    for _ in range(runs + 1):
        t = time.process_time_ns()
        raw = import_dump(data, "bench")
        assert not isinstance(raw, ImportFailure), raw
        normalize(raw, SnapshotContext("bench", "s_1", 0))
        samples.append(time.process_time_ns() - t)
    return statistics.median(samples[1:])


# ---- the targets --------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    measure: str
    value: float | None
    target: float
    unit: str
    floor: float | None = None
    """What no design of the hub goes under on this machine, measured in the same run (None:
    none measured): for fan-out, the same subscribers fed by ``fanout_floor``; for an
    action, its two round trips through the websocket stacks (``ping``)."""


def _targets(
    rows: dict[tuple[int, int], Row],
    actions: list[ActionFigures],
    resolve_ns: list[int],
    offline: dict[int, float],
    sizes: Sizes,
    patch_bytes: dict[int, float | None],
    floors: dict[int, FloorRow] | None = None,
) -> list[Target]:
    def row(tree: int, subs: int) -> Row | None:
        return rows.get((tree, subs))

    def floor(subs: int, name: str) -> float | None:
        f = (floors or {}).get(subs)
        value = None if f is None else getattr(f, name)
        return None if value is None else value / 1e6

    def ms(value: float | None) -> float | None:
        return None if value is None else value / 1e6

    out: list[Target] = []
    for tree, subs, how, target in (
        (1000, 1, "tree deltas", 1.0),
        (1000, 0, "whole trees", 2.0),  # issue 41 (was 3)
        (5000, 1, "tree deltas", 5.0),
        (5000, 0, "whole trees", 15.0),
    ):
        out.append(
            Target(
                f"hub CPU per change, {tree:,} nodes, 1 subscriber, {how}",
                ms(_of(row(tree, subs), "cpu_per_change_ns")),
                target,
                "ms",
            )
        )
    r = row(1000, 1)
    out.append(
        Target(
            "change -> subscriber p50, 1,000 nodes, 1 subscriber", ms(_of(r, "p50_ns")), 5.0, "ms"
        )
    )
    out.append(
        Target(
            "change -> subscriber p99, 1,000 nodes, 1 subscriber", ms(_of(r, "p99_ns")), 10.0, "ms"
        )
    )
    for tree, subs, target in (
        (60, 100, 5.0),
        (60, 500, 15.0),  # issue 41 (was 20)
        (60, 1000, 35.0),  # issue 41 (was 40)
        (1000, 100, 10.0),
        (1000, 500, 30.0),
    ):
        r = row(tree, subs)
        floored = tree == FLOOR_TREE
        out.append(
            Target(
                f"fan-out p99, {tree:,} nodes, {subs:,} subscribers (every delivery)",
                ms(_of(r, "p99_ns")),
                target,
                "ms",
                floor(subs, "p99_ns") if floored else None,
            )
        )
        out.append(
            Target(
                f"fan-out p99, {tree:,} nodes, {subs:,} subscribers (last subscriber)",
                ms(_of(r, "last_p99_ns")),
                target,
                "ms",
                floor(subs, "last_p99_ns") if floored else None,
            )
        )
    most = max((n for n in sizes.subscribers if row(60, n) is not None), default=1)
    r = row(60, most)
    out.append(
        Target(
            f"hub CPU per delta per subscriber (60 nodes, 1 -> {most:,})",
            None if (per := _of(r, "per_sub_ns")) is None else per / 1e3,
            10.0,  # issue 41; the kernel's loopback write is ~8 µs (design.md)
            "µs",
            None if (f := (floors or {}).get(most)) is None else f.per_sub_ns / 1e3,
        )
    )
    out += [
        Target(
            f"hub overhead per action p50, {figures.tree:,} nodes, "
            + ("verified (post-action tree)" if figures.verified else "dispatch-only"),
            ms(statistics.median(figures.overhead_ns)) if figures.total_ns else None,
            1.0,
            "ms",
            ms(2 * statistics.median(figures.ping_ns)) if figures.ping_ns else None,
        )
        for figures in actions
    ]
    out.append(
        Target(
            f"resolve a NodeRef inside the hub p50, {sizes.resolve_tree:,} nodes",
            statistics.median(resolve_ns) / 1e3 if resolve_ns else None,
            20.0,
            "µs",
        )
    )
    r = row(60, 1)
    out.append(
        Target(
            "delta for a one-field change, JSON compact (patch form)",
            patch_bytes.get(60),
            300.0,
            "B",
        )
    )
    rss = None
    if r is not None and row(60, most) is not None and most > 1:
        rss = (row(60, most).rss_kb - r.rss_kb) / (most - 1)  # type: ignore[union-attr]
    out.append(Target(f"hub RSS per subscriber (60 nodes, 1 -> {most:,})", rss, 40.0, "KB"))
    for nodes, target in ((1000, 20.0), (5000, 100.0)):
        out.append(
            Target(
                f"offline import + normalize, {nodes:,} nodes", ms(offline.get(nodes)), target, "ms"
            )
        )
    return out


def _of(row: Row | None, name: str) -> float | None:
    """A figure of a row that may not have been measured (quick runs skip some)."""
    return None if row is None else getattr(row, name)


def _target_lines(
    targets: list[Target],
    title: str = "targets (issues 28 and 41), measured in this run; ratio = measured / target "
    "(<= 1 meets it)",
) -> list[str]:
    lines = [
        title,
        f"  {'measure':<62} {'measured':>10} {'target':>8} {'ratio':>7}   floor (÷ floor)",
    ]
    for t in targets:
        if t.value is None:
            lines.append(f"  {t.measure:<62} {'-':>10} {t.target:>6g} {t.unit:<2} {'-':>6}")
            continue
        shown = f"{t.value:.0f}" if t.unit in ("B", "KB") else f"{t.value:.2f}"
        ratio = t.value / t.target
        floor = ""
        if t.floor:
            floor = f"   {t.floor:.2f} {t.unit} ({t.value / t.floor:.2f}x)"
        lines.append(
            f"  {t.measure:<62} {shown:>7} {t.unit:<2} {t.target:>6g} {t.unit:<2} "
            f"{ratio:>5.2f}x{'' if ratio <= 1 else ' !'}{floor}"
        )
    return lines


# ---- profile ------------------------------------------------------------------------------


def _pyspy() -> str | None:
    """The py-spy executable next to this interpreter (or on PATH), when profiling is asked."""
    if not os.environ.get(PYSPY_ENV):
        return None
    beside = os.path.join(os.path.dirname(sys.executable), "py-spy")
    return beside if os.path.exists(beside) else shutil.which("py-spy")


def pyspy_top(path: str, n: int = 10) -> list[str]:
    """Top ``n`` functions by own samples (the leaf frame) in a py-spy raw file."""
    own: dict[str, int] = {}
    total = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            leaf = stack.rsplit(";", 1)[-1]
            own[leaf] = own.get(leaf, 0) + int(count)
            total += int(count)
    ranked = sorted(own.items(), key=lambda kv: -kv[1])[:n]
    return [f"  {100 * c / max(1, total):5.1f}%  {name}" for name, c in ranked]


# ---- orchestration ------------------------------------------------------------------------


@asynccontextmanager
async def _hub_bench(
    sizes: Sizes,
    loop: str = "asyncio",
    journal: str | None = None,
    frames: str = "reused",
    frozen: bool = True,
) -> AsyncIterator[Bench]:
    """A bench agent, a hub process on ``loop`` linked to it, and ``sizes.workers``
    subscriber worker processes; everything is stopped on exit. ``frames`` "whole": the
    hub decodes agent frames as before issue 41 (``hub_proc.WholeFrames``); ``frozen``
    False: the hub leaves its startup objects to the collector (``mobridge serve`` freezes
    them, ``bridge.hub.collector``)."""
    agent = BenchAgent(sizes.trees[0])
    async with anyio.create_task_group() as tg:
        agent_port = await tg.start(agent.serve)
        config = {
            "agent": f"ws://127.0.0.1:{agent_port}",
            "agent_token": AGENT_TOKEN,
            "token": CLIENT_TOKEN,
            "loop": loop,
            "journal": journal,
            "frames": frames,
            "unfrozen": not frozen,
        }
        async with child("bridge.bench.hub_proc", json.dumps(config)) as hub_child:
            ready = await hub_child.line(60)
            hub = HubProcess(hub_child, ready["port"], ready["pid"])
            async with AsyncExitStack() as stack:
                workers = [
                    await stack.enter_async_context(child("bridge.bench.hub_subscribers"))
                    for _ in range(sizes.workers)
                ]
                bench = Bench(sizes, agent, hub, Pool(workers, hub.url))
                await hub.window()
                yield bench
        tg.cancel_scope.cancel()


async def _measure(sizes: Sizes) -> list[str]:
    lines: list[str] = []
    profile_tree = 1000 if 1000 in sizes.trees else sizes.trees[-1]
    profile = None
    if _pyspy() is not None:
        profile = os.path.join(os.environ[PYSPY_ENV], f"hub-pyspy-{profile_tree}.txt")
    async with _hub_bench(sizes) as bench:
        agent = bench.agent
        rows: dict[tuple[int, int], Row] = {}
        floors: dict[int, FloorRow] = {}
        patch_bytes: dict[int, float | None] = {}
        for tree in sizes.trees:
            await bench.switch_tree(tree)
            series: list[Row] = []
            for n in sizes.subscribers:
                heaviest = tree == profile_tree and n == sizes.subscribers[-1]
                out = profile if heaviest else None
                changes = sizes.fanout_changes if tree == FLOOR_TREE else None
                series.append(await bench.series(tree, n, out, changes=changes))
            collected = (
                await _gc_lines(bench, sizes.subscribers[-1]) if tree == sizes.trees[0] else []
            )
            if tree == sizes.trees[0]:
                lean = [await bench.series(tree, n, lean=True) for n in sizes.subscribers[-3:]]
                collected += [*_lean_lines(tree, series, lean), ""]
            if tree == FLOOR_TREE:
                async with child("bridge.bench.fanout_floor") as floor:
                    url = f"ws://127.0.0.1:{(await floor.line(60))['port']}/v1"
                    for r in series:
                        size = round(r.delta_bytes or 0)
                        floors[r.subscribers] = await floor_series(
                            bench, floor, url, r.subscribers, size, r.sample, r.changes
                        )
                _floor_per_subscriber(floors)
                _per_subscriber(series)
                collected += [*_floor_lines(sizes, series, floors), ""]
            await bench.pool.ensure(1)
            agent.whole_trees = True
            whole = await bench.series(tree, 1)
            agent.whole_trees = False
            whole.label = "whole"
            await bench.pool.ensure(0)
            _per_subscriber(series)
            rows.update({(r.tree, r.subscribers): r for r in series})
            rows[(tree, 0)] = whole
            lines += [*_table(sizes, tree, [*series, whole]), "", *collected]
        for tree in sizes.trees[:2]:
            await bench.switch_tree(tree)
            table, patch_bytes[tree] = await frame_bytes(bench, tree)
            lines += [*table, ""]
        actions = []
        for tree in sizes.action_trees:
            await bench.switch_tree(tree)
            actions.append(await action_overhead(bench, tree, verified=False))
            actions.append(await action_overhead(bench, tree))
        lines += _action_lines(actions)
        await bench.switch_tree(sizes.resolve_tree)
        resolve_ns = await resolve_in_hub(bench, sizes.resolve_tree)
        lines += [
            "",
            f"resolve inside the hub ({sizes.resolves} resolves of one ref, "
            f"{sizes.resolve_tree:,} nodes): "
            f"p50 {statistics.median(resolve_ns) / 1e3:.0f} µs, "
            f"p99 {percentile(resolve_ns, 99) / 1e3:.0f} µs",
        ]
    lines += ["", *await whole_tree_comparison(sizes, sizes.comparison_rounds)]
    loops: dict[str, list[Row]] = {}
    if uvloop_installed():
        lines.append("")
        loops = await loop_comparison(sizes)
        lines += _loop_lines(sizes, loops)
    offline = {n: offline_in_fresh_process(n, sizes.offline_runs) for n in sizes.offline}
    lines += [
        "",
        "offline import + normalize (generated uiautomator dump, cold, in a fresh process, "
        "CPU time, median of "
        f"{sizes.offline_runs}): "
        + ", ".join(f"{n:,} nodes {v / 1e6:.1f} ms" for n, v in offline.items()),
        "",
        *_target_lines(_targets(rows, actions, resolve_ns, offline, sizes, patch_bytes, floors)),
    ]
    if "uvloop" in loops:
        title = "uvloop hub: the targets its rows measure (the loop comparison above)"
        lines += ["", *_target_lines(_loop_targets(loops["uvloop"]), title)]
    elif not uvloop_installed():
        lines += ["", f"(uvloop rows not measured: uvloop is not installed; {INSTALL_HINT})"]
    if profile is not None and await anyio.Path(profile).exists():
        lines += [
            "",
            f"py-spy, hub process, {profile_tree:,} nodes x {sizes.subscribers[-1]:,} "
            f"subscribers: top 10 by own samples ({profile})",
            *pyspy_top(profile),
        ]
    return lines


async def whole_tree_comparison(sizes: Sizes, rounds: int = 2) -> list[str]:
    """Whole trees (an agent without deltas), one subscriber: the hub's CPU per change with
    agent frames decoded whole (before issue 41) and with the unchanged nodes reused from
    the last frame's bytes (after), a fresh hub per run, alternated."""
    trees = [t for t in sizes.trees if t >= 1000] or [sizes.trees[-1]]
    cpu: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for mode in ("whole", "reused"):
            async with _hub_bench(sizes, frames=mode) as bench:
                await bench.pool.ensure(1)
                bench.agent.whole_trees = True
                for tree in trees:
                    await bench.switch_tree(tree)
                    row = await bench.series(tree, 1)
                    cpu.setdefault((mode, tree), []).append(row.cpu_per_change_ns / 1e6)
                await bench.pool.ensure(0)
    lines = [
        f"whole trees, 1 subscriber, hub CPU per change (ms, median of {rounds} fresh hubs "
        "each, alternated): frames decoded whole (before issue 41) vs unchanged nodes "
        "reused from the last frame's bytes"
    ]
    for tree in trees:
        before = statistics.median(cpu[("whole", tree)])
        after = statistics.median(cpu[("reused", tree)])
        lines.append(
            f"  {tree:>6,} nodes: {before:6.2f} -> {after:6.2f} ms ({after / before:.2f}x)"
        )
    return lines


async def _gc_lines(bench: Bench, subscribers: int) -> list[str]:
    """One full collection timed in the hub with ``subscribers`` connected, then with one."""
    full = await bench.hub.proc.call("gc")
    await bench.pool.ensure(1)
    await anyio.sleep(0.5)  # the closed connections' tasks end
    await bench.hub.proc.call("gc")  # frees what the closed connections left
    one = await bench.hub.proc.call("gc")
    per = (full["objects"] - one["objects"]) / max(1, subscribers - 1)
    return [
        f"full garbage collection in the hub (gc.collect, between series): "
        f"{subscribers:,} subscribers {full['full_ns'] / 1e6:.1f} ms over "
        f"{full['objects']:,} tracked objects; 1 subscriber {one['full_ns'] / 1e6:.1f} ms over "
        f"{one['objects']:,} ({per:.0f} objects per subscriber)",
        "",
    ]


def _lean_lines(tree: int, default: list[Row], lean: list[Row]) -> list[str]:
    """The fan-out with the bench's former lean subscribers beside default clients."""
    by_n = {r.subscribers: r for r in default}
    lines = [
        f"fan-out, {tree}-node tree, two kinds of subscriber in one run: default websockets "
        "clients decoding every frame (the table above) vs lean ones (no keepalive, the "
        "frame's head decoded only: the bench before issue 28)",
        f"  {'subs':>5} {'kind':<8} {'p99 ms':>8} {'last p99 ms':>12} {'hub CPU/change ms':>18} "
        f"{'subs CPU/change ms':>19} {'deflate':>8}",
    ]
    for r in lean:
        d = by_n.get(r.subscribers)
        for kind, row in (("default", d), ("lean", r)):
            if row is None:
                continue
            lines.append(
                f"  {row.subscribers:>5} {kind:<8} {_ms(row.p99_ns):>8} "
                f"{_ms(row.last_p99_ns):>12} {row.cpu_per_change_ns / 1e6:>18.2f} "
                f"{_ms(row.subscribers_cpu_per_change_ns):>19} {row.deflate:>8}"
            )
    return lines


FLOOR_TREE = 60
"""The tree whose fan-out rows get a floor (the issue's fan-out targets are on 60 nodes)."""


@dataclass
class FloorRow:
    """The same subscribers fed by ``bridge.bench.fanout_floor`` (one prebuilt frame written
    to every transport per change, nothing else)."""

    subscribers: int
    size: int
    p50_ns: float | None
    p99_ns: float | None
    last_p99_ns: float | None
    cpu_per_change_ns: float
    """The floor process's CPU per change (building the frame, writing it to every one)."""
    missed: int
    subscribers_cpu_per_change_ns: float = 0.0
    """The subscriber workers' CPU per change, as the hub's rows measure it."""
    per_sub_ns: float = 0.0
    """CPU per change per subscriber: the growth over the first floor row, as the hub's
    ``Row.per_sub_ns`` (the first row: its CPU per change over its subscribers)."""
    changes: int = 0
    """Changes the floor sent in the series."""


async def floor_series(
    bench: Bench,
    floor: Child,
    url: str,
    subs: int,
    size: int,
    sample: str | None = None,
    changes: int = 0,
) -> FloorRow:
    """``subs`` of the bench's subscribers (its worker processes) subscribed to the floor
    server instead of the hub, ``changes`` (0: ``sizes.changes``) deltas at the bench's
    rate: ``sample`` (a delta frame of the hub's series, JSON text: the subscribers decode
    the same shape) with the floor's generations, else ``size`` bytes of padding; the pool is
    given back to the hub, empty."""
    sizes, pool = bench.sizes, bench.pool
    count = changes or sizes.changes
    hub_url = pool.url
    await pool.ensure(0)
    pool.url = url
    try:
        await pool.ensure(subs)
        send = {"op": "send", "rate_hz": sizes.rate_hz, "size": size, "template": sample}
        await floor.call({**send, "count": sizes.warmup}, 600)
        await _deliveries(pool, sizes.warmup * subs)
        answer = await floor.call({**send, "count": count}, 600)
        got = await _deliveries(pool, count * subs)
        await anyio.sleep(0.5)  # as a hub series settles: the last frames decoded
        got.cpu_ns += (await pool.report()).cpu_ns
    finally:
        await pool.ensure(0)
        pool.url = hub_url
    sent = {g: t for g, t in answer["sent"]}
    lat: list[float] = []
    last_of: dict[int, float] = {}
    for gen, t in zip(got.generation, got.t_ns, strict=True):
        at = sent.get(gen)
        if at is None:
            continue
        lat.append(t - at)
        last_of[gen] = max(last_of.get(gen, 0.0), t - at)
    return FloorRow(
        subscribers=subs,
        size=len(usable(sample) or "") or size,
        p50_ns=statistics.median(lat) if lat else None,
        p99_ns=percentile(lat, 99) if lat else None,
        last_p99_ns=percentile(list(last_of.values()), 99) if last_of else None,
        cpu_per_change_ns=answer["cpu_ns"] / max(1, count),
        missed=max(0, count * subs - len(lat)),
        subscribers_cpu_per_change_ns=got.cpu_ns / max(1, count),
        changes=count,
    )


def _floor_changes(sizes: Sizes, floors: dict[int, FloorRow]) -> int:
    return max((f.changes for f in floors.values()), default=0) or sizes.changes


def _floor_per_subscriber(floors: dict[int, FloorRow]) -> None:
    ordered = [floors[n] for n in sorted(floors)]
    if not ordered:
        return
    base = ordered[0]
    base.per_sub_ns = base.cpu_per_change_ns / max(1, base.subscribers)
    for f in ordered[1:]:
        f.per_sub_ns = (f.cpu_per_change_ns - base.cpu_per_change_ns) / (
            f.subscribers - base.subscribers
        )


async def _deliveries(pool: Pool, expected: int) -> Deliveries:
    """The pool's deliveries until ``expected`` arrived (or ``SETTLE_S`` passed)."""
    out = Deliveries()
    deadline = time.monotonic() + SETTLE_S
    while True:
        got = await pool.report()
        out.generation += got.generation
        out.t_ns += got.t_ns
        out.cpu_ns += got.cpu_ns
        if len(out.generation) >= expected or time.monotonic() > deadline:
            return out
        await anyio.sleep(0.1)


def _floor_lines(sizes: Sizes, series: list[Row], floors: dict[int, FloorRow]) -> list[str]:
    lines = [
        f"fan-out floor, {FLOOR_TREE}-node deltas: the same subscriber processes fed by a "
        "server that writes one prebuilt frame to every subscriber per change, a delta frame "
        "the hub sent in its series with the generation renumbered, and does nothing else "
        f"(bridge.bench.fanout_floor), {_floor_changes(sizes, floors)} changes at "
        f"{sizes.rate_hz:g}/s, in this run",
        f"  {'subs':>5} {'bytes':>6} {'floor p50':>10} {'floor p99':>10} {'floor last':>11} "
        f"{'hub p99':>8} {'hub last':>9} {'÷ floor':>8} {'floor µs/sub':>13} "
        f"{'hub µs/sub':>11} {'missed':>7} {'subs CPU floor':>15} {'subs CPU hub':>13}",
    ]
    for r in series:
        f = floors.get(r.subscribers)
        if f is None:
            continue
        ratio = f"{r.last_p99_ns / f.last_p99_ns:.2f}x" if r.last_p99_ns and f.last_p99_ns else "-"
        lines.append(
            f"  {f.subscribers:>5} {f.size:>6} {_ms(f.p50_ns):>10} {_ms(f.p99_ns):>10} "
            f"{_ms(f.last_p99_ns):>11} {_ms(r.p99_ns):>8} {_ms(r.last_p99_ns):>9} {ratio:>8} "
            f"{f.per_sub_ns / 1e3:>13.2f} {_us(r.per_sub_ns):>11} {f.missed:>7} "
            f"{_ms(f.subscribers_cpu_per_change_ns):>15} "
            f"{_ms(r.subscribers_cpu_per_change_ns):>13}"
        )
    lines.append(
        "  (÷ floor: the hub's last-subscriber p99 over the floor's; the hub's latency starts "
        "at the agent's send, the floor's at its first write; µs/sub: CPU per change per "
        "subscriber, the growth over the first row; subs CPU: the subscriber processes' CPU "
        "per change, ms, fed by the floor and by the hub)"
    )
    return lines


def _per_subscriber(series: list[Row]) -> None:
    """Hub CPU per change per subscriber, from the growth over the series' first row."""
    base = series[0]
    for r in series[1:]:
        r.per_sub_ns = (r.cpu_per_change_ns - base.cpu_per_change_ns) / (
            r.subscribers - base.subscribers
        )


LOOP_TREE = 60
LOOP_SUBSCRIBERS = (1, 100, 500)


async def loop_comparison(sizes: Sizes) -> dict[str, list[Row]]:
    """The fan-out series of a 60-node screen on a fresh hub per event loop, asyncio then
    uvloop, with the same agent, workers and subscriber counts: the loops side by side."""
    subs = [n for n in sizes.subscribers if n in LOOP_SUBSCRIBERS]
    if len(subs) < 2:
        subs = list(sizes.subscribers)
    out: dict[str, list[Row]] = {}
    for loop in LOOPS:
        async with _hub_bench(sizes, loop) as bench:
            await bench.switch_tree(LOOP_TREE)
            series = [await bench.series(LOOP_TREE, n) for n in subs]
            await bench.pool.ensure(0)
        if len(series) > 1:
            _per_subscriber(series)
        out[loop] = series
    return out


def _loop_lines(sizes: Sizes, loops: dict[str, list[Row]]) -> list[str]:
    lines = [
        f"event loop of the hub, {LOOP_TREE}-node screen, a fresh hub per loop "
        f"({sizes.changes} changes at {sizes.rate_hz:g}/s, JSON compact subscribers)",
        f"  {'loop':<8} {'subs':>5} {'p50 ms':>8} {'p99 ms':>8} {'slowest p99':>12} "
        f"{'hub CPU/change ms':>18} {'CPU/sub µs':>11} {'kernel %':>9} {'missed':>7}",
    ]
    for loop, series in loops.items():
        for r in series:
            per_sub = f"{r.per_sub_ns / 1e3:.1f}" if r.per_sub_ns is not None else "-"
            lines.append(
                f"  {loop:<8} {r.subscribers:>5} {_ms(r.p50_ns):>8} {_ms(r.p99_ns):>8} "
                f"{_ms(r.slowest_p99_ns):>12} {r.cpu_per_change_ns / 1e6:>18.2f} {per_sub:>11} "
                f"{_pct(r.kernel_share):>9} {r.missed:>7}"
            )
    if "asyncio" in loops and "uvloop" in loops:
        for a, u in zip(loops["asyncio"], loops["uvloop"], strict=True):
            if a.p99_ns and u.p99_ns:
                lines.append(
                    f"  uvloop / asyncio at {a.subscribers} subscribers: p99 "
                    f"{u.p99_ns / a.p99_ns:.2f}x, hub CPU per change "
                    f"{u.cpu_per_change_ns / max(1.0, a.cpu_per_change_ns):.2f}x"
                )
    return lines


def _loop_targets(series: list[Row]) -> list[Target]:
    out = []
    for r in series:
        if r.subscribers in (100, 500):
            target = 5.0 if r.subscribers == 100 else 15.0
            out.append(
                Target(
                    f"fan-out p99, {LOOP_TREE} nodes, {r.subscribers} subscribers (uvloop)",
                    r.p99_ns / 1e6 if r.p99_ns is not None else None,
                    target,
                    "ms",
                )
            )
    last = series[-1]
    if last.per_sub_ns is not None:
        out.append(
            Target(
                f"hub CPU per delta per subscriber, {LOOP_TREE} nodes x {last.subscribers} "
                "(uvloop)",
                last.per_sub_ns / 1e3,
                10.0,
                "µs",
            )
        )
    return out


def _action_lines(actions: list[ActionFigures]) -> list[str]:
    lines = [
        "act round trip, one at a time: CLICK dispatch-only (DISPATCH_ONLY, observe none: "
        "answered once the agent replied; it replies, then pushes the new tree), then "
        "verified (EXPLICIT_CONDITION present 'Count N', stableForMs 0: the post-action tree "
        "ingested and checked; the agent pushes it, then replies); overhead = total - agent "
        "(command read -> reply sent)",
        f"  {'tree':>6} {'':<14} {'p50 ms':>8} {'p99 ms':>8}",
    ]
    for a in actions:
        lines.append(f"  {a.tree:>6} {'verified' if a.verified else 'dispatch-only'}")
        for name, xs in (
            ("total", a.total_ns),
            ("agent", a.agent_ns),
            ("hub overhead", a.overhead_ns),
        ):
            p50, p99 = _ms(statistics.median(xs)), _ms(percentile(xs, 99))
            lines.append(f"  {a.tree:>6} {name:<14} {p50:>8} {p99:>8}")
        lines.append(f"  {a.tree:>6} {'  ingest':<14} {_ms(a.ingest_ns):>8}")
        ping = a.ping_ns or [0]
        lines.append(
            f"  {a.tree:>6} {'ping':<14} {_ms(statistics.median(ping)):>8} "
            f"{_ms(percentile(ping, 99)):>8}"
        )
    lines.append(
        "  (ping: one client <-> hub round trip on the same connection; an action makes two "
        "such round trips, client <-> hub and hub <-> agent)"
    )
    return lines


if __name__ == "__main__":
    print("\n".join(run(quick="--quick" in sys.argv)))
    os._exit(0)
