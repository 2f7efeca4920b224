"""Real parts for the MCP tests: a hub in this process (simulated device, 127.0.0.1), and
``mobridge mcp`` as a real subprocess reached with the MCP SDK's own clients (stdio and
streamable HTTP). Nothing of the SDK is mocked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.session import ElicitationFnT
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-value-for-mcp"


@dataclass
class Recorder:
    """Every notification the client received, with its arrival time (time.monotonic)."""

    notifications: list[tuple[float, Any]] = field(default_factory=list)

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            self.notifications.append((time.monotonic(), message.root))

    def updated(self, uri: str) -> list[float]:
        return [
            at
            for at, n in self.notifications
            if isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri
        ]


@dataclass
class McpClient:
    session: ClientSession
    recorder: Recorder
    tools: dict[str, types.Tool] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    async def call(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
        """Call a tool; counts the calls; a result must carry text for the model."""
        result = await self.session.call_tool(name, arguments or {}, **kw)
        self.calls.append(name)
        assert result.content and result.content[0].type == "text"
        return result


def server_env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


@asynccontextmanager
async def stdio_mcp(
    hub_url: str,
    token: str,
    *,
    name: str = "agent-a",
    version: str = "1.0",
    elicitation: ElicitationFnT | None = None,
    kind: str = "agent",
) -> AsyncIterator[McpClient]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bridge.cli", "mcp", "--url", hub_url, "--token", token, "--kind", kind],
        env=server_env(),
        cwd=str(ROOT),
    )
    recorder = Recorder()
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - /dev/null never blocks
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(
                read,
                write,
                client_info=types.Implementation(name=name, version=version),
                message_handler=recorder,
                elicitation_callback=elicitation,
            ) as session:
                await session.initialize()
                client = McpClient(session, recorder)
                client.tools = {t.name: t for t in (await session.list_tools()).tools}
                yield client


@contextmanager
def http_server(hub_url: str) -> Iterator[str]:
    """``mobridge mcp --http --port 0`` as a subprocess; yields its /mcp URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "mcp", "--http", "--port", "0", "--url", hub_url],
        cwd=ROOT,
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            hit = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
            if hit:
                found.append(hit.group(1))
                break
        for _ in process.stderr:  # keep the pipe drained
            pass

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 30
    while not found and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    try:
        assert found, "mobridge mcp --http did not print its URL within 30 s"
        yield found[0]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@asynccontextmanager
async def http_mcp(
    url: str, token: str, *, name: str = "agent-b", version: str = "2.0"
) -> AsyncIterator[McpClient]:
    recorder = Recorder()
    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx.Timeout(30.0, read=300.0)
    async with (
        httpx.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
    ):
        async with ClientSession(
            read,
            write,
            client_info=types.Implementation(name=name, version=version),
            message_handler=recorder,
        ) as session:
            await session.initialize()
            client = McpClient(session, recorder)
            client.tools = {t.name: t for t in (await session.list_tools()).tools}
            yield client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def handle_in(outline: str, needle: str) -> str:
    """The handle on the outline line that contains ``needle``."""
    for line in outline.splitlines():
        if needle in line:
            return line.split()[0]
    raise AssertionError(f"{needle!r} not in the outline:\n{outline}")
