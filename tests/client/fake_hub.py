"""A FAKE hub, for testing the CLIENT only (``bridge.client`` and ``bridge.cli.client``).

It speaks the public protocol over a real websocket on 127.0.0.1 for one scripted device
and knows nothing of the real hub's logic: answers are canned or computed by a few lines
below. It exists so the client can be tested before (and independently of) the real hub;
tests that need real hub behaviour belong with the hub.

Behaviour:
- auth: ``Authorization: Bearer TOKEN`` (a wrong header is refused with HTTP 401) or
  ``hello.token``; anything before a good ``hello`` gets a ``protocol_error``;
- ``subscribe`` answers ``screens[0]`` at seq 0, then sends ``subscription_events(sub)``
  (by default one reference delta per following screen) ``event_gap`` seconds apart;
- ``find`` matches text / label / resourceId / role exactly on the current screen;
- ``act`` targets a ref's node id or the single node its ``query`` matches (none or several
  is refused like the hub does, with candidate refs); on a node labelled "Delete" it needs
  ``confirm`` of objection ``obj-delete``;
- ``wait`` on ``screen`` / ``present`` is met at once or after ``timeoutMs`` not met;
- ``scripted[type]``: canned replies consumed first — an ``ErrorEnvelope`` (with optional
  ``Objection``), a ``ProtocolError`` (its id filled in), ``SILENT`` (never answered),
  ``CLOSE`` (the connection is closed instead), or a result body;
- ``GET /v1/captures/<id>.png`` serves a 1x1 PNG to a bearer holding the token.
"""

from __future__ import annotations

import asyncio
import http
import itertools
import struct
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import msgspec
from anyio.from_thread import start_blocking_portal
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from bridge.wire.action import ActionResult, ActionTarget, Dispatch, Observation
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    Act,
    ActionEvent,
    App,
    Cancel,
    ClientToHub,
    DevicesList,
    DevicesListResult,
    DeviceSummary,
    ErrorMessage,
    Find,
    FindMatch,
    FindResult,
    Global,
    Hello,
    HelloResult,
    HubToClient,
    LeaseAcquire,
    LeaseEvent,
    LeaseInfo,
    LeaseRelease,
    LeaseResult,
    Objection,
    Ping,
    PongResult,
    ProtocolError,
    Resolve,
    ResolveResult,
    ResultMessage,
    Screenshot,
    ScreenshotResult,
    SnapshotGet,
    SnapshotResult,
    Subscribe,
    SubscribeResult,
    Unsubscribe,
    UnsubscribeResult,
    Wait,
    WaitResult,
)
from bridge.wire.codec import CLIENT_TO_HUB, DecodeFailure, WireFormat, encode
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import (
    DispatchStatus,
    ErrorCode,
    Orientation,
    Platform,
    ProtocolErrorCode,
    Role,
    Stability,
    VerificationResult,
)
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef, ResourceIdLocator, RoleLabelAncestorLocator
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot
from tests.client.reference_diff import reference_delta

TOKEN = "fake-hub-token"
DEVICE = "sim-1"
APP = "dev.mobridge.demo"
SILENT = object()
CLOSE = object()
ANSWERED = object()
DELETE_OBJECTION = "obj-delete"


def _png_1x1() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x80"))
        + chunk(b"IEND", b"")
    )


PNG = _png_1x1()


def node(node_id: str, role: Role, parent: str | None = None, **fields: Any) -> SemanticNode:
    return SemanticNode(node_id=node_id, role=role, parent_id=parent, **fields)


def screen(snapshot_id: str, nodes: list[SemanticNode], name: str = "login") -> ScreenSnapshot:
    return ScreenSnapshot(
        schema_version=1,
        device_id=DEVICE,
        snapshot_id=snapshot_id,
        timestamp=1_700_000_000_000,
        package_name=APP,
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id=f"screen-{name}",
        compact=True,
        nodes=tuple(nodes),
        tree_hash="ab" + snapshot_id.removeprefix("s_").encode().hex(),
    )


def login_screens() -> list[ScreenSnapshot]:
    """The default script: a login screen, a typed username, then the home screen."""
    base = [
        node("n1", Role.SCREEN, resource_id="__screen_login"),
        node("n2", Role.INPUT, "n1", label="Username", resource_id="username"),
        node("n3", Role.INPUT, "n1", label="Password", resource_id="password"),
        node("n4", Role.BUTTON, "n1", label="Sign in", text="Sign in", resource_id="login"),
        node("n5", Role.BUTTON, "n1", label="Continue"),
        node("n6", Role.BUTTON, "n1", label="Continue"),
        node("n7", Role.BUTTON, "n1", label="Delete"),
    ]
    typed = [*base[:1], msgspec.structs.replace(base[1], value="demo"), *base[2:]]
    home = [
        node("n10", Role.SCREEN, resource_id=f"{APP}:id/__screen_home"),  # Android-style
        node("n11", Role.TEXT, "n10", text="12:00"),
        node("n12", Role.BUTTON, "n10", label="List"),
    ]
    return [screen("s_1", base), screen("s_2", typed), screen("s_3", home, "home")]


def ref_for(snapshot: ScreenSnapshot, target: SemanticNode) -> NodeRef:
    locator: ResourceIdLocator | RoleLabelAncestorLocator
    if target.resource_id:
        locator = ResourceIdLocator(value=target.resource_id)
    else:
        locator = RoleLabelAncestorLocator(role=target.role, label=target.label or "")
    return NodeRef(
        snapshot_id=snapshot.snapshot_id,
        node_id=target.node_id,
        fingerprint="f" + target.node_id.removeprefix("n"),
        locators=(locator,),
    )


def matches(query: SemanticQuery, n: SemanticNode) -> bool:
    checks = [
        query.role is None or n.role == query.role,
        query.text is None or n.text == query.text.value,
        query.label is None or n.label == query.label.value,
        query.resource_id is None or n.resource_id == query.resource_id,
    ]
    return all(checks)


@dataclass
class FakeSession:
    ws: ServerConnection
    fmt: WireFormat
    name: str = "?"
    authed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    tasks: dict[Any, asyncio.Task[None]] = field(default_factory=dict)

    async def send(self, message: HubToClient) -> None:
        data = encode(message, self.fmt)
        async with self.lock:
            await self.ws.send(data, text=self.fmt is WireFormat.JSON)


class FakeHub:
    """See the module docstring. ``url`` is valid inside ``serving()`` / ``in_thread()``."""

    def __init__(self, screens: list[ScreenSnapshot] | None = None) -> None:
        self.screens = screens or login_screens()
        self.current = self.screens[0]
        self.generation = 1
        self.event_gap = 0.01
        self.subscription_events: Callable[[str], list[HubToClient]] = self.default_events
        self.scripted: dict[str, list[Any]] = {}
        self.received: list[ClientToHub] = []
        self.auth_headers: list[str | None] = []
        self.subprotocols: list[str | None] = []
        self.url = ""
        self._subs = 0

    # ---- scripting -------------------------------------------------------------------------

    def script(self, kind: str, *replies: Any) -> None:
        self.scripted.setdefault(kind, []).extend(replies)

    def default_events(self, subscription: str) -> list[HubToClient]:
        return [
            reference_delta(a, b, seq=i, subscription=subscription, generation=self.generation)
            for i, (a, b) in enumerate(itertools.pairwise(self.screens), 1)
        ]

    # ---- serving ---------------------------------------------------------------------------

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        async with serve(
            self._handler,
            "127.0.0.1",
            0,
            subprotocols=[Subprotocol(SUBPROTOCOL_JSON), Subprotocol(SUBPROTOCOL_MSGPACK)],
            process_request=self._process_request,
        ) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            self.url = f"ws://127.0.0.1:{port}/v1"
            yield self.url

    @contextmanager
    def in_thread(self) -> Iterator[str]:
        """Serve from a background event loop (for sync-facade and subprocess tests)."""
        with (
            start_blocking_portal("asyncio") as portal,
            portal.wrap_async_context_manager(self.serving()) as url,
        ):
            yield url

    def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        auth = request.headers.get("Authorization")
        if request.path.startswith("/v1/captures/"):
            if auth != f"Bearer {TOKEN}":
                return conn.respond(http.HTTPStatus.UNAUTHORIZED, "unauthorized\n")
            headers = Headers(
                {
                    "Content-Type": "image/png",
                    "Content-Length": str(len(PNG)),
                    "Connection": "close",
                }
            )
            return Response(200, "OK", headers, PNG)
        self.auth_headers.append(auth)
        if auth is not None and auth != f"Bearer {TOKEN}":
            return conn.respond(http.HTTPStatus.UNAUTHORIZED, "wrong token\n")
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        self.subprotocols.append(ws.subprotocol)
        fmt = WireFormat.MSGPACK if ws.subprotocol == SUBPROTOCOL_MSGPACK else WireFormat.JSON
        session = FakeSession(ws, fmt)
        header_ok = ws.request is not None and ws.request.headers.get("Authorization") == (
            f"Bearer {TOKEN}"
        )
        try:
            async for frame in ws:
                message = CLIENT_TO_HUB.decode(frame, fmt)
                if isinstance(message, DecodeFailure):
                    failure = ProtocolError(
                        code=message.code, message=message.message, id=message.request_id
                    )
                    await session.send(failure)
                    continue
                self.received.append(message)
                if isinstance(message, Hello):
                    await self._hello(session, message, header_ok)
                elif not session.authed:
                    await session.send(
                        ProtocolError(
                            code=ProtocolErrorCode.UNAUTHENTICATED,
                            message="say hello first",
                            id=message.id,
                        )
                    )
                else:
                    task = asyncio.create_task(self._answer(session, message))
                    session.tasks[message.id] = task
        except ConnectionClosed:
            pass
        finally:
            for task in session.tasks.values():
                task.cancel()

    async def _hello(self, session: FakeSession, hello: Hello, header_ok: bool) -> None:
        if not (header_ok or hello.token == TOKEN):
            refusal = ProtocolError(
                code=ProtocolErrorCode.UNAUTHENTICATED,
                message="no valid token",
                id=hello.id,
                fatal=True,
            )
            await session.send(refusal)
            await session.ws.close()
            return
        session.authed = True
        session.name = hello.client.name
        result = HelloResult(
            protocol="mobridge.v1",
            session="sess-1",
            role="controller",
            hub="fake-hub",
            formats=("json", "msgpack"),
        )
        await session.send(ResultMessage(id=hello.id, result=result))

    async def _answer(self, session: FakeSession, message: ClientToHub) -> None:
        kind = type(message).__struct_config__.tag
        assert isinstance(kind, str)
        queue = self.scripted.get(kind)
        if queue:
            reply = queue.pop(0)
            if reply is SILENT:
                return
            if reply is CLOSE:
                await session.ws.close()
                return
            if isinstance(reply, ErrorEnvelope):
                await session.send(ErrorMessage(id=message.id, error=reply))
            elif isinstance(reply, tuple):
                envelope, objection = reply
                await session.send(ErrorMessage(id=message.id, error=envelope, objection=objection))
            elif isinstance(reply, ProtocolError):
                await session.send(msgspec.structs.replace(reply, id=message.id))
            else:
                await session.send(ResultMessage(id=message.id, result=reply))
            return
        body = await self._result(session, message)
        if body is ANSWERED:
            return
        if isinstance(body, ErrorMessage | ProtocolError):
            await session.send(body)
        else:
            await session.send(ResultMessage(id=message.id, result=body))

    async def _result(self, session: FakeSession, message: ClientToHub) -> Any:
        match message:
            case DevicesList():
                device = DeviceSummary(id=DEVICE, platform=Platform.ANDROID, online=True)
                return DevicesListResult(devices=(device,))
            case Subscribe():
                return await self._subscribe(session, message)
            case Unsubscribe(subscription=sub):
                task = session.tasks.pop(("sub", sub), None)
                if task is not None:
                    task.cancel()
                return UnsubscribeResult(subscription=sub)
            case SnapshotGet():
                return SnapshotResult(generation=self.generation, snapshot=self.current)
            case Find(query=query):
                found = [n for n in self.current.nodes if matches(query, n)]
                return FindResult(
                    count=len(found),
                    generation=self.generation,
                    snapshot_id=self.current.snapshot_id,
                    matches=tuple(
                        FindMatch(
                            ref=ref_for(self.current, n), node=n, reason="exact", confidence=1
                        )
                        for n in found
                    ),
                )
            case Resolve(ref=ref):
                return self._resolve(message.id, ref)
            case Act():
                return await self._act(session, message)
            case Global() | App():
                return self._action_result(None)
            case Wait():
                return await self._wait(message)
            case LeaseAcquire(device=device, mode=mode):
                info = LeaseInfo(mode=mode, holders=("sess-1",), holder_names=(session.name,))
                await session.send(
                    LeaseEvent(
                        device=device, change="acquired", session="sess-1", client=session.name
                    )
                )
                return LeaseResult(device=device, lease=info)
            case LeaseRelease(device=device):
                return LeaseResult(device=device, lease=None)
            case Screenshot():
                return ScreenshotResult(
                    capture="cap-1", url="/v1/captures/cap-1.png", width=1, height=1, bytes=len(PNG)
                )
            case Cancel(request=rid):
                task = session.tasks.pop(rid, None)
                if task is not None and not task.done():
                    task.cancel()
                    await session.send(
                        ProtocolError(code=ProtocolErrorCode.CANCELLED, message="cancelled", id=rid)
                    )
                return PongResult()
            case Ping():
                return PongResult()
        raise AssertionError(f"unhandled {message!r}")

    async def _subscribe(self, session: FakeSession, message: Subscribe) -> object:
        self._subs += 1
        sub = f"sub-{self._subs}"
        events = self.subscription_events(sub)

        async def stream() -> None:
            for event in events:
                await asyncio.sleep(self.event_gap)
                await session.send(event)

        # The result goes out first; the event stream starts after it.
        result = SubscribeResult(
            subscription=sub, seq=0, generation=self.generation, snapshot=self.screens[0]
        )
        await session.send(ResultMessage(id=message.id, result=result))
        session.tasks[("sub", sub)] = asyncio.create_task(stream())
        return ANSWERED

    def _resolve(self, rid: Any, ref: NodeRef) -> ResolveResult | ErrorMessage:
        if ref.snapshot_id != self.current.snapshot_id:
            return ErrorMessage(
                id=rid,
                error=ErrorEnvelope(
                    error=ErrorCode.STALE_NODE_REF,
                    message="the screen moved on",
                    recovery=("find the node again",),
                ),
            )
        found = next((n for n in self.current.nodes if n.node_id == ref.node_id), None)
        if found is None:
            return ErrorMessage(
                id=rid,
                error=ErrorEnvelope(
                    error=ErrorCode.NODE_NOT_FOUND, message="gone", recovery=("find again",)
                ),
            )
        return ResolveResult(
            status="RESOLVED",
            node_id=found.node_id,
            snapshot_id=self.current.snapshot_id,
            generation=self.generation,
            node=found,
            locator=str(ref.locators[0].__struct_config__.tag),
        )

    async def _act(self, session: FakeSession, message: Act) -> Any:
        target = message.request.target
        if (target is None) == (message.query is None):
            return ProtocolError(
                code=ProtocolErrorCode.INVALID_PARAMS,
                message="exactly one of target and query",
                id=message.id,
            )
        if message.query is not None:
            hits = [n for n in self.current.nodes if matches(message.query, n)]
            if len(hits) != 1:
                return ErrorMessage(
                    id=message.id,
                    error=ErrorEnvelope(
                        error=ErrorCode.AMBIGUOUS_MATCH if hits else ErrorCode.NODE_NOT_FOUND,
                        message=f"{len(hits)} nodes match",
                        recovery=("narrow the query",),
                        candidates=tuple(ref_for(self.current, n) for n in hits),
                    ),
                )
            found: SemanticNode | None = hits[0]
        else:
            assert target is not None
            found = next((n for n in self.current.nodes if n.node_id == target.node_id), None)
        if found is None:
            return ErrorMessage(
                id=message.id,
                error=ErrorEnvelope(
                    error=ErrorCode.NODE_NOT_FOUND, message="no such node", recovery=("find",)
                ),
            )
        confirm = message.confirm
        if found.label == "Delete" and (
            confirm is None or (confirm.objection, confirm.answer) != (DELETE_OBJECTION, "approve")
        ):
            return ErrorMessage(
                id=message.id,
                error=ErrorEnvelope(
                    error=ErrorCode.USER_CONFIRMATION_REQUIRED,
                    message="deleting needs confirmation",
                    recovery=("confirm the objection",),
                ),
                objection=Objection(id=DELETE_OBJECTION, answerable=True, reason="destructive"),
            )
        target_info = ActionTarget(role=found.role, label=found.label)
        result = self._action_result(target_info)
        await session.send(
            ActionEvent(
                device=DEVICE,
                session="sess-1",
                client=session.name,
                verb="act",
                action=message.request.action.value,
                target=target_info,
                result=result,
            )
        )
        return result

    def _action_result(self, target: ActionTarget | None) -> ActionResult:
        return ActionResult(
            dispatch=Dispatch(status=DispatchStatus.DISPATCHED),
            observation=Observation(
                before_snapshot_id=self.current.snapshot_id,
                after_snapshot_id=self.current.snapshot_id,
                stability=Stability.STABLE,
                screen_changed=False,
                window_changed=False,
            ),
            target=target,
        )

    async def _wait(self, message: Wait) -> WaitResult:
        condition = message.condition
        if isinstance(condition, ScreenShown):
            marker = f"__screen_{condition.name}"
            met = any(
                (n.resource_id or "").rsplit("/", 1)[-1] == marker for n in self.current.nodes
            )
        elif isinstance(condition, Present):
            met = any(matches(condition.query, n) for n in self.current.nodes)
        else:
            return WaitResult(
                result=VerificationResult.CONDITION_UNKNOWN, snapshot_id=None, elapsed_ms=0
            )
        timeout_ms = message.timeout_ms
        if timeout_ms is None:
            timeout_ms = 10_000 if isinstance(condition, ScreenShown) else 5000
        if not met:
            await asyncio.sleep(timeout_ms / 1000)
        return WaitResult(
            result=VerificationResult.CONDITION_MET
            if met
            else VerificationResult.CONDITION_NOT_MET,
            snapshot_id=self.current.snapshot_id,
            elapsed_ms=0 if met else timeout_ms,
        )
