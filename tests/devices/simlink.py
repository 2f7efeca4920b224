"""Test helpers: run a ``SimDevice`` on 127.0.0.1 and talk to it as the hub does.

``running(config)`` serves the simulated device inside a task group and yields it;
``HubSide.open(sim)`` connects with the bearer token, exchanges ``hello`` and reads the
initial tree. Every frame received is decoded strictly as ``AgentToHub`` (a decode failure
fails the test) and kept raw in ``frames`` so tests can grep the bytes.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from websockets.asyncio.client import ClientConnection, connect

from bridge.devices.sim import SimConfig, SimDevice
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    AgentHello,
    AgentHubHello,
    AgentToHub,
    NodeActionCommand,
    NodeIdentity,
    Reply,
    TreePush,
)
from bridge.wire.codec import AGENT_TO_HUB, DecodeFailure, encode
from bridge.wire.enums import ActionVerb
from bridge.wire.raw import RawNode, RawTree

TOKEN = "sim-test-token"


@asynccontextmanager
async def running(config: SimConfig | None = None, **overrides: Any) -> AsyncIterator[SimDevice]:
    cfg = config or SimConfig(token=TOKEN, **overrides)
    sim = SimDevice(cfg)
    async with anyio.create_task_group() as tg:
        await tg.start(sim.serve)
        try:
            yield sim
        finally:
            tg.cancel_scope.cancel()


class HubSide:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[bytes] = []
        self.pushes: list[TreePush] = []
        self.replies: dict[int, Reply] = {}
        self.hello: AgentHello | None = None
        self.tree: RawTree | None = None
        self._ids = itertools.count(1)

    @classmethod
    @asynccontextmanager
    async def open(cls, sim: SimDevice, token: str = TOKEN) -> AsyncIterator[HubSide]:
        headers = {"Authorization": f"Bearer {token}"}
        async with connect(sim.url, additional_headers=headers, max_size=None) as ws:
            side = cls(ws)
            await ws.send(encode(AgentHubHello(protocol=AGENT_PROTOCOL, hub="tests")).decode())
            hello = await side.recv()
            assert isinstance(hello, AgentHello)
            side.hello = hello
            initial = await side.recv()
            assert isinstance(initial, TreePush) and initial.reason == "initial"
            yield side

    async def recv(self, within: float = 5.0) -> AgentToHub:
        with anyio.fail_after(within):
            frame = await self.ws.recv()
        assert isinstance(frame, str), "the agent link uses text frames"
        data = frame.encode()
        self.frames.append(data)
        message = AGENT_TO_HUB.decode(data)
        assert not isinstance(message, DecodeFailure), message
        if isinstance(message, TreePush):
            self.pushes.append(message)
            self.tree = message.tree
        elif isinstance(message, Reply):
            self.replies[message.id] = message
            if message.tree is not None:
                self.tree = message.tree
        return message

    def next_id(self) -> int:
        return next(self._ids)

    async def send_raw(self, text: str) -> None:
        await self.ws.send(text)

    async def command(self, build: Callable[[int], Any], within: float = 5.0) -> Reply:
        cid = self.next_id()
        await self.ws.send(encode(build(cid)).decode())
        return await self.reply(cid, within)

    async def reply(self, cid: int, within: float = 5.0) -> Reply:
        with anyio.fail_after(within):
            while cid not in self.replies:
                await self.recv(within)
        return self.replies[cid]

    async def wait_push(
        self, predicate: Callable[[TreePush], bool], within: float = 5.0
    ) -> TreePush:
        """The first push (already received or coming) that satisfies ``predicate``."""
        start = 0
        with anyio.fail_after(within):
            while True:
                for push in self.pushes[start:]:
                    if predicate(push):
                        return push
                start = len(self.pushes)
                await self.recv(within)

    async def settle(self, within: float = 5.0) -> RawTree:
        """Wait for the next stable push after the current ones and return its tree."""
        index = len(self.pushes)
        with anyio.fail_after(within):
            while True:
                while index < len(self.pushes):
                    if self.pushes[index].stable:
                        return self.pushes[index].tree
                    index += 1
                await self.recv(within)

    async def act(
        self,
        node: RawNode,
        action: ActionVerb,
        *,
        text: str | None = None,
        capture: int | None = None,
        allow_gesture: bool = False,
        identity: NodeIdentity | None = None,
    ) -> Reply:
        assert self.tree is not None
        capture_no = capture if capture is not None else self.tree.capture
        ident = identity or NodeIdentity(
            class_name=node.class_name, automation_id=node.automation_id
        )
        return await self.command(
            lambda cid: NodeActionCommand(
                id=cid,
                capture=capture_no,
                handle=node.handle,
                action=action,
                identity=ident,
                text=text,
                allow_gesture=allow_gesture,
            )
        )


def find(tree: RawTree, **fields: Any) -> RawNode:
    """The single node whose fields equal ``fields`` (suffix match for ``automation_id``)."""
    found = [n for n in tree.nodes if _matches(n, fields)]
    assert len(found) == 1, f"{len(found)} nodes match {fields}"
    return found[0]


def find_all(tree: RawTree, **fields: Any) -> list[RawNode]:
    return [n for n in tree.nodes if _matches(n, fields)]


def _matches(node: RawNode, fields: dict[str, Any]) -> bool:
    for name, want in fields.items():
        have = getattr(node, name)
        if name == "automation_id" and isinstance(want, str) and have is not None:
            if not (have == want or have.endswith("/" + want)):
                return False
        elif have != want:
            return False
    return True


def screen_of(tree: RawTree) -> str | None:
    for node in tree.nodes:
        ident = node.automation_id or ""
        tail = ident.rsplit("/", 1)[-1]
        if tail.startswith("__screen_"):
            return tail[len("__screen_") :]
    return None
