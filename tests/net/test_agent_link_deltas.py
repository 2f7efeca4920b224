"""Tree deltas over a real agent link: asked for, applied, refused and recovered from.

A scripted agent (a real websocket server on 127.0.0.1) announces ``tree_delta``; the hub's
``AgentLink`` asks for deltas with ``options`` and hands on every capture whole, with the
indexes that changed when the shape stayed the same. A delta on a base the link does not hold
is refused: the link asks for a full capture and the agent's next delta, based on that
capture, applies again. A link that did not ask never gets a delta and gets every tree whole.
"""

from __future__ import annotations

import anyio
import msgspec
import pytest
from websockets.asyncio.server import ServerConnection, serve

from bridge.core.raw_delta import raw_delta
from bridge.net.agent_link import AgentLink, Changed
from bridge.wire.agent_link import (
    TREE_DELTA,
    AgentHello,
    AgentInfo,
    CaptureCommand,
    DeviceInfo,
    OptionsCommand,
    Reply,
    TreePush,
)
from bridge.wire.codec import HUB_TO_AGENT, encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree

pytestmark = pytest.mark.anyio
TOKEN = "delta-agent-token"


def _tree(capture: int, count: int, extra: bool = False) -> RawTree:
    nodes = [
        RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout"),
        RawNode(handle=2, parent=0, class_name="android.widget.TextView", text=f"Count {count}"),
        RawNode(handle=3, parent=0, class_name="android.widget.Button", text="Go"),
    ]
    if extra:
        nodes.insert(
            2, RawNode(handle=9, parent=0, class_name="android.widget.TextView", text="new")
        )
    return RawTree(capture=capture, platform=Platform.ANDROID, nodes=tuple(nodes))


class DeltaAgent:
    """Sends: a tree; three changes (as deltas once asked, a bad base in the middle); then
    waits. Records the commands it got."""

    def __init__(self) -> None:
        self.commands: list[object] = []
        self.sent: list[RawTree] = []
        self.done = anyio.Event()

    async def session(self, ws: ServerConnection) -> None:
        header = ws.request.headers.get("Authorization") if ws.request else None
        if header != f"Bearer {TOKEN}":
            await ws.close(1008, "token")
            return
        await ws.recv()
        hello = AgentHello(
            protocol=1,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="delta-agent", version="1"),
            device=DeviceInfo(id="delta"),
            capabilities=("tree", TREE_DELTA),
        )
        await ws.send(encode(hello), text=True)
        last = _tree(1, 0)
        await ws.send(encode(TreePush(reason="initial", stable=True, tree=last)), text=True)
        self.sent.append(last)
        deltas = False
        capture = 1
        script = [(1, False), (2, True), (3, True)]
        async with anyio.create_task_group() as tg:

            async def push_script() -> None:
                nonlocal last, capture
                with anyio.move_on_after(0.5):  # a link that asks does so at once
                    while not deltas:
                        await anyio.sleep(0.01)
                for step, (count, extra) in enumerate(script):
                    if step == 2 and deltas:
                        with anyio.fail_after(5):
                            await self.done.wait()  # the capture asked for instead
                    capture += 1
                    new = _tree(capture, count, extra)
                    body = raw_delta(last, new) if deltas else None
                    if body is not None:
                        message = body.message("event", True)
                        if step == 1:  # the middle one claims a base the link never saw
                            message = msgspec.structs.replace(message, base=999)
                        await ws.send(encode(message), text=True)
                    else:
                        await ws.send(
                            encode(TreePush(reason="event", stable=True, tree=new)), text=True
                        )
                    last = new
                    self.sent.append(new)
                    await anyio.sleep(0.05)

            tg.start_soon(push_script)
            async for frame in ws:
                command = HUB_TO_AGENT.decode(frame)
                self.commands.append(command)
                if isinstance(command, OptionsCommand):
                    deltas = command.tree_delta
                    await ws.send(encode(Reply(id=command.id, ok=True)), text=True)
                elif isinstance(command, CaptureCommand):
                    capture += 1
                    last = _tree(capture, 100, True)
                    self.sent.append(last)
                    await ws.send(encode(Reply(id=command.id, ok=True, tree=last)), text=True)
                    self.done.set()


async def _run_link(
    tree_deltas: bool,
) -> tuple[DeltaAgent, list[tuple[TreePush, Changed]], AgentLink]:
    agent = DeltaAgent()
    got: list[tuple[TreePush, Changed]] = []

    async def on_update(push: TreePush, changed: Changed) -> None:
        got.append((push, changed))

    async def ignore(_: object) -> None:
        return None

    async with serve(agent.session, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        link = AgentLink(
            f"ws://127.0.0.1:{port}",
            TOKEN,
            on_tree=ignore,
            on_status=ignore,
            on_update=on_update,
            tree_deltas=tree_deltas,
        )
        await link.connect()
        async with anyio.create_task_group() as tg:
            tg.start_soon(link.run)
            with anyio.fail_after(10):
                while len(got) < 4:
                    await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
        await link.close()
    return agent, got, link


async def test_deltas_are_applied_refused_and_recovered_by_a_full_capture() -> None:
    agent, got, link = await _run_link(tree_deltas=True)
    assert isinstance(agent.commands[0], OptionsCommand) and agent.commands[0].tree_delta
    assert link.deltas_enabled
    trees = [push.tree for push, _ in got]
    # initial, first delta, (the bad one dropped), the capture asked for instead, third delta
    captured = next(t for t in agent.sent if t.nodes[1].text == "Count 100")
    assert trees == [agent.sent[0], agent.sent[1], captured, agent.sent[-1]]
    assert [changed for _, changed in got] == [None, (1,), None, (1,)]
    assert sum(isinstance(c, CaptureCommand) for c in agent.commands) == 1
    assert link.stats.delta_refusals == 1 and link.stats.deltas == 3


async def test_a_link_that_does_not_ask_gets_every_tree_whole() -> None:
    agent, got, link = await _run_link(tree_deltas=False)
    assert not any(isinstance(c, OptionsCommand) for c in agent.commands)
    assert not link.deltas_enabled and link.stats.deltas == 0
    assert [push.tree for push, _ in got] == agent.sent[:4]
    assert all(changed is None for _, changed in got)
