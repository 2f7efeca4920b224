"""A bounded soak: the hub under honest load and every kind of misbehaviour at once.

``scripts/soak --minutes N`` starts, each in its own process:
- the hub (``mobridge serve``) with the simulated device on its settings screen, plus two
  rogue agents served from this process: one pushing 20,000-node trees every second (the hub
  keeps 5,000), one that never answers a command;
- a subscriber pool: ``--subscribers`` (50) connections subscribed to the simulated device,
  checking that every delta's ``seq`` follows the previous one (a gap without a resync is an
  error) and measuring capture -> delivery latency (the hub stamps ``meta.timestamp`` from the
  same monotonic clock this machine's processes share);
and in this process: a controller toggling Wi-Fi every 200 ms, and one misbehaving client of
each kind issue 8 found: 100,000-deep nesting, catastrophic and unsupported regexes, a client
that sends but never reads, idempotent retries after a drop and key conflicts, a verify that
would hold the device for a minute (cancelled), unauthenticated connections left open, and an
action on the mute agent's device.

With ``--full`` (issue 33's soak) it also: runs the simulated device as its own agent
process and kills it (-9) every ``--agent-kill-every`` minutes (5), starting it again at
once; joins the hub to a farm through a real ``nats-server`` it restarts twice (at a third
and two thirds of the run); adds two more controllers, an MCP client (``mobridge mcp`` over
stdio, the SDK's client) toggling Dark mode and a flow (``mobridge test``) toggling
Bluetooth; and starts screen recordings and log streams from observer sessions that then
drop without stopping them. At the end the controllers stop, and every subscriber's view
(the snapshot it built from its deltas) must equal the hub's; every warning or error line of
the hub's log is listed by event.

Each minute it prints the hub's RSS, delta latency p50/p99, deltas, gaps and errors; at the
end RSS at start and end and the growth. "Start" is after ``WARMUP_S`` of full load (every
device's history full, every connection open), so that growth measures leaks, not warm-up;
the RSS when the hub became ready is printed too. RSS is sampled every 2 s, and the growth
compares the median of the first ``RSS_WINDOW_S`` after the warm-up with the median of the
last ``RSS_WINDOW_S``: a single sample can land on an agent kill's transient (the hub takes
the new link's whole tree and resyncs every subscriber: tens of MB for a few seconds), which
measures the kill, not a leak. The single samples and the peak are printed as well. Exit
status 1 when anything went wrong (an error, a gap, or RSS growth of 10% or more), else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from bridge.wire.agent_link import AgentHello, AgentInfo, DeviceInfo, Reply, TreePush
from bridge.wire.codec import HUB_TO_AGENT, encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree

ROOT = Path(__file__).resolve().parents[2]
SIM = "sim-android"
WARMUP_S = 30
RSS_WINDOW_S = 120.0
"""The growth compares the median RSS of the first and of the last this many seconds."""
FREEZE_S = 3.0
"""A misbehaving request answered later than this counts as the hub freezing."""
HOG_ANSWER_S = 15.0
"""A cancelled 60 s verify must be answered within this (a quarter of what it would hold;
the bound every other honest request of the soak has)."""
FREEZE_RATIO = 5.0
"""A catastrophic regex counts as freezing the hub when it is answered later than
``FREEZE_S`` *and* this many times later than the plain find sent just before it: on a
machine whose load makes every request slow, time alone would blame the hub for the load."""
FLOOD_ID = "soak-flood"
LOG_SIM = "soak-logs"
"""With --full: the hub's built-in simulated device (its log is readable through the hub's
device layer), while ``SIM`` is an agent process the soak kills."""
MUTE_ID = "soak-mute"


# --------------------------------------------------------------------------- small helpers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _now_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def _pct(data: list[float], q: float) -> float:
    if not data:
        return float("nan")
    data = sorted(data)
    return data[min(len(data) - 1, int(len(data) * q))]


OFFLINE_WORDS = ("DEVICE_OFFLINE", "offline", "not online", "agent link lost")
"""How a refusal says the device is away: expected while the soak has killed its agent."""


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    """When each error came (seconds since the soak began)."""
    began: float = field(default_factory=time.monotonic)
    done: dict[str, int] = field(default_factory=dict)
    expect_offline: bool = False
    """--full kills the device's agent and runs a flow that leases it: DEVICE_OFFLINE and
    lease refusals are then the soak's own doing, counted rather than errors."""

    def error(self, what: str) -> None:
        why = _expected(what) if self.expect_offline else None
        if why is not None:  # the soak's own doing: its agent kills, the flow's lease
            self.count(f"refused: {why}")
            return
        self.errors.append(what[:300])
        self.times.append(time.monotonic() - self.began)

    def count(self, what: str) -> None:
        self.done[what] = self.done.get(what, 0) + 1


async def _client(url: str, token: str | None, name: str) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    ws = await ws_connect(url, additional_headers=headers, max_size=64 << 20)
    await ws.send(json.dumps({"type": "hello", "id": 0, "client": {"name": name}}))
    await ws.recv()
    return ws


async def _answers(
    ws: ClientConnection, ids: set[int], timeout_s: float | None = None
) -> dict[int, Any]:
    """Read until every request in ``ids`` was answered (events and others skipped)."""
    got: dict[int, Any] = {}
    with anyio.fail_after(timeout_s) if timeout_s is not None else contextlib.nullcontext():
        while not ids <= got.keys():
            reply = json.loads(await ws.recv())
            if reply.get("id") in ids and reply.get("type") in (
                "result",
                "error",
                "protocol_error",
            ):
                got[reply["id"]] = reply
    return got


async def _call(ws: ClientConnection, msg: dict[str, Any], timeout_s: float = 15) -> Any:
    with anyio.fail_after(timeout_s):
        await ws.send(json.dumps(msg))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == msg["id"] and reply.get("type") in (
                "result",
                "error",
                "protocol_error",
            ):
                return reply


# --------------------------------------------------------------------------- rogue agents


def _big_tree(capture: int) -> RawTree:
    nodes = [RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout",
                     package="com.example.flood", bounds=(0, 0, 1080, 2400))]  # fmt: skip
    nodes.extend(
        RawNode(
            handle=i,
            parent=0 if i < 50 else (i % 49) + 1,
            class_name="android.widget.TextView",
            text=f"row {i} #{capture}",
            bounds=(0, 10 * (i % 240), 1080, 10 * (i % 240) + 9),
        )
        for i in range(1, 20_000)
    )
    return RawTree(capture=capture, platform=Platform.ANDROID, nodes=tuple(nodes))


class RogueAgents:
    """Two agents on one port: the path picks the behaviour (``/flood``, ``/mute``)."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.port = 0
        self._frames = [
            encode(TreePush(reason="event", stable=False, tree=_big_tree(c))).decode()
            for c in (2, 3)
        ]

    async def _session(self, ws: ServerConnection) -> None:
        header = ws.request.headers.get("Authorization") if ws.request else None
        if header != f"Bearer {self.token}":
            await ws.close(1008, "token")
            return
        flood = ws.request is not None and ws.request.path == "/flood"
        await ws.recv()
        hello = AgentHello(
            protocol=1,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="soak-rogue", version="0"),
            device=DeviceInfo(id=FLOOD_ID if flood else MUTE_ID),
        )
        await ws.send(encode(hello).decode())
        small = RawTree(capture=1, platform=Platform.ANDROID, nodes=(
            RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout",
                    package="com.example.rogue", bounds=(0, 0, 1080, 2400)),
            RawNode(handle=1, parent=0, class_name="android.widget.Button", text="Go",
                    clickable=True, bounds=(0, 0, 200, 100)),
        ))  # fmt: skip
        await ws.send(encode(TreePush(reason="initial", stable=True, tree=small)).decode())
        async with anyio.create_task_group() as tg:
            if flood:

                async def push() -> None:
                    i = 0
                    with contextlib.suppress(ConnectionClosed):
                        while True:
                            await anyio.sleep(1.0)
                            await ws.send(self._frames[i % 2])
                            i += 1

                tg.start_soon(push)
            with contextlib.suppress(ConnectionClosed):
                async for frame in ws:
                    command = HUB_TO_AGENT.decode(frame)
                    if flood and hasattr(command, "id"):
                        await ws.send(encode(Reply(id=command.id, ok=True)).decode())
            tg.cancel_scope.cancel()

    async def serve(self, *, task_status: anyio.abc.TaskStatus[int]) -> None:
        async with serve(self._session, "127.0.0.1", 0, max_size=64 << 20) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            task_status.started(self.port)
            await server.serve_forever()


# --------------------------------------------------------------------------- subscriber pool


def view_digest(snapshot: Any) -> str:
    """A digest of a snapshot's nodes (what a subscriber shows), comparable across processes."""
    import hashlib

    import msgspec

    return hashlib.sha256(msgspec.json.encode(snapshot.nodes)).hexdigest()[:16]


async def subscriber_pool(url: str, token: str, n: int) -> None:
    """Runs in its own process: ``n`` subscribers; one JSON line of figures per minute, and
    one line of view digests (``{"views": {digest: count}}``) when its stdin says ``views``."""
    import msgspec

    from bridge.client.delta import Desync, SnapshotTracker
    from bridge.wire.client_protocol import DeltaEvent, SnapshotEvent
    from bridge.wire.codec import convert
    from bridge.wire.snapshot import ScreenSnapshot

    latencies: list[float] = []
    stats = {"deltas": 0, "gaps": 0, "resyncs": 0, "errors": 0, "desyncs": 0}
    views: dict[int, SnapshotTracker] = {}

    async def follow(i: int) -> None:
        while True:
            try:
                ws = await _client(url, token, f"sub{i}")
                reply = await _call(ws, {"type": "subscribe", "id": 1, "device": SIM})
                seq = reply["result"]["seq"]
                tracker = SnapshotTracker()
                tracker.snapshot = convert(reply["result"]["snapshot"], ScreenSnapshot)
                tracker.seq, tracker.in_sync = seq, True
                views[i] = tracker
                async for frame in ws:
                    msg = json.loads(frame)
                    kind = msg.get("type")
                    if kind == "delta":
                        if msg["seq"] != seq + 1:
                            stats["gaps"] += 1
                        seq = msg["seq"]
                        stats["deltas"] += 1
                        latencies.append(_now_ms() - msg["meta"]["timestamp"])
                        done = tracker.on_delta(msgspec.json.decode(frame, type=DeltaEvent))
                        if isinstance(done, Desync):
                            stats["desyncs"] += 1
                    elif kind == "snapshot":
                        seq = msg["seq"]
                        stats["resyncs"] += 1
                        tracker.on_snapshot(msgspec.json.decode(frame, type=SnapshotEvent))
            except (ConnectionClosed, OSError, TimeoutError, KeyError, WebSocketException):
                stats["errors"] += 1
                views.pop(i, None)
                await anyio.sleep(1)

    async def answer_views() -> None:
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if not line:
                return
            counts: dict[str, int] = {}
            for tracker in views.values():
                key = view_digest(tracker.snapshot) if tracker.in_sync else "out of sync"
                counts[key] = counts.get(key, 0) + 1
            print(json.dumps({"views": counts, "subscribers": len(views)}), flush=True)

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(follow, i)
        tg.start_soon(answer_views)
        while True:
            await anyio.sleep(60)
            taken, latencies[:] = list(latencies), []
            line = {
                **stats,
                "p50": _pct(taken, 0.5) if taken else None,
                "p99": _pct(taken, 0.99) if taken else None,
            }
            print(json.dumps(line), flush=True)
            for k in stats:
                stats[k] = 0


# --------------------------------------------------------------------------- driver


FLOW = """appId: dev.mobridge.demo
name: soak flow controller
reset: none
---
- tap: Bluetooth
- assertVisible: Wi-Fi
"""
CONTENDED_WORDS = ("POLICY_BLOCKED", "CANCELLED", "lease")
"""How a refusal says another controller holds the device (the flow runner leases it)."""


def _expected(text: str) -> str | None:
    """Why a refusal is one the soak itself causes (None: it is an error)."""
    if any(w in text for w in OFFLINE_WORDS):
        return "device offline"
    if any(w in text for w in CONTENDED_WORDS):
        return "another controller's lease"
    return None


class Soak:
    def __init__(self, url: str, port: int, controller: str, observer: str) -> None:
        self.url, self.port = url, port
        self.controller, self.observer = controller, observer
        self.quiet = False
        """Set at the end: the controllers stop acting so the screen settles for the check."""
        self.tally = Tally()
        self.act_ms: list[float] = []
        self.ping_ms: list[float] = []
        self.slowest_regex_s = 0.0
        self.slowest_plain_s = 0.0

    async def _wifi_ref(self, ws: ClientConnection) -> Any:
        found = await _call(
            ws, {"type": "find", "id": 1, "device": SIM, "query": {"label": {"value": "Wi-Fi"}}}
        )
        matches = (found.get("result") or {}).get("matches") or []
        return matches[0]["ref"] if matches else None  # None: not shown (the agent restarts)

    async def controller_loop(self) -> None:
        ws = await _client(self.url, self.controller, "soak-controller")
        n = 10
        while True:
            n += 1
            if self.quiet:
                await anyio.sleep(0.2)
                continue
            try:
                ref = await self._wifi_ref(ws)
                if ref is None:
                    self.tally.count("controller: Wi-Fi not shown (device away)")
                    await anyio.sleep(0.5)
                    continue
                start = time.perf_counter()
                reply = await _call(
                    ws, {"type": "act", "id": n, "device": SIM,
                         "request": {"action": "CLICK", "target": ref}},
                )  # fmt: skip
                if reply["type"] == "result":
                    self.act_ms.append((time.perf_counter() - start) * 1000)
                    self.tally.count("controller act")
                elif not (
                    reply["type"] == "protocol_error" and reply.get("code") == "CANCELLED"
                ) and not (
                    reply["type"] == "error" and reply["error"]["error"] == "STALE_NODE_REF"
                ):
                    why = _expected(json.dumps(reply))
                    if why is not None:
                        self.tally.count(f"controller act refused: {why}")
                    else:
                        self.tally.error(f"controller act: {reply}")
            except TimeoutError:
                self.tally.error("controller act: no answer within 15 s")
            await anyio.sleep(0.2)

    async def mcp_loop(self) -> None:
        """A controller through ``mobridge mcp`` (stdio, the MCP SDK's client): Dark mode."""
        from mcp import ClientSession, StdioServerParameters, types
        from mcp.client.stdio import stdio_client
        from mcp.shared.exceptions import McpError

        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "bridge.cli", "mcp", "--url", self.url, f"--token={self.controller}",
                  "--kind", "agent"],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            cwd=str(ROOT),
        )  # fmt: skip
        with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(
                    read, write, client_info=types.Implementation(name="soak-mcp", version="1")
                ) as session,
            ):
                await session.initialize()
                while True:
                    await anyio.sleep(1.0)
                    if self.quiet:
                        continue
                    try:
                        with anyio.fail_after(60):
                            done = await session.call_tool(
                                "act", {"device": SIM, "target": "Dark mode"}
                            )
                    except McpError as exc:
                        text, failed = str(exc), True
                    else:
                        text = " ".join(getattr(c, "text", "") for c in done.content)
                        failed = bool(done.isError)
                    why = _expected(text) if failed else None
                    if not failed:
                        self.tally.count("mcp act")
                    elif why is not None:
                        self.tally.count(f"mcp act refused: {why}")
                    else:
                        self.tally.error(f"mcp act: {text[:200]}")

    async def flow_loop(self, workdir: Path) -> None:
        """A controller running a flow (``mobridge test``) every 10 s: Bluetooth."""
        flow = workdir / "soak-flow.yaml"
        flow.write_text(FLOW)
        while True:
            await anyio.sleep(10)
            if self.quiet:
                continue
            done = await anyio.run_process(
                [sys.executable, "-m", "bridge.cli", "test", str(flow), "--url", self.url,
                 f"--token={self.controller}", "--device", SIM, "--quiet"],
                cwd=ROOT, check=False,
            )  # fmt: skip
            said = (done.stdout + done.stderr).decode(errors="replace")
            why = _expected(said)
            if done.returncode == 0:
                self.tally.count("flow run passed")
            elif why is not None:
                self.tally.count(f"flow run refused: {why}")
            else:
                self.tally.error(f"flow run: exit {done.returncode}: {said[-300:]}")

    async def abandon_loop(self) -> None:
        """Observer sessions start a recording and a log stream, then drop without a word."""
        n = 0
        while True:
            await anyio.sleep(20)
            n += 1
            ws = await _client(self.url, self.observer, f"soak-abandoner{n}")
            try:
                rec = await _call(ws, {"type": "record.start", "id": 1, "device": SIM,
                                       "fps": 5, "maxBytes": 4 << 20})  # fmt: skip
                logs = await _call(ws, {"type": "logs.subscribe", "id": 2, "device": LOG_SIM})
                for reply, what in ((rec, "recording"), (logs, "log stream")):
                    if reply["type"] == "result":
                        self.tally.count(f"{what} started and abandoned")
                    elif (
                        any(w in json.dumps(reply) for w in OFFLINE_WORDS)
                        or reply.get("code") == "RATE_LIMITED"
                    ):
                        self.tally.count(f"{what} refused (offline or bound)")
                    else:
                        self.tally.error(f"abandoned {what}: {reply}")
                await anyio.sleep(5)
            finally:
                if ws.transport is not None:
                    ws.transport.abort()

    async def ping_loop(self) -> None:
        """An honest observer pinging every 100 ms: how long anyone waits for the hub."""
        ws = await _client(self.url, self.observer, "soak-ping")
        n = 0
        while True:
            n += 1
            start = time.perf_counter()
            await _call(ws, {"type": "ping", "id": n}, timeout_s=30)
            self.ping_ms.append((time.perf_counter() - start) * 1000)
            await anyio.sleep(0.1)

    async def nesting_loop(self) -> None:
        ws = await _client(self.url, self.controller, "soak-nesting")
        deep = '{"type":"ping","id":7,"x":' + "[" * 100_000 + "]" * 100_000 + "}"
        while True:
            await ws.send(deep)
            with anyio.fail_after(5):
                reply = json.loads(await ws.recv())
            if reply.get("code") != "MALFORMED":
                self.tally.error(f"nesting: {reply}")
            else:
                self.tally.count("nesting refused")
            await anyio.sleep(5)

    async def regex_loop(self) -> None:
        ws = await _client(self.url, self.observer, "soak-regex")
        patterns = [r"(?:[A-Za-z ](?!@)?)*#", r"(a|aa)+$", r"^(\w+\s?)*$", r"(x+x+)+y"]
        n = 0
        while True:
            for p in patterns:
                n += 2
                start = time.perf_counter()
                plain = {"text": {"value": p[:4], "match": "CONTAINS"}}
                await _call(ws, {"type": "find", "id": n - 1, "device": SIM, "query": plain})
                plain_s = time.perf_counter() - start
                start = time.perf_counter()
                query = {"text": {"value": p, "match": "REGEX"}}
                reply = await _call(ws, {"type": "find", "id": n, "device": SIM, "query": query})
                took = time.perf_counter() - start
                self.slowest_regex_s = max(self.slowest_regex_s, took)
                self.slowest_plain_s = max(self.slowest_plain_s, plain_s)
                if took > FREEZE_S and took > FREEZE_RATIO * plain_s:
                    self.tally.error(
                        f"regex {p!r} took {took:.1f} s (a plain find just before: {plain_s:.1f} s)"
                    )
                if reply["type"] not in ("result", "protocol_error"):
                    self.tally.error(f"regex: {reply}")
                self.tally.count("regex find")
            await anyio.sleep(5)

    async def non_reader_loop(self) -> None:
        while True:
            await anyio.to_thread.run_sync(_non_reader, self.port, self.observer, 15.0)
            self.tally.count("non-reader cycle")

    async def idempotency_loop(self) -> None:
        n = 0
        never = {"policy": "EXPLICIT_CONDITION", "expected": {"kind": "screen", "name": "x"},
                 "timeoutMs": 1500}  # fmt: skip
        while True:
            await anyio.sleep(10)
            n += 1
            key = f"soak-{n}-{secrets.token_hex(3)}"
            first = await _client(self.url, self.controller, "soak-dropper")
            ref = await self._wifi_ref(first)
            if ref is None:
                await first.close()
                continue
            request = {"action": "CLICK", "target": ref, "idempotencyKey": key, "verify": never}
            await first.send(
                json.dumps({"type": "act", "id": 5, "device": SIM, "request": request})
            )
            await anyio.sleep(0.3)
            await first.close()
            second = await _client(self.url, self.controller, "soak-retrier")
            try:
                reply = await _call(second, {"type": "act", "id": 6, "device": SIM,
                                             "request": request}, timeout_s=20)  # fmt: skip
                if reply["type"] != "result" and reply.get("code") != "CANCELLED":
                    self.tally.error(f"idempotent retry: {reply}")
                other = {**request, "action": "LONG_CLICK"}
                clash = await _call(second, {"type": "act", "id": 7, "device": SIM,
                                             "request": other})  # fmt: skip
                if clash.get("code") != "INVALID_PARAMS":
                    self.tally.error(f"key conflict not refused: {clash}")
                self.tally.count("idempotency cycle")
            except TimeoutError:
                self.tally.error("idempotent retry: no answer within 20 s")
            finally:
                await second.close()

    async def hog_loop(self) -> None:
        """A verify that would hold the device for a minute, cancelled after 1 s. The act's
        own answer may come first (refused: another controller's lease, the device away),
        so both answers are read from one loop, in whichever order they come."""
        ws = await _client(self.url, self.controller, "soak-hog")
        never = {"policy": "EXPLICIT_CONDITION", "expected": {"kind": "screen", "name": "x"},
                 "timeoutMs": 60_000}  # fmt: skip
        n = 100
        while True:
            await anyio.sleep(15)
            n += 2
            ref = await self._wifi_ref(ws)
            if ref is None:
                continue
            await ws.send(json.dumps({"type": "act", "id": n, "device": SIM,
                                      "request": {"action": "CLICK", "target": ref,
                                                  "verify": never}}))  # fmt: skip
            answers: dict[int, Any] = {}
            with anyio.move_on_after(1.0):
                answers.update(await _answers(ws, {n}))
            if n not in answers:
                await ws.send(json.dumps({"type": "cancel", "id": n + 1, "request": n}))
                try:
                    answers.update(await _answers(ws, {n, n + 1}, timeout_s=HOG_ANSWER_S))
                except TimeoutError:
                    self.tally.error(
                        f"hog: no answer to the cancel and the act within {HOG_ANSWER_S:g} s "
                        f"(got {sorted(answers)})"
                    )
                    continue
                if answers[n + 1].get("type") != "result":
                    self.tally.error(f"cancel: {answers[n + 1]}")
            msg = answers[n]
            if msg.get("code") == "CANCELLED":
                self.tally.count("hog cancelled")
            elif (why := _expected(json.dumps(msg))) is not None and msg.get("type") == "error":
                self.tally.count(f"hog refused: {why}")
            elif msg.get("type") == "error" and msg["error"].get("error") == "STALE_NODE_REF":
                self.tally.count("hog refused: stale ref (the screen changed)")
            elif msg.get("type") == "result" and _stability(msg) == "UNKNOWN":
                # the agent was killed during the 60 s verify: the device went away, so the
                # hub answered what it knew (dispatched; stability UNKNOWN), as it must
                self.tally.count("hog: the device went away during its verify")
            else:
                self.tally.error(f"hog not cancelled: {msg}")

    async def unauthenticated_loop(self) -> None:
        while True:
            idle = []
            for _ in range(20):
                try:
                    idle.append(await ws_connect(self.url))
                except (InvalidStatus, OSError):
                    pass
            await anyio.sleep(10)  # past the 5 s deadline (and the close handshake)
            for conn in idle:
                if conn.close_code is None:
                    self.tally.error("an unauthenticated connection outlived the deadline")
                await conn.close()
            self.tally.count("unauthenticated batch closed")
            await anyio.sleep(3)

    async def mute_loop(self) -> None:
        ws = await _client(self.url, self.controller, "soak-mute-caller")
        n = 0
        while True:
            await anyio.sleep(20)
            n += 1
            reply = await _call(ws, {"type": "global", "id": n, "device": MUTE_ID,
                                     "action": "BACK"}, timeout_s=20)  # fmt: skip
            if reply.get("type") != "error" or not reply["error"].get("message"):
                self.tally.error(f"mute agent: {reply}")
            else:
                self.tally.count("mute refusal")


def _non_reader(port: int, token: str, seconds: float) -> None:
    """Send ``snapshot.get`` (full) at ~190/s for ``seconds`` without reading a byte."""
    import base64
    import struct

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade"
            f"\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            return
        head += chunk

    def frame(payload: bytes) -> bytes:
        mask = os.urandom(4)
        n = len(payload)
        header = (
            struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else struct.pack("!BBH", 0x81, 0xFE, n)
        )
        return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    sock.settimeout(0.2)
    end = time.monotonic() + seconds
    n = 0
    try:
        while time.monotonic() < end:
            n += 1
            msg = {"type": "snapshot.get", "id": n, "device": SIM, "compact": False}
            with contextlib.suppress(OSError):
                sock.sendall(frame(json.dumps(msg).encode()))
            time.sleep(1 / 190)
    finally:
        sock.close()


async def drive(args: argparse.Namespace) -> int:
    port = _free_port()
    # (passed as --token=VALUE: a token may begin with "-", which argparse would take for
    # an option of its own after a separate --token)
    controller, observer, agent_token = (secrets.token_urlsafe(16) for _ in range(3))
    url = f"ws://127.0.0.1:{port}/v1"
    rogue = RogueAgents(agent_token)
    root = ROOT
    log_path = Path(args.log)
    log = log_path.open("wb")  # noqa: ASYNC230 - once, at start; a pipe nobody reads would block the hub
    async with anyio.create_task_group() as tg:
        rport = await tg.start(rogue.serve)
        extra: list[str] = []
        procs = Children(root, agent_token)
        if args.full:
            procs.start_agent()
            procs.start_nats()
            extra = [
                "--sim-id",
                LOG_SIM,
                "--agent",
                f"ws://127.0.0.1:{procs.agent_port}",
                "--farm",
                f"nats://127.0.0.1:{procs.nats_port}",
                "--farm-name",
                "soak",
            ]
        hub = subprocess.Popen(  # noqa: ASYNC220 - a long-lived child, polled
            [sys.executable, "-m", "bridge.cli", "serve", "--port", str(port),
             f"--token={controller}", f"--observer-token={observer}", "--sim-scene", "settings",
             "--agent", f"ws://127.0.0.1:{rport}/flood", "--agent", f"ws://127.0.0.1:{rport}/mute",
             f"--agent-token={agent_token}", "--log-json", *extra],
            cwd=root, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        subs: subprocess.Popen[str] | None = None
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    ws = await _client(url, observer, "soak-probe")
                    listed = await _call(ws, {"type": "devices.list", "id": 1})
                    await ws.close()
                    online = {d["id"] for d in listed["result"]["devices"] if d["online"]}
                    if {SIM, FLOOD_ID, MUTE_ID} <= online:
                        break
                except (OSError, InvalidStatus, TimeoutError, ConnectionClosed):
                    pass
                if time.monotonic() > deadline or hub.poll() is not None:
                    print("soak: the hub did not come up", file=sys.stderr)
                    return 1
                await anyio.sleep(0.3)
            rss_ready = _rss_mb(hub.pid)
            subs = subprocess.Popen(  # noqa: ASYNC220 - a long-lived child, read in a thread
                [sys.executable, "-m", "bridge.bench.soak", "--pool", url, observer,
                 str(args.subscribers)],
                cwd=root, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
            )  # fmt: skip
            soak = Soak(url, port, controller, observer)
            soak.tally.expect_offline = bool(args.full)
            print(
                f"soak: {args.minutes} min, hub pid {hub.pid}, {args.subscribers} subscribers "
                f"(pid {subs.pid}), controller every 200 ms, misbehaving: nesting, regex, "
                f"non-reader, idempotent drop + key conflict, 60 s verify (cancelled), "
                f"unauthenticated x20, 20,000-node tree flood, mute agent"
            )
            print(f"soak: RSS when the hub was ready {rss_ready:.1f} MB")
            for loop in (soak.ping_loop, soak.controller_loop, soak.nesting_loop, soak.regex_loop,
                         soak.non_reader_loop, soak.idempotency_loop, soak.hog_loop,
                         soak.unauthenticated_loop, soak.mute_loop):  # fmt: skip
                tg.start_soon(_guarded, loop, soak.tally)
            if args.full:
                print(
                    f"soak: --full: agent process killed every {args.agent_kill_every} min, "
                    "nats-server restarted twice, MCP and flow controllers, recordings and log "
                    "streams abandoned every 20 s"
                )
                workdir = Path(args.workdir)
                for loop in (soak.mcp_loop, partial(soak.flow_loop, workdir), soak.abandon_loop):
                    tg.start_soon(_guarded, loop, soak.tally)
                tg.start_soon(procs.chaos, args.minutes, args.agent_kill_every)
            # The baseline is taken once the working set is full (histories of every device,
            # every connection open, every misbehaviour under way), so growth means a leak.
            await anyio.sleep(WARMUP_S)
            rss_start = _rss_mb(hub.pid)
            peak = [rss_start]
            samples: list[tuple[float, float]] = []  # (seconds since the baseline, MB)
            sampled_from = time.monotonic()

            async def sample_peak() -> None:
                while hub.poll() is None:
                    with contextlib.suppress(OSError):
                        rss = _rss_mb(hub.pid)
                        peak[0] = max(peak[0], rss)
                        samples.append((time.monotonic() - sampled_from, rss))
                    await anyio.sleep(2)

            tg.start_soon(sample_peak)
            print(f"soak: RSS after {WARMUP_S} s of full load (the baseline) {rss_start:.1f} MB")
            lines = _LineReader(subs)
            totals = {"deltas": 0, "gaps": 0, "errors": 0}
            all_pings: list[float] = []
            for minute in range(1, args.minutes + 1):
                with anyio.fail_after(90):
                    line = await lines.next()
                figures = json.loads(line)
                for k in totals:
                    totals[k] += figures.get(k, 0)
                act, pings = soak.act_ms, soak.ping_ms
                lag = await _hub_loop(port, observer)
                print(
                    f"minute {minute}: RSS {_rss_mb(hub.pid):.1f} MB; deltas {figures['deltas']} "
                    f"p50 {figures['p50']} ms p99 {figures['p99']} ms; gaps {figures['gaps']}; "
                    f"resyncs {figures['resyncs']}; subscriber errors {figures['errors']}; "
                    f"controller acts {len(act)} (p50 {statistics.median(act) if act else 0:.0f}"
                    f" ms); ping p50 {_pct(pings, 0.5):.1f} p99 {_pct(pings, 0.99):.1f} max "
                    f"{max(pings, default=float('nan')):.0f} ms; hub event loop worst lag "
                    f"{lag.get('worst_since_last_read_ms', '?')} ms (stalls >= 1 s so far "
                    f"{lag.get('stalls_1s', '?')}, >= 5 s {lag.get('stalls_5s', '?')}); "
                    f"load {os.getloadavg()[0]:.1f}; errors {len(soak.tally.errors)}"
                )
                all_pings.extend(pings)
                soak.act_ms, soak.ping_ms = [], []
            rss_end = _rss_mb(hub.pid)
            first_median, last_median = _window_medians(samples, RSS_WINDOW_S, rss_start, rss_end)
            growth = (last_median - first_median) / first_median * 100
            views_ok = True
            if args.full:
                views_ok = await _views_match(soak, procs, subs, url, observer)
            print(
                f"soak: RSS median of the first {RSS_WINDOW_S:.0f} s {first_median:.1f} MB, of "
                f"the last {RSS_WINDOW_S:.0f} s {last_median:.1f} MB ({growth:+.1f}%); single "
                f"samples: start {rss_start:.1f} MB, end {rss_end:.1f} MB; "
                f"peak {peak[0]:.1f} MB (sampled every 2 s); load average "
                f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
                f"deltas {totals['deltas']}, gaps {totals['gaps']}, subscriber errors "
                f"{totals['errors']}; misbehaviour handled: "
                + ", ".join(f"{k} {v}" for k, v in sorted(soak.tally.done.items()))
            )
            print(
                f"soak: ping over the run: p50 {_pct(all_pings, 0.5):.1f} ms, p99 "
                f"{_pct(all_pings, 0.99):.1f} ms, max {max(all_pings, default=0):.0f} ms "
                f"({len(all_pings)} pings); answered within 1 s: "
                f"{sum(1 for p in all_pings if p < 1000) / max(1, len(all_pings)):.2%}"
            )
            print(
                f"soak: slowest catastrophic-regex answer {soak.slowest_regex_s * 1000:.0f} ms "
                f"(slowest plain find {soak.slowest_plain_s * 1000:.0f} ms)"
            )
            log.flush()
            crashes = _log_crashes(log_path)
            print(
                f"soak: hub log {log_path} ({os.fstat(log.fileno()).st_size} bytes); crash lines "
                f"(handler_crashed, ingest_crashed, agent_task_crashed, tracebacks): {crashes}"
            )
            kinds: dict[str, list[float]] = {}
            for e, at in zip(soak.tally.errors, soak.tally.times, strict=True):
                kind = re.sub(r"[0-9.]+", "N", e)[:90]
                kinds.setdefault(kind, []).append(at)
            for kind, ats in sorted(kinds.items(), key=lambda kv: -len(kv[1]))[:20]:
                print(
                    f"  error x{len(ats)} (at {', '.join(f'{a:.0f}' for a in ats[:6])} s): {kind}"
                )
            noted = _log_levels(log_path)
            print(
                "soak: hub warnings and errors by event: "
                + (", ".join(f"{k} {v}" for k, v in sorted(noted.items())) or "none")
            )
            print(f"soak: chaos: {procs.done}")
            bad = (
                not views_ok
                or crashes
                or soak.tally.errors
                or totals["gaps"]
                or totals["errors"]
                or growth >= 10
                or hub.poll() is not None
            )
            print("soak: FAIL" if bad else "soak: OK")
            return 1 if bad else 0
        finally:
            if subs is not None:
                subs.send_signal(signal.SIGTERM)
            hub.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                hub.wait(10)
            procs.stop()
            log.close()
            tg.cancel_scope.cancel()
    return 1  # not reached: the task group only ends through the returns above


class Children:
    """The simulated device's agent process and the farm's nats-server, and the chaos done
    to them (``--full``)."""

    def __init__(self, root: Path, agent_token: str) -> None:
        self.root = root
        self.agent_token = agent_token
        self.agent_port = _free_port()
        self.nats_port = _free_port()
        self.agent: subprocess.Popen[bytes] | None = None
        self.nats: subprocess.Popen[bytes] | None = None
        self.done: dict[str, int] = {"agent kills": 0, "nats restarts": 0}
        self.calm = False
        """Set for the final check: no more kills or restarts."""

    def start_agent(self) -> None:
        self.agent = subprocess.Popen(
            [sys.executable, "-m", "bridge.bench.soak", "--agent-proc", str(self.agent_port),
             self.agent_token],
            cwd=self.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def start_nats(self) -> None:
        self.nats = subprocess.Popen(
            ["nats-server", "-a", "127.0.0.1", "-p", str(self.nats_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    async def chaos(self, minutes: int, kill_every: int) -> None:
        """Kill -9 and restart the agent every ``kill_every`` minutes; restart nats-server
        at a third and two thirds of the run."""
        start = time.monotonic()
        restarts = [start + minutes * 60 / 3, start + minutes * 120 / 3]
        next_kill = start + kill_every * 60
        while not self.calm:
            await anyio.sleep(1)
            now = time.monotonic()
            if self.calm:
                return
            if self.agent is not None and now >= next_kill:
                self.agent.kill()
                await anyio.to_thread.run_sync(self.agent.wait)
                self.start_agent()
                self.done["agent kills"] += 1
                next_kill += kill_every * 60
            if restarts and now >= restarts[0] and self.nats is not None:
                restarts.pop(0)
                self.nats.terminate()
                await anyio.to_thread.run_sync(self.nats.wait)
                await anyio.sleep(2)
                self.start_nats()
                self.done["nats restarts"] += 1

    def stop(self) -> None:
        for proc in (self.agent, self.nats):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)


async def _views_match(
    soak: Soak, procs: Children, subs: subprocess.Popen[str], url: str, token: str
) -> bool:
    """Stop the controllers, let the screen settle, then compare every subscriber's view with
    the hub's snapshot (``view_digest``)."""
    from bridge.wire.codec import convert
    from bridge.wire.snapshot import ScreenSnapshot

    soak.quiet = True
    procs.calm = True
    ws = await _client(url, token, "soak-judge")
    with anyio.fail_after(60):  # the device back online (its agent may have just been killed)
        while True:
            got = await _call(ws, {"type": "snapshot.get", "id": 1, "device": SIM})
            if got["type"] == "result":
                break
            await anyio.sleep(0.5)
    await anyio.sleep(8)  # the last actions settle, every subscriber resyncs
    got = await _call(ws, {"type": "snapshot.get", "id": 2, "device": SIM})
    await ws.close()
    hub_view = view_digest(convert(got["result"]["snapshot"], ScreenSnapshot))
    assert subs.stdin is not None
    subs.stdin.write("views\n")
    subs.stdin.flush()
    lines = _LineReader(subs)
    with anyio.fail_after(60):
        while True:
            answer = json.loads(await lines.next())
            if "views" in answer:
                break
    views = answer["views"]
    same = views.get(hub_view, 0)
    print(
        f"soak: views at the end: {same} of {answer['subscribers']} subscribers equal to the "
        f"hub's ({hub_view}); others: { ({k: v for k, v in views.items() if k != hub_view}) }"
    )
    return bool(same == answer["subscribers"] and same > 0)


async def _hub_loop(port: int, token: str) -> dict[str, Any]:
    """The hub's ``/v1/stats`` ``event_loop`` figures ({} when it does not answer)."""
    import urllib.request

    def get() -> dict[str, Any]:
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/stats", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(req, timeout=20) as resp:
            loop: dict[str, Any] = json.loads(resp.read()).get("event_loop", {})
            return loop

    try:
        return await anyio.to_thread.run_sync(get)
    except (OSError, ValueError):
        return {}


def _log_levels(path: Path) -> dict[str, int]:
    """Warning and error lines of the hub's JSON log, counted by event."""
    counts: dict[str, int] = {}
    with path.open("rb") as f:
        for raw in f:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and line.get("level") in ("warning", "error", "critical"):
                key = f"{line.get('level')}:{line.get('event')}"
                counts[key] = counts.get(key, 0) + 1
    return counts


async def _agent_process(port: int, token: str) -> None:
    from bridge.devices.sim import SimConfig, SimDevice

    sim = SimDevice(SimConfig(token=token, port=port, scene="settings", device_id=SIM))
    async with anyio.create_task_group() as tg:
        await tg.start(sim.serve)


def _log_crashes(path: Path) -> int:
    words = (b"handler_crashed", b"ingest_crashed", b"agent_task_crashed", b"Traceback")
    with path.open("rb") as f:
        return sum(1 for line in f if any(w in line for w in words))


async def _guarded(loop: Any, tally: Tally) -> None:
    while True:
        try:
            await loop()
        except (
            ConnectionClosed, OSError, TimeoutError, WebSocketException, KeyError, IndexError
        ) as exc:  # fmt: skip
            name = getattr(loop, "__name__", None) or getattr(loop, "func", loop).__name__
            tally.error(f"{name}: {exc!r}")
            await anyio.sleep(1)


class _LineReader:
    """Lines of a child's stdout, read in a worker thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    async def next(self) -> str:
        assert self.proc.stdout is not None
        line = await anyio.to_thread.run_sync(self.proc.stdout.readline)
        if not line:
            raise RuntimeError("the subscriber pool ended")
        return line


def _stability(message: dict[str, Any]) -> str | None:
    result = message.get("result")
    observation = result.get("observation") if isinstance(result, dict) else None
    return observation.get("stability") if isinstance(observation, dict) else None


def _window_medians(
    samples: Sequence[tuple[float, float]], window_s: float, start: float, end: float
) -> tuple[float, float]:
    """The median RSS of the first and of the last ``window_s`` of ``samples`` ((seconds, MB)
    in time order); ``start`` / ``end`` stand in for a window with no sample."""
    if not samples:
        return start, end
    last_t = samples[-1][0]
    first = [mb for t, mb in samples if t <= window_s] or [start]
    last = [mb for t, mb in samples if t >= last_t - window_s] or [end]
    return statistics.median(first), statistics.median(last)


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["--agent-proc"]:
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(_agent_process, int(argv[1]), argv[2])
        return 0
    if argv[:1] == ["--pool"]:
        url, token, n = argv[1], argv[2], int(argv[3])
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(subscriber_pool, url, token, n)
        return 0
    parser = argparse.ArgumentParser(prog="scripts/soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=int, default=5, help="how long (default 5)")
    parser.add_argument("--subscribers", type=int, default=50, help="subscribers (default 50)")
    parser.add_argument(
        "--log", default="soak-hub.log", help="where the hub's log goes (default soak-hub.log)"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="issue 33's soak: agent kills, nats-server restarts, MCP and flow controllers, "
        "abandoned recordings and log streams, views compared at the end",
    )
    parser.add_argument(
        "--agent-kill-every", type=int, default=5, metavar="MIN", help="with --full (default 5)"
    )
    args = parser.parse_args(argv)
    args.workdir = str(Path(args.log).resolve().parent)
    if not 1 <= args.minutes <= 24 * 60 or not 1 <= args.subscribers <= 2000:
        parser.error("--minutes must be 1..1440 and --subscribers 1..2000")
    return anyio.run(drive, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
