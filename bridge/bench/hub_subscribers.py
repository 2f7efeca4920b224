"""A subscriber worker of the hub benchmark: ``python -m bridge.bench.hub_subscribers``.

One process holds many raw websocket connections to the hub (each: ``hello``, ``subscribe``,
then a reader timing every event it receives). Commands arrive as JSON lines on stdin, each
answered by one JSON line on stdout:

- ``{"op": "open", "n", "url", "token", "compact", "format", "patches"?, "lean"?}``: open
  ``n`` more subscribers (permessage-deflate offered, as ``bridge.client`` and browsers do;
  ``patches`` true: they get slim ``patch`` events instead of ``delta`` events, default false;
  ``lean`` true: no keepalive pings and only the frame's head decoded — the bench's former
  subscribers, cheaper than any real reader); answers ``{"open": k}``;
- ``{"op": "close", "n"}``: close the newest ``n``; answers ``{"open": k}``;
- ``{"op": "report"}``: everything received since the last report — four parallel lists
  ``conn``, ``generation``, ``t_ns`` (``time.monotonic_ns`` at receipt: the clock the bench
  agent stamps its sends with) and ``size`` (frame bytes) per delta or patch event — plus
  ``resyncs``, ``errors``, this process's CPU time, ``deflate``: how many of its open
  connections negotiated permessage-deflate, and ``sample``: the last delta or patch frame
  it received (text; null before the first);
- ``{"op": "quit"}``.

A receipt time includes this process's own scheduling: with hundreds of connections per
worker, a delta reaches the last of them after the worker has read the others.

Each connection is a default client of the websockets library (``connect`` with its default
``compression="deflate"`` and keepalive pings), and every frame is decoded whole, as a
program reading the stream does (``json.loads`` / ``msgpack``), so the subscribers' CPU on the
machine's shared cores is what a real client's would be.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import anyio
import anyio.abc
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Subprotocol

from bridge.wire.client_protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from bridge.wire.codec import MAX_AGENT_FRAME

OPEN_CONCURRENCY = 16


class _Head(msgspec.Struct):
    type: str
    id: int | str | None = None
    generation: int = -1


_JSON = msgspec.json.Decoder(_Head)
_MSGPACK = msgspec.msgpack.Decoder(_Head)


class Worker:
    def __init__(self) -> None:
        self.conns: list[tuple[ClientConnection, anyio.CancelScope]] = []
        self.conn: list[int] = []
        self.generation: list[int] = []
        self.t_ns: list[int] = []
        self.size: list[int] = []
        self.resyncs = 0
        self.errors = 0
        self.sample: bytes | None = None
        """The last delta or patch frame received (the floor sends its very shape)."""
        self._serial = 0

    async def _request(self, ws: ClientConnection, msgpack: bool, body: dict[str, Any]) -> None:
        data = msgspec.msgpack.encode(body) if msgpack else msgspec.json.encode(body)
        await ws.send(data, text=not msgpack)
        decoder = _MSGPACK if msgpack else _JSON
        while True:
            frame = await ws.recv()
            head = decoder.decode(frame.encode() if isinstance(frame, str) else frame)
            if head.id == body["id"]:
                if head.type != "result":
                    raise RuntimeError(f"hub refused {body['type']}: {frame[:200]!r}")
                return

    async def _one(self, tg: anyio.abc.TaskGroup, spec: dict[str, Any]) -> None:
        msgpack = spec.get("format") == "msgpack"
        lean = bool(spec.get("lean", False))
        ws = await connect(
            spec["url"],
            subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK if msgpack else SUBPROTOCOL_JSON)],
            additional_headers={"Authorization": f"Bearer {spec['token']}"},
            max_size=MAX_AGENT_FRAME,
            ping_interval=None if lean else 20,
            close_timeout=1,
            open_timeout=60,
            proxy=None,
        )
        self._serial += 1
        name = f"bench-sub-{self._serial}"
        await self._request(ws, msgpack, {"type": "hello", "id": 1, "client": {"name": name}})
        await self._request(
            ws,
            msgpack,
            {
                "type": "subscribe",
                "id": 2,
                "device": spec["device"],
                "compact": spec["compact"],
                "patches": bool(spec.get("patches", False)),
            },
        )
        scope = anyio.CancelScope()
        index = len(self.conns)
        self.conns.append((ws, scope))
        tg.start_soon(self._read, ws, scope, index, msgpack, lean)

    async def _read(
        self, ws: ClientConnection, scope: anyio.CancelScope, index: int, msgpack: bool, lean: bool
    ) -> None:
        decoder = _MSGPACK if msgpack else _JSON
        whole = _skip if lean else msgspec.msgpack.decode if msgpack else json.loads
        with scope:
            try:
                async for frame in ws:
                    t = time.monotonic_ns()
                    data = frame.encode() if isinstance(frame, str) else frame
                    whole(data)  # a real reader decodes every frame
                    head = decoder.decode(data)
                    if head.type in ("delta", "patch"):
                        self.conn.append(index)
                        self.generation.append(head.generation)
                        self.t_ns.append(t)
                        self.size.append(len(data))
                        self.sample = data
                    elif head.type == "snapshot":
                        self.resyncs += 1
            except (ConnectionClosed, WebSocketException, OSError):
                if not scope.cancel_called:
                    self.errors += 1

    async def open(self, tg: anyio.abc.TaskGroup, spec: dict[str, Any]) -> None:
        limiter = anyio.CapacityLimiter(OPEN_CONCURRENCY)

        async def one() -> None:
            async with limiter:
                await self._one(tg, spec)

        async with anyio.create_task_group() as opening:
            for _ in range(int(spec["n"])):
                opening.start_soon(one)

    async def close(self, n: int) -> None:
        for _ in range(min(n, len(self.conns))):
            ws, scope = self.conns.pop()
            scope.cancel()
            with anyio.move_on_after(2):
                await ws.close()

    def report(self) -> dict[str, Any]:
        out = {
            "conn": self.conn,
            "generation": self.generation,
            "t_ns": self.t_ns,
            "size": self.size,
            "resyncs": self.resyncs,
            "errors": self.errors,
            "cpu_ns": time.process_time_ns(),
            "deflate": sum(1 for ws, _ in self.conns if _deflate(ws)),
            "sample": self.sample.decode("utf-8", "replace") if self.sample else None,
        }
        self.conn, self.generation, self.t_ns, self.size = [], [], [], []
        self.resyncs = self.errors = 0
        return out


def _skip(data: bytes) -> None:
    """A lean subscriber decodes only the frame's head."""


def _deflate(ws: ClientConnection) -> bool:
    """Whether the hub accepted permessage-deflate on this connection."""
    return any(ext.name == "permessage-deflate" for ext in ws.protocol.extensions)


def _answer(body: dict[str, Any]) -> None:
    sys.stdout.buffer.write(msgspec.json.encode(body) + b"\n")
    sys.stdout.buffer.flush()


async def _main() -> None:
    worker = Worker()
    async with anyio.create_task_group() as tg:
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if not line.strip():
                break
            command = json.loads(line)
            op = command.get("op")
            if op == "open":
                await worker.open(tg, command)
                _answer({"open": len(worker.conns)})
            elif op == "close":
                await worker.close(int(command["n"]))
                _answer({"open": len(worker.conns)})
            elif op == "report":
                _answer(worker.report())
            elif op == "quit":
                break
        await worker.close(len(worker.conns))
        tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(_main)
