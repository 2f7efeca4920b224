"""A scripted agent-link server for hub tests: one screen with a destructive and a financial
button. It stands in for a device (none exists here); every node action succeeds and removes
the acted button from the next tree. ``serve_scripted`` announces no capabilities (an old
agent); ``serve_scripted_gestures`` announces ``gesture`` and a tap removes the button under
its point."""

from __future__ import annotations

from functools import partial

import anyio
import anyio.abc
from websockets.asyncio.server import ServerConnection, serve

from bridge.wire.agent_link import (
    AgentHello,
    AgentInfo,
    DeviceInfo,
    GestureCommand,
    NodeActionCommand,
    Reply,
    TreePush,
)
from bridge.wire.codec import AGENT_TO_HUB, HUB_TO_AGENT, encode
from bridge.wire.enums import ActionMethod, Platform
from bridge.wire.raw import RawNode, RawTree

TOKEN = "scripted-agent-token"
BUTTONS = ("Delete account", "Pay now", "Refresh")


def tree(capture: int, gone: set[int]) -> RawTree:
    nodes = [
        RawNode(
            handle=0,
            parent=-1,
            class_name="android.widget.FrameLayout",
            package="com.example.bank",
            bounds=(0, 0, 1080, 2400),
        )
    ]
    for i, label in enumerate(BUTTONS, start=1):
        if i not in gone:
            nodes.append(
                RawNode(
                    handle=i,
                    parent=0,
                    class_name="android.widget.Button",
                    text=label,
                    clickable=True,
                    automation_id=f"com.example.bank:id/b{i}",
                    bounds=(0, 200 * i, 1080, 200 * i + 150),
                )
            )
    return RawTree(
        capture=capture, platform=Platform.ANDROID, nodes=tuple(nodes), package="com.example.bank"
    )


def _under(x: int, y: int, gone: set[int]) -> int | None:
    for i in range(1, len(BUTTONS) + 1):
        if i not in gone and 0 <= x < 1080 and 200 * i <= y < 200 * i + 150:
            return i
    return None


async def _session(
    ws: ServerConnection,
    capabilities: tuple[str, ...] = (),
    unsupported: tuple[type[object], ...] = (),
) -> None:
    header = ws.request.headers.get("Authorization") if ws.request else None
    if header != f"Bearer {TOKEN}":
        await ws.close(1008, "token")
        return
    await ws.recv()  # the hub's hello
    await ws.send(
        encode(
            AgentHello(
                protocol=1,
                platform=Platform.ANDROID,
                agent=AgentInfo(name="scripted", version="1"),
                device=DeviceInfo(id="scripted-bank"),
                capabilities=capabilities,
            )
        ).decode()
    )
    capture, gone = 1, set()
    await ws.send(
        encode(TreePush(reason="initial", stable=True, tree=tree(capture, gone))).decode()
    )
    async for frame in ws:
        command = HUB_TO_AGENT.decode(frame)
        hit = None
        if isinstance(command, unsupported):
            no = Reply(id=command.id, ok=False, code="UNSUPPORTED", message="not here")  # type: ignore[union-attr]
            await ws.send(encode(no).decode())
            continue
        if isinstance(command, GestureCommand) and command.kind == "tap":
            hit = _under(command.points[0].x, command.points[0].y, gone)
        elif isinstance(command, NodeActionCommand):
            hit = command.handle
        if hit is not None and isinstance(command, GestureCommand | NodeActionCommand):
            gone.add(hit)
            await ws.send(
                encode(
                    Reply(id=command.id, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
                ).decode()
            )
            capture += 1
            await ws.send(
                encode(TreePush(reason="event", stable=True, tree=tree(capture, gone))).decode()
            )
        elif hasattr(command, "id"):
            await ws.send(encode(Reply(id=command.id, ok=True)).decode())  # type: ignore[union-attr]
    _ = AGENT_TO_HUB


async def serve_scripted(
    *,
    task_status: anyio.abc.TaskStatus[int],
    capabilities: tuple[str, ...] = (),
    unsupported: tuple[type[object], ...] = (),
) -> None:
    session = partial(_session, capabilities=capabilities, unsupported=unsupported)
    async with serve(session, "127.0.0.1", 0) as server:
        task_status.started(next(iter(server.sockets)).getsockname()[1])
        await server.serve_forever()


async def serve_scripted_gestures(*, task_status: anyio.abc.TaskStatus[int]) -> None:
    await serve_scripted(task_status=task_status, capabilities=("tree", "node_action", "gesture"))
