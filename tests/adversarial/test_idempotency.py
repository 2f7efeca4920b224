"""Issues 8.5 and 8.6: a keyed act survives its client's disconnect and the retry gets its real
outcome; a key reused for a different request is refused. Keys are per device."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio

from tests.adversarial.harness import call, client, hub_under_attack, ping_ceiling_ms, ping_probe
from tests.hub.hubfixture import CONTROLLER_2, running_hub


async def _ref(ws: Any, device: str, label: str) -> Any:
    found = await call(
        ws, {"type": "find", "id": 1, "device": device, "query": {"label": {"value": label}}}
    )
    assert found["result"]["count"] == 1, found
    return found["result"]["matches"][0]["ref"]


def _click(n: int, device: str, ref: Any, key: str, verify: Any = None) -> dict[str, Any]:
    request: dict[str, Any] = {"action": "CLICK", "target": ref, "idempotencyKey": key}
    if verify is not None:
        request["verify"] = verify
    return {"type": "act", "id": n, "device": device, "request": request}


async def test_retry_after_the_client_dropped_gets_the_first_attempts_result() -> None:
    never = {
        "policy": "EXPLICIT_CONDITION",
        "expected": {"kind": "screen", "name": "nowhere"},
        "timeoutMs": 2500,
    }
    async with running_hub(sim_scene="settings") as rh, ping_probe(rh.url) as probe:
        device = rh.hub.service.devices[rh.device_id]
        dev = rh.device_id
        async with client(rh.url) as first:
            ref = await _ref(first, dev, "Wi-Fi")
            before = len(device.stats.action_ms)
            await first.send(json.dumps(_click(5, dev, ref, "K", never)))
            await anyio.sleep(0.5)
        # the first session is gone; its action goes on
        start = time.monotonic()
        async with client(rh.url, name="retrier") as second:
            reply = await call(second, _click(6, dev, ref, "K", never), timeout_s=10)
        elapsed = time.monotonic() - start
        assert reply["type"] == "result", reply
        assert reply["result"]["verification"]["result"] == "CONDITION_NOT_MET"
        assert elapsed < 5, elapsed
        assert len(device.stats.action_ms) == before + 1  # it ran once
    assert probe.failures == 0 and probe.worst_ms < ping_ceiling_ms(), probe


async def test_a_key_reused_with_a_different_request_is_refused() -> None:
    async with hub_under_attack(sim_scene="settings") as rh:
        dev = rh.device_id
        async with client(rh.url) as ws:
            wifi = await _ref(ws, dev, "Wi-Fi")
            bluetooth = await _ref(ws, dev, "Bluetooth")
            first = await call(ws, _click(2, dev, wifi, "K1"))
            assert first["type"] == "result", first
            again = await call(ws, _click(3, dev, wifi, "K1"))
            assert again["result"] == first["result"]  # the retry: same outcome, no second click
            other = await call(ws, _click(4, dev, bluetooth, "K1"))
            assert other["type"] == "protocol_error" and other["code"] == "INVALID_PARAMS"
            assert "idempotency key reused with a different request" in other["message"]
        # keys are per device, not per session: another session retrying K1 gets the result
        async with client(rh.url, CONTROLLER_2, "other") as ws2:
            retry = await call(ws2, _click(5, dev, wifi, "K1"))
            assert retry["result"] == first["result"]
            clash = await call(ws2, _click(6, dev, bluetooth, "K1"))
            assert clash["code"] == "INVALID_PARAMS"
