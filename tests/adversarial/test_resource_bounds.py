"""Issue 33 (what to build, 1): every resource a client starts is bounded per session,
counted in /v1/stats while held, and released when its session ends however it ends (here:
the socket dropped without a close frame, mid-stream)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import anyio

from bridge.hub.resources import BOUNDS, LOG_STREAMS, RECORDINGS, SUBSCRIPTIONS
from tests.adversarial.harness import call, client, hub_under_attack
from tests.hub.hubfixture import CONTROLLER, OBSERVER


def stats(port: int) -> Any:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/stats", headers={"Authorization": f"Bearer {CONTROLLER}"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


async def test_resources_are_counted_bounded_and_released_with_their_session() -> None:
    async with hub_under_attack() as rh:
        dev = rh.device_id
        async with client(rh.url, OBSERVER, "hog") as ws:
            for n, compact in ((1, True), (2, False)):
                reply = await call(
                    ws, {"type": "subscribe", "id": n, "device": dev, "compact": compact}
                )
                assert reply["type"] == "result", reply
            bound = BOUNDS[LOG_STREAMS].per_session
            codes = []
            for n in range(10, 10 + bound + 2):
                reply = await call(ws, {"type": "logs.subscribe", "id": n, "device": dev})
                codes.append(reply.get("code", reply["type"]))
            assert codes.count("result") == bound and codes.count("RATE_LIMITED") == 2, codes
            reply = await call(
                ws, {"type": "record.start", "id": 50, "device": dev, "maxBytes": 1 << 20}
            )
            assert reply["type"] == "result", reply
            seen = await anyio.to_thread.run_sync(stats, rh.port)
            mine = next(s for s in seen["sessions"].values() if s["client"] == "hog")
            assert mine["resources"] == {SUBSCRIPTIONS: 2, LOG_STREAMS: bound, RECORDINGS: 1}
            assert seen["resources"][LOG_STREAMS]["refused"] == 2
            ws.transport.abort()  # gone without a word
        with anyio.fail_after(20):
            while True:
                seen = await anyio.to_thread.run_sync(stats, rh.port)
                if all(kind["held"] == 0 for kind in seen["resources"].values()):
                    break
                await anyio.sleep(0.1)
        assert not rh.hub.service.log_streams.active
        assert not rh.hub.service.recordings.held
