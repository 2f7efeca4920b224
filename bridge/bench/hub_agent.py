"""The bench agent: an agent-link server (the hub connects to it) pushing bench screens.

It speaks the agent link like the simulated device: Bearer token in the upgrade, ``hello``
both ways, an ``initial`` push, then one push per ``push_change`` (the ``Count N`` text
changes: a one-field change) and exactly one reply per command (``node_action`` changes the
count too and pushes the new tree before replying, so the reply finds its tree there; with
``reply_first`` it replies first and pushes after, as the Android agent and the simulated
device do, whose pushes come from their tree watchers). It announces ``tree_delta``: once
the hub asks, a change of the count goes as a delta of that one node (what an agent that
tracks its handles sends), a new screen whole; with ``whole_trees`` set every push is a
whole tree. ``sent`` records, per capture number, when its frame was handed to the socket
(``time.monotonic_ns``, the clock every process of this machine shares), so a subscriber in
another process can time change -> delta; ``agent_ns`` the agent's own time per node action
(command frame read -> reply sent, and the tree when it goes first).
"""

from __future__ import annotations

import time
from http import HTTPStatus

import anyio
import anyio.abc
import msgspec
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge.bench.hub_screens import COUNT_INDEX, raw_tree, screen_nodes, with_count
from bridge.core.raw_delta import DeltaBody
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    TREE_DELTA,
    AgentHello,
    AgentHubHello,
    AgentInfo,
    AgentPing,
    CaptureCommand,
    DeviceInfo,
    NodeActionCommand,
    OptionsCommand,
    Reply,
    TreeDelta,
    TreePush,
)
from bridge.wire.codec import HUB_TO_AGENT, MAX_AGENT_FRAME, encode
from bridge.wire.enums import ActionMethod, Platform
from bridge.wire.raw import RawNode, RawTree

AGENT_TOKEN = "bench-agent-token"
DEVICE_ID = "bench-device"


class BenchAgent:
    """Agent-link server of the bench; one hub connection at a time."""

    def __init__(self, nodes: int = 60) -> None:
        self.count = 0
        self.capture = 0
        self.nodes: tuple[RawNode, ...] = screen_nodes(nodes)
        self.sent: dict[int, int] = {}
        """Capture number -> monotonic ns just before its frame was sent."""
        self.agent_ns: list[int] = []
        self.reply_first = False
        """Reply to a node action before pushing its tree (as the Android agent and the
        simulated device do: the push follows from the watcher); else the tree first."""
        self.linked = anyio.Event()
        self.deltas = False
        """The hub asked for tree deltas."""
        self.whole_trees = False
        """Send whole trees even when deltas were asked for (the full-tree path)."""
        self._base: tuple[int, tuple[RawNode, ...]] | None = None
        """(capture, nodes) of the last tree sent."""
        self._ws: ServerConnection | None = None
        self._send_lock = anyio.Lock()

    @property
    def size(self) -> int:
        return len(self.nodes)

    def set_screen(self, nodes: int) -> None:
        """Show an ``nodes``-node screen from the next push on."""
        self.nodes = screen_nodes(nodes, self.count)

    def _tree(self) -> RawTree:
        self.capture += 1
        self.nodes = with_count(self.nodes, self.count)
        return raw_tree(self.nodes, self.capture)

    async def _send_tree(self, ws: ServerConnection, reason: str) -> int:
        async with self._send_lock:
            base = self._base
            tree = self._tree()
            message: TreePush | TreeDelta = TreePush(reason=reason, stable=True, tree=tree)
            if self.deltas and not self.whole_trees and base is not None:
                delta = _count_delta(base, tree)
                if delta is not None:
                    message = delta.message(reason, True)
            data = encode(message)
            self._base = (tree.capture, tree.nodes)
            self.sent[tree.capture] = time.monotonic_ns()
            await ws.send(data, text=True)
        return tree.capture

    async def push_change(self) -> int:
        """Change the count and push the new tree; returns its capture number."""
        ws = self._ws
        if ws is None:
            raise RuntimeError("the hub is not linked to the bench agent")
        self.count += 1
        return await self._send_tree(ws, "event")

    async def _send(self, ws: ServerConnection, data: bytes) -> None:
        async with self._send_lock:
            await ws.send(data, text=True)

    def _check_auth(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Authorization") != f"Bearer {AGENT_TOKEN}":
            body = b"wrong token\n"
            return Response(
                HTTPStatus.UNAUTHORIZED.value,
                "Unauthorized",
                Headers({"Content-Length": str(len(body))}),
                body,
            )
        return None

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        async with serve(
            self._link,
            "127.0.0.1",
            0,
            process_request=self._check_auth,
            compression=None,
            max_size=MAX_AGENT_FRAME,
        ) as server:
            task_status.started(next(iter(server.sockets)).getsockname()[1])
            await server.serve_forever()

    async def _link(self, ws: ServerConnection) -> None:
        hello = HUB_TO_AGENT.decode(await ws.recv())
        if not isinstance(hello, AgentHubHello) or hello.protocol != AGENT_PROTOCOL:
            await ws.close(1002, "expected hello")
            return
        answer = AgentHello(
            protocol=AGENT_PROTOCOL,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="mobridge-bench-agent", version="1"),
            device=DeviceInfo(id=DEVICE_ID, model="bench", width=1080, height=2400),
            capabilities=("tree", "node_action", TREE_DELTA),
        )
        await self._send(ws, encode(answer))
        self._base = None
        self.deltas = False
        await self._send_tree(ws, "initial")
        self._ws = ws
        self.linked.set()
        try:
            async for frame in ws:
                t_in = time.monotonic_ns()
                command = HUB_TO_AGENT.decode(frame)
                match command:
                    case NodeActionCommand(id=cid):
                        self.count += 1
                        reply = Reply(id=cid, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
                        if self.reply_first:
                            await self._send(ws, encode(reply))
                            self.agent_ns.append(time.monotonic_ns() - t_in)
                            await self._send_tree(ws, "event")
                        else:
                            await self._send_tree(ws, "event")
                            await self._send(ws, encode(reply))
                            self.agent_ns.append(time.monotonic_ns() - t_in)
                    case CaptureCommand(id=cid):
                        async with self._send_lock:
                            tree = self._tree()
                            self._base = (tree.capture, tree.nodes)
                            self.sent[tree.capture] = time.monotonic_ns()
                            await ws.send(encode(Reply(id=cid, ok=True, tree=tree)), text=True)
                    case OptionsCommand(id=cid, tree_delta=wanted):
                        self.deltas = wanted
                        await self._send(ws, encode(Reply(id=cid, ok=True)))
                    case AgentPing(id=cid):
                        await self._send(ws, encode(Reply(id=cid, ok=True)))
                    case _:
                        cid = getattr(command, "id", 0)
                        bad = Reply(id=cid, ok=False, code="UNSUPPORTED", message="bench agent")
                        await self._send(ws, encode(bad))
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None


def _count_delta(base: tuple[int, tuple[RawNode, ...]], tree: RawTree) -> DeltaBody | None:
    """The delta of a change of the count alone (None: another screen, send it whole)."""
    capture, nodes = base
    if len(nodes) != len(tree.nodes) or any(
        a is not b
        for i, (a, b) in enumerate(zip(nodes, tree.nodes, strict=True))
        if i != COUNT_INDEX
    ):
        return None
    node = tree.nodes[COUNT_INDEX]
    if node == nodes[COUNT_INDEX]:
        return DeltaBody(capture, tree.capture, (), (), {}, None)
    parent = tree.nodes[node.parent].handle
    return DeltaBody(
        capture, tree.capture, (), (msgspec.structs.replace(node, parent=parent),), {}, None
    )
