"""Android's page debugging endpoints, through adb: WebViews and Chrome over DevTools.

A WebView whose app enabled debugging (``WebView.setWebContentsDebuggingEnabled(true)``;
debuggable builds have it on by default) listens on the abstract unix socket
``webview_devtools_remote_<pid>``; Chrome (and Custom Tabs, which are Chrome) on
``chrome_devtools_remote``. ``AndroidWebSource.pages``:

1. reads ``/proc/net/unix`` (``adb shell cat /proc/net/unix``) for those sockets
   (``devtools_sockets``); none: ``problem`` says debugging is off and how to turn it on;
2. prefers the socket of the app in front (``pidof <package>`` when the caller names it);
3. forwards it once to a free loopback port (``adb forward tcp:P localabstract:NAME``, kept
   while the socket lives) and reads ``GET /json/list``; a WebView describes each page in
   ``description`` (JSON: ``attached``, ``visible``, ``empty``, ``screenX``, ``screenY``,
   ``width``, ``height``), which becomes ``WebPageEndpoint.screen`` in device pixels;
4. returns the pages, visible and attached first, with websocket URLs on the forwarded port.

Invariants: every forward is to 127.0.0.1; at most ``MAX_SOCKETS`` sockets are looked at;
adb and HTTP failures are a ``problem``, never an exception out of ``pages``.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
from typing import Any, Protocol

import anyio

from bridge.devices.web.chromium import devtools_list
from bridge.devices.web.source import WebPageEndpoint
from bridge.wire.cdp import TargetInfo

MAX_SOCKETS = 8
DEBUGGING_OFF = (
    "a WebView is on screen but no page debugging socket is open: the app must call "
    "WebView.setWebContentsDebuggingEnabled(true) (on by default in debuggable builds); "
    "Chrome needs 'USB debugging' and, for its own tabs, chrome://inspect once"
)
_SOCKET = re.compile(r"@((?:webview_devtools_remote_\d+)|chrome_devtools_remote|"
                     r"[A-Za-z0-9_.]+_devtools_remote(?:_\d+)?)\s*$")  # fmt: skip


class AdbShell(Protocol):
    """The part of ``adbutils.AdbDevice`` this needs (blocking calls)."""

    def shell(
        self,
        cmdargs: str,
        stream: bool = ...,
        timeout: float | None = ...,
        encoding: str | None = ...,
    ) -> Any: ...

    def forward(self, local: str, remote: str, norebind: bool = ...) -> None: ...


def devtools_sockets(proc_net_unix: str) -> list[str]:
    """The DevTools socket names listed in a ``/proc/net/unix`` text, in order, once each."""
    out: list[str] = []
    for line in proc_net_unix.splitlines():
        found = _SOCKET.search(line)
        if found is not None and found.group(1) not in out:
            out.append(found.group(1))
    return out


def endpoint_of(target: TargetInfo, port: int) -> WebPageEndpoint | None:
    """A page target as an endpoint on the forwarded ``port`` (None: not a page)."""
    if target.type not in ("page", "webview", "iframe") or not target.id:
        return None
    screen = None
    visible = True
    if target.description:
        try:
            desc = json.loads(target.description)
        except ValueError:
            desc = None
        if isinstance(desc, dict):
            visible = bool(desc.get("visible", True)) and bool(desc.get("attached", True))
            keys = ("screenX", "screenY", "width", "height")
            if all(isinstance(desc.get(k), int) for k in keys):
                x, y, w, h = (int(desc[k]) for k in keys)
                screen = (x, y, x + w, y + h)
    return WebPageEndpoint(
        ws_url=f"ws://127.0.0.1:{port}/devtools/page/{target.id}",
        title=target.title[:200],
        url=target.url[:2048],
        screen=screen,
        visible=visible,
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class AndroidWebSource:
    """A phone's WebView and Chrome pages (see the module docstring)."""

    def __init__(
        self,
        device: AdbShell,
        front_package: Callable[[], str | None] | None = None,
        *,
        listing: Callable[[str], list[TargetInfo]] = devtools_list,
    ) -> None:
        self.device = device
        self.front_package = front_package
        self.listing = listing
        self.forwards: dict[str, int] = {}
        self._problem: str | None = None

    @property
    def problem(self) -> str | None:
        return self._problem

    async def pages(self) -> list[WebPageEndpoint]:
        try:
            return await anyio.to_thread.run_sync(self._pages)
        except Exception as exc:  # adb or HTTP: a problem to show, never a crash
            self._problem = f"cannot reach the page debugging socket: {exc}"[:300]
            return []

    def _pages(self) -> list[WebPageEndpoint]:
        text = _text(self.device.shell("cat /proc/net/unix", timeout=10))
        sockets = devtools_sockets(text)[:MAX_SOCKETS]
        for gone in set(self.forwards) - set(sockets):
            self.forwards.pop(gone, None)
        if not sockets:
            self._problem = DEBUGGING_OFF
            return []
        package = self.front_package() if self.front_package is not None else None
        if package:
            pids = _text(self.device.shell(f"pidof {package}", timeout=10)).split()
            mine = [s for s in sockets if any(s.endswith(f"_{p}") for p in pids)]
            sockets = mine + [s for s in sockets if s not in mine]
        pages: list[WebPageEndpoint] = []
        for name in sockets:
            port = self.forwards.get(name)
            if port is None:
                port = _free_port()
                self.device.forward(f"tcp:{port}", f"localabstract:{name}")
                self.forwards[name] = port
            for target in self.listing(f"http://127.0.0.1:{port}"):
                found = endpoint_of(target, port)
                if found is not None:
                    pages.append(found)
        pages.sort(key=lambda p: not p.visible)
        self._problem = None if pages else "the debugging socket lists no page"
        return pages


def _text(out: Any) -> str:
    if isinstance(out, bytes):
        return out.decode("utf-8", "replace")
    return str(out)
