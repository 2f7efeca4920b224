"""One websocket connection to a hub: ``connect`` and ``HubConnection``.

Rules:

- ``connect`` opens the socket, starts the connection's single reader task in a task group
  it owns, sends ``hello`` first and checks its result; the ``async with`` body runs only on
  a session the hub accepted. Leaving the block closes the socket and cancels the reader.
- Every request gets a fresh integer id; at most ``MAX_INFLIGHT`` are outstanding (the hub's
  limit), later ones wait for a slot within their own deadline. The reader hands each
  ``result`` / ``error`` / ``protocol_error`` to the request waiting on that id (answers to
  ids nobody waits for are counted and dropped). A request waits at most its deadline
  (``fail_after``) and then raises ``RequestTimeout``; a timed-out ``wait`` or ``screenshot``
  that was sent is cancelled at the hub.
- The reader never blocks on a consumer: subscription events go to bounded per-subscription
  channels, device / lease / action events to bounded per-listener channels; a full channel
  drops the event and is marked ``overflowed`` (a watch then resubscribes).
- When the socket closes, every pending request fails with ``ConnectionLost`` and every
  channel ends.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio
import msgspec
import websockets
import websockets.asyncio.client
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from bridge.client.channels import CHANNEL_SIZE, Channel, EventStream, HubEvent, SubscriptionEvent
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
from bridge.client.oneshot import CANCELLABLE
from bridge.client.screenshot import fetch_capture
from bridge.wire.acquire import (
    DEFAULT_ACQUIRE_TIMEOUT_MS,
    MAX_ACQUIRE_TIMEOUT_MS,
    AcquireResult,
    DevicesAcquire,
    DeviceSelector,
)
from bridge.wire.client_protocol import (
    PROTOCOL_VERSION,
    RESULT_TYPES,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ActionEvent,
    Cancel,
    ClientInfo,
    ClientToHub,
    DeltaEvent,
    DeviceEvent,
    DevicesList,
    DevicesListResult,
    DeviceSummary,
    ErrorMessage,
    Hello,
    HelloResult,
    IntentEvent,
    LeaseEvent,
    PatchEvent,
    Ping,
    PongResult,
    ProtocolError,
    RequestId,
    ResultMessage,
    ScreenshotResult,
    SnapshotEvent,
    Subscribe,
    SubscribeResult,
    Unsubscribe,
)
from bridge.wire.codec import HUB_TO_CLIENT, MAX_AGENT_FRAME, DecodeFailure, WireFormat, convert
from bridge.wire.codec import encode as encode_message
from bridge.wire.device_media import LogsEvent, LogsSubscribe, LogsSubscribeResult, LogsUnsubscribe
from bridge.wire.enums import ProtocolErrorCode

T = TypeVar("T")

DEFAULT_REQUEST_TIMEOUT = 10.0
MAX_INFLIGHT = 64
"""Requests a client may have in flight (protocol/README.md §2); more wait their turn here."""


@dataclass
class ClientStatistics:
    requests_sent: int = 0
    answers: int = 0
    unmatched_answers: int = 0
    events: int = 0
    events_dropped: int = 0
    orphan_events: int = 0
    decode_failures: int = 0
    protocol_errors: int = 0
    pending: int = 0


@dataclass
class _Pending:
    kind: str
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: ClientError | None = None
    on_result: Callable[[Any], None] | None = None


def _tag(message: ClientToHub) -> str:
    tag = type(message).__struct_config__.tag
    assert isinstance(tag, str)
    return tag


class HubConnection:
    """An open, greeted session with a hub. Obtain one from ``connect``."""

    def __init__(
        self,
        ws: ClientConnection,
        fmt: WireFormat,
        url: str,
        token: str | None,
        request_timeout: float,
    ) -> None:
        self._ws = ws
        self.format = fmt
        self.url = url
        self.token = token
        self.request_timeout = request_timeout
        self.session: HelloResult | None = None
        self.last_protocol_error: ProtocolError | None = None
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, _Pending] = {}
        self._channels: dict[str, Channel[SubscriptionEvent]] = {}
        self._log_channels: dict[str, Channel[LogsEvent]] = {}
        self._listeners: set[Channel[HubEvent]] = set()
        self._closed: str | None = None
        self._stats = ClientStatistics()
        self._inflight = anyio.Semaphore(MAX_INFLIGHT)
        self.channel_size = CHANNEL_SIZE
        """Events buffered per new subscription before the reader drops (see module rules)."""

    # ---- public API ------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed is not None

    @property
    def closed_reason(self) -> str | None:
        """Why the connection closed, or None while it is open."""
        return self._closed

    def next_id(self) -> int:
        return next(self._ids)

    def statistics(self) -> ClientStatistics:
        return dataclasses.replace(self._stats, pending=len(self._pending))

    async def devices(self) -> tuple[DeviceSummary, ...]:
        result = await self.call(DevicesList(id=self.next_id()), DevicesListResult)
        return result.devices

    def device(self, device_id: str) -> Device:
        """A handle on one device (no round trip; the hub checks the id on first use)."""
        return Device(self, device_id)

    async def acquire(
        self,
        selector: DeviceSelector | None = None,
        *,
        timeout_s: float = DEFAULT_ACQUIRE_TIMEOUT_MS / 1000,
        **fields: Any,
    ) -> AcquireResult:
        """Lease any free device the selector accepts (``platform=Platform.IOS, os=">=17"``,
        ``model``, ``tags``, ``owner`` as keywords, or a ``DeviceSelector``), waiting in the
        hub's FIFO queue up to ``timeout_s`` (at most 600). The lease is this connection's:
        ``device(result.device).release_lease()`` or closing the connection ends it."""
        chosen = selector if selector is not None else DeviceSelector(**fields)
        timeout_ms = max(0, min(int(timeout_s * 1000), MAX_ACQUIRE_TIMEOUT_MS))
        message = DevicesAcquire(id=self.next_id(), selector=chosen, timeout_ms=timeout_ms)
        return await self.call(message, AcquireResult, deadline=timeout_ms / 1000 + 30)

    async def ping(self) -> PongResult:
        return await self.call(Ping(id=self.next_id()), PongResult)

    def events(self, size: int = 256) -> EventStream:
        return EventStream(self._listeners, size)

    async def fetch_screenshot(self, result: ScreenshotResult) -> bytes:
        """The PNG of a capture, fetched over HTTP from the hub with this session's token."""
        return await fetch_capture(self.url, self.token, result)

    # ---- requests --------------------------------------------------------------------------

    async def call(self, message: ClientToHub, kind: type[T], deadline: float | None = None) -> T:
        """Send ``message`` and return its typed result (or raise what the hub answered)."""
        value = await self.request(message, deadline)
        if not isinstance(value, kind):  # pragma: no cover - RESULT_TYPES guarantees it
            raise ProtocolFailure(ProtocolErrorCode.INTERNAL, f"unexpected result {value!r}")
        return value

    async def request(
        self,
        message: ClientToHub,
        deadline: float | None = None,
        on_result: Callable[[Any], None] | None = None,
    ) -> Any:
        if self._closed is not None:
            raise ConnectionLost(self._closed)
        kind = _tag(message)
        pending = _Pending(kind, on_result=on_result)
        self._pending[message.id] = pending
        seconds = self.request_timeout if deadline is None else deadline
        sent = False
        try:
            with anyio.fail_after(seconds):
                async with self._inflight:
                    await self._send(message)
                    sent = True
                    self._stats.requests_sent += 1
                    await pending.done.wait()
        except TimeoutError:
            raise RequestTimeout(f"no answer to {kind} #{message.id} within {seconds}s") from None
        finally:
            self._pending.pop(message.id, None)
            if sent and not pending.done.is_set() and kind in CANCELLABLE:
                await self._cancel_quietly(message.id)
        if pending.error is not None:
            raise pending.error
        return pending.result

    async def subscribe(
        self, device: str, compact: bool, settled: bool = False, patches: bool = True
    ) -> tuple[SubscribeResult, Channel[SubscriptionEvent]]:
        """Subscribe (``settled``: to the stream of settled screens only); the channel is
        registered by the reader as the result is read, so no event that follows the result
        can be missed. ``patches`` (default true): changes come as slim ``patch`` events
        (``SnapshotTracker`` applies both forms); false asks for classic ``delta`` events."""
        channel: Channel[SubscriptionEvent] = Channel(self.channel_size)

        def register(result: Any) -> None:
            assert isinstance(result, SubscribeResult)
            self._channels[result.subscription] = channel

        message = Subscribe(
            id=self.next_id(), device=device, compact=compact, settled=settled, patches=patches
        )
        result = await self.request(message, on_result=register)
        assert isinstance(result, SubscribeResult)
        return result, channel

    async def unsubscribe(self, subscription: str) -> None:
        channel = self._channels.pop(subscription, None)
        if channel is not None:
            channel.close()
        if self._closed is None:
            await self.request(Unsubscribe(id=self.next_id(), subscription=subscription))

    async def subscribe_logs(
        self, message: LogsSubscribe
    ) -> tuple[LogsSubscribeResult, Channel[LogsEvent]]:
        """Send ``logs.subscribe``; its ``logs`` events come on the channel (registered as the
        result is read, so no line that follows it is missed)."""
        channel: Channel[LogsEvent] = Channel(self.channel_size)

        def register(result: Any) -> None:
            assert isinstance(result, LogsSubscribeResult)
            self._log_channels[result.subscription] = channel

        result = await self.request(message, on_result=register)
        assert isinstance(result, LogsSubscribeResult)
        return result, channel

    async def unsubscribe_logs(self, subscription: str) -> None:
        channel = self._log_channels.pop(subscription, None)
        if channel is not None:
            channel.close()
        if self._closed is None:
            await self.request(LogsUnsubscribe(id=self.next_id(), subscription=subscription))

    # ---- internals -------------------------------------------------------------------------

    async def _hello(self, name: str, kind: str | None, token: str | None) -> HelloResult:
        hello = Hello(
            id=self.next_id(),
            client=ClientInfo(name=name, kind=kind),
            protocol=PROTOCOL_VERSION,
            token=token,
        )
        result = await self.call(hello, HelloResult)
        if result.protocol != PROTOCOL_VERSION:
            raise ProtocolFailure(
                ProtocolErrorCode.UNSUPPORTED_PROTOCOL,
                f"hub speaks {result.protocol!r}, this client {PROTOCOL_VERSION!r}",
            )
        self.session = result
        return result

    async def _send(self, message: ClientToHub) -> None:
        data = encode_message(message, self.format)
        try:
            await self._ws.send(data, text=self.format is WireFormat.JSON)
        except ConnectionClosed as exc:
            self._close_all(f"connection closed: {exc}")
            raise ConnectionLost(self._closed or "connection closed") from exc

    async def _cancel_quietly(self, request_id: RequestId) -> None:
        if self._closed is not None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(1.0):
            try:
                await self._send(Cancel(id=self.next_id(), request=request_id))
            except ClientError:
                pass

    async def read_loop(self) -> None:
        """The connection's only reader: runs until the socket closes."""
        reason = "connection closed by the hub"
        try:
            async for frame in self._ws:
                self._dispatch(frame)
        except ConnectionClosed as exc:
            reason = f"connection lost: {exc}"
        finally:
            self._close_all(reason)

    def _dispatch(self, frame: str | bytes) -> None:
        message = HUB_TO_CLIENT.decode(frame, self.format)
        match message:
            case DecodeFailure(code=code, message=text, request_id=rid):
                self._stats.decode_failures += 1
                self._fail(rid, ProtocolFailure(code, f"unreadable hub message: {text}"))
            case ResultMessage(id=rid, result=body):
                self._answer(rid, body)
            case ErrorMessage(id=rid, error=envelope, objection=objection):
                self._fail(rid, hub_error(envelope, objection))
            case ProtocolError():
                self._protocol_error(message)
            case SnapshotEvent() | DeltaEvent() | PatchEvent():
                self._stats.events += 1
                channel = self._channels.get(message.subscription)
                if channel is None:
                    self._stats.orphan_events += 1
                elif not channel.offer(message):
                    self._stats.events_dropped += 1
            case LogsEvent():
                self._stats.events += 1
                logs = self._log_channels.get(message.subscription)
                if logs is None:
                    self._stats.orphan_events += 1
                elif not logs.offer(message):
                    self._stats.events_dropped += 1
            case DeviceEvent() | LeaseEvent() | ActionEvent() | IntentEvent():
                self._stats.events += 1
                for listener in list(self._listeners):
                    if not listener.offer(message):
                        self._stats.events_dropped += 1

    def _answer(self, request_id: RequestId, body: Any) -> None:
        pending = self._pending.get(request_id)
        if pending is None or pending.done.is_set():
            self._stats.unmatched_answers += 1
            return
        self._stats.answers += 1
        try:
            pending.result = convert(body, RESULT_TYPES[pending.kind])
        except msgspec.ValidationError as exc:
            pending.error = ProtocolFailure(
                ProtocolErrorCode.INVALID_PARAMS, f"the hub's {pending.kind} result: {exc}"
            )
        else:
            if pending.on_result is not None:
                pending.on_result(pending.result)
        pending.done.set()

    def _fail(self, request_id: RequestId | None, error: ClientError) -> None:
        pending = None if request_id is None else self._pending.get(request_id)
        if pending is None or pending.done.is_set():
            self._stats.unmatched_answers += 1
            return
        self._stats.answers += 1
        pending.error = error
        pending.done.set()

    def _protocol_error(self, message: ProtocolError) -> None:
        self._stats.protocol_errors += 1
        self.last_protocol_error = message
        failure = ProtocolFailure(message.code, message.message)
        if message.id is not None and message.id in self._pending:
            self._fail(message.id, failure)
        if message.fatal:
            for pending in list(self._pending.values()):
                if not pending.done.is_set():
                    pending.error = failure
                    pending.done.set()

    def _close_all(self, reason: str) -> None:
        if self._closed is None:
            self._closed = reason
        for pending in list(self._pending.values()):
            if not pending.done.is_set():
                pending.error = ConnectionLost(reason)
                pending.done.set()
        for channel in list(self._channels.values()):
            channel.close()
        for logs in list(self._log_channels.values()):
            logs.close()
        for listener in list(self._listeners):
            listener.close()


def _handshake_error(url: str, exc: Exception) -> ClientError:
    """One line for a failed opening handshake: what happened at ``url`` and what to do."""
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        if status == 401:
            return ProtocolFailure(ProtocolErrorCode.UNAUTHENTICATED, f"{url}: HTTP 401")
        if status == 403:
            return ProtocolFailure(ProtocolErrorCode.FORBIDDEN, f"{url}: HTTP 403")
        return ConnectionFailed(
            f"{url} answered HTTP {status}: is it a mobridge hub? (its websocket path is /v1)"
        )
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        return ConnectionFailed(f"no hub at {url} (connection refused); {START_HINT}")
    if isinstance(exc, TimeoutError):
        return ConnectionFailed(f"no answer from {url} (timed out opening the connection)")
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return ConnectionFailed(f"cannot reach {url}: {reason}; {START_HINT}")


@asynccontextmanager
async def connect(
    url: str | None = None,
    *,
    token: str | None = None,
    discover_token: bool = True,
    name: str = "mobridge-python",
    kind: str | None = None,
    format: Literal["json", "msgpack"] = "json",
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    token_in: Literal["header", "hello"] = "header",
) -> AsyncIterator[HubConnection]:
    """Open a greeted session: ``async with connect(url, token=...) as hub: ...``.

    ``url`` defaults to ``$MOBRIDGE_URL``, else ``ws://127.0.0.1:8765/v1``. With no ``token``
    (and ``discover_token``), ``$MOBRIDGE_TOKEN`` is used, else the token a hub started on this
    machine generated for that port (``bridge.client.local_hub``).

    The token travels in the ``Authorization: Bearer`` header (``token_in="hello"`` puts it
    in ``hello.token`` instead). Raises ``ConnectionFailed`` when the socket cannot be
    opened, ``ProtocolFailure`` when the hub refuses the session, ``HubError`` when it
    refuses the hello with a domain error.
    """
    url = hub_url(url)
    if token is None and discover_token:
        token = hub_token(url)
    fmt = WireFormat(format)
    wanted = SUBPROTOCOL_JSON if fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
    headers = {"Authorization": f"Bearer {token}"} if token and token_in == "header" else {}
    try:
        ws = await websockets.asyncio.client.connect(
            url,
            subprotocols=[Subprotocol(wanted)],
            additional_headers=headers,
            max_size=MAX_AGENT_FRAME,
            open_timeout=request_timeout,
            close_timeout=2,
            proxy=None,
        )
    except (OSError, TimeoutError, websockets.exceptions.InvalidHandshake) as exc:
        raise _handshake_error(url, exc) from None
    except websockets.exceptions.InvalidURI as exc:
        raise ConnectionFailed(
            f"{url} is not a hub URL ({exc}); expected ws://HOST:PORT/v1"
        ) from None
    if ws.subprotocol != wanted and not (ws.subprotocol is None and fmt is WireFormat.JSON):
        await ws.close()
        raise ProtocolFailure(
            ProtocolErrorCode.UNSUPPORTED_PROTOCOL,
            f"hub chose subprotocol {ws.subprotocol!r}, asked for {wanted!r}",
        )
    hub = HubConnection(ws, fmt, url, token, request_timeout)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(hub.read_loop)
            try:
                await hub._hello(name, kind, token if token_in == "hello" else None)
                yield hub
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(3.0):
                    await ws.close()
                tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The reader never raises, so a group holds the block's own exception: give the
        # caller that exception, not a wrapper.
        if len(group.exceptions) == 1:
            only = group.exceptions[0]
            raise only from only.__cause__
        raise
    finally:
        hub._close_all("connection closed by the client")
