"""Issue 8.3: a client that sends but never reads is slowed, then disconnected; the hub's
queues stay inside their byte budgets and everyone else keeps being served."""

from __future__ import annotations

import json
import time

import anyio

from tests.adversarial.harness import (
    call,
    client,
    hub_under_attack,
    ping_ceiling_ms,
    ping_probe,
    raw_ws_open,
    ws_frame,
)
from tests.hub.hubfixture import OBSERVER, running_hub

SOFT = 256 * 1024
HARD = 2 * 1024 * 1024
FLOODERS = 10


def flood(port: int, seconds: float, sent: list[int]) -> None:
    """Hello, then ``snapshot.get`` (full) at about 190/s; never reads a byte."""
    sock = raw_ws_open(port, OBSERVER)
    sock.settimeout(0.2)
    try:
        sock.sendall(
            ws_frame(json.dumps({"type": "hello", "id": 0, "client": {"name": "f"}}).encode())
        )
        deadline = time.monotonic() + seconds
        n = 0
        while time.monotonic() < deadline:
            n += 1
            frame = ws_frame(
                json.dumps(
                    {"type": "snapshot.get", "id": n, "device": "sim-android", "compact": False}
                ).encode()
            )
            try:
                sock.sendall(frame)
                sent[0] += 1
            except (TimeoutError, OSError):
                pass  # the hub stopped reading us: that is the backpressure working
            time.sleep(1 / 190)
    finally:
        sock.close()


async def test_non_reading_clients_are_slowed_then_closed_and_memory_stays_bounded() -> None:
    limits = {
        "outbound_soft_limit": SOFT,
        "outbound_hard_limit": HARD,
        "slow_client_grace_s": 1.5,
    }
    async with (
        running_hub(sim_scene="list", client_limits=limits) as rh,
        ping_probe(rh.url) as probe,
    ):
        server = rh.hub.server
        sent = [[0] for _ in range(FLOODERS)]
        peak = 0
        async with anyio.create_task_group() as tg:
            for i in range(FLOODERS):
                tg.start_soon(anyio.to_thread.run_sync, flood, rh.port, 6.0, sent[i])
            deadline = time.monotonic() + 6.5
            while time.monotonic() < deadline:
                for session in list(server.sessions.values()):
                    peak = max(peak, session.queued_bytes())
                await anyio.sleep(0.02)
        # every flooder was cut off; nothing of theirs is left queued in the hub
        with anyio.fail_after(5):
            while any(s.client_name == "f" for s in server.sessions.values()):
                await anyio.sleep(0.05)
        assert sum(s.queued_bytes() for s in server.sessions.values()) < SOFT
        closed = server.closed_by_hub
        async with client(rh.url, OBSERVER) as ws:
            reply = await call(ws, {"type": "snapshot.get", "id": 1, "device": rh.device_id})
            assert reply["type"] == "result"
    # each queue stayed within its hard budget (one response may straddle it)
    assert peak <= HARD + 64 * 1024, peak
    assert sum(s[0] for s in sent) > FLOODERS * 100  # they really did flood
    assert closed >= FLOODERS  # ...and the hub cut every one of them off
    assert probe.failures == 0 and probe.p99_ms < ping_ceiling_ms(), probe


async def test_a_non_reader_hears_why_it_was_closed() -> None:
    limits = {"outbound_soft_limit": 64 * 1024, "slow_client_grace_s": 0.5}
    async with hub_under_attack(sim_scene="list", client_limits=limits) as rh:
        sock = await anyio.to_thread.run_sync(raw_ws_open, rh.port, OBSERVER, 64 * 1024)

        def burst() -> None:
            sock.settimeout(0.05)
            hello = {"type": "hello", "id": 0, "client": {"name": "x"}}
            sock.sendall(ws_frame(json.dumps(hello).encode()))
            for n in range(1, 400):
                msg = {"type": "snapshot.get", "id": n, "device": "sim-android", "compact": False}
                try:
                    sock.sendall(ws_frame(json.dumps(msg).encode()))
                except (TimeoutError, OSError):
                    break

        def read_all() -> bytes:
            sock.settimeout(2)
            data = b""
            while True:
                try:
                    chunk = sock.recv(1 << 20)
                except (TimeoutError, OSError):
                    break
                if not chunk:
                    break
                data += chunk
            return data

        try:
            closed_before = rh.hub.server.closed_by_hub
            await anyio.to_thread.run_sync(burst)
            # Past the grace the hub closes us: wait until it has (reading earlier would make
            # us a reader), then read it all.
            with anyio.fail_after(60):
                while rh.hub.server.closed_by_hub == closed_before:
                    await anyio.sleep(0.05)
            with anyio.fail_after(20):
                data = await anyio.to_thread.run_sync(read_all)
            heard = b"the client is not reading" in data
            assert heard, (
                f"{len(data)} bytes read, no close reason among them; tail {data[-150:]!r}"
            )
        finally:
            sock.close()
