"""The agent side of the agent link's opening, shared by every agent the hub process serves
itself (the simulated device, the agentless Android bridge): bearer check on the upgrade and
the hub-hello check. The Java and Swift agents implement the same rules on their platforms.

Rules: the upgrade needs ``Authorization: Bearer <token>`` (401 otherwise, compared in constant
time over fixed-width digests); the first frame must be the hub's ``hello`` within
``HELLO_TIMEOUT_S``, speak ``AGENT_PROTOCOL``, and carry no other token than the agent's.
"""

from __future__ import annotations

import hashlib
import hmac
from http import HTTPStatus

import anyio
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from bridge.wire.agent_link import AGENT_PROTOCOL, AgentHubHello
from bridge.wire.codec import HUB_TO_AGENT

HELLO_TIMEOUT_S = 10.0


def tokens_equal(given: str, expected: str) -> bool:
    def digest(text: str) -> bytes:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()

    return hmac.compare_digest(digest(given), digest(expected))


def refuse_unless_bearer(
    connection: ServerConnection, request: Request, token: str, realm: str
) -> Response | None:
    """None when the upgrade carries the right bearer token; else a 401 response to send."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and tokens_equal(given.strip(), token):
        return None
    response = connection.respond(HTTPStatus.UNAUTHORIZED, "missing or wrong bearer token\n")
    response.headers["WWW-Authenticate"] = f'Bearer realm="{realm}"'
    return response


async def check_hub_hello(ws: ServerConnection, token: str) -> tuple[int, str] | None:
    """Read and check the hub's hello: None when accepted (the caller then answers with its
    ``AgentHello``), else the close code and reason the caller must close the link with."""
    first: str | bytes | None = None
    with anyio.move_on_after(HELLO_TIMEOUT_S):
        first = await ws.recv()
    if first is None:
        return 1008, f"no hello within {HELLO_TIMEOUT_S:.0f} s"
    message = HUB_TO_AGENT.decode(first)
    if not isinstance(message, AgentHubHello):
        return 1002, "the first message must be the hub's hello"
    if message.protocol != AGENT_PROTOCOL:
        return 1002, (
            f"unsupported agent protocol {message.protocol}; this agent speaks {AGENT_PROTOCOL}"
        )
    if message.token is not None and not tokens_equal(message.token, token):
        return 1008, "the token in hello does not match"
    return None
