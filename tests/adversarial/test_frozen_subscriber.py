"""Issue 27.4: a subscriber that stops reading while its event queue is full is closed after
the set time (here 1 s, by the option), hears why when it connects again, and its resync (a
new subscribe) works. A real hub, a real websocket client that stops reading."""

from __future__ import annotations

import json
import time

import anyio
from websockets.asyncio.client import connect as ws_connect

from tests.adversarial.harness import call, client, raw_ws_open, ws_frame
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub


async def test_a_frozen_subscriber_is_closed_and_resyncs_on_reconnect() -> None:
    limits = {
        "event_limit": 4,
        "write_limit": 1024,
        "socket_send_buffer": 4096,
        "frozen_subscriber_s": 1.0,
    }
    async with running_hub(sim_scene="list", client_limits=limits) as rh:
        server = rh.hub.server
        device = rh.device_id
        sock = await anyio.to_thread.run_sync(raw_ws_open, rh.port, OBSERVER, 4096)
        try:
            hello = {"type": "hello", "id": 0, "client": {"name": "frozen"}}
            subscribe = {"type": "subscribe", "id": 1, "device": device, "compact": False}
            sock.sendall(ws_frame(json.dumps(hello).encode()))
            sock.sendall(ws_frame(json.dumps(subscribe).encode()))
            with anyio.fail_after(5):
                while not any(
                    s.client_name == "frozen" and s.streams for s in server.sessions.values()
                ):
                    await anyio.sleep(0.02)
            frozen = next(s for s in server.sessions.values() if s.client_name == "frozen")
            # Another client's leases make lease events for every watcher of the device.
            async with client(rh.url, CONTROLLER, "busy") as busy:
                n = 10
                with anyio.fail_after(20):
                    while frozen.full_since is None:
                        for kind in ("lease.acquire", "lease.release"):
                            n += 1
                            await call(busy, {"type": kind, "id": n, "device": device})
                # the hub's own stamp (time.monotonic, this process): the loop above sees
                # the overflow only after a call's round trip, which on a loaded machine
                # took 0.1 s and made the close look early
                overflowed = frozen.full_since
                assert overflowed is not None
                with anyio.fail_after(10):
                    while frozen.kill_reason is None:
                        n += 1
                        await call(busy, {"type": "lease.acquire", "id": n, "device": device})
                        await anyio.sleep(0.02)
                closed_after = time.monotonic() - overflowed
        finally:
            sock.close()
        assert "not read for 1 s while its event queue was full" in frozen.kill_reason
        assert frozen.stats.events_dropped > 0
        # It connects again with the same token and name: hello says why, and a subscribe
        # brings it back in step (the snapshot of the current screen).
        async with ws_connect(
            rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
        ) as again:
            await again.send(json.dumps(hello))
            told = json.loads(await again.recv())["result"]
            resub = await call(again, {**subscribe, "id": 2})
            snap = await call(again, {"type": "snapshot.get", "id": 3, "device": device})
    print(f"frozen subscriber closed {closed_after:.2f} s after its queue overflowed")
    assert 0.9 <= closed_after < 3
    assert "event queue was full" in told["previousClose"]
    assert resub["type"] == "result" and resub["result"]["snapshot"]["nodes"]
    assert resub["result"]["snapshot"]["snapshotId"] == snap["result"]["snapshot"]["snapshotId"]
