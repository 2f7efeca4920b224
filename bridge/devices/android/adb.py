"""The adbutils surface the Android driver uses, and how it is called.

adbutils is synchronous. Invariants:
- every request/response call runs through ``blocking`` (``anyio.to_thread.run_sync``), never
  on the event loop; the two long-lived reads (``track_devices`` and an instrumentation's
  output) run in a dedicated daemon thread (``pump``) that feeds an anyio memory stream, so a
  read blocked on a dead adb socket can neither stall the loop nor keep the process alive;
- the adb server is reached on 127.0.0.1 only (port ``ANDROID_ADB_SERVER_PORT``, default
  5037); forwards are bound by adb on the host's loopback;
- shell commands are built with ``shell_text.shell_command`` (every argument quoted);
- ``ADB_ERRORS`` are the exceptions that mean "the device or the adb server is not there";
  ``AdbTimeout`` (a command that took too long) is told apart by ``is_timeout``.

The Protocols below name exactly the methods used (tests supply a fake of them).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from adbutils.errors import AdbError, AdbTimeout  # type: ignore[import-untyped]

T = TypeVar("T")

ADB_HOST = "127.0.0.1"
ADB_ERRORS: tuple[type[BaseException], ...] = (AdbError, OSError)


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, AdbTimeout | TimeoutError)


class DeviceEventLike(Protocol):
    present: bool
    serial: str
    status: str


class ForwardItemLike(Protocol):
    serial: str
    local: str
    remote: str


class ShellStreamLike(Protocol):
    """``AdbConnection`` as returned by ``shell(..., stream=True)``."""

    def recv(self, n: int) -> bytes: ...

    def close(self) -> None: ...


class SyncLike(Protocol):
    def push(self, src: bytes, dst: str, mode: int = ...) -> int: ...

    def read_bytes(self, path: str) -> bytes: ...


class AdbDeviceLike(Protocol):
    """The part of ``adbutils.AdbDevice`` the driver calls."""

    @property
    def sync(self) -> SyncLike: ...

    def shell(
        self,
        cmdargs: str,
        stream: bool = ...,
        timeout: float | None = ...,
        encoding: str | None = ...,
    ) -> Any: ...

    def forward(self, local: str, remote: str, norebind: bool = ...) -> None: ...

    def forward_remove(self, local: str, raise_non_found: bool = ...) -> None: ...

    def forward_list(self) -> list[Any]: ...


class AdbClientLike(Protocol):
    """The part of ``adbutils.AdbClient`` the driver calls."""

    def track_devices(self) -> Iterator[Any]: ...

    def device(self, serial: str) -> AdbDeviceLike: ...


def default_adb_client() -> AdbClientLike:
    """adbutils' client for the local adb server (starts it when it is not running)."""
    from adbutils import AdbClient  # type: ignore[import-untyped]

    port = int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))
    client: AdbClientLike = AdbClient(host=ADB_HOST, port=port)
    return client


async def blocking(fn: Callable[..., T], *args: Any) -> T:
    """Run one adbutils call in a worker thread."""
    return await anyio.to_thread.run_sync(lambda: fn(*args))


def run_shell(device: AdbDeviceLike, command: str, timeout: float) -> bytes:
    """Blocking: the raw output of one shell command (call through ``blocking``)."""
    out = device.shell(command, timeout=timeout, encoding=None)
    if isinstance(out, str):  # a fake or an old adbutils may hand back text
        return out.encode("utf-8", "surrogateescape")
    return bytes(out)


async def shell(device: AdbDeviceLike, command: str, limit_s: float = 15.0) -> str:
    """The text output of one shell command; ``limit_s`` is adb's socket timeout."""
    out = await blocking(run_shell, device, command, limit_s)
    return out.decode("utf-8", "replace")


def free_loopback_port() -> int:
    """A TCP port free on 127.0.0.1 right now (adb then binds it for a forward)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((ADB_HOST, 0))
        return int(s.getsockname()[1])


def pump(
    produce: Callable[[Callable[[Any], bool]], None], name: str, buffer: int = 64
) -> anyio.abc.ObjectReceiveStream[Any]:
    """Run ``produce(emit)`` in a daemon thread; ``emit(item)`` hands an item to the returned
    stream (waiting when the reader is behind) and returns False once nobody listens, at which
    point ``produce`` should return. An exception in ``produce`` is delivered as the last item;
    the stream then ends. Must be called from the event loop thread."""
    send, receive = anyio.create_memory_object_stream[Any](buffer)
    token = anyio.lowlevel.current_token()

    def emit(item: Any) -> bool:
        while True:
            try:
                anyio.from_thread.run_sync(send.send_nowait, item, token=token)
                return True
            except anyio.WouldBlock:
                time.sleep(0.01)  # the reader is behind: wait, in this thread
            except BaseException:  # the stream is closed or the event loop is gone
                return False

    def main() -> None:
        try:
            produce(emit)
        except Exception as exc:
            emit(exc)
        finally:
            try:
                anyio.from_thread.run_sync(send.close, token=token)
            except BaseException:
                pass

    threading.Thread(target=main, name=name, daemon=True).start()
    return receive
