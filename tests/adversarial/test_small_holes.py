"""Issue 8.11: duplicate device ids, a wrong token in hello after header auth, sessions that
never said hello, waits that polled, and generations that survived a restart."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from bridge.hub import service as service_module
from bridge.hub.app import AgentTarget
from tests.adversarial.harness import (
    ROGUE_TOKEN,
    RogueAgent,
    call,
    client,
    hub_under_attack,
    ping_probe,
)
from tests.hub.hubfixture import CONTROLLER, running_hub


async def test_a_second_agent_announcing_an_attached_device_id_is_refused() -> None:
    first, second = RogueAgent(device_id="twin"), RogueAgent(device_id="twin")
    async with anyio.create_task_group() as tg:
        await tg.start(first.serve)
        await tg.start(second.serve)
        async with hub_under_attack(agents=[AgentTarget(first.url, ROGUE_TOKEN)]) as rh:
            with anyio.fail_after(5):
                while (
                    "twin" not in rh.hub.service.devices
                    or not rh.hub.service.devices["twin"].online
                ):
                    await anyio.sleep(0.05)
            rh.hub.attach(AgentTarget(second.url, ROGUE_TOKEN))
            await anyio.sleep(1.0)
            device = rh.hub.service.devices["twin"]
            assert device.link is not None and device.link.url == first.url  # not taken over
            assert rh.hub._owners["twin"] == first.url
            assert device.online
        tg.cancel_scope.cancel()


async def test_hello_with_a_wrong_token_after_header_auth_is_fatal() -> None:
    async with (
        hub_under_attack() as rh,
        ws_connect(rh.url, additional_headers={"Authorization": f"Bearer {CONTROLLER}"}) as ws,
    ):
        await ws.send(
            json.dumps({"type": "hello", "id": 1, "token": "wrong", "client": {"name": "x"}})
        )
        reply = json.loads(await ws.recv())
        assert reply["code"] == "UNAUTHENTICATED" and reply["fatal"] is True
        with pytest.raises(ConnectionClosed), anyio.fail_after(5):
            await ws.recv()


async def test_sessions_that_never_said_hello_are_in_stats() -> None:
    async with (
        hub_under_attack() as rh,
        ws_connect(rh.url, additional_headers={"Authorization": f"Bearer {CONTROLLER}"}),
        ws_connect(rh.url),
    ):

        def stats() -> Any:
            req = urllib.request.Request(
                f"http://127.0.0.1:{rh.port}/v1/stats",
                headers={"Authorization": f"Bearer {CONTROLLER}"},
            )
            with urllib.request.urlopen(req, timeout=5) as resp:
                return json.loads(resp.read())

        sessions = (await anyio.to_thread.run_sync(stats))["sessions"]
        silent = [s for s in sessions.values() if not s["hello"]]
        assert len(silent) == 2
        assert {s["role"] for s in silent} == {"controller", None}


async def test_parked_waits_evaluate_on_change_and_deadline_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = [0]
    real = service_module.evaluate

    def counting(*args: Any, **kw: Any) -> Any:
        calls[0] += 1
        return real(*args, **kw)

    monkeypatch.setattr(service_module, "evaluate", counting)
    async with running_hub(sim_scene="settings") as rh, ping_probe(rh.url) as probe:
        dev = rh.device_id

        async def park(k: int) -> None:
            async with client(rh.url, name=f"waiter{k}") as ws:
                for i in range(50):  # at most 64 requests in flight per connection
                    msg = {
                        "type": "wait",
                        "id": 100 + i,
                        "device": dev,
                        "condition": {"kind": "screen", "name": "nowhere"},
                        "timeoutMs": 1500,
                    }
                    await ws.send(json.dumps(msg))
                answers = 0
                with anyio.fail_after(10):
                    while answers < 50:
                        reply = json.loads(await ws.recv())
                        assert reply.get("type") != "protocol_error", reply
                        if reply.get("type") == "result":
                            assert reply["result"]["result"] == "CONDITION_NOT_MET"
                            answers += 1

        # a 50 ms tick would evaluate each of the 200 waits ~30 times in 1.5 s (6,000 in all)
        async with anyio.create_task_group() as tg:
            for k in range(4):
                tg.start_soon(park, k)
        captures = rh.hub.service.devices[dev].stats.captures
        # each wait: once at start, once at the deadline, plus once per capture while parked
        assert calls[0] <= 200 * (2 + captures), (calls[0], captures)
        # a `stable` condition wakes by the clock when it can turn true
        async with client(rh.url) as ws:
            reply = await call(
                ws,
                {
                    "type": "wait",
                    "id": 1,
                    "device": dev,
                    "condition": {"kind": "stable", "forMs": 300},
                    "timeoutMs": 3000,
                },
            )
            assert reply["result"]["result"] == "CONDITION_MET"
            assert reply["result"]["elapsedMs"] < 1500
    assert probe.failures == 0


async def test_a_generation_from_before_a_restart_is_stale() -> None:
    async with hub_under_attack(sim_scene="settings") as rh, client(rh.url) as ws:
        found = await call(
            ws,
            {
                "type": "find",
                "id": 1,
                "device": rh.device_id,
                "query": {"label": {"value": "Wi-Fi"}},
            },
        )
        old_ref = found["result"]["matches"][0]["ref"]
        old_generation = found["result"]["generation"]
    async with hub_under_attack(sim_scene="settings") as rh, client(rh.url) as ws:
        found = await call(
            ws,
            {
                "type": "find",
                "id": 1,
                "device": rh.device_id,
                "query": {"label": {"value": "Wi-Fi"}},
            },
        )
        assert found["result"]["generation"] != old_generation  # a new run's epoch
        reply = await call(
            ws,
            {
                "type": "act",
                "id": 2,
                "device": rh.device_id,
                "request": {"action": "CLICK", "target": old_ref, "generation": old_generation},
            },
        )
        assert reply["type"] == "error" and reply["error"]["error"] == "STALE_NODE_REF", reply
        resolved = await call(
            ws,
            {
                "type": "resolve",
                "id": 3,
                "device": rh.device_id,
                "ref": old_ref,
                "generation": old_generation,
            },
        )
        assert resolved["error"]["error"] == "STALE_NODE_REF"
