"""A blocking session with a hub over a plain socket, for a short-lived command.

``mobridge devices``, ``screen``, ``tap`` and the like open a session, send one or a few
requests one after the other and leave. ``connect`` does that with asyncio, anyio and the
websockets library, whose imports cost a command most of its run; ``open_session`` speaks the
same protocol (RFC 6455 client side, protocol/README.md §2) with ``socket`` alone.

Rules:

- Only ``ws://`` URLs (``supports``); a caller falls back to ``connect`` for ``wss://``.
- One request at a time: ``call`` sends it, then reads frames until the answer carrying its
  id; events and answers to other ids are skipped. No subscriptions (``subscribe`` raises):
  a command that watches uses ``connect``.
- The methods are ``async def`` so ``Device`` and a command's plan run unchanged on this
  session (it implements ``HubCalls``), but none ever suspends: ``run_blocking`` drives such a
  coroutine to its end without an event loop, and fails loudly if one does suspend.
- Same errors, same words as ``connect`` / ``HubConnection``: ``ConnectionFailed`` when the
  socket or the handshake fails, ``ProtocolFailure`` for HTTP 401/403 and ``protocol_error``,
  ``HubError`` subclasses for ``error``, ``RequestTimeout`` after a request's deadline (a
  cancellable request is then cancelled at the hub), ``ConnectionLost`` when the hub closes.
- Bounded: the handshake answer is capped at ``MAX_HANDSHAKE`` bytes, a message at the
  client codec's ``MAX_AGENT_FRAME``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import struct
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args
from urllib.parse import urlsplit

import msgspec

from bridge.client.device import Device
from bridge.client.errors import (
    START_HINT,
    ClientError,
    ConnectionFailed,
    ConnectionLost,
    ProtocolFailure,
    RequestTimeout,
    hub_error,
)
from bridge.client.local_hub import hub_token, hub_url
from bridge.client.screenshot import fetch_capture_blocking
from bridge.wire.client_protocol import (
    PROTOCOL_VERSION,
    RESULT_TYPES,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    Cancel,
    ClientInfo,
    ClientToHub,
    DevicesList,
    DevicesListResult,
    DeviceSummary,
    ErrorMessage,
    Hello,
    HelloResult,
    HubToClient,
    ProtocolError,
    RequestId,
    ResultMessage,
    ScreenshotResult,
    SubscribeResult,
)
from bridge.wire.codec import MAX_AGENT_FRAME, Codec, DecodeFailure, WireFormat, convert
from bridge.wire.codec import encode as encode_message
from bridge.wire.enums import ProtocolErrorCode

if TYPE_CHECKING:
    from bridge.client.channels import Channel, SubscriptionEvent
    from bridge.wire.device_media import LogsEvent, LogsSubscribe, LogsSubscribeResult

T = TypeVar("T")

MAX_HANDSHAKE = 16 << 10
CANCELLABLE = frozenset({"wait", "screenshot", "apps.list", "devices.acquire"})
"""Requests the hub is told to drop when their answer comes too late (this session and
``connect``'s both use this set)."""
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_ANSWERS = ("result", "error", "protocol_error")
_EVENTS = frozenset(
    str(kind.__struct_config__.tag)
    for kind in get_args(HubToClient)
    if kind.__struct_config__.tag not in _ANSWERS
)


class _Head(msgspec.Struct):
    type: str | None = None
    id: RequestId | None = None


_HEAD = (msgspec.json.Decoder(_Head), msgspec.msgpack.Decoder(_Head))
ANSWER: Codec[ResultMessage | ErrorMessage | ProtocolError] = Codec(
    ResultMessage | ErrorMessage | ProtocolError, MAX_AGENT_FRAME
)
"""The answers a one-shot session reads; events are recognised by their ``type`` alone and
skipped, so building this decoder does not walk every event type (``HUB_TO_CLIENT`` does)."""
_TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def supports(url: str) -> bool:
    """Whether ``open_session`` can reach ``url`` (plain ``ws://``; TLS needs ``connect``)."""
    return urlsplit(url).scheme == "ws"


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (one using only this module's session) to its end,
    without an event loop. Raises ``RuntimeError`` when it suspends after all."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    coroutine.close()
    raise RuntimeError("a one-shot command awaited an event loop; run it with connect()")


def _mask(data: bytes, key: bytes) -> bytes:
    if not data:
        return data
    n = len(data)
    pad = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(n, "big")


def _handshake_failure(url: str, exc: OSError) -> ConnectionFailed:
    if isinstance(exc, ConnectionRefusedError):
        return ConnectionFailed(f"no hub at {url} (connection refused); {START_HINT}")
    if isinstance(exc, TimeoutError):
        return ConnectionFailed(f"no answer from {url} (timed out opening the connection)")
    return ConnectionFailed(f"cannot reach {url}: {exc.strerror or exc}; {START_HINT}")


class OneShotSession:
    """An open, greeted session on a blocking socket. Obtain one from ``open_session``."""

    def __init__(
        self,
        sock: socket.socket,
        fmt: WireFormat,
        url: str,
        token: str | None,
        request_timeout: float,
        buffered: bytes,
    ) -> None:
        self._sock = sock
        self._buffer = bytearray(buffered)
        self.format = fmt
        self.url = url
        self.token = token
        self.request_timeout = request_timeout
        self.session: HelloResult | None = None
        self.last_protocol_error: ProtocolError | None = None
        self._next = 0
        self._closed: str | None = None

    # ---- HubCalls --------------------------------------------------------------------------

    @property
    def closed_reason(self) -> str | None:
        return self._closed

    def next_id(self) -> int:
        self._next += 1
        return self._next

    async def call(self, message: ClientToHub, kind: type[T], deadline: float | None = None) -> T:
        """Send ``message`` and return its typed result (or raise what the hub answered)."""
        value = self.request(message, deadline)
        if not isinstance(value, kind):  # pragma: no cover - RESULT_TYPES guarantees it
            raise ProtocolFailure(ProtocolErrorCode.INTERNAL, f"unexpected result {value!r}")
        return value

    async def fetch_screenshot(self, result: ScreenshotResult) -> bytes:
        return fetch_capture_blocking(self.url, self.token, result)

    async def subscribe(
        self, device: str, compact: bool, settled: bool = False, patches: bool = True
    ) -> tuple[SubscribeResult, Channel[SubscriptionEvent]]:
        raise ClientError("a one-shot session cannot subscribe; use bridge.client.connect")

    async def unsubscribe(self, subscription: str) -> None:
        raise ClientError("a one-shot session has no subscriptions")

    async def subscribe_logs(
        self, message: LogsSubscribe
    ) -> tuple[LogsSubscribeResult, Channel[LogsEvent]]:
        raise ClientError("a one-shot session cannot stream logs; use bridge.client.connect")

    async def unsubscribe_logs(self, subscription: str) -> None:
        raise ClientError("a one-shot session has no log subscriptions")

    # ---- what a command asks -----------------------------------------------------------------

    async def devices(self) -> tuple[DeviceSummary, ...]:
        result = await self.call(DevicesList(id=self.next_id()), DevicesListResult)
        return result.devices

    def device(self, device_id: str) -> Device:
        """A handle on one device (no round trip; the hub checks the id on first use)."""
        return Device(self, device_id)

    # ---- the exchange ------------------------------------------------------------------------

    def request(self, message: ClientToHub, deadline: float | None = None) -> Any:
        """Send ``message``; block until its answer or its deadline."""
        if self._closed is not None:
            raise ConnectionLost(self._closed)
        tag = type(message).__struct_config__.tag
        kind = tag if isinstance(tag, str) else "?"
        seconds = self.request_timeout if deadline is None else deadline
        until = time.monotonic() + seconds
        try:
            self._send(encode_message(message, self.format))
            while True:
                answer = self._answer_to(message.id, kind, self._receive(until))
                if answer is not None:
                    return answer[0]
        except TimeoutError:
            if kind in CANCELLABLE:
                self._cancel_quietly(message.id)
            raise RequestTimeout(f"no answer to {kind} #{message.id} within {seconds}s") from None

    def _answer_to(self, rid: RequestId, kind: str, frame: bytes) -> tuple[Any] | None:
        """``(result,)`` when ``frame`` answers request ``rid``; raises its error; None for
        anything else (an event, an answer to another id)."""
        try:
            head = _HEAD[self.format is not WireFormat.JSON].decode(frame)
        except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
            head = _Head()  # unreadable: the full decoder says why
        if head.type in _EVENTS:
            return None  # an event: not what this session waits for
        if head.type != "protocol_error" and head.id is not None and head.id != rid:
            return None  # an answer to another request
        message = ANSWER.decode(frame, self.format)
        match message:
            case DecodeFailure(code=code, message=text, request_id=got) if got == rid:
                raise ProtocolFailure(code, f"unreadable hub message: {text}")
            case ResultMessage(id=got, result=body) if got == rid:
                try:
                    return (convert(body, RESULT_TYPES[kind]),)
                except msgspec.ValidationError as exc:
                    raise ProtocolFailure(
                        ProtocolErrorCode.INVALID_PARAMS, f"the hub's {kind} result: {exc}"
                    ) from None
            case ErrorMessage(id=got, error=envelope, objection=objection) if got == rid:
                raise hub_error(envelope, objection)
            case ProtocolError():
                self.last_protocol_error = message
                if message.id == rid or message.fatal:
                    raise ProtocolFailure(message.code, message.message)
        return None

    def _cancel_quietly(self, rid: RequestId) -> None:
        if self._closed is not None:
            return
        try:
            self._sock.settimeout(1.0)
            self._send(encode_message(Cancel(id=self.next_id(), request=rid), self.format))
        except (OSError, ClientError):
            pass

    def _send(self, payload: bytes, opcode: int | None = None) -> None:
        if opcode is None:
            opcode = _TEXT if self.format is WireFormat.JSON else _BINARY
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        key = os.urandom(4)
        try:
            self._sock.sendall(head + key + _mask(payload, key))
        except OSError as exc:
            self._closed = f"connection lost: {exc.strerror or exc}"
            raise ConnectionLost(self._closed) from None

    def _read(self, count: int, until: float) -> bytes:
        while len(self._buffer) < count:
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(max(65536, count - len(self._buffer)))
            except TimeoutError:
                raise
            except OSError as exc:
                self._closed = f"connection lost: {exc.strerror or exc}"
                raise ConnectionLost(self._closed) from None
            if not chunk:
                self._closed = "connection closed by the hub"
                raise ConnectionLost(self._closed)
            self._buffer += chunk
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def _receive(self, until: float) -> bytes:
        """The next whole data message (fragments joined; pings answered)."""
        parts: list[bytes] = []
        size = 0
        while True:
            first, second = self._read(2, until)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2, until))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8, until))
            if second & 0x80:
                self._fail_protocol("the hub sent a masked frame")
            size += length
            if size > MAX_AGENT_FRAME:
                self._fail_protocol(f"a message over {MAX_AGENT_FRAME} bytes")
            payload = self._read(length, until)
            if opcode == _PING:
                self._send(payload, _PONG)
            elif opcode == _CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                reason = payload[2:].decode("utf-8", "replace")
                said = f" ({code}{' ' + reason if reason else ''})" if code else ""
                self._closed = f"connection closed by the hub{said}"
                raise ConnectionLost(self._closed)
            elif opcode in (_TEXT, _BINARY, 0x0):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts)

    def _fail_protocol(self, what: str) -> None:
        self._closed = f"connection lost: {what}"
        raise ConnectionLost(self._closed)

    def close(self) -> None:
        """Say goodbye (a close frame, code 1000) and close the socket."""
        if self._closed is None:
            self._closed = "connection closed by the client"
            try:
                self._sock.settimeout(1.0)
                self._send(struct.pack("!H", 1000), _CLOSE)
            except (OSError, ClientError):
                pass
        self._sock.close()


def _open_socket(
    url: str, headers: dict[str, str], timeout: float
) -> tuple[socket.socket, str, dict[str, str], bytes]:
    """Connect and upgrade: (socket, status line, response headers, bytes after them)."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise _handshake_failure(url, exc) from None
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        lines = [f"GET {target} HTTP/1.1", f"Host: {netloc}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionFailed(
                    f"cannot reach {url}: the connection closed during the handshake; {START_HINT}"
                )
            answer += chunk
            if len(answer) > MAX_HANDSHAKE:
                raise ConnectionFailed(f"{url}: an HTTP answer over {MAX_HANDSHAKE} bytes")
    except OSError as exc:
        sock.close()
        raise _handshake_failure(url, exc) from None
    except ClientError:
        sock.close()
        raise
    head, _, rest = answer.partition(b"\r\n\r\n")
    status, *fields = head.decode("latin-1").split("\r\n")
    response = {}
    for line in fields:
        name, _, value = line.partition(":")
        response[name.strip().lower()] = value.strip()
    return sock, status, response, rest


@contextmanager
def open_session(
    url: str | None = None,
    *,
    token: str | None = None,
    discover_token: bool = True,
    name: str = "mobridge-python",
    kind: str | None = None,
    format: Literal["json", "msgpack"] = "json",
    request_timeout: float = 10.0,
) -> Iterator[OneShotSession]:
    """A greeted session on a blocking socket: ``with open_session(url) as hub: ...``
    (arguments as ``connect``'s; the token goes in the ``Authorization`` header)."""
    url = hub_url(url)
    if token is None and discover_token:
        token = hub_token(url)
    fmt = WireFormat(format)
    wanted = SUBPROTOCOL_JSON if fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
    key = base64.b64encode(os.urandom(16)).decode()
    headers = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Protocol": wanted,
        "User-Agent": "mobridge-oneshot",
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    sock, status, response, rest = _open_socket(url, headers, request_timeout)
    words = status.split(" ", 2)
    code = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
    if code != 101:
        sock.close()
        if code == 401:
            raise ProtocolFailure(ProtocolErrorCode.UNAUTHENTICATED, f"{url}: HTTP 401")
        if code == 403:
            raise ProtocolFailure(ProtocolErrorCode.FORBIDDEN, f"{url}: HTTP 403")
        raise ConnectionFailed(
            f"{url} answered HTTP {code}: is it a mobridge hub? (its websocket path is /v1)"
        )
    accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
    chosen = response.get("sec-websocket-protocol")
    if response.get("sec-websocket-accept") != accept:
        sock.close()
        raise ConnectionFailed(f"{url}: the websocket handshake did not check out")
    if chosen != wanted and not (chosen is None and fmt is WireFormat.JSON):
        sock.close()
        raise ProtocolFailure(
            ProtocolErrorCode.UNSUPPORTED_PROTOCOL,
            f"hub chose subprotocol {chosen!r}, asked for {wanted!r}",
        )
    hub = OneShotSession(sock, fmt, url, token, request_timeout, rest)
    try:
        hello = Hello(
            id=hub.next_id(), client=ClientInfo(name=name, kind=kind), protocol=PROTOCOL_VERSION
        )
        result = run_blocking(hub.call(hello, HelloResult))
        if result.protocol != PROTOCOL_VERSION:
            raise ProtocolFailure(
                ProtocolErrorCode.UNSUPPORTED_PROTOCOL,
                f"hub speaks {result.protocol!r}, this client {PROTOCOL_VERSION!r}",
            )
        hub.session = result
        yield hub
    finally:
        hub.close()


__all__ = ["OneShotSession", "open_session", "run_blocking", "supports"]
