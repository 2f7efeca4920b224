"""One attached page, whatever speaks to it: the ``PageSession`` the hub's web layer uses,
and its Chrome DevTools Protocol implementation (``CdpPage``).

A session is opened from a ``WebPageEndpoint`` (``open_page``), then ``prepare``-d (change
notifications installed), ``serve``-d in a task (its events; ``changed`` is set on every page
change, and when the session ends), ``read`` for the page's content in a WebView's box, and
acted on (``click``, ``set_text``, ``focus``) by the element's DOM node id. ``busy`` is true
while the page's network is in flight (at most ``BUSY_CAP_S``).

CDP specifics (docs/design.md, "Web content"): a binding (``Runtime.addBinding``) that a
page script (``OBSERVER``, installed for new documents too) calls once per task in which the
DOM mutated or the user typed, scrolled, focused or an animation ended, plus Page load and
navigation events; a read is three commands (layout metrics, full AX tree, DOM snapshot).
"""

from __future__ import annotations

import time
from typing import Protocol, TypeVar

import anyio
import msgspec

from bridge.core.web_tree import (
    MAX_FRAMES,
    REMOTE_SHIFT,
    WebContent,
    shifted,
    viewport_of,
    web_items,
)
from bridge.devices.web.cdp import CdpClient, CdpError
from bridge.devices.web.observer import observer_script
from bridge.devices.web.source import WebPageEndpoint
from bridge.wire.base import Bounds
from bridge.wire.cdp import (
    AttachedToTarget,
    BindingCalled,
    CallResult,
    DetachedFromTarget,
    DomSnapshot,
    FrameOwner,
    FullAXTree,
    LayoutMetrics,
    ResolvedNode,
)

BINDING = "__mobridgeChanged"
OBSERVER = observer_script(f'{BINDING}("c");', tell_at_start=True)
_PAGE_EVENTS = frozenset(
    {"Page.frameNavigated", "Page.loadEventFired", "Page.domContentEventFired",
     "Page.navigatedWithinDocument"}
)  # fmt: skip
BUSY_CAP_S = 2.0
"""The longest the page's network keeps the screen unsettled."""
READ_TIMEOUT_S = 10.0
SELECT = "function() { if (this.select) this.select(); }"
VALUE = "function() { return this.value === undefined ? null : String(this.value); }"
CLICK = "function() { this.scrollIntoView({block: 'center'}); this.click(); }"
SNAPSHOT = {"computedStyles": ["overflow-y"], "includeDOMRects": True}
"""``DOMSnapshot.captureSnapshot``'s parameters: boxes, plus what says which boxes scroll."""
SCROLL_SHARE = 0.8
"""A scroll moves the content by this share of the scrolling box's height (an overlap keeps
the reader's place, as a finger's fling does)."""
SCROLL = (
    "function(forward) { const doc = this.nodeType === 9 ? this"
    " : (this.tagName === 'IFRAME' ? this.contentDocument : null);"
    " const el = doc ? (doc.scrollingElement || doc.documentElement) : this;"
    " const before = el.scrollTop;"
    " const step = Math.max(1, Math.round(el.clientHeight * SHARE));"
    " el.scrollBy(0, forward ? step : -step);"
    " return el.scrollTop !== before; }"
).replace("SHARE", str(SCROLL_SHARE))
"""Scroll the element (the document: the page; a frame: its document) by a share of its
height; whether it moved."""
CLEAR = (
    "function() { this.focus(); if (this.select) this.select();"
    " document.execCommand('delete'); return this.value; }"
)


T = TypeVar("T")


class PageClosed(Exception):
    """The page (or the connection to it) went away."""


class PageError(Exception):
    """The page refused a command (the message says what)."""


class PageSession(Protocol):
    changed: anyio.Event
    """Set on every page change and when the session ends; the reader replaces it."""

    @property
    def closed(self) -> bool: ...

    @property
    def busy(self) -> bool: ...

    async def serve(self) -> None:
        """Read the page's events until the session ends (sets ``changed`` at the end)."""
        ...

    async def prepare(self) -> None: ...

    async def read(self, box: Bounds, url: str | None) -> WebContent: ...

    async def click(self, node_id: int) -> None: ...

    async def set_text(self, node_id: int, text: str) -> str | None:
        """Put ``text`` in the element (empty: clear it); its value read back."""
        ...

    async def focus(self, node_id: int) -> None: ...

    async def scroll(self, node_id: int, forward: bool) -> bool:
        """Scroll the element (the page's root: the page) by ``SCROLL_SHARE`` of its height,
        forward = towards the end; whether it moved (False: already at that end)."""
        ...

    async def close(self) -> None: ...


async def open_page(endpoint: WebPageEndpoint) -> PageSession:
    """A session to ``endpoint`` (its own opener, else CDP at its websocket URL)."""
    if endpoint.open is not None:
        opened: PageSession = await endpoint.open()
        return opened
    return await CdpPage.connect(endpoint.ws_url)


class CdpPage:
    """A page over the Chrome DevTools Protocol (Chromium, Android WebView, Chrome)."""

    def __init__(self, client: CdpClient) -> None:
        self.client = client
        self.changed = anyio.Event()
        self.inflight = 0
        self.busy_since: float | None = None
        self.remote: dict[str, tuple[int, str]] = {}
        """Frames another process renders (site isolation), by target id: their number
        (their DOM node ids are moved by ``number * REMOTE_SHIFT``) and session."""
        self._remote_ready: set[str] = set()
        self._numbers = iter(range(1, 900_000_000))
        """Never reused while the page lives (a frame's node ids stay its own); the range keeps
        a moved id (``number * REMOTE_SHIFT``) inside a signed 64-bit integer."""

    @classmethod
    async def connect(cls, ws_url: str) -> CdpPage:
        holder: list[CdpPage] = []
        try:
            client = await CdpClient.connect(
                ws_url, lambda m, p: holder[0].on_event(m, p) if holder else None
            )
        except (OSError, TimeoutError) as exc:
            raise PageClosed(f"cannot attach to the page: {exc}") from exc
        page = cls(client)
        holder.append(page)
        return page

    @property
    def closed(self) -> bool:
        return self.client.closed

    @property
    def busy(self) -> bool:
        since = self.busy_since
        return since is not None and time.monotonic() - since < BUSY_CAP_S

    def on_event(self, method: str, params: msgspec.Raw) -> None:
        if method == "Target.attachedToTarget":
            try:
                attached = msgspec.json.decode(params, type=AttachedToTarget)
            except msgspec.DecodeError:
                return
            info = attached.targetInfo
            if info.type != "iframe" or info.targetId in self.remote:
                return
            if len(self.remote) >= MAX_FRAMES:
                return  # past the cap a frame stays one node
            number = next(self._numbers, None)
            if number is None:
                return
            self.remote[info.targetId] = (number, attached.sessionId)
        elif method == "Target.detachedFromTarget":
            try:
                gone = msgspec.json.decode(params, type=DetachedFromTarget).sessionId
            except msgspec.DecodeError:
                return
            for target, (_, session) in list(self.remote.items()):
                if session == gone:
                    del self.remote[target]
                    self._remote_ready.discard(session)
        elif method == "Runtime.bindingCalled":
            try:
                called = msgspec.json.decode(params, type=BindingCalled)
            except msgspec.DecodeError:
                return
            if called.name != BINDING:
                return
        elif method == "Network.requestWillBeSent":
            self.inflight = min(self.inflight + 1, 1000)
            if self.busy_since is None:
                self.busy_since = time.monotonic()
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            self.inflight = max(0, self.inflight - 1)
            if self.inflight == 0:
                self.busy_since = None
        elif method not in _PAGE_EVENTS:
            return
        self.changed.set()

    async def serve(self) -> None:
        try:
            await self.client.serve()
        finally:
            self.changed.set()

    async def _call(
        self, method: str, params: dict[str, object] | None = None, session: str | None = None
    ) -> None:
        try:
            await self.client.call(method, params, session=session)
        except CdpError as exc:
            raise PageError(str(exc)) from exc
        except Exception as exc:
            raise PageClosed(str(exc)) from exc

    async def _query(
        self, method: str, params: dict[str, object], kind: type[T], session: str | None = None
    ) -> T:
        try:
            return await self.client.query(
                method, params, kind, timeout_s=READ_TIMEOUT_S, session=session
            )
        except CdpError as exc:
            raise PageError(str(exc)) from exc
        except Exception as exc:
            raise PageClosed(str(exc)) from exc

    async def prepare(self) -> None:
        await self._call("Runtime.addBinding", {"name": BINDING})
        await self._call("Page.enable")
        await self._call("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})
        await self._call("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})
        await self._call("Runtime.evaluate", {"expression": OBSERVER})
        try:  # frames other processes render come as sessions on this connection
            await self._call(
                "Target.setAutoAttach",
                {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
            )
        except PageError:
            pass  # an engine without it: such frames stay one node

    async def _prepare_remote(self, session: str) -> None:
        """The change notifications, in a frame another process renders."""
        await self._call("Runtime.addBinding", {"name": BINDING}, session)
        await self._call("Page.enable", None, session)
        await self._call("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER}, session)
        await self._call("Runtime.evaluate", {"expression": OBSERVER}, session)

    async def _read_remote(self) -> dict[int, tuple[FullAXTree, DomSnapshot]]:
        """Each cross-process frame's tree and snapshot (ids moved), by its owner's id; a
        frame that fails stays one node."""
        out: dict[int, tuple[FullAXTree, DomSnapshot]] = {}
        for target, (number, session) in list(self.remote.items()):
            try:
                if session not in self._remote_ready:
                    await self._prepare_remote(session)
                    self._remote_ready.add(session)
                owner = await self._query("DOM.getFrameOwner", {"frameId": target}, FrameOwner)
                ax = await self._query("Accessibility.getFullAXTree", {}, FullAXTree, session)
                snap = await self._query(
                    "DOMSnapshot.captureSnapshot", SNAPSHOT, DomSnapshot, session
                )
            except PageError:
                continue
            out[owner.backendNodeId] = shifted(ax, snap, number * REMOTE_SHIFT)
        return out

    def _route(self, node_id: int) -> tuple[str | None, int]:
        """A node id -> the session it lives in and its id there (see ``remote``)."""
        number, own = divmod(node_id, REMOTE_SHIFT)
        if number == 0:
            return None, node_id
        for n, session in self.remote.values():
            if n == number:
                return session, own
        raise PageError("the frame holding the element went away")

    async def read(self, box: Bounds, url: str | None = None) -> WebContent:
        metrics = await self._query("Page.getLayoutMetrics", {}, LayoutMetrics)
        ax = await self._query("Accessibility.getFullAXTree", {}, FullAXTree)
        snapshot = await self._query("DOMSnapshot.captureSnapshot", SNAPSHOT, DomSnapshot)
        frames: dict[str, FullAXTree] = {}
        for doc in snapshot.documents[1 : MAX_FRAMES + 1]:  # frames in this process
            frame_id = (
                snapshot.strings[doc.frameId] if 0 <= doc.frameId < len(snapshot.strings) else ""
            )
            if not frame_id:
                continue
            try:
                frames[frame_id] = await self._query(
                    "Accessibility.getFullAXTree", {"frameId": frame_id}, FullAXTree
                )
            except PageError:
                continue  # the frame went away meanwhile: it stays one node
        remote = await self._read_remote() if self.remote else None
        return web_items(
            ax, snapshot, viewport_of(metrics, box), url=url, frames=frames, remote=remote
        )

    async def _on(self, node_id: int, function: str, *args: object) -> CallResult:
        session, own = self._route(node_id)
        resolved = await self._query(
            "DOM.resolveNode", {"backendNodeId": own}, ResolvedNode, session
        )
        object_id = resolved.object.objectId
        if object_id is None:
            raise PageError("the element has no object")
        return await self._query(
            "Runtime.callFunctionOn",
            {
                "objectId": object_id,
                "functionDeclaration": function,
                "returnByValue": True,
                "arguments": [{"value": a} for a in args],
            },
            CallResult,
            session,
        )

    async def scroll(self, node_id: int, forward: bool) -> bool:
        raw = (await self._on(node_id, SCROLL, forward)).result.value
        return bool(msgspec.json.decode(raw)) if raw else False

    async def click(self, node_id: int) -> None:
        await self._on(node_id, CLICK)

    async def focus(self, node_id: int) -> None:
        session, own = self._route(node_id)
        await self._call("DOM.focus", {"backendNodeId": own}, session)

    async def set_text(self, node_id: int, text: str) -> str | None:
        session, own = self._route(node_id)
        await self._call("DOM.focus", {"backendNodeId": own}, session)
        if text:
            await self._on(node_id, SELECT)
            await self._call("Input.insertText", {"text": text}, session)
        else:
            await self._on(node_id, CLEAR)
        raw = (await self._on(node_id, VALUE)).result.value
        return msgspec.json.decode(raw, type=str | None) if raw else None

    async def close(self) -> None:
        await self.client.close()


async def read_page(client: CdpClient, box: Bounds, url: str | None = None) -> WebContent:
    """One read of a CDP page through an open client (tests, the bench)."""
    return await CdpPage(client).read(box, url)
