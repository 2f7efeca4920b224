"""Shared parts of the adversarial suite: a rogue agent speaking the agent link, a ping
probe that measures how long the hub takes to answer while an attack runs, and raw-socket
helpers. Everything runs over real sockets on 127.0.0.1."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import ServerConnection, serve

from bridge.wire.agent_link import AgentHello, AgentInfo, DeviceInfo, Reply, TreePush
from bridge.wire.codec import HUB_TO_AGENT, encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.hub.hubfixture import CONTROLLER, OBSERVER

ROGUE_TOKEN = "rogue-agent-token"


def flat_tree(capture: int, count: int, label: str = "row") -> RawTree:
    """A root with ``count - 1`` clickable rows (a real-sized list)."""
    nodes = [
        RawNode(
            handle=0,
            parent=-1,
            class_name="android.widget.FrameLayout",
            package="com.example.rogue",
            bounds=(0, 0, 1080, 2400),
        )
    ]
    nodes.extend(
        RawNode(
            handle=i,
            parent=0 if i < 50 else (i % 49) + 1,
            class_name="android.widget.TextView",
            text=f"{label} {i} @{capture}",
            clickable=i < 50,
            bounds=(0, 10 * (i % 240), 1080, 10 * (i % 240) + 9),
        )
        for i in range(1, count)
    )
    return RawTree(
        capture=capture, platform=Platform.ANDROID, nodes=tuple(nodes), package="com.example.rogue"
    )


Script = Callable[[ServerConnection], Awaitable[None]]


@dataclass
class RogueAgent:
    """An agent-link server: hello, one initial tree, then ``script`` (its own frames); it
    answers commands with ok unless ``mute``."""

    device_id: str = "rogue-1"
    script: Script | None = None
    mute: bool = False
    initial_nodes: int = 5
    commands: list[Any] = field(default_factory=list)
    answer: Callable[[Any], str | None] | None = None
    """Builds the reply frame to a command (None: the default ok reply)."""
    port: int = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def _session(self, ws: ServerConnection) -> None:
        header = ws.request.headers.get("Authorization") if ws.request else None
        if header != f"Bearer {ROGUE_TOKEN}":
            await ws.close(1008, "token")
            return
        await ws.recv()
        hello = AgentHello(
            protocol=1,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="rogue", version="0"),
            device=DeviceInfo(id=self.device_id),
        )
        await ws.send(encode(hello).decode())
        tree = flat_tree(1, self.initial_nodes)
        await ws.send(encode(TreePush(reason="initial", stable=True, tree=tree)).decode())
        async with anyio.create_task_group() as tg:
            if self.script is not None:
                tg.start_soon(self.script, ws)
            async for frame in ws:
                command = HUB_TO_AGENT.decode(frame)
                self.commands.append(command)
                if not self.mute and hasattr(command, "id"):
                    custom = self.answer(command) if self.answer is not None else None
                    if custom is not None:
                        await ws.send(custom)
                        continue
                    await ws.send(encode(Reply(id=command.id, ok=True)).decode())  # type: ignore[union-attr]
            tg.cancel_scope.cancel()

    async def serve(self, *, task_status: anyio.abc.TaskStatus[int]) -> None:
        async with serve(self._session, "127.0.0.1", 0, max_size=64 << 20) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            task_status.started(self.port)
            await server.serve_forever()


@asynccontextmanager
async def client(
    url: str, token: str = CONTROLLER, name: str = "adversary", kind: str | None = None, **kw: Any
) -> AsyncIterator[ClientConnection]:
    """A raw JSON client that has said hello (as ``kind`` when given)."""
    async with ws_connect(
        url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=64 << 20, **kw
    ) as ws:
        who: dict[str, str] = {"name": name} if kind is None else {"name": name, "kind": kind}
        await ws.send(json.dumps({"type": "hello", "id": 0, "client": who}))
        json.loads(await ws.recv())
        yield ws


async def call(ws: ClientConnection, message: dict[str, Any], timeout_s: float = 10) -> Any:
    """Send one request and return its answer (events in between are skipped)."""
    with anyio.fail_after(timeout_s):
        await ws.send(json.dumps(message))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == message.get("id") and reply.get("type") in (
                "result",
                "error",
                "protocol_error",
            ):
                return reply


@dataclass
class PingProbe:
    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def worst_ms(self) -> float:
        return max(self.latencies_ms) if self.latencies_ms else float("inf")

    @property
    def p99_ms(self) -> float:
        data = sorted(self.latencies_ms)
        return data[min(len(data) - 1, int(len(data) * 0.99))] if data else float("inf")

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else float("inf")


@asynccontextmanager
async def ping_probe(url: str, interval_s: float = 0.05) -> AsyncIterator[PingProbe]:
    """Ping the hub from an honest observer every ``interval_s`` while the body runs; a ping
    that gets no answer within 5 s counts as a failure."""
    probe = PingProbe()
    async with client(url, OBSERVER, "prober") as ws, anyio.create_task_group() as tg:

        async def run() -> None:
            n = 1000
            while True:
                n += 1
                start = time.perf_counter()
                try:
                    await call(ws, {"type": "ping", "id": n}, timeout_s=5)
                    probe.latencies_ms.append((time.perf_counter() - start) * 1000)
                except TimeoutError:
                    probe.failures += 1
                await anyio.sleep(interval_s)

        tg.start_soon(run)
        try:
            yield probe
        finally:
            tg.cancel_scope.cancel()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_ws_open(port: int, token: str, rcvbuf: int = 4096) -> Any:
    """A blocking TCP socket that completed a websocket handshake on ``/v1`` and whose tiny
    receive buffer is never read again (a client that sends but does not read)."""
    import base64
    import os
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /v1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Authorization: Bearer {token}\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("handshake refused")
        head += chunk
    if b" 101 " not in head.split(b"\r\n", 1)[0]:
        raise ConnectionError(head.split(b"\r\n", 1)[0].decode())
    return sock


def ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    """One masked client frame."""
    import os
    import struct

    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + body


PING_CEILING_MS = 3000.0
"""The slowest ping an attack may cause on an idle machine: a generous ceiling. On a loaded
one, ``ping_ceiling_ms()`` scales it by the machine's load (the run queue per core), so the
suite passes on a loaded 2-core machine; a hub that stops answering still fails (the probe
counts a ping unanswered in 5 s as a failure). The strict figures are ``scripts/bench``'s."""


def ping_ceiling_ms() -> float:
    """``PING_CEILING_MS`` times how many runnable tasks share each core now (at least 1): a
    process gets about 1/N of a core when N compete for it."""
    import os

    return PING_CEILING_MS * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


@asynccontextmanager
async def hub_under_attack(bound_ms: float | None = None, **overrides: Any) -> AsyncIterator[Any]:
    """A running hub (``tests.hub.hubfixture.running_hub``) pinged by an honest observer for
    the whole body; on exit every ping must have been answered, the worst within ``bound_ms``."""
    from tests.hub.hubfixture import running_hub

    async with running_hub(**overrides) as rh:
        async with ping_probe(rh.url) as probe:
            yield rh
        assert probe.latencies_ms, "the probe never got an answer"
        assert probe.failures == 0, f"{probe.failures} pings unanswered within 5 s"
        ceiling = ping_ceiling_ms() if bound_ms is None else bound_ms
        assert probe.worst_ms < ceiling, f"a ping took {probe.worst_ms:.0f} ms (< {ceiling:.0f})"
