"""Issue 33.1: screen recordings started by observer tokens and abandoned (the session closes
without record.stop) are bounded on the hub and released: the encoders' threads go, nothing
stays held, and /v1/stats counts them while they run."""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from contextlib import AsyncExitStack
from typing import Any

import anyio

from bridge.hub.resources import BOUNDS, RECORDINGS
from tests.adversarial.harness import call, client, hub_under_attack
from tests.hub.hubfixture import CONTROLLER, OBSERVER


def native_threads() -> int:
    """Threads of this process that Python did not start: the encoders' own (libx264's)."""
    return len(os.listdir("/proc/self/task")) - threading.active_count()


def stats(port: int) -> Any:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/stats", headers={"Authorization": f"Bearer {CONTROLLER}"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


async def test_abandoned_recordings_are_bounded_and_released() -> None:
    async with hub_under_attack() as rh:
        dev = rh.device_id
        baseline = native_threads()
        hub_bound = BOUNDS[RECORDINGS].per_hub
        started = refused = 0
        for _round in range(2):
            async with AsyncExitStack() as stack:
                for k in range(6):
                    ws = await stack.enter_async_context(
                        client(rh.url, OBSERVER, name=f"filmer{k}")
                    )
                    for i in range(2):
                        reply = await call(
                            ws,
                            {
                                "type": "record.start",
                                "id": 10 + i,
                                "device": dev,
                                "fps": 10,
                                "maxBytes": 4 << 20,
                            },
                        )
                        if reply["type"] == "result":
                            started += 1
                        else:
                            assert reply["code"] == "RATE_LIMITED", reply
                            refused += 1
                running = rh.hub.service.recordings.statistics()["running"]
                assert running <= hub_bound
                seen = await anyio.to_thread.run_sync(stats, rh.port)
                assert seen["resources"][RECORDINGS]["held"] == running
                assert seen["resources"][RECORDINGS]["refused"] >= refused
                # let the encoders run (threads started) before everyone walks away
                with anyio.fail_after(20):
                    while (
                        min(
                            (r.made is None for r in rh.hub.service.recordings.held.values()),
                            default=False,
                        )
                        and native_threads() <= baseline
                    ):
                        await anyio.sleep(0.05)
            # every session closed without record.stop
            with anyio.fail_after(60):  # bounds only: under a CPU hog beside two suites, the
                while rh.hub.service.recordings.held or rh.hub.service.resources.held(RECORDINGS):
                    await anyio.sleep(0.05)
            with anyio.fail_after(60):  # recorders' threads took more than 20 s to end
                while native_threads() > baseline + 2:
                    await anyio.sleep(0.1)
        assert started <= 2 * hub_bound
        assert refused >= 2 * (12 - hub_bound)
