"""AgentLink: the hub's websocket client to one on-device agent.

Lifecycle: ``connect`` (Bearer token in the upgrade) -> send ``hello`` -> receive the agent's
``hello`` -> ``run`` reads frames until the link drops, handing tree pushes and status reports
to callbacks and completing pending commands by id. ``command`` sends one command and waits
(``fail_after``) for its single reply. When the link drops every pending command fails with
``AgentLost``; the caller (the hub) reconnects with back-off. ``open_socket``, when given,
supplies the connected stream (an iPhone's port through usbmux) for the URL's host and path.
"""

from __future__ import annotations

import base64
import itertools
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from bridge.core.raw_delta import DeltaRefused, RawMirror
from bridge.core.raw_limits import structure_problem
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    TREE_DELTA,
    AgentHello,
    AgentHubHello,
    AgentStatus,
    AgentToHub,
    CaptureCommand,
    OptionsCommand,
    Reply,
    TreeDelta,
    TreePush,
)
from bridge.wire.codec import AGENT_TO_HUB, MAX_AGENT_FRAME, DecodeFailure, encode
from bridge.wire.raw import RawTree
from bridge.wire.tree_frame import TreeFrameDecoder


class AgentLost(Exception):
    """The link to the agent dropped (or never came up)."""


class AgentTimeout(TimeoutError):
    """A command got no reply within its deadline; the link itself may still be up."""


class AgentRefused(AgentLost):
    """The agent refused the link (wrong token, wrong protocol): do not retry quickly."""


class CaptureFailed(Exception):
    """The agent answered a ``capture`` command without a tree (its reason is the message)."""


@dataclass
class LinkStats:
    trees: int = 0
    deltas: int = 0
    delta_refusals: int = 0
    replies: int = 0
    bad_frames: int = 0
    commands: int = 0


Changed = tuple[int, ...] | None
"""Indexes of a capture's nodes that differ from the previous capture handed on by the same
link, when the shape (handles and parents) did not change; None when unknown."""


class AgentLink:
    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        on_tree: Callable[[TreePush], Awaitable[None]],
        on_status: Callable[[AgentStatus], Awaitable[None]],
        hub_name: str = "mobridge",
        on_bad_frame: Callable[[str], None] | None = None,
        open_socket: Callable[[], Awaitable[socket.socket]] | None = None,
        on_update: Callable[[TreePush, Changed], Awaitable[None]] | None = None,
        tree_deltas: bool = False,
    ) -> None:
        self.url = url
        self._open_socket = open_socket
        self._token = token
        self._on_tree = on_tree
        self._on_status = on_status
        self._hub_name = hub_name
        self._on_bad_frame = on_bad_frame or (lambda reason: None)
        self._on_update = on_update
        """Receives every capture with what changed (instead of ``on_tree``) when given."""
        self._want_deltas = tree_deltas
        self.on_command: Callable[[object], Callable[[], None] | None] | None = None
        """Told every command before it is sent; what it returns is called once the command
        ended, however (the hub's motion hold on pictures, ``bridge.hub.pixel_secrets``)."""
        self._mirror: RawMirror | None = None
        self._recapturing = False
        self._tg: anyio.abc.TaskGroup | None = None
        self.deltas_enabled = False
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[anyio.Event, list[Reply]]] = {}
        self.hello: AgentHello | None = None
        self.stats = LinkStats()
        self._frames = TreeFrameDecoder()
        """Decodes this link's frames; a whole tree's unchanged nodes are the last tree's."""

    async def connect(self, timeout_s: float = 10.0) -> AgentHello:
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        try:
            with anyio.fail_after(timeout_s):
                sock = await self._open_socket() if self._open_socket is not None else None
                self._ws = await connect(
                    self.url,
                    sock=sock,
                    additional_headers=headers,
                    max_size=MAX_AGENT_FRAME,
                    open_timeout=timeout_s,
                    ping_interval=10,
                    ping_timeout=20,
                )
                await self._ws.send(
                    encode(AgentHubHello(protocol=AGENT_PROTOCOL, hub=self._hub_name)).decode()
                )
                first = AGENT_TO_HUB.decode(await self._ws.recv())
        except InvalidStatus as exc:
            raise AgentRefused(f"agent refused the link: HTTP {exc.response.status_code}") from exc
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise AgentLost(f"cannot reach agent at {self.url}: {exc}") from exc
        if not isinstance(first, AgentHello):
            await self.close()
            raise AgentRefused(f"agent did not answer hello: {first!r}")
        if first.protocol != AGENT_PROTOCOL:
            await self.close()
            raise AgentRefused(f"agent speaks protocol {first.protocol}, hub {AGENT_PROTOCOL}")
        self.hello = first
        return first

    async def run(self) -> None:
        """Read until the link drops; then fail every pending command. Raises AgentLost."""
        ws = self._ws
        if ws is None:
            raise AgentLost("not connected")
        closed: ConnectionClosed | None = None
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                if self._want_deltas and self.hello and TREE_DELTA in self.hello.capabilities:
                    tg.start_soon(self._enable_deltas)
                try:
                    while True:
                        frame = await ws.recv(decode=False)
                        message = self._frames.decode(frame)
                        del frame  # a screenshot's frame is megabytes: not held while handled
                        try:
                            await self._dispatch(message)
                        except Exception as exc:  # a fault in one frame never ends the hub
                            self.stats.bad_frames += 1
                            # Watchers hear the fault's type only, never the frame's content.
                            self._on_bad_frame(
                                f"the agent sent a bad frame (MALFORMED): a "
                                f"{type(message).__name__} could not be handled "
                                f"({type(exc).__name__})"
                            )
                except ConnectionClosed as exc:
                    closed = exc
                finally:
                    self._tg = None
                    tg.cancel_scope.cancel()
        finally:
            self._fail_pending()
        raise AgentLost(f"agent link closed: {closed}")

    async def _enable_deltas(self) -> None:
        """Ask the agent for tree deltas; without an ok it keeps sending full trees."""
        try:
            reply = await self.command(lambda cid: OptionsCommand(id=cid, tree_delta=True))
        except Exception:  # the link is going away: no deltas, nothing else to do
            return
        self.deltas_enabled = reply.ok

    async def _deliver(self, push: TreePush, changed: Changed) -> None:
        if self._on_update is not None:
            await self._on_update(push, changed)
        else:
            await self._on_tree(push)

    async def _delta(self, delta: TreeDelta) -> None:
        self.stats.deltas += 1
        mirror = self._mirror
        applied = (
            mirror.apply(delta)
            if mirror is not None
            else DeltaRefused("no tree to apply a delta to")
        )
        if isinstance(applied, DeltaRefused):
            self.stats.delta_refusals += 1
            if not self._recapturing and self._tg is not None:
                self._recapturing = True
                self._tg.start_soon(self._recapture, delta)
            return
        self._mirror, changed = applied
        push = TreePush(
            reason=delta.reason, stable=delta.stable, tree=applied[0].tree, quiet_ms=delta.quiet_ms
        )
        await self._deliver(push, changed)

    async def capture_now(self, stable: bool, timeout_s: float = 10.0) -> RawTree:
        """Ask the agent for a new capture and hand it to ``on_tree`` like a push (reason
        ``capture``); returns the tree. Raises AgentLost, AgentTimeout, or CaptureFailed when
        the agent answered without a tree. ``stable``: what the push says about the screen
        (the caller passes what it last knew, so a requested capture does not reset settle)."""
        reply = await self.command(lambda cid: CaptureCommand(id=cid), timeout_s)
        if not reply.ok or reply.tree is None:
            raise CaptureFailed(reply.message or reply.code or "the capture reply carried no tree")
        await self._deliver(TreePush(reason="capture", stable=stable, tree=reply.tree), None)
        return reply.tree

    async def _recapture(self, cause: TreeDelta) -> None:
        """A full capture instead of a delta that did not apply (its reply resets the mirror
        as the reader sees it, before this resumes)."""
        try:
            reply = await self.command(lambda cid: CaptureCommand(id=cid))
            if reply.ok and reply.tree is not None:
                push = TreePush(reason=cause.reason, stable=cause.stable, tree=reply.tree)
                await self._deliver(push, None)
        except Exception as exc:  # a lost link ends the reader too; anything else is logged
            self._on_bad_frame(
                f"a full capture after a refused delta failed ({type(exc).__name__})"
            )
        finally:
            self._recapturing = False

    async def _dispatch(self, message: AgentToHub | DecodeFailure) -> None:
        match message:
            case TreePush() if (mirror := self._mirror) is not None and self._frames.kept_shape(
                mirror.tree, message.tree
            ):
                # The last tree's handles and parents, checked then: no new checks to run.
                self.stats.trees += 1
                self._mirror = mirror.retree(message.tree)
                await self._deliver(message, None)
            case TreePush() if (problem := structure_problem(message.tree)) is not None:
                self._malformed(problem)
            case TreePush():
                self.stats.trees += 1
                self._mirror = RawMirror.of(message.tree)
                await self._deliver(message, None)
            case TreeDelta():
                await self._delta(message)
            case Reply(id=cid):
                self.stats.replies += 1
                if message.tree is not None and (
                    problem := structure_problem(message.tree, "reply.tree")
                ):
                    self._malformed(problem)
                    message = msgspec.structs.replace(message, tree=None)
                if message.tree is not None:
                    self._mirror = RawMirror.of(message.tree)
                waiter = self._pending.get(cid)
                if waiter is not None:
                    waiter[1].append(message)
                    waiter[0].set()
            case AgentStatus():
                await self._on_status(message)
            case DecodeFailure(message=reason):
                # Whatever the decoder's code, for the agent link it is a malformed frame;
                # the decoder's reason names the field (``at `$.tree.platform```).
                self._malformed(reason)
            case _:
                self.stats.bad_frames += 1
                self._on_bad_frame(f"the agent sent an unexpected {type(message).__name__}")

    def _malformed(self, problem: str) -> None:
        """A frame whose content the types allow but the hub cannot use: dropped, counted and
        reported with the field that was wrong."""
        self.stats.bad_frames += 1
        self._on_bad_frame(f"the agent sent a bad frame (MALFORMED): {problem}"[:300])

    def _fail_pending(self) -> None:
        for event, _ in self._pending.values():
            event.set()

    async def command(self, build: Callable[[int], Any], timeout_s: float = 10.0) -> Reply:
        """Send ``build(id)`` and wait for its reply. Raises AgentLost, or AgentTimeout when
        no reply came within ``timeout_s`` (the link stays up; the caller decides)."""
        ws = self._ws
        if ws is None:
            raise AgentLost("not connected")
        cid = next(self._ids)
        event = anyio.Event()
        box: list[Reply] = []
        command = build(cid)
        ended = self.on_command(command) if self.on_command is not None else None
        self._pending[cid] = (event, box)
        self.stats.commands += 1
        try:
            try:
                await ws.send(encode(command), text=True)
            except ConnectionClosed as exc:
                raise AgentLost(f"agent link closed: {exc}") from exc
            with anyio.move_on_after(timeout_s):
                await event.wait()
            if not event.is_set():
                raise AgentTimeout(f"the agent did not answer within {timeout_s:g} s")
            if not box:
                raise AgentLost("agent link closed before the reply")
            return box[0]
        finally:
            self._pending.pop(cid, None)
            if ended is not None:
                ended()

    async def close(self) -> None:
        if self._ws is not None:
            with anyio.CancelScope(shield=True):
                await self._ws.close()
        self._fail_pending()


def decode_reply_png(reply: Reply) -> bytes | None:
    """The PNG bytes a screenshot reply carries, or None when absent or not valid base64."""
    if reply.png_base64 is None:
        return None
    try:
        return base64.b64decode(reply.png_base64, validate=True)
    except ValueError:  # binascii.Error is a ValueError
        return None
