"""Issue 8.1: deeply nested frames from an agent or a client never crash the hub."""

from __future__ import annotations

import json

import anyio

from bridge.hub.app import AgentTarget
from tests.adversarial.harness import (
    ROGUE_TOKEN,
    RogueAgent,
    call,
    client,
    hub_under_attack,
    nested,
    ping_ceiling_ms,
    ping_probe,
)
from tests.hub.hubfixture import running_hub

DEPTH = 100_000


async def test_agent_frame_nested_100k_deep_degrades_its_device_and_the_hub_keeps_serving() -> None:
    async def attack(ws: object) -> None:
        await anyio.sleep(0.3)
        for head, tail in (
            ('{"type":"status","state":"ready","x":', "}"),
            ('{"type":"tree","reason":"x","stable":true,"tree":', "}"),
            ('{"type":"reply","id":1,"ok":true,"tree":{"nodes":', "}}"),
        ):
            await ws.send(head + nested(DEPTH) + tail)  # type: ignore[attr-defined]
        await anyio.sleep(10)

    rogue = RogueAgent(script=attack)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with (
            running_hub(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]) as rh,
            ping_probe(rh.url) as probe,
            client(rh.url) as ws,
        ):
            device = None
            with anyio.fail_after(10):
                while device is None or device.health != "degraded":
                    await anyio.sleep(0.05)
                    device = rh.hub.service.devices.get("rogue-1")
            listed = await call(ws, {"type": "devices.list", "id": 1})
            by_id = {d["id"]: d for d in listed["result"]["devices"]}
            assert by_id["rogue-1"]["health"] == "degraded"
            assert "nested too deeply" in by_id["rogue-1"]["reason"]
            assert (
                by_id["sim-android"].get("health", "online") == "online"
            )  # the other device is untouched
            assert (await call(ws, {"type": "ping", "id": 2}))["type"] == "result"
        assert probe.failures == 0 and probe.worst_ms < ping_ceiling_ms(), probe
        tg.cancel_scope.cancel()


async def test_client_frame_nested_100k_deep_is_answered_malformed_and_the_connection_lives() -> (
    None
):
    async with hub_under_attack() as rh, client(rh.url) as ws:
        for frame in (
            '{"type":"ping","id":1,"x":' + nested(DEPTH) + "}",
            '{"type":"find","id":2,"device":"sim-android","query":' + nested(DEPTH) + "}",
            nested(DEPTH),
            '{"a":' * DEPTH + "1" + "}" * DEPTH,
        ):
            await ws.send(frame)
            with anyio.fail_after(5):
                reply = json.loads(await ws.recv())
            assert reply["type"] == "protocol_error"
            assert reply["code"] == "MALFORMED", reply
            assert "nested too deeply" in reply["message"] or frame.startswith("[")
        assert (await call(ws, {"type": "ping", "id": 9}))["result"] == {}


async def test_msgpack_frame_nested_deep_is_malformed() -> None:
    import msgspec
    from websockets.asyncio.client import connect as ws_connect

    from tests.hub.hubfixture import CONTROLLER

    async with (
        hub_under_attack() as rh,
        ws_connect(
            rh.url,
            subprotocols=["mobridge.v1.msgpack"],  # type: ignore[list-item]
            additional_headers={"Authorization": f"Bearer {CONTROLLER}"},
        ) as ws,
    ):
        frame = b"\x83\xa4type\xa4ping\xa2id\x01\xa1x" + b"\x91" * DEPTH + b"\xc0"
        await ws.send(frame)
        with anyio.fail_after(5):
            reply = msgspec.msgpack.decode(await ws.recv())
        assert reply["code"] == "MALFORMED"
        await ws.send(msgspec.msgpack.encode({"type": "ping", "id": 2}))
        with anyio.fail_after(5):
            assert msgspec.msgpack.decode(await ws.recv())["type"] == "result"
