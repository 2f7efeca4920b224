"""The hub's web layer: a device's WebView pages merged into its snapshots, and acted on.

Per device whose driver offers a ``WebSource`` (one ``watch`` task beside its ingest):

- while the newest snapshot shows a ``WEB_VIEW``, ask the source for its pages and attach to
  the first (the simulated device has one; a phone lists the visible one first): a
  ``PageSession`` (``bridge.devices.web.page``: the Chrome DevTools Protocol, or iOS's Web
  Inspector through ``bridge.devices.ios.web_inspector``);
- on attach the session installs its change notifications (CDP: a binding called by a page
  script once per task in which the DOM mutated or the user typed, scrolled or an animation
  ended, and Page events). Each change marks the page dirty: no polling;
- a dirty page is read (CDP: ``Page.getLayoutMetrics`` + ``Accessibility.getFullAXTree`` +
  ``DOMSnapshot.captureSnapshot``), turned into raw nodes under the WebView
  (``bridge.core.web_tree``) and, when they differ, handed to ingest as one more generation
  (the device's last push again, ``quiet_ms`` 0). Reads are serialized and coalesced;
- while the page has requests in flight (at most ``BUSY_CAP_S`` from the first) the
  re-ingested push says ``stable: false``, so ``settled`` and an action's settle wait for
  the page's network and layout to calm, bounded.

Acting (``act``): CLICK and LONG_CLICK are taps through the native layer at the element's
mapped centre when it is visible inside the WebView (a native overlay still wins, as for a
finger), else ``element.click()`` in the page; SET_TEXT focuses the element, selects its
content, inserts the text (CDP: ``Input.insertText``) and reads the value back (a different
value fails the dispatch); CLEAR_TEXT and FOCUS likewise; SCROLL_FORWARD /
SCROLL_BACKWARD on what scrolls (the page's root: the page; a box whose content overflows)
scroll it in the page by a share of its height (nothing moved: FAILED, at that end), and the
page's scroll event brings the new visible part as the next generation. The answer is an
agent ``Reply``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec

from bridge.core.web_tree import WebContent, WebItem, WebOverlay
from bridge.devices.web.page import PageClosed, PageError, PageSession, open_page
from bridge.devices.web.source import WebPageEndpoint, WebSource
from bridge.hub.device import DeviceRuntime
from bridge.net.agent_link import AgentLost
from bridge.wire.agent_link import GestureCommand, Point, Reply
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionMethod, ActionVerb, Role
from bridge.wire.node import SemanticNode

RETRY_S = 2.0
"""How soon pages are asked for again when a WebView shows and none could be attached."""
BUSY_CAP_S = 2.0
MIN_READ_GAP_S = 0.02
"""Reads of one page start at least this far apart (a page that calls the binding in a loop
costs the hub and the browser a bounded share)."""
READ_BACK_DIFFERS = "the field did not take the text (its value reads back different)"
SCROLLED_TO_END = "it is already scrolled to that end (nothing moved)"


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

    session: PageSession
    endpoint: WebPageEndpoint
    content: WebContent | None = None
    anchor: Bounds | None = None

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
        try:
            session = await open_page(page)
        except (PageClosed, PageError, OSError, TimeoutError, ValueError) as exc:
            self.counts.failures += 1
            self.problems[device.id] = f"cannot attach to the page: {exc}"[:300]
            return
        attachment = Attachment(session, page)
        self.counts.attaches += 1
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(session.serve)
                try:
                    await session.prepare()
                    self.attached[device.id] = attachment
                    await self._keep_fresh(device, reingest, attachment)
                except (PageClosed, PageError, TimeoutError) as exc:
                    self.counts.failures += 1
                    self.problems[device.id] = f"the page went away: {exc}"[:300]
                    if self.log is not None:
                        self.log.info("web_detached", device=device.id, reason=str(exc)[:200])
                tg.cancel_scope.cancel()
        finally:
            self.attached.pop(device.id, None)
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                await session.close()
        self._drop(device, reingest)

    async def _keep_fresh(
        self, device: DeviceRuntime, reingest: Callable[[], None], att: Attachment
    ) -> None:
        last_stable = True
        last_read = 0.0
        session = att.session
        while True:
            box = _webview_box(device)
            if box is None:
                return
            gap = time.perf_counter() - last_read
            if gap < MIN_READ_GAP_S:  # a page that changes without pause is read 50x/s at most
                await anyio.sleep(MIN_READ_GAP_S - gap)
            session.changed = anyio.Event()
            started = time.perf_counter()
            content = await session.read(box, att.endpoint.url)
            self.counts.reads += 1
            self.counts.read_ms.append((time.perf_counter() - started) * 1000)
            del self.counts.read_ms[:-400]
            last_read = time.perf_counter()
            att.content, att.anchor = content, box
            overlay = WebOverlay(box, content)
            stable = not session.busy
            if overlay != device.web_overlay or stable != last_stable:
                device.web_overlay = overlay
                self.counts.overlays += 1
                push = device.last_push
                if push is not None:
                    device.last_push = msgspec.structs.replace(push, quiet_ms=0, stable=stable)
                reingest()
                last_stable = stable
            await _dirty_or_moved(device, session, box)
            if session.closed:
                return

    async def act(
        self, device: DeviceRuntime, node: SemanticNode, verb: ActionVerb, text: str | None
    ) -> Reply:
        """Perform ``verb`` on the web node ``node`` (see the module docstring)."""
        att = self.attached.get(device.id)
        item = att.item_of(node.automation_id) if att is not None else None
        if att is None or item is None or item.backend_id is None:
            return Reply(id=0, ok=False, code="NOT_FOUND", message="the page no longer has it")
        session = att.session
        node_id = item.backend_id
        try:
            if verb in (ActionVerb.CLICK, ActionVerb.LONG_CLICK):
                return await self._tap(device, att, item, node, verb)
            if verb in (ActionVerb.SET_TEXT, ActionVerb.CLEAR_TEXT):
                wanted = (text or "") if verb is ActionVerb.SET_TEXT else ""
                if await session.set_text(node_id, wanted) != wanted:
                    return Reply(
                        id=0,
                        ok=False,
                        code="FAILED",
                        message=READ_BACK_DIFFERS,
                    )
                return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
            if verb is ActionVerb.FOCUS:
                await session.focus(node_id)
                return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
            if verb in (ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD) and item.scrollable:
                if not await session.scroll(node_id, verb is ActionVerb.SCROLL_FORWARD):
                    return Reply(id=0, ok=False, code="FAILED", message=SCROLLED_TO_END)
                return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)
        except PageError as exc:
            return Reply(id=0, ok=False, code="FAILED", message=str(exc)[:300])
        except (PageClosed, TimeoutError):
            return Reply(id=0, ok=False, code="NOT_FOUND", message="the page went away")
        return Reply(
            id=0,
            ok=False,
            code="UNSUPPORTED",
            message=f"{verb.value} on a web element: CLICK, LONG_CLICK, SET_TEXT, "
            "CLEAR_TEXT, FOCUS, and SCROLL_FORWARD / SCROLL_BACKWARD on what scrolls, "
            "are supported",
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
        await att.session.click(item.backend_id)
        return Reply(id=0, ok=True, method=ActionMethod.ACCESSIBILITY_ACTION)


def _webview_box(device: DeviceRuntime) -> Bounds | None:
    """The bounds of the newest snapshot's first visible WebView (None: none shown)."""
    current = device.current
    if current is None:
        return None
    for node in current.normalized.compact.nodes:  # a WEB_VIEW is always in the compact view
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


async def _dirty_or_moved(device: DeviceRuntime, att: PageSession, box: Bounds) -> None:
    """Wait until the page is dirty, the WebView moved or went, or the page's network
    calmed (a busy page is looked at again when its cap runs out)."""
    while True:
        if att.changed.is_set() or att.closed:
            return
        changed = device.changed
        timeout = BUSY_CAP_S if att.busy else None
        with anyio.move_on_after(timeout if timeout is not None else 3600):
            async with anyio.create_task_group() as tg:

                async def page() -> None:
                    await att.changed.wait()
                    tg.cancel_scope.cancel()

                async def native(event: anyio.Event = changed) -> None:
                    await event.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(page)
                tg.start_soon(native)
        if att.changed.is_set() or _webview_box(device) != box or att.closed:
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
