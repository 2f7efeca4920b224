"""The stdio transport on the event loop's own pipes: each JSON-RPC line is read and written
by the loop (no worker thread per line, as the SDK's file-based transport needs), which is
most of what the MCP layer adds to an action's round trip.

Rules:

- used only under asyncio with stdin and stdout being pipes or sockets that stderr does not
  share (the loop makes them non-blocking; ``pipe_stdio`` yields ``None`` otherwise — a
  terminal, a file, ``2>&1`` — and the caller uses the SDK's transport);
- one line is one message, at most ``MAX_LINE`` bytes: a longer line ends the session (the
  input is hostile or broken; nothing is buffered beyond the bound);
- a line that is not a JSON-RPC message is handed to the session as the exception (the SDK
  answers it), like the SDK's own transport;
- written messages are flushed in order; leaving the context closes both streams.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

MAX_LINE = 8 * 1024 * 1024

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


def _own_pipe(fd: int, *others: int) -> bool:
    """A pipe or socket that no other standard stream shares: the loop makes the open file
    non-blocking, which must not reach stderr (a terminal or ``2>&1``)."""
    try:
        st = os.fstat(fd)
        shared = {(o.st_dev, o.st_ino) for o in map(os.fstat, others)}
    except OSError:
        return False
    if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)):
        return False
    return (st.st_dev, st.st_ino) not in shared


@asynccontextmanager
async def pipe_stdio() -> AsyncIterator[Streams | None]:
    """The session's (read, write) streams over stdin/stdout, or ``None`` when the loop
    cannot own them (see the module's rules)."""
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio)
        loop = None
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    stderr = sys.stderr.fileno()
    if loop is None or not (_own_pipe(stdin, stderr) and _own_pipe(stdout, stderr)):
        yield None
        return
    reader = asyncio.StreamReader(limit=MAX_LINE, loop=loop)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop),
        os.fdopen(os.dup(stdin), "rb", buffering=0),
    )
    write_transport, write_protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(os.dup(stdout), "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, reader, loop)
    incoming, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outgoing = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_lines() -> None:
        async with incoming:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError, ConnectionError):
                    return  # over MAX_LINE, or the pipe broke: end the session
                if not line:
                    return
                if not line.strip():
                    continue
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except Exception as exc:  # handed to the session, as the SDK does
                    await incoming.send(exc)
                    continue
                await incoming.send(SessionMessage(message))

    async def write_lines() -> None:
        async with outgoing:
            async for item in outgoing:
                data = item.message.model_dump_json(by_alias=True, exclude_none=True)
                writer.write(data.encode() + b"\n")
                try:
                    await writer.drain()
                except ConnectionError:
                    return

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_lines)
            tg.start_soon(write_lines)
            try:
                yield read_stream, write_stream
            finally:
                tg.cancel_scope.cancel()
    finally:
        read_transport.close()
        write_transport.close()
