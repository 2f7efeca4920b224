"""The subscriber-facing server: websockets on ``/v1`` plus a few HTTP GETs on one port.

Per connection: a reader (decode strictly, rate-limit, hand requests to the hub's handler in
their own tasks) and a writer (drains the session's outbox).

Write path: while a session has nothing queued and its socket is not pushing back, a response
or an event is written at once, as frame bytes (``bridge.net.frames``): an event's frame is
built once per (format, compression) and the very same bytes go to every member, with no
per-connection task hop, framing or compression. Anything that cannot go at once is queued,
in order, and the writer task sends it with backpressure; once the queue is empty, writes go
direct again. The byte accounting below counts what is queued.

Bounds (every one is per connection unless named otherwise):
- events: at most ``event_limit`` queued and ``EVENT_BYTES_LIMIT`` bytes; past either, the
  pending events are dropped and each subscribed stream gets a ``snapshot`` resync once the
  client drains (see ``Session``);
- a subscriber whose event queue overflowed and that has read nothing since for
  ``frozen_subscriber_s`` (default ``FROZEN_SUBSCRIBER_S``) is closed with 1008 and a reason;
  the reason is also kept (``RECENT_CLOSES`` of them, ``RECENT_CLOSE_S``) and told once in
  ``hello``'s ``previousClose`` when the same principal and client name connect again, so a
  client that never read the close frame still learns why; it then resubscribes (resync);
- responses are never dropped, but all queued bytes count against the outbound budget: above
  ``OUTBOUND_SOFT_LIMIT`` the reader stops reading the client's requests (TCP pushes back on
  it) until the queue drains below half of it; a client that stays above it for
  ``SLOW_CLIENT_GRACE_S`` or passes ``OUTBOUND_HARD_LIMIT`` is closed with 1008 and a reason;
- the kernel's send buffer per socket is fixed (``SOCKET_SEND_BUFFER``), not auto-tuned;
- a connection that has not authenticated within ``AUTH_DEADLINE_S`` is closed (1008); one
  that has not finished its HTTP opening handshake within ``HANDSHAKE_S`` is dropped;
- at most ``max_per_peer`` connections per peer address and ``max_unauthenticated_per_peer``
  of them not yet authenticated (HTTP 503 beyond);
- keepalive: each connection is pinged once every ``PING_INTERVAL_S``, in one of
  ``KEEPALIVE_SLOTS`` turns (one task, a slot a second: connections opened together are not
  pinged together); one whose pong has not come by its next turn is dropped;
- repeated accept failures (out of descriptors) are logged once per interval
  (``bridge.net.log_limits``), never once per attempt.

HTTP: ``GET /healthz`` (no auth; a wrong key, if one is sent, is rejected),
``GET /v1/stats``, ``GET /v1/captures/<id>.png`` and its viewer-sized forms
``GET /v1/captures/<id>.webp?width=N`` / ``.jpg?width=N`` (Bearer auth; the hub's
``capture_view`` derives them, off the event loop).

Other websocket paths (``sockets``, e.g. the live mirror at ``/v1/mirror``) are handed, once
authenticated (an ``Authorization: Bearer`` header, or a first text message ``{"token": ...}``
within the auth deadline), to their own handler with the principal and the query; they share
the per-peer connection bounds and the origin check, not the request protocol.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import secrets
import socket
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import anyio
import msgspec
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.typing import Subprotocol

from bridge.net.auth import Authenticator, Principal, bearer
from bridge.net.frames import Outgoing, deflate_extension, message_frame, negotiated_bits
from bridge.net.log_limits import install_log_limits
from bridge.net.ratelimit import TokenBucket
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ClientToHub,
    Hello,
    ProtocolError,
    RequestId,
)
from bridge.wire.codec import (
    CLIENT_TO_HUB,
    MAX_CLIENT_FRAME,
    DecodeFailure,
    WireFormat,
    encode,
    read_request_id,
)
from bridge.wire.enums import ProtocolErrorCode

MAX_WS_FRAME = 4 * MAX_CLIENT_FRAME
"""Frames up to this size are read and answered TOO_LARGE; beyond it the socket closes 1009."""
EVENT_QUEUE_LIMIT = 256
EVENT_BYTES_LIMIT = 2 << 20
OUTBOUND_SOFT_LIMIT = 2 << 20
OUTBOUND_HARD_LIMIT = 16 << 20
SLOW_CLIENT_GRACE_S = 10.0
FROZEN_SUBSCRIBER_S = 60.0
RECENT_CLOSES = 256
RECENT_CLOSE_S = 600.0
AUTH_DEADLINE_S = 5.0
HANDSHAKE_S = 15.0
"""How long the HTTP opening handshake may take (websockets' ``open_timeout``, counted from
the accept), never less than the auth deadline. It is not the auth deadline: under a burst
of connections on a saturated machine an honest client's handshake can wait seconds for the
event loop, and closing it then (the client reads "did not receive a valid HTTP response")
turns load into refusals. A connection that never finishes its request is still closed at
this bound; one that finished it must authenticate within ``auth_deadline_s`` after."""
ACCEPT_BACKLOG = 1024
"""The listening socket's backlog (asyncio's default is 100): a burst of connections waits
in the kernel instead of having its SYNs dropped and retried a second later."""
SOCKET_SEND_BUFFER = 256 * 1024
"""SO_SNDBUF of each client socket: the kernel's share of a connection's outbound bytes is
fixed instead of auto-tuned up to megabytes."""
CLOSE_WAIT_S = 10.0
SHUTDOWN_CLOSE_S = 2.0
"""How long a closing handshake may take (websockets' ``close_timeout``): when the hub stops,
every connection is closed at once, and a flood of clients that never read would otherwise
hold the exit for websockets' default 10 s."""
"""How long a connection the hub closes may take to read what is queued and the close frame
(its buffers stay bounded meanwhile); then the socket is aborted."""
PING_INTERVAL_S = 20.0
KEEPALIVE_SLOTS = 20
"""Keepalive: the hub pings each connection once every ``PING_INTERVAL_S`` and drops it when
the pong of its last ping has not come by its next turn. Connections are dealt into
``KEEPALIVE_SLOTS`` slots as they open (the n-th into slot n mod the count), and one task
visits a slot every interval / slots seconds, pinging that slot's connections together.
websockets' own keepalive pings each connection exactly one interval after it opened: a
thousand subscribers opened in one second then cost the hub 60-70 ms of CPU in that second
every 20 s, and a change fanned out then waits behind it; a ping of its own per connection
at a phase of its own spreads that, but wakes the hub 50 times a second for one ping and one
pong each (3 times the CPU of the bursts, measured: 480 against 150 ms in 45 s at 1,000
connections). One slot a second keeps the pings batched and the bursts a twentieth: 150 ms
in the same 45 s, as websockets' own, with at most 20 ms in any half second instead of 50."""
MAX_PER_PEER = 4096
MAX_UNAUTHENTICATED_PER_PEER = 64
MAX_INFLIGHT = 64
_OPEN = State.OPEN


CaptureView = Callable[[str, int, Any], Awaitable[bytes | None]]
"""(capture id, width, "webp" | "jpeg") -> the image, or None when there is no such capture."""
SocketHandler = Callable[[ServerConnection, Principal, dict[str, str]], Awaitable[None]]
"""Serves one authenticated websocket of another path until it closes."""
VIEW_TYPES = {"webp": ("webp", "image/webp"), "jpg": ("jpeg", "image/jpeg")}
DEFAULT_VIEW_WIDTH = 480


class RequestHandler(Protocol):
    async def handle(self, session: Session, request: ClientToHub) -> None: ...
    async def session_closed(self, session: Session) -> None: ...
    def resync(self, session: Session, stream: str) -> Any | None: ...
    def health(self) -> dict[str, Any]: ...
    def statistics(self) -> dict[str, Any]: ...
    def capture(self, capture_id: str) -> bytes | None: ...


@dataclass
class SessionStats:
    requests: int = 0
    events_sent: int = 0
    events_dropped: int = 0
    resyncs: int = 0
    protocol_errors: int = 0
    paused: int = 0


@dataclass(eq=False)
class Session:
    """One authenticated (or not yet authenticated) client connection."""

    id: str
    format: WireFormat
    principal: Principal | None = None
    client_name: str = "?"
    client_kind: str | None = None
    streams: set[str] = field(default_factory=set)
    stats: SessionStats = field(default_factory=SessionStats)
    peer: str = "?"
    _responses: deque[bytes] = field(default_factory=deque)
    _events: deque[tuple[str | None, bytes]] = field(default_factory=deque)
    _resync: set[str] = field(default_factory=set)
    _wake: anyio.Event = field(default_factory=anyio.Event)
    _drained: anyio.Event = field(default_factory=anyio.Event)
    _response_bytes: int = 0
    _event_bytes: int = 0
    closed: bool = False
    event_limit: int = EVENT_QUEUE_LIMIT
    event_bytes_limit: int = EVENT_BYTES_LIMIT
    hard_limit: int = OUTBOUND_HARD_LIMIT
    kill_reason: str | None = None
    """Set when the connection must close (over budget, auth deadline); the server closes it."""
    killed: anyio.Event = field(default_factory=anyio.Event)
    counted_unauthenticated: bool = False
    soft_limit: int = OUTBOUND_SOFT_LIMIT
    over_since: float | None = None
    """Monotonic time the queue last rose to ``soft_limit`` (None while below it)."""
    full_since: float | None = None
    """Monotonic time the event queue overflowed with nothing read since (None: it read)."""
    previous_close: str | None = None
    """Why the hub closed this client's previous connection (set at ``hello``, told once)."""
    signal: anyio.Event = field(default_factory=anyio.Event)
    """Set on kill and when the queue rises to ``soft_limit``: wakes the connection's guard."""
    direct: DirectWriter | None = None
    """Writes frames to the socket at once (set by the server once the connection is open)."""

    @property
    def role(self) -> str | None:
        return self.principal.role if self.principal else None

    def encode(self, message: Any) -> bytes:
        return encode(message, self.format)

    def respond(self, message: Any) -> None:
        """Send or queue a response (never dropped; a client whose queue passes the hard limit
        is disconnected instead)."""
        if self.closed:
            return
        data = self.encode(message)
        direct = self.direct
        if direct is not None and self._idle() and direct.ready():
            direct.write(message_frame(data, direct.text, direct.bits))
            return
        self._responses.append(data)
        self._response_bytes += len(data)
        self._wake.set()
        self._check_over()
        if self.queued_bytes() > self.hard_limit:
            self.kill(f"outbound queue over {self.hard_limit} bytes: the client is not reading")

    def kill(self, reason: str) -> None:
        """Ask the server to close this connection with ``reason`` (1008); drops the queue."""
        if self.kill_reason is None:
            self.kill_reason = reason
        self._responses.clear()
        self._events.clear()
        self._response_bytes = self._event_bytes = 0
        self.closed = True
        self.direct = None
        self.killed.set()
        self.signal.set()
        self._wake.set()
        self._drained.set()

    def _check_over(self) -> None:
        if self.over_since is None and self.queued_bytes() >= self.soft_limit:
            self.over_since = time.monotonic()
            self.signal.set()

    def queued_bytes(self) -> int:
        return self._response_bytes + self._event_bytes

    async def drained(self, below: int) -> None:
        """Return once the queued bytes are below ``below`` (or the session is closed)."""
        while self.queued_bytes() >= below and not self.closed:
            self._drained = anyio.Event()
            await self._drained.wait()

    def _idle(self) -> bool:
        """Nothing queued or owed: a new frame may go straight to the socket."""
        return not (self._responses or self._events or self._resync)

    def _pop(self) -> bytes | None:
        """The next queued frame to send (responses first), or None."""
        if self._responses:
            data = self._responses.popleft()
            self._response_bytes -= len(data)
        elif self._events:
            _, data = self._events.popleft()
            self._event_bytes -= len(data)
            self.stats.events_sent += 1
        else:
            return None
        self.full_since = None  # the writer moves: the client is reading
        if self.over_since is not None and self.queued_bytes() < self.soft_limit:
            self.over_since = None
        self._drained.set()
        return data

    def push_event(self, stream: str | None, event: bytes | Outgoing) -> None:
        """Send or queue an event: bytes already encoded in this session's format, or an
        ``Outgoing`` shared by many sessions (its frame is written as is). On overflow every
        pending event is dropped and each subscribed stream is marked for resync.

        The common case — an open connection with nothing queued and a transport not pushing
        back — is written inline (``_idle`` and ``DirectWriter.ready`` spelled out, the frame
        looked up by the writer's key): it runs once per subscriber per change."""
        if self.closed:
            return
        resync = self._resync
        if resync and stream is not None and stream in resync:
            self.stats.events_dropped += 1
            return
        direct = self.direct
        if direct is not None and not (self._responses or self._events or resync):
            ws = direct.ws
            transport = ws.transport
            if (
                ws.protocol.state is _OPEN
                and not ws.paused
                and transport is not None
                and not transport.is_closing()
            ):
                if isinstance(event, Outgoing):
                    transport.write(event.frame_for(direct.key))
                else:
                    transport.write(message_frame(event, direct.text, direct.bits))
                self.stats.events_sent += 1
                return
        data = event.payload(self.format) if isinstance(event, Outgoing) else event
        if (
            len(self._events) >= self.event_limit
            or self._event_bytes + len(data) > self.event_bytes_limit
        ):
            self.stats.events_dropped += len(self._events) + 1
            self._events.clear()
            self._event_bytes = 0
            self._resync.update(self.streams)
            if self.full_since is None:
                self.full_since = time.monotonic()
                self.signal.set()
        else:
            self._events.append((stream, data))
            self._event_bytes += len(data)
            self._check_over()
        self._wake.set()

    def queue_depth(self) -> int:
        return len(self._events) + len(self._responses)

    def forget_stream(self, stream: str) -> None:
        self.streams.discard(stream)
        self._resync.discard(stream)
        self._events = deque(e for e in self._events if e[0] != stream)
        self._event_bytes = sum(len(e[1]) for e in self._events)


class DirectWriter:
    """Writes whole frames straight to a connection's transport, in order with everything
    websockets itself writes there (it too writes whole frames)."""

    __slots__ = ("bits", "key", "text", "ws")

    def __init__(self, ws: ServerConnection, fmt: WireFormat) -> None:
        self.ws = ws
        self.text = fmt is WireFormat.JSON
        self.bits = negotiated_bits(list(ws.protocol.extensions))
        """Deflate window bits when the connection negotiated compression (else None)."""
        self.key = (fmt, self.text, self.bits)
        """What ``Outgoing.frame_for`` builds this connection's frame from."""

    def ready(self) -> bool:
        """Open, and the transport is not pushing back (its buffer is under the limit)."""
        ws = self.ws
        transport = ws.transport
        return (
            ws.protocol.state is State.OPEN
            and not ws.paused
            and transport is not None
            and not transport.is_closing()
        )

    def write(self, frame: bytes) -> None:
        self.ws.transport.write(frame)


class ClientServer:
    def __init__(
        self,
        handler: RequestHandler,
        auth: Authenticator,
        *,
        host: str,
        port: int,
        rate_per_s: float = 200.0,
        burst: float = 400.0,
        log: Callable[..., None] | None = None,
        event_limit: int = EVENT_QUEUE_LIMIT,
        write_limit: int = 256 * 1024,
        pages: dict[str, bytes] | None = None,
        outbound_soft_limit: int = OUTBOUND_SOFT_LIMIT,
        outbound_hard_limit: int = OUTBOUND_HARD_LIMIT,
        slow_client_grace_s: float = SLOW_CLIENT_GRACE_S,
        frozen_subscriber_s: float = FROZEN_SUBSCRIBER_S,
        auth_deadline_s: float = AUTH_DEADLINE_S,
        max_per_peer: int = MAX_PER_PEER,
        max_unauthenticated_per_peer: int = MAX_UNAUTHENTICATED_PER_PEER,
        socket_send_buffer: int = SOCKET_SEND_BUFFER,
        capture_view: CaptureView | None = None,
        sockets: dict[str, SocketHandler] | None = None,
        ping_interval_s: float = PING_INTERVAL_S,
    ) -> None:
        self.ping_interval_s = ping_interval_s
        self.pings = 0
        """Keepalive pings sent (all connections)."""
        self._slots: list[dict[ServerConnection, Any]] = [{} for _ in range(KEEPALIVE_SLOTS)]
        """Each keepalive slot's open connections and the pong awaited from each (a future
        of websockets', or None before its first ping)."""
        self.capture_view = capture_view
        self.sockets = dict(sockets or {})
        """Websocket paths besides ``/v1`` and their handlers (module docstring)."""
        self.pages = dict(pages or {})
        """Static HTML served without auth at these paths (the dashboard); ``/`` redirects
        to the first one."""
        self.event_limit = event_limit
        self.write_limit = write_limit
        self.outbound_soft_limit = outbound_soft_limit
        self.outbound_hard_limit = outbound_hard_limit
        self.slow_client_grace_s = slow_client_grace_s
        self.frozen_subscriber_s = frozen_subscriber_s
        self.recent_closes: OrderedDict[tuple[str, str], tuple[float, str]] = OrderedDict()
        """(principal, client name) -> (when, why) the hub last closed such a connection."""
        self.auth_deadline_s = auth_deadline_s
        self.max_per_peer = max_per_peer
        self.max_unauthenticated_per_peer = max_unauthenticated_per_peer
        self.socket_send_buffer = socket_send_buffer
        self.closed_by_hub = 0
        """Connections the hub closed (auth deadline, outbound budget)."""
        self._peers: dict[str, int] = {}
        self._unauthenticated: dict[str, int] = {}
        self.handler = handler
        self.auth = auth
        self.host = host
        self.port = port
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.sessions: dict[str, Session] = {}
        self._ids = itertools.count(1)
        self._dealt = itertools.count()
        self._server: Server | None = None
        self._log = log or (lambda *a, **k: None)
        self.bound_port: int | None = None

    # ---- HTTP side --------------------------------------------------------------------------

    def _origin_ok(self, headers: Headers) -> bool:
        """A browser's websocket is accepted from the hub's own pages only: its ``Origin``
        is the address the hub was started on, ``localhost``, or the very address the
        request came to (``Host``: a hub bound to ``0.0.0.0`` opened at a LAN address) when
        that is an IP address — a DNS name there could be a rebinding attack's."""
        origin = headers.get("Origin")
        if origin is None:
            return True
        own = {f"http://{self.host}:{self.bound_port}", f"http://localhost:{self.bound_port}"}
        if origin in own:
            return True
        host = headers.get("Host")
        if host is None or origin != f"http://{host}":
            return False
        name = urlsplit(origin).hostname
        try:
            ipaddress.ip_address(name or "")
        except ValueError:
            return False
        return True

    def _process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        path, _, query = request.path.partition("?")
        token = bearer(request.headers.get("Authorization"))
        if path == "/healthz":
            if token is not None and self.auth.check(token) is None:
                return _text(HTTPStatus.UNAUTHORIZED, "wrong key\n")
            return _json(HTTPStatus.OK, self.handler.health())
        if path in self.pages:
            return _html(self.pages[path])
        if path == "/" and self.pages:
            first = next(iter(self.pages))
            return Response(302, "Found", Headers({"Location": first, "Content-Length": "0"}), b"")
        if path in ("/v1/stats",) or path.startswith("/v1/captures/"):
            principal = self.auth.check(token) if token is not None else None
            if principal is None:
                return _text(HTTPStatus.UNAUTHORIZED, "missing or wrong bearer token\n")
            if path == "/v1/stats":
                return _json(HTTPStatus.OK, self.handler.statistics())
            name = path.rsplit("/", 1)[-1]
            stem, _, kind = name.rpartition(".")
            if kind in VIEW_TYPES and self.capture_view is not None:
                return self._view(stem, kind, query)
            png = self.handler.capture(name.removesuffix(".png"))
            if png is None:
                return _text(HTTPStatus.NOT_FOUND, "no such capture\n")
            return Response(
                200,
                "OK",
                Headers({"Content-Type": "image/png", "Content-Length": str(len(png))}),
                png,
            )
        if path != "/v1" and path not in self.sockets:
            return _text(HTTPStatus.NOT_FOUND, "not found; the websocket endpoint is /v1\n")
        if not self._origin_ok(request.headers):
            return _text(HTTPStatus.FORBIDDEN, "cross-origin websocket refused\n")
        if token is not None and self.auth.check(token) is None:
            return _text(HTTPStatus.UNAUTHORIZED, "wrong bearer token\n")
        peer = _peer_of(connection)
        if self._peers.get(peer, 0) >= self.max_per_peer:
            return _text(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"too many connections from {peer} (at most {self.max_per_peer})\n",
            )
        if token is None and self._unauthenticated.get(peer, 0) >= (
            self.max_unauthenticated_per_peer
        ):
            return _text(
                HTTPStatus.SERVICE_UNAVAILABLE,
                f"too many unauthenticated connections from {peer} "
                f"(at most {self.max_unauthenticated_per_peer}); authenticate or close some\n",
            )
        return None

    async def _view(self, capture: str, kind: str, query: str) -> Response:
        fmt, content_type = VIEW_TYPES[kind]
        asked = parse_qs(query).get("width", [str(DEFAULT_VIEW_WIDTH)])[0]
        if not asked.isdigit() or not 0 < int(asked) <= 100_000:
            return _text(HTTPStatus.BAD_REQUEST, "width must be a positive number of pixels\n")
        assert self.capture_view is not None
        data = await self.capture_view(capture, int(asked), fmt)
        if data is None:
            return _text(HTTPStatus.NOT_FOUND, "no such capture\n")
        return Response(
            200,
            "OK",
            Headers(
                {
                    "Content-Type": content_type,
                    "Content-Length": str(len(data)),
                    "Cache-Control": "private, max-age=3600, immutable",
                }
            ),
            data,
        )

    # ---- websocket side ---------------------------------------------------------------------

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        install_log_limits()
        async with serve(
            self._connection,
            self.host,
            self.port,
            process_request=self._process_request,
            select_subprotocol=_select_subprotocol,
            max_size=MAX_WS_FRAME,
            max_queue=16,
            write_limit=self.write_limit,
            compression=None,
            extensions=deflate_extension(),
            ping_interval=None,  # the hub's own keepalive, in slots (KEEPALIVE_SLOTS)
            open_timeout=max(HANDSHAKE_S, self.auth_deadline_s),
            backlog=ACCEPT_BACKLOG,
            close_timeout=SHUTDOWN_CLOSE_S,
            server_header="mobridge",
        ) as server:
            self._server = server
            sock = next(iter(server.sockets))
            self.bound_port = sock.getsockname()[1]
            task_status.started(self.bound_port)
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._keepalive)
                await server.serve_forever()

    async def _connection(self, ws: ServerConnection) -> None:
        path, _, query = ws.request.path.partition("?") if ws.request else ("/v1", "", "")
        other = self.sockets.get(path)
        if other is not None:
            await self._other_socket(ws, other, query)
            return
        fmt = WireFormat.MSGPACK if ws.subprotocol == SUBPROTOCOL_MSGPACK else WireFormat.JSON
        peer = _peer_of(ws)
        sock = ws.transport.get_extra_info("socket") if ws.transport is not None else None
        if sock is not None and self.socket_send_buffer:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.socket_send_buffer)
        session = Session(
            id=f"c{next(self._ids)}{secrets.token_hex(3)}",
            format=fmt,
            event_limit=self.event_limit,
            hard_limit=self.outbound_hard_limit,
            soft_limit=self.outbound_soft_limit,
            peer=peer,
        )
        session.direct = DirectWriter(ws, fmt)
        header_token = bearer(ws.request.headers.get("Authorization")) if ws.request else None
        if header_token is not None:
            session.principal = self.auth.check(header_token)
        self.sessions[session.id] = session
        self._peers[peer] = self._peers.get(peer, 0) + 1
        if session.principal is None:
            session.counted_unauthenticated = True
            self._unauthenticated[peer] = self._unauthenticated.get(peer, 0) + 1
        try:
            with self._kept_alive(ws):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._writer, ws, session)
                    tg.start_soon(self._guard, ws, session, tg.cancel_scope)
                    try:
                        await self._reader(ws, session, fmt, tg)
                    except ConnectionClosed:
                        pass
                    if session.kill_reason is None:
                        tg.cancel_scope.cancel()
                    # else the guard sends the close frame with its reason, then ends the group
        finally:
            session.closed = True
            session.direct = None
            self.sessions.pop(session.id, None)
            _decrement(self._peers, peer)
            self._stop_counting(session)
            with anyio.CancelScope(shield=True):
                await self.handler.session_closed(session)

    async def _other_socket(self, ws: ServerConnection, handler: SocketHandler, query: str) -> None:
        """Authenticate a websocket of another path (module docstring), then serve it."""
        peer = _peer_of(ws)
        self._peers[peer] = self._peers.get(peer, 0) + 1
        sock = ws.transport.get_extra_info("socket") if ws.transport is not None else None
        if sock is not None and self.socket_send_buffer:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.socket_send_buffer)
        waiting = False
        try:
            token = bearer(ws.request.headers.get("Authorization")) if ws.request else None
            principal = self.auth.check(token) if token is not None else None
            if principal is None:
                waiting = True  # counted with the other unauthenticated connections
                self._unauthenticated[peer] = self._unauthenticated.get(peer, 0) + 1
                with anyio.move_on_after(self.auth_deadline_s):
                    first = await ws.recv()
                    try:
                        said = msgspec.json.decode(first, type=dict[str, str])
                    except (msgspec.DecodeError, TypeError):
                        said = {}
                    principal = self.auth.check(said.get("token"))
                waiting = False
                _decrement(self._unauthenticated, peer)
            if principal is None:
                self.closed_by_hub += 1
                await ws.close(1008, 'not authenticated: send {"token": ...} first')
                return
            params = {k: v[-1] for k, v in parse_qs(query).items()}
            with self._kept_alive(ws):
                await handler(ws, principal, params)
        except ConnectionClosed:
            pass
        finally:
            if waiting:
                _decrement(self._unauthenticated, peer)
            _decrement(self._peers, peer)

    @contextlib.contextmanager
    def _kept_alive(self, ws: ServerConnection) -> Iterator[None]:
        """``ws`` in a keepalive slot while the block runs (``KEEPALIVE_SLOTS``)."""
        slot = self._slots[next(self._dealt) % KEEPALIVE_SLOTS]
        slot[ws] = None
        try:
            yield
        finally:
            slot.pop(ws, None)

    async def _keepalive(self) -> None:
        """Visit one slot every ``ping_interval_s`` / ``KEEPALIVE_SLOTS`` seconds, in turn:
        a connection whose last ping is still unanswered (an interval later) is dropped
        (its socket aborted: the peer is gone or stuck), one whose writer is pushing back is
        left for its next turn, every other one is pinged. Runs for the server's life."""
        turn = 0
        while True:
            await anyio.sleep(self.ping_interval_s / KEEPALIVE_SLOTS)
            slot = self._slots[turn]
            turn = (turn + 1) % KEEPALIVE_SLOTS
            for ws, awaited in list(slot.items()):
                if awaited is not None and not awaited.done():
                    self._log("keepalive_timeout", peer=_peer_of(ws))
                    _drop(slot, ws)
                    continue
                if ws.paused or ws.protocol.state is not _OPEN:
                    continue
                try:
                    pong: Any = await ws.ping()  # an asyncio future (typed as an awaitable)
                except ConnectionClosed:
                    continue
                except Exception as exc:  # one connection's fault ends no one else's keepalive
                    self._log("keepalive_failed", peer=_peer_of(ws), error=repr(exc)[:200])
                    _drop(slot, ws)
                    continue
                slot[ws] = pong
                pong.add_done_callback(_settled)  # a closed connection fails it: not an error
                self.pings += 1

    def _stop_counting(self, session: Session) -> None:
        if session.counted_unauthenticated:
            session.counted_unauthenticated = False
            _decrement(self._unauthenticated, session.peer)

    async def _guard(
        self, ws: ServerConnection, session: Session, scope: anyio.CancelScope
    ) -> None:
        """Close the connection when it misses the auth deadline, is killed, or keeps its
        outbound queue above the soft limit for the grace period (event-driven: no tick)."""
        if session.principal is None:
            with anyio.move_on_after(self.auth_deadline_s):
                await session.killed.wait()
            if session.principal is None and session.kill_reason is None:
                session.kill(
                    f"not authenticated within {self.auth_deadline_s:g} s "
                    "(send hello with a token, or an Authorization header)"
                )
        while session.kill_reason is None:
            session.signal = anyio.Event()
            wait = self._overdue(session, time.monotonic())
            if session.kill_reason is not None:
                break
            with anyio.move_on_after(wait):
                await session.signal.wait()
        reason = session.kill_reason or "closed by the hub"
        self._remember_close(session, reason)
        self.closed_by_hub += 1
        self._log("connection_closed_by_hub", session=session.id, peer=session.peer, reason=reason)
        with anyio.move_on_after(CLOSE_WAIT_S):
            await ws.close(1008, reason[:120])
        if ws.transport is not None:
            ws.transport.abort()
        scope.cancel()

    def _overdue(self, session: Session, now: float) -> float:
        """Kill ``session`` if a deadline passed: outbound bytes above the soft limit for the
        grace period, or an overflowed event queue with nothing read for
        ``frozen_subscriber_s``. Otherwise, the seconds until the nearest deadline."""
        wait = float("inf")
        over, full = session.over_since, session.full_since
        if over is not None:
            if now - over >= self.slow_client_grace_s:
                session.kill(
                    f"outbound queue over {self.outbound_soft_limit} bytes for "
                    f"{self.slow_client_grace_s:g} s: the client is not reading"
                )
                return 0.0
            wait = over + self.slow_client_grace_s - now
        if full is not None:
            if now - full >= self.frozen_subscriber_s:
                session.kill(
                    f"not read for {self.frozen_subscriber_s:g} s while its event queue was "
                    "full: the client is not reading (reconnect and subscribe again to resync)"
                )
                return 0.0
            wait = min(wait, full + self.frozen_subscriber_s - now)
        return wait

    def _remember_close(self, session: Session, reason: str) -> None:
        if session.principal is None:
            return
        key = (session.principal.name, session.client_name)
        self.recent_closes.pop(key, None)
        self.recent_closes[key] = (time.monotonic(), reason)
        while len(self.recent_closes) > RECENT_CLOSES:
            self.recent_closes.popitem(last=False)

    def _previous_close(self, session: Session, client_name: str) -> str | None:
        """The reason kept for this principal and client name, once and while recent."""
        if session.principal is None or not self.recent_closes:
            return None
        found = self.recent_closes.pop((session.principal.name, client_name), None)
        if found is None or time.monotonic() - found[0] > RECENT_CLOSE_S:
            return None
        return found[1]

    async def _reader(
        self, ws: ServerConnection, session: Session, fmt: WireFormat, tg: anyio.abc.TaskGroup
    ) -> None:
        bucket = TokenBucket(self.rate_per_s, self.burst)
        inflight = anyio.Semaphore(MAX_INFLIGHT)
        async for frame in ws:
            if session.queued_bytes() >= self.outbound_soft_limit:
                # Backpressure: stop reading this client's requests until its queue drains.
                session.stats.paused += 1
                with anyio.move_on_after(self.slow_client_grace_s):
                    await session.drained(self.outbound_soft_limit // 2)
                if session.queued_bytes() >= self.outbound_soft_limit:
                    session.kill(
                        f"outbound queue over {self.outbound_soft_limit} bytes for "
                        f"{self.slow_client_grace_s:g} s: the client is not reading"
                    )
                if session.closed:
                    break
            session.stats.requests += 1
            if not bucket.allow(time.monotonic()):
                self._protocol_error(
                    session,
                    ProtocolErrorCode.RATE_LIMITED,
                    "too many requests; slow down",
                    read_request_id(frame, fmt),
                )
                continue
            message = CLIENT_TO_HUB.decode(frame, fmt)
            if isinstance(message, DecodeFailure):
                self._protocol_error(session, message.code, message.message, message.request_id)
                continue
            if not self._admit(session, message):
                if session.closed:  # fatal: flush the refusal, then close
                    while session._responses:
                        await ws.send(session._responses.popleft(), text=fmt is WireFormat.JSON)
                    await ws.close(1008, "unauthenticated")
                    break
                continue
            if isinstance(message, Hello):
                session.previous_close = self._previous_close(session, message.client.name)
                await self.handler.handle(session, message)
                continue
            if inflight.value == 0:
                self._protocol_error(
                    session,
                    ProtocolErrorCode.RATE_LIMITED,
                    f"more than {MAX_INFLIGHT} requests in flight",
                    message.id,
                )
                continue
            tg.start_soon(self._run_request, inflight, session, message)

    def _admit(self, session: Session, message: ClientToHub) -> bool:
        """Authentication gate: before a principal is known only ``hello`` is accepted; a
        ``hello`` whose token is wrong is fatal even after header authentication."""
        if session.principal is not None:
            if (
                isinstance(message, Hello)
                and message.token is not None
                and self.auth.check(message.token) is None
            ):
                self._protocol_error(
                    session,
                    ProtocolErrorCode.UNAUTHENTICATED,
                    "hello carries a wrong token",
                    message.id,
                    fatal=True,
                )
                session.closed = True
                return False
            return True
        if isinstance(message, Hello):
            principal = self.auth.check(message.token)
            if principal is None:
                self._protocol_error(
                    session,
                    ProtocolErrorCode.UNAUTHENTICATED,
                    "missing or wrong token",
                    message.id,
                    fatal=True,
                )
                session.closed = True
                return False
            session.principal = principal
            self._stop_counting(session)
            return True
        self._protocol_error(
            session,
            ProtocolErrorCode.UNAUTHENTICATED,
            "send hello with a token (or an Authorization header) first",
            message.id,
        )
        return False

    async def _run_request(
        self, inflight: anyio.Semaphore, session: Session, message: ClientToHub
    ) -> None:
        async with inflight:
            try:
                await self.handler.handle(session, message)
            except Exception as exc:  # the connection survives a handler bug
                self._log("handler_crashed", error=repr(exc), request=type(message).__name__)
                self._protocol_error(
                    session,
                    ProtocolErrorCode.INTERNAL,
                    "internal error while handling the request",
                    message.id,
                )

    def _protocol_error(
        self,
        session: Session,
        code: ProtocolErrorCode,
        message: str,
        request_id: RequestId | None,
        *,
        fatal: bool = False,
    ) -> None:
        session.stats.protocol_errors += 1
        session.respond(ProtocolError(code=code, message=message, id=request_id, fatal=fatal))

    async def _writer(self, ws: ServerConnection, session: Session) -> None:
        try:
            await self._write_loop(ws, session)
        except ConnectionClosed:
            return

    async def _write_loop(self, ws: ServerConnection, session: Session) -> None:
        text = session.format is WireFormat.JSON
        while True:
            await session._wake.wait()
            session._wake = anyio.Event()
            while session._responses or session._events or session._resync:
                if session.closed and session.kill_reason is not None:
                    return
                popped = session._pop()
                if popped is not None:
                    data = popped
                else:
                    stream = session._resync.pop()
                    payload = self.handler.resync(session, stream)
                    if payload is None:
                        continue
                    session.stats.resyncs += 1
                    data = session.encode(payload)
                await ws.send(data, text=text)
                session.full_since = None  # it went out: the client is reading

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


def _drop(slot: dict[ServerConnection, Any], ws: ServerConnection) -> None:
    """Take ``ws`` out of its keepalive slot and abort its socket (its handler then ends and
    cleans up as for any closed connection)."""
    slot.pop(ws, None)
    if ws.transport is not None:
        ws.transport.abort()


def _settled(pong: Any) -> None:
    """Mark a keepalive pong's outcome as seen (asyncio reports a future's exception nobody
    retrieved; a connection that closes fails its awaited pong)."""
    if not pong.cancelled():
        pong.exception()


def _peer_of(connection: ServerConnection) -> str:
    address = connection.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return "?"


def _decrement(table: dict[str, int], key: str) -> None:
    left = table.get(key, 0) - 1
    if left > 0:
        table[key] = left
    else:
        table.pop(key, None)


def _select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """The first known subprotocol the client offers; no offer at all means JSON."""
    for name in offered:
        if name in (SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK):
            return name
    return None


def _text(status: HTTPStatus, body: str) -> Response:
    data = body.encode()
    return Response(
        status.value,
        status.phrase,
        Headers({"Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(data))}),
        data,
    )


def _html(body: bytes) -> Response:
    return Response(
        200,
        "OK",
        Headers(
            {
                "Content-Type": "text/html; charset=utf-8",
                "Content-Length": str(len(body)),
                "X-Content-Type-Options": "nosniff",
                "X-Frame-Options": "DENY",
                "Referrer-Policy": "no-referrer",
                "Cache-Control": "no-store",
            }
        ),
        body,
    )


def _json(status: HTTPStatus, payload: Any) -> Response:
    data = msgspec.json.encode(payload)
    return Response(
        status.value,
        status.phrase,
        Headers({"Content-Type": "application/json", "Content-Length": str(len(data))}),
        data,
    )
