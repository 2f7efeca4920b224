"""Issue 8.7: no controller can wedge a device: durations are capped, cancel stops a running
act, and a lease that changes hands releases the queue."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio

from tests.adversarial.harness import call, client, hub_under_attack, ping_probe
from tests.hub.hubfixture import CONTROLLER_2, running_hub

NEVER = {"kind": "screen", "name": "nowhere"}


async def _wifi(ws: Any, device: str) -> Any:
    found = await call(
        ws, {"type": "find", "id": 1, "device": device, "query": {"label": {"value": "Wi-Fi"}}}
    )
    return found["result"]["matches"][0]["ref"]


def _act(n: int, device: str, ref: Any, **verify: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"action": "CLICK", "target": ref}
    if verify:
        request["verify"] = {"policy": "EXPLICIT_CONDITION", "expected": NEVER, **verify}
    return {"type": "act", "id": n, "device": device, "request": request}


async def test_durations_above_their_caps_are_refused_with_the_cap() -> None:
    async with hub_under_attack(sim_scene="settings") as rh, client(rh.url) as ws:
        ref = await _wifi(ws, rh.device_id)
        hour = await call(ws, _act(2, rh.device_id, ref, timeoutMs=3_600_000))
        assert hour["code"] == "INVALID_PARAMS" and "60000 ms" in hour["message"]
        stable = await call(ws, _act(3, rh.device_id, ref, stableForMs=600_000))
        assert stable["code"] == "INVALID_PARAMS" and "10000 ms" in stable["message"]
        wait = await call(
            ws,
            {
                "type": "wait",
                "id": 4,
                "device": rh.device_id,
                "condition": NEVER,
                "timeoutMs": 10**9,
            },
        )
        assert wait["code"] == "INVALID_PARAMS"


async def test_cancel_stops_a_running_act_and_says_what_was_dispatched() -> None:
    async with running_hub(sim_scene="settings") as rh, ping_probe(rh.url) as probe:
        async with client(rh.url) as ws:
            ref = await _wifi(ws, rh.device_id)
            await ws.send(json.dumps(_act(7, rh.device_id, ref, timeoutMs=60_000)))
            await anyio.sleep(0.6)
            start = time.monotonic()
            await ws.send(json.dumps({"type": "cancel", "id": 8, "request": 7}))
            answers: dict[int, Any] = {}
            with anyio.fail_after(5):
                while len(answers) < 2:
                    msg = json.loads(await ws.recv())
                    if msg.get("id") in (7, 8):
                        answers[msg["id"]] = msg
            assert time.monotonic() - start < 2
            assert answers[7]["type"] == "protocol_error" and answers[7]["code"] == "CANCELLED"
            assert "already dispatched (DISPATCHED" in answers[7]["message"]
            # the device is free again at once
            again = await call(ws, _act(9, rh.device_id, ref), timeout_s=5)
            assert again["type"] == "result"
    assert probe.failures == 0


async def test_a_new_lease_holder_is_not_stuck_behind_the_previous_controllers_act() -> None:
    async with hub_under_attack(sim_scene="settings") as rh:
        dev = rh.device_id
        async with (
            client(rh.url, name="hog") as hog,
            client(rh.url, CONTROLLER_2, "owner") as owner,
        ):
            ref = await _wifi(hog, dev)
            await hog.send(json.dumps(_act(11, dev, ref, timeoutMs=60_000)))
            await anyio.sleep(0.5)
            lease = await call(
                owner, {"type": "lease.acquire", "id": 12, "device": dev, "mode": "exclusive"}
            )
            assert lease["type"] == "result", lease
            start = time.monotonic()
            mine = await call(owner, _act(13, dev, await _wifi(owner, dev)), timeout_s=10)
            assert mine["type"] == "result", mine
            assert time.monotonic() - start < 5
            with anyio.fail_after(5):
                while True:
                    msg = json.loads(await hog.recv())
                    if msg.get("id") == 11:
                        break
            assert msg["code"] == "CANCELLED" and "lease passed to" in msg["message"]
            # and the old controller cannot act while the lease is held
            blocked = await call(hog, _act(14, dev, ref))
            assert blocked["type"] == "error" and blocked["error"]["error"] == "POLICY_BLOCKED"
