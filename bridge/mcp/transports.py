"""Running the MCP server: stdio (what desktop agents spawn) and streamable HTTP.

Streamable HTTP rules:

- bound to 127.0.0.1 only (the brief: loopback unless told otherwise; this server is never
  told otherwise), at ``/mcp``; Host and Origin headers are checked against loopback names
  (DNS rebinding protection);
- every request needs ``Authorization: Bearer <token>`` with a token the hub accepts: the
  token is checked by opening a session at the hub with it (``HubTokenVerifier``, results
  cached for ``TOKEN_CACHE_S`` by digest, bounded), so the hub's own tokens and roles guard
  the MCP server without a second list of secrets. Each MCP session then talks to the hub
  with its caller's token, so an observer token gives an observer hub session (acting is
  refused by the hub), and an MCP session can only be continued with the token that opened
  it (the SDK's session manager checks it).
"""

from __future__ import annotations

import hashlib
import socket
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bridge.client import ClientError, ProtocolFailure, connect
from bridge.mcp.server import build_server, initialization_options
from bridge.mcp.session import HubTarget
from bridge.mcp.stdio import pipe_stdio

HTTP_HOST = "127.0.0.1"
MCP_PATH = "/mcp"
TOKEN_CACHE_S = 60.0
TOKEN_CACHE_SIZE = 256
MAX_HTTP_SESSIONS = 64


async def serve_stdio(target: HubTarget) -> None:
    """Serve one MCP session over this process's stdin/stdout until the client closes it
    (``bridge.mcp.stdio``: on the event loop's own pipes where it can, else the SDK's
    thread-backed transport)."""
    server = build_server(target)
    async with pipe_stdio() as streams:
        if streams is not None:
            await server.run(streams[0], streams[1], initialization_options(server))
            return
    async with stdio_server() as (read, write):
        await server.run(read, write, initialization_options(server))


class HubTokenVerifier:
    """Accepts a bearer token when the hub does; the granted role becomes the only scope."""

    def __init__(self, hub_url: str, clock: Callable[[], float] = anyio.current_time) -> None:
        self.hub_url = hub_url
        self._clock = clock
        self._cache: OrderedDict[str, tuple[float, AccessToken]] = OrderedDict()

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = self._clock()
        cached = self._cache.get(digest)
        if cached is not None and now - cached[0] < TOKEN_CACHE_S:
            return cached[1]
        try:
            async with connect(self.hub_url, token=token, name="mobridge-mcp token check") as hub:
                role = hub.session.role if hub.session else "observer"
        except ProtocolFailure:
            return None
        except ClientError:
            return None
        access = AccessToken(token=token, client_id=f"hub-token-{digest[:12]}", scopes=[role])
        self._cache[digest] = (now, access)
        self._cache.move_to_end(digest)
        while len(self._cache) > TOKEN_CACHE_SIZE:
            self._cache.popitem(last=False)
        return access


def http_app(target: HubTarget, port: int) -> Starlette:
    server = build_server(HubTarget(target.url, None, target.request_timeout))
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}"],
        allowed_origins=[f"http://127.0.0.1:{port}", f"http://localhost:{port}"],
    )
    manager = StreamableHTTPSessionManager(
        app=server, security_settings=security, max_sessions=MAX_HTTP_SESSIONS
    )

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await manager.handle_request(scope, receive, send)

    guarded: Any = RequireAuthMiddleware(endpoint, required_scopes=[])
    return Starlette(
        routes=[Route(MCP_PATH, endpoint=guarded)],
        middleware=[
            Middleware(
                AuthenticationMiddleware, backend=BearerAuthBackend(HubTokenVerifier(target.url))
            ),
            Middleware(AuthContextMiddleware),
        ],
        lifespan=lambda _app: manager.run(),
    )


def bind_loopback(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HTTP_HOST, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve_http(
    target: HubTarget,
    port: int = 0,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve streamable HTTP on 127.0.0.1:``port`` (0: any free port; the bound port is
    reported through ``task_status``) until cancelled."""
    import uvicorn

    sock = bind_loopback(port)
    bound = sock.getsockname()[1]
    app = http_app(target, bound)
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)

    async def serve() -> None:
        with anyio.CancelScope(shield=True):  # shut down gracefully, see below
            await server.serve(sockets=[sock])

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            task_status.started(bound)
            try:
                await anyio.sleep_forever()
            finally:
                server.should_exit = True
    finally:
        sock.close()
