"""Issue 8.2: no caller regex can freeze the hub (RE2, linear time)."""

from __future__ import annotations

import time
import urllib.request

import anyio

from tests.adversarial.harness import call, client, ping_ceiling_ms, ping_probe
from tests.hub.hubfixture import OBSERVER, running_hub

REFUSED = [
    r"(?:[A-Za-z ](?!@)?)*#",  # the reproduction: lookahead inside a starred group
    r"(?:a(?!b)?)*$",
    r"(\w+)\1",
    r"(?<=x)y",
]
ACCEPTED_BUT_CATASTROPHIC_FOR_BACKTRACKING = [
    r"(?:[A-Za-z ]+)*#",
    r"(a|aa)+$",
    r"^(\w+\s?)*$",
    r"(.*a){12}",
    r"(x+x+)+y",
]


async def test_catastrophic_finds_answer_fast_and_never_freeze_other_clients() -> None:
    async with (
        running_hub(sim_scene="dialog") as rh,
        ping_probe(rh.url) as probe,
        client(rh.url, OBSERVER) as ws,
    ):
        n = 0
        for field in ("text", "label"):
            for pattern in REFUSED + ACCEPTED_BUT_CATASTROPHIC_FOR_BACKTRACKING:
                n += 1
                query = {field: {"value": pattern, "match": "REGEX"}}
                start = time.perf_counter()
                reply = await call(
                    ws, {"type": "find", "id": n, "device": rh.device_id, "query": query}
                )
                assert (time.perf_counter() - start) < 1.0
                if pattern in REFUSED:
                    assert reply["type"] == "protocol_error" and reply["code"] == "INVALID_PARAMS"
                    assert "not supported" in reply["message"] and "RE2" in reply["message"]
                else:
                    assert reply["type"] == "result", reply
        # a wait with such a condition is refused up front, too
        n += 1
        reply = await call(
            ws,
            {
                "type": "wait",
                "id": n,
                "device": rh.device_id,
                "condition": {
                    "kind": "present",
                    "query": {"text": {"value": REFUSED[0], "match": "REGEX"}},
                },
                "timeoutMs": 1000,
            },
        )
        assert reply["code"] == "INVALID_PARAMS"

        def healthz() -> int:
            url = f"http://127.0.0.1:{rh.port}/healthz"
            with urllib.request.urlopen(url, timeout=2) as resp:
                return int(resp.status)

        assert await anyio.to_thread.run_sync(healthz) == 200
    assert probe.failures == 0 and probe.worst_ms < ping_ceiling_ms(), probe
