"""Raw websocket clients of the hub for benchmarks (no ``bridge.client``: nothing between the
socket and the timing).

``open_client`` greets the hub (Bearer header, ``hello``); ``Client.request`` sends one request
and reads frames until its answer (no reader task), returning the answer's head, bytes and
receive time (``time.monotonic_ns``: the clock every process of this machine shares);
``ClientPool`` opens many at once (bounded) and closes them all on exit.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from bridge.wire.client_protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, ClientInfo, Hello
from bridge.wire.codec import MAX_AGENT_FRAME, WireFormat, encode

CLIENT_TOKEN = "bench-controller-token"
OPEN_CONCURRENCY = 32


class _Gen(msgspec.Struct):
    generation: int = -1


class Head(msgspec.Struct):
    """Just enough of a hub frame to route it: events carry ``generation`` at the top,
    results inside ``result``."""

    type: str
    id: int | str | None = None
    generation: int = -1
    result: _Gen | None = None


_HEAD_JSON = msgspec.json.Decoder(Head)
_HEAD_MSGPACK = msgspec.msgpack.Decoder(Head)


class Client:
    """A raw websocket session: greeted, then requests answered in order."""

    def __init__(self, ws: ClientConnection, fmt: WireFormat) -> None:
        self.ws = ws
        self.fmt = fmt
        self._ids = 0

    def head(self, frame: str | bytes) -> Head:
        data = frame.encode() if isinstance(frame, str) else frame
        return (
            _HEAD_JSON.decode(data) if self.fmt is WireFormat.JSON else _HEAD_MSGPACK.decode(data)
        )

    async def request(self, build: Any) -> tuple[Head, bytes, int]:
        """Send ``build(id)``; returns the answer's head, raw bytes and receive time (ns)."""
        self._ids += 1
        rid = self._ids
        await self.ws.send(encode(build(rid), self.fmt), text=self.fmt is WireFormat.JSON)
        while True:
            frame = await self.ws.recv()
            t = time.monotonic_ns()
            head = self.head(frame)
            if head.id == rid and head.type in ("result", "error", "protocol_error"):
                data = frame.encode() if isinstance(frame, str) else frame
                if head.type != "result":
                    raise RuntimeError(f"hub refused a bench request: {data[:300]!r}")
                return head, data, t


@asynccontextmanager
async def open_client(
    url: str, name: str, fmt: WireFormat = WireFormat.JSON, token: str = CLIENT_TOKEN
) -> AsyncIterator[Client]:
    proto = SUBPROTOCOL_JSON if fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
    ws = await connect(
        url,
        subprotocols=[Subprotocol(proto)],
        additional_headers={"Authorization": f"Bearer {token}"},
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


class ClientPool:
    """Opens many clients (bounded concurrency) and closes them all on exit."""

    def __init__(self) -> None:
        self._stack: list[Any] = []

    async def open_many(
        self, url: str, n: int, start: int, fmt: WireFormat = WireFormat.JSON
    ) -> list[Client]:
        out: list[Client | None] = [None] * n
        limiter = anyio.CapacityLimiter(OPEN_CONCURRENCY)

        async def one(i: int) -> None:
            async with limiter:
                cm = open_client(url, f"sub{start + i}", fmt)
                out[i] = await cm.__aenter__()
                self._stack.append(cm)

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
        return [c for c in out if c is not None]

    async def __aenter__(self) -> ClientPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        with anyio.CancelScope(shield=True):
            while self._stack:
                await self._stack.pop().__aexit__(None, None, None)
