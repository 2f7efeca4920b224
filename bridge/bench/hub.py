"""Hub benchmark: a real hub on 127.0.0.1 with a bench agent and raw websocket clients.

One process, one event loop: the hub (``bridge.hub.app.Hub``, ``sim=False``), a bench agent
(a tiny agent-link server written here: hello exchange, then one ``tree`` push per change of a
~60-node screen whose ``Count N`` text changes) and every client (raw ``websockets``
connections, permessage-deflate negotiated as ``bridge.client`` does). Clients therefore share
the CPU with the hub; figures include their own frame parsing and scheduling.

Measured, side by side in one run:

1. delta fan-out latency: ``t0`` just before the agent sends a push -> the ``recv`` of the
   matching ``delta`` (by generation) on every subscriber, for 1..500 subscribers; the next
   change is pushed only once every subscriber has the previous one, so no queue builds up;
2. frame bytes of a delta vs the whole snapshot (``snapshot.get``) for a one-field change, in
   JSON and MessagePack, compact and full;
3. hub overhead of ``act``: client round trip minus the agent's own time (command frame read ->
   reply sent, the post-action tree pushed first); ``EXPLICIT_CONDITION`` with
   ``stableForMs`` 0 so the hub answers as soon as the post-action tree is in;
4. change -> client sees it: a delta subscriber vs a client polling ``snapshot.get`` every
   500 ms, changes at random times held longer than one poll interval.

The hub's per-connection request rate limit is lifted (the bench measures latency, not the
limiter); hub logs below WARNING are dropped and the rest go to stderr while the bench runs.
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import time
import zlib
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import anyio
import anyio.abc
import msgspec
import structlog
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.hub.logs import configure as configure_logs
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    AgentHello,
    AgentHubHello,
    AgentInfo,
    AgentPing,
    CaptureCommand,
    DeviceInfo,
    NodeActionCommand,
    Reply,
    TreePush,
)
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    Act,
    ClientInfo,
    Find,
    Hello,
    SnapshotGet,
    Subscribe,
)
from bridge.wire.codec import HUB_TO_AGENT, MAX_AGENT_FRAME, WireFormat, convert, encode
from bridge.wire.conditions import Present
from bridge.wire.enums import ActionMethod, ActionVerb, Platform, VerificationPolicy
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery, TextMatch
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize

AGENT_TOKEN = "bench-agent-token"
CLIENT_TOKEN = "bench-controller-token"
DEVICE_ID = "bench-device"
PACKAGE = "dev.mobridge.bench"
INCREMENT_ID = f"{PACKAGE}:id/increment"
ROWS = 14
"""Rows of the bench screen (4 nodes each): 14 rows + 6 other nodes = 62 nodes."""
WAIT_S = 5.0
"""How long one change may take to reach every client before it counts as missed."""


@dataclass(frozen=True)
class Sizes:
    """What one run measures; ``run`` picks FULL or QUICK, tests pass tiny ones."""

    subscribers: tuple[int, ...] = (1, 10, 100, 500)
    changes: int = 200
    actions: int = 200
    byte_samples: int = 20
    poll_changes: int = 50
    poll_interval_s: float = 0.5


FULL = Sizes()
QUICK = Sizes(subscribers=(1, 10, 100, 200), changes=40, actions=60, poll_changes=5)
WARMUP = 10
"""Changes pushed (and awaited) before each measured series, not counted."""


def run(quick: bool) -> list[str]:
    return measure(QUICK if quick else FULL)


def measure(sizes: Sizes) -> list[str]:
    """Start a hub and the bench agent, run the four measurements, return the table lines."""
    with _quiet_hub_logs():
        return anyio.run(_measure, sizes)


# ---- numbers ------------------------------------------------------------------------------


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty sample."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.2f}"


# ---- the bench agent ----------------------------------------------------------------------


def _screen_nodes() -> list[RawNode]:
    """A ~60-node Android screen: a marker, a header, ``ROWS`` rows (title, detail, button),
    the ``Count N`` status text (index -2, rewritten per change) and an Increment button."""
    w = 1080
    nodes = [
        RawNode(handle=1, parent=-1, window=1, class_name="android.widget.FrameLayout",
                package=PACKAGE, bounds=(0, 0, w, 2400)),
        RawNode(handle=2, parent=0, window=1, class_name="android.view.View",
                automation_id="__screen_bench", package=PACKAGE, bounds=(0, 0, w, 2400)),
        RawNode(handle=3, parent=0, window=1, class_name="android.widget.TextView",
                text="Bench orders", package=PACKAGE, bounds=(40, 80, 1040, 160), heading=True),
    ]  # fmt: skip
    for r in range(ROWS):
        y = 200 + r * 140
        row = len(nodes)
        h = 10 + r * 4
        nodes += [
            RawNode(handle=h, parent=0, window=1, class_name="android.widget.LinearLayout",
                    automation_id=f"{PACKAGE}:id/row", package=PACKAGE,
                    bounds=(0, y, w, y + 130), clickable=True, actions=("click",)),
            RawNode(handle=h + 1, parent=row, window=1, class_name="android.widget.TextView",
                    text=f"Order {1000 + r}", automation_id=f"{PACKAGE}:id/title",
                    package=PACKAGE, bounds=(40, y + 10, 700, y + 60)),
            RawNode(handle=h + 2, parent=row, window=1, class_name="android.widget.TextView",
                    text=f"{r + 2} items, delivered", automation_id=f"{PACKAGE}:id/detail",
                    package=PACKAGE, bounds=(40, y + 70, 700, y + 120)),
            RawNode(handle=h + 3, parent=row, window=1, class_name="android.widget.Button",
                    text="Open", automation_id=f"{PACKAGE}:id/open_{r}", package=PACKAGE,
                    bounds=(800, y + 20, 1040, y + 110), clickable=True, focusable=True,
                    actions=("click",)),
        ]  # fmt: skip
    nodes += [
        RawNode(handle=900, parent=0, window=1, class_name="android.widget.TextView",
                text="Count 0", automation_id=f"{PACKAGE}:id/count", package=PACKAGE,
                bounds=(40, 2200, 700, 2280)),
        RawNode(handle=901, parent=0, window=1, class_name="android.widget.Button",
                text="Increment", automation_id=INCREMENT_ID, package=PACKAGE,
                bounds=(760, 2190, 1040, 2290), clickable=True, focusable=True,
                actions=("click",)),
    ]  # fmt: skip
    return nodes


class BenchAgent:
    """Agent-link server of the bench: every change rewrites one text (``Count N``)."""

    def __init__(self) -> None:
        self.count = 0
        self.capture = 0
        self.nodes = _screen_nodes()
        self.agent_ns: list[int] = []
        """Per ``node_action``: command frame read -> reply sent (post-action tree pushed
        first)."""
        self._ws: ServerConnection | None = None
        self._send_lock = anyio.Lock()

    def _tree_frame(self, reason: str) -> bytes:
        self.capture += 1
        nodes = list(self.nodes)
        nodes[-2] = msgspec.structs.replace(nodes[-2], text=f"Count {self.count}")
        tree = RawTree(
            capture=self.capture,
            platform=Platform.ANDROID,
            nodes=tuple(nodes),
            windows=(RawWindow(id=1, package=PACKAGE, active=True, focused=True),),
            package=PACKAGE,
            screen=ScreenSize(width=1080, height=2400),
        )
        return encode(TreePush(reason=reason, stable=True, tree=tree))

    async def push_change(self) -> int:
        """Change the count and push the new tree; returns ``t0`` (ns, just before sending)."""
        self.count += 1
        data = self._tree_frame("event")
        async with self._send_lock:
            ws = self._ws
            if ws is None:
                raise RuntimeError("the hub is not linked to the bench agent")
            t0 = time.perf_counter_ns()
            await ws.send(data, text=True)
        return t0

    async def _send(self, ws: ServerConnection, data: bytes) -> None:
        async with self._send_lock:
            await ws.send(data, text=True)

    def _check_auth(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Authorization") != f"Bearer {AGENT_TOKEN}":
            body = b"wrong token\n"
            return Response(
                HTTPStatus.UNAUTHORIZED.value,
                "Unauthorized",
                Headers({"Content-Length": str(len(body))}),
                body,
            )
        return None

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        async with serve(
            self._link, "127.0.0.1", 0, process_request=self._check_auth, compression=None
        ) as server:
            task_status.started(next(iter(server.sockets)).getsockname()[1])
            await server.serve_forever()

    async def _link(self, ws: ServerConnection) -> None:
        hello = HUB_TO_AGENT.decode(await ws.recv())
        if not isinstance(hello, AgentHubHello) or hello.protocol != AGENT_PROTOCOL:
            await ws.close(1002, "expected hello")
            return
        answer = AgentHello(
            protocol=AGENT_PROTOCOL,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="mobridge-bench-agent", version="1"),
            device=DeviceInfo(id=DEVICE_ID, model="bench", width=1080, height=2400),
            capabilities=("tree", "node_action"),
        )
        await self._send(ws, encode(answer))
        await self._send(ws, self._tree_frame("initial"))
        self._ws = ws
        try:
            async for frame in ws:
                t_in = time.perf_counter_ns()
                command = HUB_TO_AGENT.decode(frame)
                match command:
                    case NodeActionCommand(id=cid):
                        self.count += 1
                        await self._send(ws, self._tree_frame("event"))
                        reply = Reply(id=cid, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
                        await self._send(ws, encode(reply))
                        self.agent_ns.append(time.perf_counter_ns() - t_in)
                    case CaptureCommand(id=cid):
                        self.capture += 1
                        await self._send(ws, encode(Reply(id=cid, ok=True)))
                    case AgentPing(id=cid):
                        await self._send(ws, encode(Reply(id=cid, ok=True)))
                    case _:
                        cid = getattr(command, "id", 0)
                        bad = Reply(id=cid, ok=False, code="UNSUPPORTED", message="bench agent")
                        await self._send(ws, encode(bad))
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None


# ---- clients ------------------------------------------------------------------------------


class _Gen(msgspec.Struct):
    generation: int = -1


class _Head(msgspec.Struct):
    """Just enough of a hub frame to route it: events carry ``generation`` at the top,
    results inside ``result``."""

    type: str
    id: int | str | None = None
    generation: int = -1
    result: _Gen | None = None


_HEAD_JSON = msgspec.json.Decoder(_Head)
_HEAD_MSGPACK = msgspec.msgpack.Decoder(_Head)


class Client:
    """A raw websocket session: greeted, then requests answered in order (no reader task)
    until ``listen`` hands the socket to a delivery loop."""

    def __init__(self, ws: ClientConnection, fmt: WireFormat) -> None:
        self.ws = ws
        self.fmt = fmt
        self._ids = 0

    def head(self, frame: str | bytes) -> _Head:
        data = frame.encode() if isinstance(frame, str) else frame
        return (
            _HEAD_JSON.decode(data) if self.fmt is WireFormat.JSON else _HEAD_MSGPACK.decode(data)
        )

    async def request(self, build: Any) -> tuple[_Head, bytes, int]:
        """Send ``build(id)``; returns the answer's head, raw bytes and receive time (ns)."""
        self._ids += 1
        rid = self._ids
        await self.ws.send(encode(build(rid), self.fmt), text=self.fmt is WireFormat.JSON)
        while True:
            frame = await self.ws.recv()
            t = time.perf_counter_ns()
            head = self.head(frame)
            if head.id == rid and head.type in ("result", "error", "protocol_error"):
                data = frame.encode() if isinstance(frame, str) else frame
                if head.type != "result":
                    raise RuntimeError(f"hub refused a bench request: {data[:300]!r}")
                return head, data, t


@asynccontextmanager
async def open_client(
    url: str, name: str, fmt: WireFormat = WireFormat.JSON
) -> AsyncIterator[Client]:
    proto = SUBPROTOCOL_JSON if fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
    ws = await connect(
        url,
        subprotocols=[Subprotocol(proto)],
        additional_headers={"Authorization": f"Bearer {CLIENT_TOKEN}"},
        max_size=MAX_AGENT_FRAME,
        ping_interval=None,
        close_timeout=1,
        proxy=None,
    )
    client = Client(ws, fmt)
    try:
        await client.request(lambda i: Hello(id=i, client=ClientInfo(name=name, kind="bench")))
        yield client
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await ws.close()


@dataclass
class Deliveries:
    """Receive times of deltas by generation across subscribers; ``wait`` for all of them."""

    members: int = 0
    times: dict[int, list[int]] = field(default_factory=dict)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    resyncs: int = 0
    _waiting: dict[int, anyio.Event] = field(default_factory=dict)

    def arrived(self, generation: int, t_ns: int, size: int) -> None:
        got = self.times.setdefault(generation, [])
        got.append(t_ns)
        self.sizes.setdefault(generation, []).append(size)
        event = self._waiting.get(generation)
        if event is not None and len(got) >= self.members:
            event.set()

    def expect(self, generation: int) -> anyio.Event:
        event = self._waiting[generation] = anyio.Event()
        if len(self.times.get(generation, ())) >= self.members:
            event.set()
        return event


async def deliver(client: Client, into: Deliveries) -> None:
    """Read a subscriber's socket forever, timing each delta's receipt."""
    try:
        async for frame in client.ws:
            t = time.perf_counter_ns()
            head = client.head(frame)
            if head.type == "delta":
                into.arrived(head.generation, t, len(frame))
            elif head.type == "snapshot":
                into.resyncs += 1
    except ConnectionClosed:
        pass


async def subscribe(client: Client, compact: bool = True) -> int:
    """Subscribe; returns the generation of the initial snapshot."""
    head, _, _ = await client.request(lambda i: Subscribe(id=i, device=DEVICE_ID, compact=compact))
    assert head.result is not None
    return head.result.generation


# ---- the measurements ---------------------------------------------------------------------


@dataclass
class Bench:
    hub: Hub
    agent: BenchAgent
    url: str
    ingest_ns: list[int] = field(default_factory=list)
    """Time the hub spent ingesting each push (``prepare``: cap, mask, normalize; ``commit``:
    patch, encode once per format, queue to every member), recorded by wrapping both."""

    def generation(self) -> int:
        return self.hub.service.devices[DEVICE_ID].generation

    def time_ingest(self) -> None:
        """Wrap ``prepare`` and ``commit`` (the two halves of an ingest); one push's time is
        the sum of both."""
        device = self.hub.service.devices[DEVICE_ID]
        prepare, commit = device.prepare, device.commit
        pending: list[int] = []

        def timed_prepare(push: TreePush) -> Any:
            t = time.perf_counter_ns()
            try:
                return prepare(push)
            finally:
                pending.append(time.perf_counter_ns() - t)

        def timed_commit(push: TreePush, prepared: Any) -> Any:
            t = time.perf_counter_ns()
            try:
                return commit(push, prepared)
            finally:
                spent = time.perf_counter_ns() - t
                self.ingest_ns.append(spent + (pending.pop() if pending else 0))

        device.prepare = timed_prepare  # type: ignore[method-assign]
        device.commit = timed_commit  # type: ignore[method-assign]

    def ingest_p50(self) -> str:
        taken, self.ingest_ns = self.ingest_ns, []
        return _ms(statistics.median(taken)) if taken else "-"


async def fan_out(bench: Bench, sizes: Sizes) -> list[str]:
    lines = [
        f"delta fan-out: agent push -> delta frame received, per subscriber "
        f"({sizes.changes} changes of one text on a {len(bench.agent.nodes)}-node screen; "
        "JSON, compact; subscribers in this process)",
        f"  {'subscribers':>11} {'p50 ms':>8} {'p99 ms':>8} {'last p50 ms':>12} "
        f"{'last p99 ms':>12} {'ingest p50 ms':>14} {'missed':>7} {'resyncs':>8}",
    ]
    deliveries = Deliveries()
    async with anyio.create_task_group() as readers:
        clients: list[Client] = []
        async with _ClientPool() as pool:
            for n in sizes.subscribers:
                new = await pool.open_many(bench.url, n - len(clients), len(clients))
                for client in new:
                    await subscribe(client)
                    readers.start_soon(deliver, client, deliveries)
                clients += new
                deliveries.members = len(clients)
                each: list[float] = []
                last: list[float] = []
                missed = 0
                resyncs_before = deliveries.resyncs
                for i in range(WARMUP + sizes.changes):
                    gen = bench.generation() + 1
                    done = deliveries.expect(gen)
                    t0 = await bench.agent.push_change()
                    with anyio.move_on_after(WAIT_S):
                        await done.wait()
                    got = deliveries.times.pop(gen, [])
                    deliveries.sizes.pop(gen, None)
                    if i < WARMUP:
                        bench.ingest_p50()  # reset
                        continue
                    missed += len(clients) - len(got)
                    each += [t - t0 for t in got]
                    if got:
                        last.append(max(got) - t0)
                    await anyio.sleep(0.001)
                lines.append(
                    f"  {len(clients):>11} {_ms(statistics.median(each)):>8} "
                    f"{_ms(percentile(each, 99)):>8} {_ms(statistics.median(last)):>12} "
                    f"{_ms(percentile(last, 99)):>12} {bench.ingest_p50():>14} {missed:>7} "
                    f"{deliveries.resyncs - resyncs_before:>8}"
                )
            readers.cancel_scope.cancel()
    lines.append(
        "  (p50/p99 over every subscriber x change; last = the slowest subscriber; ingest = "
        "hub normalize + patch + encode + queue, part of the latency)"
    )
    return lines


class _ClientPool:
    """Opens many clients (bounded concurrency) and closes them all on exit."""

    def __init__(self) -> None:
        self._stack: list[Any] = []

    async def open_many(
        self, url: str, n: int, start: int, fmt: WireFormat = WireFormat.JSON
    ) -> list[Client]:
        out: list[Client | None] = [None] * n
        limiter = anyio.CapacityLimiter(32)

        async def one(i: int) -> None:
            async with limiter:
                cm = open_client(url, f"sub{start + i}", fmt)
                out[i] = await cm.__aenter__()
                self._stack.append(cm)

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
        return [c for c in out if c is not None]

    async def __aenter__(self) -> _ClientPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        with anyio.CancelScope(shield=True):
            while self._stack:
                await self._stack.pop().__aexit__(None, None, None)


def _deflated(frames: list[bytes]) -> float:
    """Median compressed size of consecutive frames through one compressor as websockets'
    default permessage-deflate keeps it (context takeover, 4 KiB window, memLevel 5): an
    estimate of the payload the socket carries. The first frame (cold context) is left out."""
    stream = zlib.compressobj(wbits=-12, memLevel=5)
    out = []
    for frame in frames:
        chunk = stream.compress(frame) + stream.flush(zlib.Z_SYNC_FLUSH)
        out.append(len(chunk) - 4)  # the sync-flush tail is not sent
    return statistics.median(out[1:] if len(out) > 1 else out)


@dataclass
class _BytesCase:
    fmt: WireFormat
    compact: bool
    subscriber: Client
    getter: Client
    got: Deliveries = field(default_factory=lambda: Deliveries(members=1))
    deltas: list[bytes] = field(default_factory=list)
    snapshots: list[bytes] = field(default_factory=list)


async def frame_bytes(bench: Bench, sizes: Sizes) -> list[str]:
    lines = [
        f"bytes per change (one text field, {sizes.byte_samples} changes): delta event frame "
        "vs the whole snapshot (snapshot.get answer frame)",
        f"  {'format':<8} {'view':<8} {'delta B':>8} {'snapshot B':>11} {'snap/delta':>11} "
        f"{'delta ~deflate B':>17} {'snapshot ~deflate B':>20}",
    ]
    cases: list[_BytesCase] = []
    async with _ClientPool() as pool, anyio.create_task_group() as readers:
        for fmt in (WireFormat.JSON, WireFormat.MSGPACK):
            for compact in (True, False):
                sub, getter = await pool.open_many(bench.url, 2, 0, fmt)
                await subscribe(sub, compact)
                case = _BytesCase(fmt, compact, sub, getter)
                readers.start_soon(_collect, sub, case.got, case.deltas)
                cases.append(case)
        for _ in range(sizes.byte_samples):
            gen = bench.generation() + 1
            waits = [case.got.expect(gen) for case in cases]
            await bench.agent.push_change()
            with anyio.move_on_after(WAIT_S):
                for w in waits:
                    await w.wait()
            for case in cases:
                _, data, _ = await case.getter.request(
                    lambda i, c=case.compact: SnapshotGet(id=i, device=DEVICE_ID, compact=c)
                )
                case.snapshots.append(data)
        readers.cancel_scope.cancel()
    for case in cases:
        delta = statistics.median(len(f) for f in case.deltas)
        snap = statistics.median(len(f) for f in case.snapshots)
        lines.append(
            f"  {case.fmt.value:<8} {'compact' if case.compact else 'full':<8} {delta:>8.0f} "
            f"{snap:>11,.0f} {snap / delta:>10.1f}x {_deflated(case.deltas):>17.0f} "
            f"{_deflated(case.snapshots):>20.0f}"
        )
    lines.append(
        "  (~deflate: estimated payload with the permessage-deflate the hub negotiates by "
        "default: context takeover, 4 KiB window)"
    )
    return lines


async def _collect(client: Client, into: Deliveries, frames: list[bytes]) -> None:
    try:
        async for frame in client.ws:
            data = frame.encode() if isinstance(frame, str) else frame
            head = client.head(data)
            if head.type == "delta":
                frames.append(data)
                into.arrived(head.generation, time.perf_counter_ns(), len(data))
    except ConnectionClosed:
        pass


async def action_overhead(bench: Bench, sizes: Sizes) -> list[str]:
    total: list[int] = []
    async with open_client(bench.url, "bench-actor") as actor:
        query = SemanticQuery(resource_id=INCREMENT_ID)
        _, data, _ = await actor.request(lambda i: Find(id=i, device=DEVICE_ID, query=query))
        ref = msgspec.json.decode(data)["result"]["matches"][0]["ref"]
        target = convert(ref, NodeRef)
        for i in range(WARMUP + sizes.actions):
            if i == WARMUP:
                bench.agent.agent_ns.clear()
                bench.ingest_p50()  # reset
                total.clear()
            expected = Present(
                query=SemanticQuery(text=TextMatch(value=f"Count {bench.agent.count + 1}"))
            )
            request = ActionRequest(
                action=ActionVerb.CLICK,
                target=target,
                verify=Verify(
                    policy=VerificationPolicy.EXPLICIT_CONDITION,
                    expected=expected,
                    timeout_ms=int(WAIT_S * 1000),
                    stable_for_ms=0,
                ),
            )
            t0 = time.perf_counter_ns()
            _, data, t1 = await actor.request(
                lambda i, r=request: Act(id=i, device=DEVICE_ID, request=r)
            )
            verification = msgspec.json.decode(data)["result"].get("verification") or {}
            if verification.get("result") != "CONDITION_MET":
                raise RuntimeError(f"bench action not verified: {data[:400]!r}")
            total.append(t1 - t0)
    agent = list(bench.agent.agent_ns)
    ingest = bench.ingest_p50()
    overhead = [t - a for t, a in zip(total, agent, strict=True)]
    lines = [
        f"act round trip: CLICK + EXPLICIT_CONDITION(present 'Count N'), stableForMs 0; "
        f"{sizes.actions} actions, one at a time",
        f"  {'':<24} {'p50 ms':>8} {'p99 ms':>8}",
    ]
    for name, xs in (("total", total), ("agent", agent), ("hub overhead", overhead)):
        lines.append(f"  {name:<24} {_ms(statistics.median(xs)):>8} {_ms(percentile(xs, 99)):>8}")
    lines.append(f"  {'  of which tree ingest':<24} {ingest:>8}")
    lines.append(
        "  (agent: command frame read -> post-action tree and reply sent; overhead = total - "
        "agent per action: resolve, policy, ingest, observe, verify, diff, 4 loopback hops)"
    )
    return lines


async def polling_vs_subscription(bench: Bench, sizes: Sizes) -> list[str]:
    interval = sizes.poll_interval_s
    gaps = (interval * 1.05, interval * 1.45)
    sub_deliveries = Deliveries(members=1)
    poll_seen: list[tuple[int, int]] = []  # (generation, receive ns) per poll answer
    poll_bytes = 0
    sub_bytes = 0
    async with (
        open_client(bench.url, "bench-subscriber") as sub,
        open_client(bench.url, "bench-poller") as poller,
        anyio.create_task_group() as tg,
    ):
        await subscribe(sub)
        tg.start_soon(deliver, sub, sub_deliveries)

        async def poll() -> None:
            nonlocal poll_bytes
            next_at = time.perf_counter() + random.uniform(0, interval)
            while True:
                await anyio.sleep(max(0.0, next_at - time.perf_counter()))
                next_at += interval
                head, data, t = await poller.request(
                    lambda i: SnapshotGet(id=i, device=DEVICE_ID, compact=True)
                )
                assert head.result is not None
                poll_seen.append((head.result.generation, t))
                poll_bytes += len(data)

        tg.start_soon(poll)
        changes: list[tuple[int, int]] = []  # (generation, t0)
        rng = random.Random()
        for _ in range(sizes.poll_changes):
            await anyio.sleep(rng.uniform(*gaps))
            gen = bench.generation() + 1
            changes.append((gen, await bench.agent.push_change()))
        await anyio.sleep(interval * 1.1)  # the last change must be polled too
        tg.cancel_scope.cancel()
    sub_lat: list[float] = []
    poll_lat: list[float] = []
    missed = 0
    for gen, t0 in changes:
        got = sub_deliveries.times.get(gen)
        if got:
            sub_lat.append(got[0] - t0)
            sub_bytes += sub_deliveries.sizes[gen][0]
        else:
            missed += 1
        seen = [t for g, t in poll_seen if g >= gen and t >= t0]
        if seen:
            poll_lat.append(min(seen) - t0)
        else:
            missed += 1
    n = max(1, len(changes))
    ratio = statistics.median(poll_lat) / statistics.median(sub_lat)
    lines = [
        f"change -> client has the new text: {len(changes)} changes at random times "
        f"({gaps[0]:.2f}-{gaps[1]:.2f} s apart, each longer than a poll interval)",
        f"  {'client':<24} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8} {'B/change':>9}",
        f"  {'subscriber (deltas)':<24} {_ms(statistics.median(sub_lat)):>8} "
        f"{_ms(percentile(sub_lat, 90)):>8} {_ms(max(sub_lat)):>8} {sub_bytes / n:>9.0f}",
        f"  {f'poller ({interval * 1000:.0f} ms)':<24} {_ms(statistics.median(poll_lat)):>8} "
        f"{_ms(percentile(poll_lat, 90)):>8} {_ms(max(poll_lat)):>8} {poll_bytes / n:>9.0f}",
        f"  poller / subscriber p50: {ratio:.0f}x{f'; missed {missed}' if missed else ''}",
    ]
    return lines


# ---- orchestration ------------------------------------------------------------------------


@contextmanager
def _quiet_hub_logs() -> Iterator[None]:
    saved = structlog.get_config()
    configure_logs(json_lines=True, level=logging.WARNING, stream=sys.stderr)
    try:
        yield
    finally:
        structlog.configure(**saved)


async def _measure(sizes: Sizes) -> list[str]:
    agent = BenchAgent()
    async with anyio.create_task_group() as tg:
        agent_port = await tg.start(agent.serve)
        config = HubConfig(
            host="127.0.0.1",
            port=0,
            tokens={CLIENT_TOKEN: Principal("controller", "bench")},
            sim=False,
            agents=[AgentTarget(f"ws://127.0.0.1:{agent_port}", AGENT_TOKEN)],
        )
        hub = Hub(config)
        hub.server.rate_per_s = hub.server.burst = 1e9  # measure latency, not the limiter
        port = await tg.start(hub.run)
        device = hub.service.devices.get(DEVICE_ID)  # run() returns once the agent linked
        if device is None or not device.online:
            raise RuntimeError("the hub did not link the bench agent")
        bench = Bench(hub, agent, f"ws://127.0.0.1:{port}/v1")
        bench.time_ingest()
        fan = await fan_out(bench, sizes)
        sizes_lines = await frame_bytes(bench, sizes)
        act = await action_overhead(bench, sizes)
        poll = await polling_vs_subscription(bench, sizes)
        tg.cancel_scope.cancel()
    return [*fan, "", *sizes_lines, "", *act, "", *poll]
