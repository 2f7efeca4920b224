"""Hostile input against the WebDriver endpoint over real sockets (in-process hub and
endpoint on 127.0.0.1): malformed heads, oversized and chunked bodies, broken JSON, unknown
sessions and elements, a connection flood. Each is answered (or the connection closed) and
a session opened before keeps working."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from bridge.webdriver.server import MAX_CONNECTIONS, WebDriverServer
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def endpoint() -> AsyncIterator[int]:
    async with running_hub() as hub, anyio.create_task_group() as tg:
        server = WebDriverServer(hub.url, port=0)
        port = await tg.start(server.run)
        try:
            yield port
        finally:
            tg.cancel_scope.cancel()


async def raw(port: int, data: bytes) -> bytes:
    """Send ``data``; everything the server answers until it closes (or 5 s pass)."""
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(data)
        out = b""
        with anyio.move_on_after(5):
            while True:
                try:
                    out += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
        return out


def request(method: str, path: str, body: Any = None, *, close: bool = True) -> bytes:
    payload = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(payload)}\r\n"
    head += "Connection: close\r\n" if close else ""
    return head.encode() + b"\r\n" + payload


def answer(data: bytes) -> tuple[int, Any]:
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body) if body else None


async def test_hostile_requests_are_answered_and_a_session_keeps_working() -> None:
    with anyio.fail_after(90):
        async with endpoint() as port:
            caps = {"capabilities": {"alwaysMatch": {"mobridge:token": CONTROLLER}}}
            status, created = answer(await raw(port, request("POST", "/session", caps)))
            assert status == 200, created
            sid = created["value"]["sessionId"]

            cases = [
                (b"GARBAGE\r\n\r\n", 400),
                (b"GET / HTTP/1.1\r\n" + b"X: " + b"y" * 20000 + b"\r\n\r\n", 431),
                (b"POST /session HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
                (b"POST /session HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
            ]
            for data, want in cases:
                got = await raw(port, data)
                assert got.startswith(f"HTTP/1.1 {want} ".encode()), got[:80]
            deep = b"[" * 100_000 + b"]" * 100_000
            head = f"POST /session HTTP/1.1\r\nContent-Length: {len(deep)}\r\n"
            head += "Connection: close\r\n\r\n"
            status, body = answer(await raw(port, head.encode() + deep))
            assert (status, body["value"]["error"]) == (400, "invalid argument")
            status, body = answer(await raw(port, request("POST", f"/session/{sid}/element", "x")))
            assert body["value"]["error"] == "invalid argument"
            status, body = answer(await raw(port, request("GET", "/session/nope/source")))
            assert (status, body["value"]["error"]) == (404, "invalid session id")
            path = f"/session/{sid}/element/{'e' * 5000}/click"
            status, body = answer(await raw(port, request("POST", path)))
            assert (status, body["value"]["error"]) == (404, "no such element")
            status, body = answer(
                await raw(port, request("POST", "/session", {"capabilities": {}}))
            )
            assert body["value"]["error"] == "session not created"  # no token: the hub refuses
            bad = {"using": "xpath", "value": "//*[" * 2000}
            status, body = answer(await raw(port, request("POST", f"/session/{sid}/element", bad)))
            assert body["value"]["error"] == "invalid selector"

            # a flood of idle connections beyond the cap: the extra ones are told and closed
            streams = [await anyio.connect_tcp("127.0.0.1", port) for _ in range(MAX_CONNECTIONS)]
            try:
                extra = await raw(port, request("GET", "/status"))
                assert extra.startswith(b"HTTP/1.1 500 ") and b"too many connections" in extra
            finally:
                for stream in streams:
                    await stream.aclose()

            # pipelined requests on one keep-alive connection are answered in order
            both = request("GET", "/status", close=False) + request("GET", f"/session/{sid}/source")
            got = await raw(port, both)
            assert got.count(b"HTTP/1.1 200 ") == 2
            status, source = answer(got[got.rindex(b"HTTP/1.1 200 ") :])
            assert status == 200 and "<hierarchy" in source["value"]
            status, body = answer(await raw(port, request("DELETE", f"/session/{sid}")))
            assert (status, body) == (200, {"value": None})
