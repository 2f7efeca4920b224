"""A subscriber process of the farm bench: ``python -m bridge.bench.farm_subscribers URL N``.

Opens ``N`` raw websocket subscribers (JSON, compact) to ``bench-device`` on the hub at
``URL`` and speaks line by line on stdout / stdin:

- prints ``ready <seq>`` once every subscriber holds its snapshot (``seq``: the stream's);
- prints ``done <seq>`` when every subscriber received the delta of ``seq``;
- on ``report`` (stdin) prints one JSON line: ``{"times": {seq: [receive ns ...]},
  "resyncs": n}`` (``time.monotonic_ns``: CLOCK_MONOTONIC, shared by every process here);
- ends on ``quit`` or end of input.
"""

from __future__ import annotations

import json
import sys
import time

import anyio
import msgspec
from websockets.exceptions import ConnectionClosed

from bridge.bench.hub_agent import DEVICE_ID
from bridge.bench.raw_clients import Client, ClientPool
from bridge.wire.client_protocol import Subscribe


class _Head(msgspec.Struct):
    type: str
    seq: int = -1


class _SubscribeAnswer(msgspec.Struct):
    seq: int


class _Answer(msgspec.Struct):
    result: _SubscribeAnswer


_head = msgspec.json.Decoder(_Head)
_answer = msgspec.json.Decoder(_Answer)


async def main(url: str, count: int) -> None:
    times: dict[int, list[int]] = {}
    resyncs = 0
    out = sys.stdout

    async def read(client: Client) -> None:
        nonlocal resyncs
        try:
            async for frame in client.ws:
                t = time.monotonic_ns()
                data = frame.encode() if isinstance(frame, str) else frame
                head = _head.decode(data)
                if head.type == "delta":
                    got = times.setdefault(head.seq, [])
                    got.append(t)
                    if len(got) == count:
                        out.write(f"done {head.seq}\n")
                        out.flush()
                elif head.type == "snapshot":
                    resyncs += 1
        except ConnectionClosed:
            pass

    async with ClientPool() as pool, anyio.create_task_group() as tg:
        clients = await pool.open_many(url, count, 0)
        seqs = set()
        for client in clients:
            _, data, _ = await client.request(
                lambda i: Subscribe(id=i, device=DEVICE_ID, compact=True)
            )
            seqs.add(_answer.decode(data).result.seq)
            tg.start_soon(read, client)
        out.write(f"ready {max(seqs)} {len(clients)}\n")
        out.flush()
        stdin = anyio.wrap_file(sys.stdin)
        async for line in stdin:
            command = line.strip()
            if command == "report":
                payload = {"times": times, "resyncs": resyncs}
                out.write(json.dumps(payload) + "\n")
                out.flush()
            elif command == "quit":
                break
        tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]))
