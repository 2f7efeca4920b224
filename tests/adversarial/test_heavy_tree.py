"""Issue 27.3: a valid but heavy tree (3,000 nodes x 8,000 characters, 24 MB) pushed over a
real agent link is cut by the per-capture byte budget, with the reason, as for node counts."""

from __future__ import annotations

import time
from typing import Any

import anyio

from bridge.core.raw_limits import MAX_CAPTURE_BYTES
from bridge.hub.app import AgentTarget
from bridge.wire.agent_link import TreePush
from bridge.wire.codec import encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.adversarial.harness import ROGUE_TOKEN, RogueAgent, call, client, ping_probe
from tests.hub.hubfixture import OBSERVER, running_hub


def heavy_tree(capture: int) -> RawTree:
    nodes = [
        RawNode(
            handle=0,
            parent=-1,
            class_name="android.widget.FrameLayout",
            package="com.example.rogue",
            bounds=(0, 0, 1080, 2400),
        )
    ]
    nodes += [
        RawNode(
            handle=i,
            parent=0,
            class_name="android.widget.TextView",
            text=f"{i:05d} " + "w" * (8000 - 6),
            bounds=(0, i % 2400, 1080, i % 2400 + 1),
        )
        for i in range(1, 3000)
    ]
    return RawTree(capture=capture, platform=Platform.ANDROID, nodes=tuple(nodes))


async def test_a_24_mb_tree_is_truncated_by_the_byte_budget() -> None:
    frame = encode(TreePush(reason="event", stable=True, tree=heavy_tree(2))).decode()
    assert len(frame) > 24_000_000

    async def push(ws: Any) -> None:
        await anyio.sleep(0.5)
        await ws.send(frame)

    rogue = RogueAgent(script=push)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with running_hub(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]) as rh:
            async with ping_probe(rh.url, interval_s=0.02) as probe, client(rh.url, OBSERVER) as ws:
                start = time.monotonic()
                with anyio.fail_after(30):
                    while (
                        "rogue-1" not in rh.hub.service.devices
                        or rh.hub.service.devices["rogue-1"].stats.truncated_captures == 0
                    ):
                        await anyio.sleep(0.05)
                took = time.monotonic() - start
                snap = await call(
                    ws, {"type": "snapshot.get", "id": 1, "device": "rogue-1", "compact": False}
                )
                listed = await call(ws, {"type": "devices.list", "id": 2})
                memory = rh.hub.service.statistics()["memory"]["history"]["rogue-1"]
        tg.cancel_scope.cancel()
    snapshot = snap["result"]["snapshot"]
    texts = sum(len(n.get("text") or "") for n in snapshot["nodes"])
    row = next(d for d in listed["result"]["devices"] if d["id"] == "rogue-1")
    print(
        f"24 MB tree: truncated to {len(snapshot['nodes'])} nodes, {texts} text chars, in "
        f"{took:.1f} s; ping p99 {probe.p99_ms:.0f} ms worst {probe.worst_ms:.0f} ms; "
        f"history {memory}"
    )
    assert snapshot["truncated"] is True
    assert len(snapshot["nodes"]) < 3000
    assert texts <= MAX_CAPTURE_BYTES
    assert row["health"] == "degraded"
    assert "byte budget" in row["reason"] and "3000 nodes" in row["reason"]
    assert memory["bytes"] <= memory["limit"] + 2 * (MAX_CAPTURE_BYTES + 5000 * 600)
    assert probe.failures == 0
