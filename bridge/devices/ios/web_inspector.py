"""iOS web content through the Web Inspector: inspectable ``WKWebView``s and Safari pages.

The device's Web Inspector service (``com.apple.webinspector``, reached through
pymobiledevice3's ``webinspector``) speaks WIR messages: the device reports applications and,
per application, a listing of pages (``_rpc_applicationSentListing:`` with ``WIRListingKey``:
page id -> ``WIRPageIdentifierKey``, ``WIRTitleKey``, ``WIRURLKey``, ``WIRTypeKey``), and
carries each page's inspector messages (WebKit's Inspector protocol, JSON) in
``_rpc_forwardSocketData:`` / ``_rpc_applicationSentData:``. Key names and types are
WebKit's (``Source/JavaScriptCore/inspector/remote/RemoteInspectorConstants.h``); the
message shapes of ``Runtime.evaluate``, ``Console.messageAdded`` and ``Page.loadEventFired``
are WebKit's protocol definitions (``Source/JavaScriptCore/inspector/protocol/*.json``).

WebKit's protocol has no accessibility-tree command, so ``WebKitPage`` runs the page walker
(``bridge.devices.web.walker``) with ``Runtime.evaluate`` and maps its result like a CDP
read (``bridge.core.web_tree.walk_items``). Changes arrive without polling: a page script
writes a marker to the console (``console.debug``) once per task in which the DOM mutated
or the user typed, scrolled or focused, and ``Console.messageAdded`` carries it here.

The WIR transport (``InspectorTransport``: send and receive the page's JSON messages) and
the ``Inspector`` (the app's pages) are bound to pymobiledevice3's ``WebinspectorService``
in ``bridge.devices.ios.web_wir``; tests drive both through a fake webinspectord whose pages
are the real Chromium here.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import msgspec

from bridge.core.web_tree import WebContent, walk_items
from bridge.devices.web.observer import observer_script
from bridge.devices.web.page import BUSY_CAP_S, SCROLL_SHARE, PageClosed, PageError
from bridge.devices.web.source import WebPageEndpoint
from bridge.devices.web.walker import BY_ID, WALKER
from bridge.wire.base import Bounds
from bridge.wire.web_walk import PageWalk

MARK = "__mobridgeChanged"
WEB_TYPES = frozenset({"WIRTypeWeb", "WIRTypeWebPage", "WIRTypePage"})
"""Listing types that are pages (not automation sessions, JSContexts or service workers)."""
WEB_INSPECTOR_OFF = (
    "a web view is on screen but the Web Inspector lists no inspectable page: turn on "
    "Settings > Safari > Advanced > Web Inspector (iOS 18: Settings > Apps > Safari > "
    "Advanced), and in the app set WKWebView.isInspectable = true (iOS 16.4+)"
)
MAX_PENDING = 64
TIMEOUT_S = 30.0
"""The longest one page command waits for its answer (the page is ended by the caller
after that). A generous bound: in a CI-like run at load 7 an answer took more than 10 s."""
OBSERVER = observer_script(f'console.debug("{MARK}");', tell_at_start=False)


@dataclass(frozen=True, slots=True)
class WirPage:
    app_id: str
    page_id: int
    title: str
    url: str
    type: str


def pages_from_listing(app_id: str, listing: dict[str, Any]) -> list[WirPage]:
    """The pages of one ``WIRListingKey`` dictionary (unknown or malformed entries skipped)."""
    out: list[WirPage] = []
    for entry in list(listing.values())[:64]:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("WIRTypeKey")
        page_id = entry.get("WIRPageIdentifierKey")
        if kind not in WEB_TYPES or not isinstance(page_id, int):
            continue
        title, url = entry.get("WIRTitleKey"), entry.get("WIRURLKey")
        out.append(
            WirPage(
                app_id=app_id[:256],
                page_id=page_id,
                title=title[:200] if isinstance(title, str) else "",
                url=url[:2048] if isinstance(url, str) else "",
                type=kind,
            )
        )
    return out


class InspectorOff(Exception):
    """The device's Web Inspector refused: it is switched off (``WEB_INSPECTOR_OFF``)."""


class InspectorTransport(Protocol):
    """One page's inspector messages (WebKit's protocol, as JSON objects)."""

    async def send(self, message: dict[str, Any]) -> None: ...

    async def receive(self) -> dict[str, Any]:
        """The next message; raises ``PageClosed`` when the page went away."""
        ...

    async def close(self) -> None: ...


class Inspector(Protocol):
    """The device's Web Inspector: its pages, and a transport to one."""

    async def pages(self) -> list[WirPage]: ...

    async def open(self, page: WirPage) -> InspectorTransport: ...


class _Result(msgspec.Struct, frozen=True):
    type: str = ""
    value: msgspec.Raw = msgspec.Raw()


class _Evaluated(msgspec.Struct, frozen=True):
    result: _Result = _Result()
    wasThrown: bool = False


class WebKitPage:
    """A page over WebKit's Inspector protocol (``PageSession``)."""

    def __init__(self, transport: InspectorTransport) -> None:
        self.transport = transport
        self.changed = anyio.Event()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        self._closed = False
        self.inflight = 0
        self.busy_since: float | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        since = self.busy_since
        return since is not None and time.monotonic() - since < BUSY_CAP_S

    async def serve(self) -> None:
        try:
            while True:
                message = await self.transport.receive()
                mid = message.get("id")
                if isinstance(mid, int):
                    waiting = self._pending.pop(mid, None)
                    if waiting is not None:
                        waiting[1].append(message)
                        waiting[0].set()
                    continue
                self._event(str(message.get("method", "")), message.get("params"))
        except PageClosed:
            pass
        finally:
            self._closed = True
            for event, _ in self._pending.values():
                event.set()
            self._pending.clear()
            self.changed.set()

    def _event(self, method: str, params: Any) -> None:
        if method == "Console.messageAdded":
            message = params.get("message") if isinstance(params, dict) else None
            if not isinstance(message, dict) or message.get("text") != MARK:
                return
        elif method == "Network.requestWillBeSent":
            self.inflight = min(self.inflight + 1, 1000)
            if self.busy_since is None:
                self.busy_since = time.monotonic()
            return
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            self.inflight = max(0, self.inflight - 1)
            if self.inflight == 0:
                self.busy_since = None
        elif method not in ("Page.loadEventFired", "Page.frameNavigated",
                            "Page.domContentEventFired"):  # fmt: skip
            return
        self.changed.set()

    async def _call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if self._closed:
            raise PageClosed(f"{method}: the page is gone")
        if len(self._pending) >= MAX_PENDING:
            raise PageError(f"{method}: more than {MAX_PENDING} commands waiting")
        mid = next(self._ids)
        done = anyio.Event()
        box: list[dict[str, Any]] = []
        self._pending[mid] = (done, box)
        try:
            await self.transport.send({"id": mid, "method": method, "params": params or {}})
            with anyio.fail_after(TIMEOUT_S):
                await done.wait()
        finally:
            self._pending.pop(mid, None)
        if not box:
            raise PageClosed(f"{method}: the page is gone")
        answer = box[0]
        error = answer.get("error")
        if error is not None:
            text = error.get("message") if isinstance(error, dict) else error
            raise PageError(f"{method}: {str(text)[:300]}")
        result = answer.get("result")
        return result if isinstance(result, dict) else {}

    async def evaluate(self, expression: str) -> msgspec.Raw:
        """The value of ``expression`` (by value); raises ``PageError`` when it threw."""
        got = await self._call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}
        )
        try:
            evaluated = msgspec.json.decode(json.dumps(got), type=_Evaluated)
        except msgspec.DecodeError as exc:
            raise PageError(f"Runtime.evaluate: unexpected answer: {exc}") from exc
        if evaluated.wasThrown:
            raise PageError(f"the page's script threw: {bytes(evaluated.result.value)[:200]!r}")
        return evaluated.result.value

    async def prepare(self) -> None:
        await self._call("Console.enable")
        await self._call("Page.enable")
        await self.evaluate(OBSERVER)

    async def read(self, box: Bounds, url: str | None = None) -> WebContent:
        await self.evaluate(OBSERVER)  # a new document has none yet (idempotent)
        raw = await self.evaluate(WALKER)
        try:
            text = msgspec.json.decode(raw, type=str)
            walk = msgspec.json.decode(text, type=PageWalk)
        except msgspec.DecodeError as exc:
            raise PageError(f"the page walk did not decode: {exc}") from exc
        return walk_items(walk, box)

    async def _on(self, node_id: int, body: str) -> msgspec.Raw:
        element = BY_ID % int(node_id)
        return await self.evaluate(
            f"(() => {{ let el = {element}; if (!el) throw new Error('gone'); {body} }})()"
        )

    async def click(self, node_id: int) -> None:
        await self._on(node_id, "el.scrollIntoView({block: 'center'}); el.click();")

    async def focus(self, node_id: int) -> None:
        await self._on(node_id, "el.focus();")

    async def scroll(self, node_id: int, forward: bool) -> bool:
        """The walker's root (id 0) is the page; any other id an element (see ``PageSession``)."""
        share = SCROLL_SHARE * (1 if forward else -1)
        body = (
            "if (el.tagName === 'IFRAME' && el.contentDocument)"
            " el = el.contentDocument.scrollingElement || el.contentDocument.documentElement;"
            " const before = el.scrollTop;"
            f" el.scrollBy(0, Math.round(el.clientHeight * {share}) || {1 if forward else -1});"
            " return el.scrollTop !== before;"
        )
        if node_id == 0:
            page = "(document.scrollingElement || document.documentElement)"
            raw = await self.evaluate(f"(() => {{ let el = {page}; {body} }})()")
        else:
            raw = await self._on(node_id, body)
        return bool(msgspec.json.decode(raw)) if raw else False

    async def set_text(self, node_id: int, text: str) -> str | None:
        literal = json.dumps(text)
        body = (
            "el.focus(); if (el.select) el.select();"
            f" const t = {literal};"
            " const ok = t ? document.execCommand('insertText', false, t)"
            " : document.execCommand('delete');"
            " if (!ok) { el.value = t; el.dispatchEvent(new Event('input', {bubbles: true})); }"
            " return el.value === undefined ? null : String(el.value);"
        )
        raw = await self._on(node_id, body)
        return msgspec.json.decode(raw, type=str | None) if raw else None

    async def close(self) -> None:
        self._closed = True
        await self.transport.close()


class IosWebSource:
    """A device's inspectable pages (``WebSource``): each opens a ``WebKitPage``."""

    def __init__(self, inspector: Inspector) -> None:
        self.inspector = inspector
        self._problem: str | None = None

    @property
    def problem(self) -> str | None:
        return self._problem

    async def pages(self) -> list[WebPageEndpoint]:
        try:
            found = await self.inspector.pages()
        except InspectorOff:
            self._problem = WEB_INSPECTOR_OFF
            return []
        except Exception as exc:  # the service refused or is off: a problem, not a crash
            self._problem = f"the Web Inspector did not answer: {exc}"[:300]
            return []
        if not found:
            self._problem = WEB_INSPECTOR_OFF
            return []
        self._problem = None
        return [self._endpoint(page) for page in found]

    def _endpoint(self, page: WirPage) -> WebPageEndpoint:
        async def open_session() -> WebKitPage:
            return WebKitPage(await self.inspector.open(page))

        return WebPageEndpoint(
            ws_url=f"webinspector://{page.app_id}/{page.page_id}",
            title=page.title,
            url=page.url,
            open=open_session,
        )
