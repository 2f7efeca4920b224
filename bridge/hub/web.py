"""The hub's web layer: a device's WebView pages merged into its snapshots, and acted on.

Per device whose driver offers a ``WebSource`` (one ``watch`` task beside its ingest):

- while the newest snapshot shows a ``WEB_VIEW``, ask the source for its pages and attach to
  the first (the simulated device has one; a phone lists the visible one first) over the
  Chrome DevTools Protocol (``bridge.devices.web.cdp``);
- on attach, install a binding and a page script (``OBSERVER``) that calls it once per task
  in which the DOM mutated or the user typed, scrolled or an animation ended; page loads
  and navigations arrive as Page events. Each such event marks the page dirty: no polling;
- a dirty page is read (``Page.getLayoutMetrics`` + ``Accessibility.getFullAXTree`` +
  ``DOMSnapshot.captureSnapshot``: three commands), turned into raw nodes under the WebView
  (``bridge.core.web_tree``) and, when they differ, handed to ingest as one more generation
  (the device's last push again, ``quiet_ms`` 0). Reads are serialized and coalesced;
- while the page has requests in flight (at most ``BUSY_CAP_S`` from the first) the
  re-ingested push says ``stable: false``, so ``settled`` and an action's settle wait for
  the page's network and layout to calm, bounded.

Acting (``act``): CLICK and LONG_CLICK are taps through the native layer at the element's
mapped centre when it is visible inside the WebView (a native overlay still wins, as for a
finger), else ``element.click()`` over CDP; SET_TEXT focuses the element, selects its
content, ``Input.insertText`` and reads the value back (a different value fails the
dispatch); CLEAR_TEXT and FOCUS likewise over CDP. The answer is an agent ``Reply``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec

from bridge.core.web_tree import (
    WebContent,
    WebItem,
    WebOverlay,
    viewport_of,
    web_items,
)
from bridge.devices.web.cdp import CdpClient, CdpClosed, CdpError
from bridge.devices.web.source import WebPageEndpoint, WebSource
from bridge.hub.device import DeviceRuntime
from bridge.net.agent_link import AgentLost
from bridge.wire.agent_link import GestureCommand, Point, Reply
from bridge.wire.base import Bounds
from bridge.wire.cdp import (
    BindingCalled,
    CallResult,
    DomSnapshot,
    FullAXTree,
    LayoutMetrics,
    ResolvedNode,
)
from bridge.wire.enums import ActionMethod, ActionVerb, Role
from bridge.wire.node import SemanticNode

BINDING = "__mobridgeChanged"
OBSERVER = """(() => {
  if (window.__mobridgeObserving) return;
  window.__mobridgeObserving = true;
  let queued = false;
  const tell = () => {
    if (queued) return;
    queued = true;
    Promise.resolve().then(() => { queued = false; try { %s("c"); } catch (e) {} });
  };
  new MutationObserver(tell).observe(document, {subtree: true, childList: true,
    attributes: true, characterData: true});
  for (const type of ["input", "change", "scroll", "transitionend", "animationend",
                      "focusin", "focusout", "toggle", "close"]) {
    window.addEventListener(type, tell, true);
  }
  tell();
})()""".replace("%s", BINDING)
_PAGE_EVENTS = frozenset(
    {"Page.frameNavigated", "Page.loadEventFired", "Page.domContentEventFired",
     "Page.navigatedWithinDocument"}
)  # fmt: skip
BUSY_CAP_S = 2.0
"""The longest the page's network keeps the screen unsettled."""
RETRY_S = 2.0
"""How soon pages are asked for again when a WebView shows and none could be attached."""
READ_TIMEOUT_S = 10.0
_SELECT = "function() { if (this.select) this.select(); }"
_VALUE = "function() { return this.value === undefined ? null : String(this.value); }"
_CLICK = "function() { this.scrollIntoView({block: 'center'}); this.click(); }"
_CLEAR = (
    "function() { this.focus(); if (this.select) this.select();"
    " document.execCommand('delete'); return this.value; }"
)


@dataclass
class WebCounts:
    reads: int = 0
    overlays: int = 0
    failures: int = 0
    attaches: int = 0
    read_ms: list[float] = field(default_factory=list)


@dataclass
class Attachment:
    """One page attached for one device."""

    client: CdpClient
    endpoint: WebPageEndpoint
    dirty: anyio.Event = field(default_factory=anyio.Event)
    inflight: int = 0
    busy_since: float | None = None
    content: WebContent | None = None
    anchor: Bounds | None = None

    def on_event(self, method: str, params: msgspec.Raw) -> None:
        if method == "Runtime.bindingCalled":
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
        self.dirty.set()

    @property
    def busy(self) -> bool:
        since = self.busy_since
        return since is not None and time.monotonic() - since < BUSY_CAP_S

    def item_of(self, automation_id: str | None) -> WebItem | None:
        content = self.content
        if content is None or automation_id is None:
            return None
        for item in content.items:
            if item.automation_id == automation_id:
                return item
        return None


class WebService:
    """Attaches devices' WebView pages (one ``watch`` task per device with a source)."""

    def __init__(self, log: Any = None) -> None:
        self.log = log
        self.counts = WebCounts()
        self.attached: dict[str, Attachment] = {}
        self.problems: dict[str, str] = {}
        """Device id -> why its WebView's page cannot be attached (the doctor shows it)."""

    def device_state(self, device_id: str) -> dict[str, object] | None:
        """The device's web state for ``/v1/stats`` (None: it shows no page)."""
        problem = self.problems.get(device_id)
        att = self.attached.get(device_id)
        if att is None and problem is None:
            return None
        nodes = len(att.content.items) if att is not None and att.content else 0
        return {"attached": att is not None, "nodes": nodes, "problem": problem}

    def statistics(self) -> dict[str, object]:
        timings = sorted(self.counts.read_ms[-200:])
        return {
            "attached": sorted(self.attached),
            "reads": self.counts.reads,
            "overlays": self.counts.overlays,
            "failures": self.counts.failures,
            "read_p50_ms": round(timings[len(timings) // 2], 1) if timings else None,
            "problems": dict(self.problems),
        }

    async def watch(
        self, device: DeviceRuntime, reingest: Callable[[], None], source: WebSource
    ) -> None:
        """Keep ``device``'s web overlay in step with its WebView's page (until cancelled)."""
        try:
            while True:
                box = _webview_box(device)
                if box is None:
                    self._drop(device, reingest)
                    await _next_change(device, None)
                    continue
                pages = await source.pages()
                if not pages:
                    problem = source.problem
                    if problem:
                        self.problems[device.id] = problem
                    await _next_change(device, RETRY_S)
                    continue
                self.problems.pop(device.id, None)
                await self._follow(device, reingest, pages[0])
                if device.id in self.problems:  # it failed: not again at once
                    await _next_change(device, RETRY_S)
        finally:
            self.attached.pop(device.id, None)

    def _drop(self, device: DeviceRuntime, reingest: Callable[[], None]) -> None:
        if device.web_overlay is not None:
            device.web_overlay = None
            reingest()

    async def _follow(
        self, device: DeviceRuntime, reingest: Callable[[], None], page: WebPageEndpoint
    ) -> None:
        """Attach to ``page`` and keep the overlay fresh until the page or WebView goes."""
        attachment: Attachment | None = None
        try:
            holder: list[Attachment] = []
            client = await CdpClient.connect(
                page.ws_url, lambda m, p: holder[0].on_event(m, p) if holder else None
            )
        except (OSError, TimeoutError, ValueError) as exc:
            self.counts.failures += 1
            self.problems[device.id] = f"cannot attach to the page: {exc}"[:300]
            await _next_change(device, RETRY_S)
            return
        attachment = Attachment(client, page)
        holder.append(attachment)
        self.counts.attaches += 1
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_serve, client, attachment)
                try:
                    await _prepare_page(client)
                    self.attached[device.id] = attachment
                    await self._keep_fresh(device, reingest, attachment)
                except (CdpError, CdpClosed, TimeoutError) as exc:
                    self.counts.failures += 1
                    self.problems[device.id] = f"the page went away: {exc}"[:300]
                    if self.log is not None:
                        self.log.info("web_detached", device=device.id, reason=str(exc)[:200])
                tg.cancel_scope.cancel()
        finally:
            self.attached.pop(device.id, None)
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                await client.close()
        self._drop(device, reingest)

    async def _keep_fresh(
        self, device: DeviceRuntime, reingest: Callable[[], None], att: Attachment
    ) -> None:
        last_stable = True
        while True:
            box = _webview_box(device)
            if box is None:
                return
            att.dirty = anyio.Event()
            started = time.perf_counter()
            content = await read_page(att.client, box, att.endpoint.url)
            self.counts.reads += 1
            self.counts.read_ms.append((time.perf_counter() - started) * 1000)
            del self.counts.read_ms[:-400]
            att.content, att.anchor = content, box
            overlay = WebOverlay(box, content)
            stable = not att.busy
            if overlay != device.web_overlay or stable != last_stable:
                device.web_overlay = overlay
                self.counts.overlays += 1
                push = device.last_push
                if push is not None:
                    device.last_push = msgspec.structs.replace(push, quiet_ms=0, stable=stable)
                reingest()
                last_stable = stable
            await _dirty_or_moved(device, att, box)
            if att.client.closed:
                return

    async def act(
        self, device: DeviceRuntime, node: SemanticNode, verb: ActionVerb, text: str | None
    ) -> Reply:
        """Perform ``verb`` on the web node ``node`` (see the module docstring)."""
        att = self.attached.get(device.id)
        item = att.item_of(node.automation_id) if att is not None else None
        if att is None or item is None or item.backend_id is None:
            return Reply(id=0, ok=False, code="NOT_FOUND", message="the page no longer has it")
        try:
            if verb in (ActionVerb.CLICK, ActionVerb.LONG_CLICK):
                return await self._tap(device, att, item, node, verb)
            if verb is ActionVerb.SET_TEXT:
                return await _set_text(att.client, item.backend_id, text or "")
            if verb is ActionVerb.CLEAR_TEXT:
                return await _set_text(att.client, item.backend_id, "")
            if verb is ActionVerb.FOCUS:
                await att.client.call("DOM.focus", {"backendNodeId": item.backend_id})
                return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
        except CdpError as exc:
            return Reply(id=0, ok=False, code="FAILED", message=str(exc)[:300])
        except (CdpClosed, TimeoutError):
            return Reply(id=0, ok=False, code="NOT_FOUND", message="the page went away")
        return Reply(
            id=0,
            ok=False,
            code="UNSUPPORTED",
            message=f"{verb.value} on a web element: CLICK, LONG_CLICK, SET_TEXT, "
            "CLEAR_TEXT and FOCUS are supported",
        )

    async def _tap(
        self,
        device: DeviceRuntime,
        att: Attachment,
        item: WebItem,
        node: SemanticNode,
        verb: ActionVerb,
    ) -> Reply:
        bounds = node.bounds
        anchor = att.anchor
        link = device.link
        native = (
            link is not None
            and "gesture" in device.capabilities
            and bounds is not None
            and anchor is not None
            and item.visible
            and _inside(_centre(bounds), anchor)
        )
        if native and link is not None and bounds is not None:
            x, y = _centre(bounds)
            kind = "tap" if verb is ActionVerb.CLICK else "long_press"
            try:
                reply = await link.command(
                    lambda cid: GestureCommand(id=cid, kind=kind, points=(Point(x=x, y=y),)),
                    timeout_s=10,
                )
            except (AgentLost, TimeoutError):
                reply = None
            if reply is not None and reply.ok:
                return Reply(id=reply.id, ok=True, method=ActionMethod.GESTURE_FALLBACK)
        if verb is ActionVerb.LONG_CLICK:
            return Reply(id=0, ok=False, code="NOT_VISIBLE", message="not on screen to press")
        assert item.backend_id is not None
        await _call_on(att.client, item.backend_id, _CLICK)
        return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)


async def _serve(client: CdpClient, att: Attachment) -> None:
    """Read the page's messages; its end wakes the reader (``dirty``)."""
    try:
        await client.serve()
    finally:
        att.dirty.set()


async def _prepare_page(client: CdpClient) -> None:
    await client.call("Runtime.addBinding", {"name": BINDING})
    await client.call("Page.enable")
    await client.call("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})
    await client.call("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})
    await client.call("Runtime.evaluate", {"expression": OBSERVER})


async def read_page(client: CdpClient, box: Bounds, url: str | None = None) -> WebContent:
    """One read of the page: metrics, AX tree, DOM snapshot -> ``WebContent`` in ``box``."""
    metrics = await client.query("Page.getLayoutMetrics", {}, LayoutMetrics)
    ax = await client.query("Accessibility.getFullAXTree", {}, FullAXTree, timeout_s=READ_TIMEOUT_S)
    snapshot = await client.query(
        "DOMSnapshot.captureSnapshot",
        {"computedStyles": [], "includeDOMRects": False},
        DomSnapshot,
        timeout_s=READ_TIMEOUT_S,
    )
    return web_items(ax, snapshot, viewport_of(metrics, box), url=url)


async def _call_on(client: CdpClient, backend_id: int, function: str) -> CallResult:
    resolved = await client.query("DOM.resolveNode", {"backendNodeId": backend_id}, ResolvedNode)
    object_id = resolved.object.objectId
    if object_id is None:
        raise CdpError("DOM.resolveNode", -3, "the element has no object")
    return await client.query(
        "Runtime.callFunctionOn",
        {"objectId": object_id, "functionDeclaration": function, "returnByValue": True},
        CallResult,
    )


async def _set_text(client: CdpClient, backend_id: int, text: str) -> Reply:
    """Focus, select, insert ``text`` (or delete the selection), read the value back."""
    await client.call("DOM.focus", {"backendNodeId": backend_id})
    if text:
        await _call_on(client, backend_id, _SELECT)
        await client.call("Input.insertText", {"text": text})
    else:
        await _call_on(client, backend_id, _CLEAR)
    read = await _call_on(client, backend_id, _VALUE)
    raw = read.result.value
    value = msgspec.json.decode(raw, type=str | None) if raw else None
    if value != text:
        return Reply(
            id=0,
            ok=False,
            code="FAILED",
            message="the field did not take the text (its value reads back different)",
        )
    return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)


def _webview_box(device: DeviceRuntime) -> Bounds | None:
    """The bounds of the newest snapshot's first visible WebView (None: none shown)."""
    current = device.current
    if current is None:
        return None
    for node in current.normalized.full.nodes:
        if node.role is Role.WEB_VIEW and node.bounds is not None:
            left, top, right, bottom = node.bounds
            if right > left and bottom > top:
                return node.bounds
    return None


def _centre(b: Bounds) -> tuple[int, int]:
    return (b[0] + b[2]) // 2, (b[1] + b[3]) // 2


def _inside(point: tuple[int, int], box: Bounds) -> bool:
    x, y = point
    return box[0] <= x < box[2] and box[1] <= y < box[3]


async def _dirty_or_moved(device: DeviceRuntime, att: Attachment, box: Bounds) -> None:
    """Wait until the page is dirty, the WebView moved or went, or the page's network
    calmed (a busy page is looked at again when its cap runs out)."""
    while True:
        if att.dirty.is_set() or att.client.closed:
            return
        changed = device.changed
        timeout = BUSY_CAP_S if att.busy else None
        with anyio.move_on_after(timeout if timeout is not None else 3600):
            async with anyio.create_task_group() as tg:

                async def page() -> None:
                    await att.dirty.wait()
                    tg.cancel_scope.cancel()

                async def native(event: anyio.Event = changed) -> None:
                    await event.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(page)
                tg.start_soon(native)
        if att.dirty.is_set() or _webview_box(device) != box or att.client.closed:
            return
        if timeout is not None:
            return


async def _next_change(device: DeviceRuntime, timeout_s: float | None) -> bool:
    changed = device.changed
    if timeout_s is None:
        await changed.wait()
        return True
    with anyio.move_on_after(timeout_s):
        await changed.wait()
        return True
    return False
