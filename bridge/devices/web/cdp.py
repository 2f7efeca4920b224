"""A thin typed Chrome DevTools Protocol client on websockets + msgspec.

``CdpClient.connect(url)`` opens one websocket to a page target (``ws://127.0.0.1:…``);
``query(method, params, result_type)`` sends one command and waits for its answer, decoded
into ``result_type`` (a struct of ``bridge.wire.cdp``; ``call`` when the answer is not
read); every event goes to ``on_event(method, params_raw)``, which must not block (it
runs on the reader task).

Why not a package: docs/design.md ("Web content"): the maintained Python CDP packages are
either unmaintained since 2020-2023 (``chrome-devtools-protocol``, ``pycdp``, ``pychrome``)
or Playwright's CDP session, which runs a Node driver process and costs several times this
client's round trip (``scripts/bench --only web``). The hub uses a dozen commands; typed
structs for their results are ~150 lines.

Invariants: loopback URLs only (``ws://127.0.0.1``, ``ws://localhost``, ``ws://[::1]``);
frames are capped (``MAX_FRAME``); at most ``MAX_PENDING`` commands wait at once; a command
waits at most its timeout (capped at ``MAX_TIMEOUT_S``); the reader's end (browser gone)
fails every waiting command with ``CdpClosed``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.abc
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

MAX_FRAME = 64 << 20
"""A 5,000-element page's AX tree is ~3 MB; DOM snapshots of big pages reach tens of MB."""
MAX_PENDING = 64
MAX_TIMEOUT_S = 30.0
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

T = TypeVar("T")


class CdpError(Exception):
    """The browser answered a command with an error."""

    def __init__(self, method: str, code: int, message: str) -> None:
        super().__init__(f"{method}: {message} ({code})")
        self.code = code


class CdpClosed(Exception):
    """The connection to the page ended."""


class _Error(msgspec.Struct, frozen=True):
    code: int = 0
    message: str = ""


class _Incoming(msgspec.Struct, frozen=True):
    id: int | None = None
    method: str | None = None
    result: msgspec.Raw = msgspec.Raw()
    error: _Error | None = None
    params: msgspec.Raw = msgspec.Raw()
    sessionId: str | None = None


_DECODER = msgspec.json.Decoder(_Incoming)
_ENCODER = msgspec.json.Encoder()


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname
    return host is not None and (host in LOOPBACK or host.startswith("127."))


class CdpClient:
    """One websocket to one DevTools target."""

    def __init__(
        self, ws: ClientConnection, on_event: Callable[[str, msgspec.Raw], None] | None
    ) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[anyio.Event, list[_Incoming]]] = {}
        self.on_event = on_event
        self.closed = False
        self.sent = 0
        self.received = 0

    @classmethod
    async def connect(
        cls,
        url: str,
        on_event: Callable[[str, msgspec.Raw], None] | None = None,
        *,
        timeout_s: float = 10.0,
    ) -> CdpClient:
        """Open ``url`` (a loopback DevTools websocket). The caller must run ``serve`` in a
        task group next, and ``close`` when done."""
        if not is_loopback(url):
            raise ValueError(f"refusing a non-loopback DevTools URL: {url[:200]}")
        with anyio.fail_after(min(timeout_s, MAX_TIMEOUT_S)):
            ws = await connect(
                url, max_size=MAX_FRAME, compression=None, ping_interval=None, open_timeout=None
            )
        return cls(ws, on_event)

    async def serve(self) -> None:
        """Read answers and events until the connection ends."""
        try:
            async for frame in self._ws:
                self.received += 1
                try:
                    message = _DECODER.decode(frame)
                except msgspec.DecodeError:
                    continue
                if message.id is not None:
                    waiting = self._pending.pop(message.id, None)
                    if waiting is not None:
                        waiting[1].append(message)
                        waiting[0].set()
                elif message.method is not None and self.on_event is not None:
                    self.on_event(message.method, message.params)
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            for event, _ in self._pending.values():
                event.set()
            self._pending.clear()

    async def call_raw(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = 10.0,
        session: str | None = None,
    ) -> msgspec.Raw:
        """Send one command (``session``: to a target attached with ``flatten``, e.g. a
        frame another process renders); its ``result`` undecoded. Raises ``CdpError``,
        ``CdpClosed``, ``TimeoutError``."""
        if self.closed:
            raise CdpClosed(f"{method}: the page connection is closed")
        if len(self._pending) >= MAX_PENDING:
            raise CdpError(method, -1, f"more than {MAX_PENDING} commands waiting")
        cid = next(self._ids)
        done = anyio.Event()
        box: list[_Incoming] = []
        self._pending[cid] = (done, box)
        try:
            payload: dict[str, Any] = {"id": cid, "method": method, "params": params or {}}
            if session is not None:
                payload["sessionId"] = session
            await self._ws.send(_ENCODER.encode(payload).decode())
            self.sent += 1
            with anyio.fail_after(min(timeout_s, MAX_TIMEOUT_S)):
                await done.wait()
        except ConnectionClosed as exc:
            raise CdpClosed(f"{method}: the page connection closed") from exc
        finally:
            self._pending.pop(cid, None)
        if not box:
            raise CdpClosed(f"{method}: the page connection closed")
        answer = box[0]
        if answer.error is not None:
            raise CdpError(method, answer.error.code, answer.error.message[:300])
        return answer.result if answer.result else msgspec.Raw(b"{}")

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = 10.0,
        session: str | None = None,
    ) -> None:
        """``call_raw`` whose result is not read."""
        await self.call_raw(method, params, timeout_s=timeout_s, session=session)

    async def query(
        self,
        method: str,
        params: dict[str, Any] | None,
        result_type: type[T],
        *,
        timeout_s: float = 10.0,
        session: str | None = None,
    ) -> T:
        """``call_raw`` decoded into ``result_type`` (a struct of ``bridge.wire.cdp``)."""
        raw = await self.call_raw(method, params, timeout_s=timeout_s, session=session)
        try:
            return msgspec.json.decode(raw, type=result_type)
        except msgspec.ValidationError as exc:
            raise CdpError(method, -2, f"unexpected result shape: {exc}") from exc

    async def close(self) -> None:
        self.closed = True
        await self._ws.close()
