"""The fan-out floor of the hub benchmark: ``python -m bridge.bench.fanout_floor``.

A websocket server that does nothing but what the hub's fan-out cannot avoid: it accepts the
bench's subscriber workers (``bridge.bench.hub_subscribers``: the same processes, the same
client library, the same permessage-deflate offer, answered as the hub answers it), answers
their ``hello`` and ``subscribe`` with a bare ``result``, and for each change builds one
``delta`` frame of the size asked for, once, and writes those very bytes to every
subscriber's transport (``bridge.net.frames.frame``, as the hub's ``DirectWriter``). No tree,
no ingest, no diff, no queue, no per-connection bookkeeping: the same subscribers reading from
it show what a change costs to fan out on this machine before the hub does any work of its
own, measured in the same run as the hub's rows.

It prints ``{"port": P, "pid": N}`` once listening; then commands arrive as JSON lines on
stdin, each answered by one JSON line on stdout:

- ``{"op": "send", "count", "rate_hz", "size", "template"?}``: ``count`` changes, ``rate_hz``
  apart, each a ``delta`` to every subscriber: ``template`` (a delta frame the hub sent, JSON
  text) with its ``generation`` replaced by the floor's, so that the subscribers decode the
  very shape they decode from the hub, else ``size`` bytes of padding; answers
  ``{"sent": [[generation, t_ns], ...], "cpu_ns", "subscribers"}`` (``t_ns``:
  ``time.monotonic_ns`` just before the first write, the clock the workers stamp receipts
  with; ``cpu_ns``: this process's CPU time over the sends);
- ``{"op": "quit"}`` (or end of input).

Bounds: ``count`` at most 10,000, ``size`` at most 1 MiB, ``rate_hz`` 0.1..1,000.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any

import anyio
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from bridge.net.frames import deflate_extension, frame
from bridge.wire.client_protocol import SUBPROTOCOL_JSON

MAX_COUNT = 10_000
MAX_SIZE = 1 << 20
GENERATION = re.compile(r'"generation":\d+')


class Floor:
    def __init__(self) -> None:
        self.subscribers: list[ServerConnection] = []
        self.generation = 0

    async def connection(self, ws: ServerConnection) -> None:
        try:
            async for message in ws:
                body = json.loads(message)
                await ws.send(json.dumps({"type": "result", "id": body.get("id")}))
                if body.get("type") == "subscribe":
                    self.subscribers.append(ws)
        except (ConnectionClosed, ValueError):
            pass
        finally:
            if ws in self.subscribers:
                self.subscribers.remove(ws)

    def payload(self, size: int, template: str | None = None) -> bytes:
        self.generation += 1
        if template is not None:
            return GENERATION.sub(f'"generation":{self.generation}', template, count=1).encode()
        head = f'{{"type":"delta","generation":{self.generation},"pad":"'
        tail = '"}'
        pad = max(0, size - len(head) - len(tail))
        return (head + "x" * pad + tail).encode()

    async def send(
        self, count: int, rate_hz: float, size: int, template: str | None = None
    ) -> dict[str, Any]:
        count = max(0, min(count, MAX_COUNT))
        size = max(0, min(size, MAX_SIZE))
        template = usable(template)
        period = 1.0 / max(0.1, min(rate_hz, 1000.0))
        sent: list[list[int]] = []
        cpu = time.process_time_ns()
        next_at = time.monotonic()
        for _ in range(count):
            await anyio.sleep(max(0.0, next_at - time.monotonic()))
            data = frame(self.payload(size, template), text=True)  # one frame, built once
            t = time.monotonic_ns()
            for ws in self.subscribers:
                transport = ws.transport
                if transport is not None and not transport.is_closing():
                    transport.write(data)
            sent.append([self.generation, t])
            next_at += period
        return {
            "sent": sent,
            "cpu_ns": time.process_time_ns() - cpu,
            "subscribers": len(self.subscribers),
        }


def usable(template: str | None) -> str | None:
    """``template`` when it can stand for a hub's delta frame (a ``generation`` field, at
    most ``MAX_SIZE``), else None: the floor pads to the size asked for instead."""
    if template is None or len(template) > MAX_SIZE or GENERATION.search(template) is None:
        return None
    return template


def _answer(body: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(body).encode() + b"\n")
    sys.stdout.buffer.flush()


async def _main() -> None:
    floor = Floor()
    async with serve(
        floor.connection,
        "127.0.0.1",
        0,
        subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
        compression=None,
        extensions=deflate_extension(),
        ping_interval=None,
        backlog=1024,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        _answer({"port": port, "pid": os.getpid()})
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if line.strip() in ("", "quit"):
                break
            command = json.loads(line)
            if command.get("op") == "send":
                _answer(
                    await floor.send(
                        int(command.get("count", 0)),
                        float(command.get("rate_hz", 5.0)),
                        int(command.get("size", 0)),
                        command.get("template")
                        if isinstance(command.get("template"), str)
                        else None,
                    )
                )
            elif command.get("op") == "quit":
                break


if __name__ == "__main__":
    anyio.run(_main)
