"""Issue 27.5: a normal agent disconnect is logged at info (not as a crash), and a frame the
types allow but the hub cannot use is refused as MALFORMED naming the field — no IndexError
inside the hub's handling."""

from __future__ import annotations

import json
from typing import Any

import anyio
from structlog.testing import capture_logs

from bridge.hub.app import AgentTarget, agent_lost_in
from bridge.net.agent_link import AgentLost, AgentRefused
from tests.adversarial.harness import ROGUE_TOKEN, RogueAgent, call, client
from tests.hub.hubfixture import OBSERVER, running_hub


def test_agent_lost_is_found_inside_task_group_wrappers() -> None:
    lost = AgentLost("agent link closed")
    assert agent_lost_in(lost) is lost
    assert agent_lost_in(ExceptionGroup("tg", [lost])) is lost
    assert agent_lost_in(ExceptionGroup("tg", [ExceptionGroup("inner", [lost])])) is lost
    refused = AgentRefused("HTTP 401")
    assert agent_lost_in(BaseExceptionGroup("tg", [refused])) is refused
    assert agent_lost_in(ExceptionGroup("tg", [lost, ValueError("bug")])) is None
    assert agent_lost_in(IndexError("bug")) is None


async def test_a_normal_agent_disconnect_logs_agent_lost_at_info() -> None:
    async def leave(ws: Any) -> None:
        await anyio.sleep(0.5)
        await ws.close()

    rogue = RogueAgent(script=leave)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        with capture_logs() as logs:
            async with running_hub(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]):
                with anyio.fail_after(10):
                    while not any(e["event"] == "agent_lost" for e in logs):
                        await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    lost = [e for e in logs if e["event"] == "agent_lost"]
    assert lost and all(e["log_level"] == "info" for e in lost)
    assert not [e for e in logs if e["event"] == "agent_task_crashed"]
    assert all("exc_info" not in e and "exception" not in e for e in lost)


async def test_a_parent_out_of_range_is_malformed_and_names_the_field() -> None:
    async def broken(ws: Any) -> None:
        await anyio.sleep(0.5)
        await ws.send(
            '{"type":"tree","reason":"x","stable":true,"tree":{"capture":2,"platform":"ANDROID",'
            '"nodes":[{"handle":0,"parent":-1},{"handle":1,"parent":5}]}}'
        )
        await anyio.sleep(30)

    rogue = RogueAgent(script=broken)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with (
            running_hub(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]) as rh,
            client(rh.url, OBSERVER) as ws,
        ):
            with anyio.fail_after(10):
                while True:
                    listed = await call(ws, {"type": "devices.list", "id": 1})
                    row = next(
                        (d for d in listed["result"]["devices"] if d["id"] == "rogue-1"), None
                    )
                    if row is not None and row.get("health") == "degraded":
                        break
                    await anyio.sleep(0.05)
            link = rh.hub.service.devices["rogue-1"].link
            snap = await call(ws, {"type": "snapshot.get", "id": 2, "device": "rogue-1"})
        tg.cancel_scope.cancel()
    reason = row["reason"]
    assert "MALFORMED" in reason and "tree.nodes[1].parent: 5" in reason, reason
    assert "IndexError" not in json.dumps(listed)
    assert link is not None and link.stats.bad_frames == 1
    assert snap["type"] == "result"  # the last good tree is still served
