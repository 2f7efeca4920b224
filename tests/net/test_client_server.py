"""The subscriber server over real sockets: bounded queues, resync of a frozen reader, HTTP
endpoints and auth. A minimal in-test handler stands in for the hub (this tests ``net``)."""

from __future__ import annotations

import base64
import json
import os
import socket
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.net.auth import Authenticator, Principal, bearer
from bridge.net.client_server import ClientServer, Session
from bridge.wire.client_protocol import ClientToHub, Hello, HelloResult, ResultMessage

pytestmark = pytest.mark.anyio
TOKEN = "t" * 20


class EchoHandler:
    """Answers hello; ``resync`` returns a marker object carrying how often it was asked."""

    def __init__(self) -> None:
        self.sessions: list[Session] = []
        self.resyncs = 0

    async def handle(self, session: Session, request: ClientToHub) -> None:
        if isinstance(request, Hello):
            session.client_name = request.client.name
            self.sessions.append(session)
            session.streams.add("dev:compact")
            session.respond(
                ResultMessage(
                    id=request.id,
                    result=HelloResult(
                        protocol="mobridge.v1", session=session.id, role="observer", hub="test"
                    ),
                )
            )

    async def session_closed(self, session: Session) -> None:
        pass

    def resync(self, session: Session, stream: str) -> Any:
        self.resyncs += 1
        return {"type": "snapshot", "subscription": stream, "resync": self.resyncs}

    def health(self) -> dict[str, Any]:
        return {"status": "ok"}

    def statistics(self) -> dict[str, Any]:
        return {"sessions": len(self.sessions)}

    def capture(self, capture_id: str) -> bytes | None:
        return b"\x89PNG\r\n\x1a\nfake" if capture_id == "cap_1" else None


async def _serve(handler: EchoHandler, **kw: Any) -> tuple[ClientServer, anyio.abc.TaskGroup, int]:
    server = ClientServer(
        handler, Authenticator({TOKEN: Principal("observer", "o")}), host="127.0.0.1", port=0, **kw
    )
    tg = anyio.create_task_group()
    await tg.__aenter__()
    port = await tg.start(server.serve)
    return server, tg, port


def _masked_text_frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    header = bytes([0x81])
    n = len(payload)
    header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _raw_client(port: int) -> socket.socket:
    """A websocket client at the byte level that will never read after its hello: the only
    way to be truly frozen (client libraries keep reading into their own memory)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /v1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(_masked_text_frame(b'{"type":"hello","id":1,"client":{"name":"frozen"}}'))
    return sock


def _drain(sock: socket.socket, until: bytes, limit_s: float) -> bytes:
    """Read (now that the client 'resumes') until ``until`` appears in the stream."""
    sock.settimeout(limit_s)
    seen = b""
    while until not in seen[-65536:]:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        seen = seen[-65536:] + chunk
    return seen


async def test_frozen_reader_is_bounded_and_resynced_when_it_resumes() -> None:
    handler = EchoHandler()
    _server, tg, port = await _serve(handler, event_limit=8, write_limit=1024)
    try:
        frozen = await anyio.to_thread.run_sync(_raw_client, port)
        async with ws_connect(
            f"ws://127.0.0.1:{port}/v1", additional_headers={"Authorization": f"Bearer {TOKEN}"}
        ) as lively:
            await lively.send(json.dumps({"type": "hello", "id": 1, "client": {"name": "l"}}))
            assert json.loads(await lively.recv())["type"] == "result"
            with anyio.fail_after(5):
                while len(handler.sessions) < 2:
                    await anyio.sleep(0.01)
            by_name = {s.client_name: s for s in handler.sessions}
            frozen_session, lively_session = by_name["frozen"], by_name["l"]
            payload = b'{"type":"delta","pad":"' + b"x" * 8000 + b'"}'
            received = 0
            for _ in range(1500):  # 12 MB: more than any kernel buffer will hold
                frozen_session.push_event("dev:compact", payload)
                lively_session.push_event("dev:compact", payload)
                await anyio.lowlevel.checkpoint()
                assert frozen_session.queue_depth() <= 8  # bounded, whatever the reader does
                while received < 1500:
                    with anyio.move_on_after(0):
                        await lively.recv()
                        received += 1
                        continue
                    break
            with anyio.fail_after(10):
                while received < 1500:
                    await lively.recv()
                    received += 1
            assert lively_session.stats.events_dropped == 0
            assert frozen_session.stats.events_dropped > 0
            # the frozen reader resumes: it drains its backlog, then gets a snapshot resync
            tail = await anyio.to_thread.run_sync(_drain, frozen, b'"resync"', 20.0)
            assert b'"resync"' in tail
            assert frozen_session.stats.resyncs >= 1
            frozen.close()
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_http_endpoints_and_auth() -> None:
    handler = EchoHandler()
    _server, tg, port = await _serve(handler)

    async def get(path: str, token: str | None = None) -> tuple[int, bytes]:
        stream = await anyio.connect_tcp("127.0.0.1", port)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        await stream.send(
            f"GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n".encode()
        )
        data = b""
        with anyio.fail_after(5):
            try:
                while True:
                    data += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                pass
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split()[1]), body

    try:
        assert (await get("/healthz"))[0] == 200
        assert (await get("/healthz", "wrong"))[0] == 401
        assert (await get("/healthz", TOKEN))[0] == 200
        assert (await get("/v1/stats"))[0] == 401
        status, body = await get("/v1/stats", TOKEN)
        assert status == 200 and json.loads(body) == {"sessions": 0}
        status, body = await get("/v1/captures/cap_1.png", TOKEN)
        assert status == 200 and body.startswith(b"\x89PNG")
        assert (await get("/v1/captures/cap_2.png", TOKEN))[0] == 404
        assert (await get("/v1/captures/cap_1.png"))[0] == 401
        with pytest.raises(Exception, match="403"):
            async with ws_connect(
                f"ws://127.0.0.1:{port}/v1",
                origin="http://evil.example",  # type: ignore[arg-type]
            ):
                pass
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


def test_bearer_parsing_and_constant_time_table() -> None:
    assert bearer("Bearer abc") == "abc"
    assert bearer("bearer  abc ") == "abc"
    assert bearer("Basic abc") is None
    assert bearer("Bearer ") is None
    auth = Authenticator(
        {"a" * 10: Principal("controller", "c"), "b" * 10: Principal("observer", "o")}
    )
    assert auth.check("a" * 10) == Principal("controller", "c")
    assert auth.check("b" * 10) == Principal("observer", "o")
    assert auth.check("c" * 10) is None
    assert auth.check(None) is None
    assert Authenticator({}, allow_anonymous=True).check(None) is not None


async def test_a_frozen_subscriber_is_closed_after_the_set_time_and_hears_why_on_reconnect() -> (
    None
):
    handler = EchoHandler()
    server, tg, port = await _serve(
        handler, event_limit=8, write_limit=1024, socket_send_buffer=4096, frozen_subscriber_s=0.5
    )
    try:
        frozen = await anyio.to_thread.run_sync(_raw_client, port)
        with anyio.fail_after(5):
            while not handler.sessions:
                await anyio.sleep(0.01)
        session = handler.sessions[0]
        payload = b'{"type":"delta","pad":"' + b"x" * 8000 + b'"}'
        with anyio.fail_after(10):
            while session.full_since is None:  # the kernel buffers fill, then the queue
                session.push_event("dev:compact", payload)
                await anyio.sleep(0.001)
        overflowed = anyio.current_time()
        with anyio.fail_after(5):
            while session.kill_reason is None:
                session.push_event("dev:compact", payload)  # still not read
                await anyio.sleep(0.01)
        closed_after = anyio.current_time() - overflowed
        assert 0.4 <= closed_after < 3, closed_after
        assert session.kill_reason is not None and "not read for 0.5 s" in session.kill_reason
        assert server.closed_by_hub == 1
        frozen.close()
        # The same principal and client name connect again: hello says why, once.
        for expected in (True, False):
            async with ws_connect(
                f"ws://127.0.0.1:{port}/v1",
                additional_headers={"Authorization": f"Bearer {TOKEN}"},
            ) as again:
                await again.send(
                    json.dumps({"type": "hello", "id": 1, "client": {"name": "frozen"}})
                )
                assert json.loads(await again.recv())["type"] == "result"
                told = handler.sessions[-1].previous_close
                if expected:
                    assert told is not None and "event queue was full" in told
                else:
                    assert told is None
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)


async def test_a_slow_but_reading_subscriber_is_not_closed() -> None:
    handler = EchoHandler()
    server, tg, port = await _serve(
        handler, event_limit=4, write_limit=1024, socket_send_buffer=4096, frozen_subscriber_s=0.3
    )
    try:
        async with ws_connect(
            f"ws://127.0.0.1:{port}/v1",
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
            max_queue=1,
        ) as slow:
            await slow.send(json.dumps({"type": "hello", "id": 1, "client": {"name": "s"}}))
            assert json.loads(await slow.recv())["type"] == "result"
            session = handler.sessions[0]
            payload = b'{"type":"delta","pad":"' + b"x" * 8000 + b'"}'
            end = anyio.current_time() + 2.0  # well past frozen_subscriber_s, overflowing

            async def produce() -> None:
                while anyio.current_time() < end:
                    for _ in range(20):
                        session.push_event("dev:compact", payload)
                    await anyio.sleep(0.01)

            async with anyio.create_task_group() as producers:
                producers.start_soon(produce)
                while anyio.current_time() < end:
                    await slow.recv()  # slowly, but it reads
                    await anyio.sleep(0.02)
            assert session.stats.events_dropped > 0
            assert session.id in server.sessions and session.kill_reason is None
    finally:
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)
