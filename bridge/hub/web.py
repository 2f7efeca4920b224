"""The hub's web layer: a device's WebView pages merged into its snapshots, and acted on.

Per device whose driver offers a ``WebSource`` (one ``watch`` task beside its ingest):

- while the newest snapshot shows ``WEB_VIEW``s, ask the source for its pages, pair each
  visible WebView with one page (``pair``: by the place a page says it is on the screen,
  else by its title being the WebView's name, else in order) and attach to each (at most
  ``MAX_WEBVIEWS``; when the WebViews on screen change they are paired again): a
  ``PageSession`` (``bridge.devices.web.page``: the Chrome DevTools Protocol, or iOS's Web
  Inspector through ``bridge.devices.ios.web_inspector``);
- a WebView that only moves (as many on screen, each the same node: a screen sliding in, a
  keyboard resizing it) keeps its page: the page is read again at the new place, and asked
  for again to check it is still that WebView's (``_moved``). Its content is never dropped
  and re-attached for a move, so a target found a moment ago does not vanish meanwhile;
- on attach the session installs its change notifications (CDP: a binding called by a page
  script once per task in which the DOM mutated or the user typed, scrolled or an animation
  ended, and Page events). Each change marks the page dirty: no polling;
- a dirty page is read (CDP: ``Page.getLayoutMetrics`` + ``Accessibility.getFullAXTree`` +
  ``DOMSnapshot.captureSnapshot``), turned into raw nodes under the WebView
  (``bridge.core.web_tree``; several pages: ``WebOverlays``, each under its own WebView)
  and, when they differ, handed to ingest as one more generation
  (the device's last push again, ``quiet_ms`` 0). Reads are serialized and coalesced;
- while the page has requests in flight (at most ``BUSY_CAP_S`` from the first) the
  re-ingested push says ``stable: false``, so ``settled`` and an action's settle wait for
  the page's network and layout to calm, bounded. A re-ingested push is stable only when
  the agent's own last push was too (a screen still sliding in is not made stable by its
  page being calm): ``_Restamp``.

Acting (``act``): CLICK and LONG_CLICK are taps through the native layer at the element's
mapped centre when it is visible inside the WebView (a native overlay still wins, as for a
finger), else ``element.click()`` in the page; SET_TEXT focuses the element, selects its
content, inserts the text (CDP: ``Input.insertText``) and reads the value back (a different
value fails the dispatch); CLEAR_TEXT and FOCUS likewise; SCROLL_FORWARD /
SCROLL_BACKWARD on what scrolls (the page's root: the page; a box whose content overflows)
scroll it in the page by a share of its height (nothing moved: FAILED, at that end), and the
page's scroll event brings the new visible part as the next generation. The answer is an
agent ``Reply``, given once a read of the page begun after an in-page act is in the device's
snapshot (``CAUGHT_UP_S`` at most): the caller's next look shows what the act did.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec

from bridge.core.web_tree import WebContent, WebItem, WebOverlay, WebOverlays
from bridge.devices.web.page import PageClosed, PageError, PageSession, open_page
from bridge.devices.web.source import WebPageEndpoint, WebSource
from bridge.hub.device import DeviceRuntime
from bridge.net.agent_link import AgentLost
from bridge.wire.agent_link import GestureCommand, Point, Reply, TreePush
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionMethod, ActionVerb, Role
from bridge.wire.node import SemanticNode

MAX_WEBVIEWS = 8
"""WebViews followed on one screen (each its own page session)."""
RETRY_S = 2.0
"""How soon pages are asked for again when a WebView shows and none could be attached."""
BUSY_CAP_S = 2.0
MIN_READ_GAP_S = 0.02
"""Reads of one page start at least this far apart (a page that calls the binding in a loop
costs the hub and the browser a bounded share)."""
CAUGHT_UP_S = 5.0
"""After an in-page act (typing, focus, a scroll, a click in the page) the act's answer waits
at most this long for a read of the page begun after it, and for that read's snapshot: the
screen the caller observes next shows what it did (read-your-writes), also on a loaded machine
where the page's change notice comes late."""
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
    slot: int = 0
    """Its WebView's place in the list of WebViews followed (``WebService.followed``)."""
    content: WebContent | None = None
    anchor: Bounds | None = None
    reads_begun: int = 0
    """Reads of the page started so far (the loop numbers each before it starts)."""
    reads_done: int = 0
    """The number of the newest read whose result is published (merged, re-ingested)."""
    read_done: anyio.Event = field(default_factory=anyio.Event)
    """Set (and replaced) each time a read's result is published."""
    reingested: int = 0
    """The number of the newest read that changed the overlay (and was handed to ingest)."""
    taken_by: anyio.Event | None = None
    """The device's ``changed`` event as it was when that read was handed to ingest: set once
    the capture that holds it is made."""

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
        """Device id -> its first attached page (the one WebView most screens have)."""
        self.pages: dict[str, dict[int, Attachment]] = {}
        """Device id -> slot (the WebView's place in ``followed``) -> the page attached under
        that WebView."""
        self.followed: dict[str, list[WebViewOnScreen]] = {}
        """Device id -> the WebViews followed, in screen order, where they are now (a move
        updates them in place; anything else ends the following)."""
        self.restamps: dict[str, _Restamp] = {}
        """Device id -> the push the web layer last re-ingested, and the agent's stability."""
        self.problems: dict[str, str] = {}
        """Device id -> why its WebView's page cannot be attached (the doctor shows it)."""

    def device_state(self, device_id: str) -> dict[str, object] | None:
        """The device's web state for ``/v1/stats`` (None: it shows no page)."""
        problem = self.problems.get(device_id)
        pages = self.pages.get(device_id) or {}
        if not pages and problem is None:
            return None
        nodes = sum(len(a.content.items) for a in pages.values() if a.content is not None)
        return {"attached": bool(pages), "nodes": nodes, "pages": len(pages), "problem": problem}

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
        """Keep ``device``'s web overlay in step with its WebViews' pages (until cancelled):
        each visible WebView paired with one page (``pair``), all followed at once; when the
        WebViews on screen change, the pages are paired again."""
        try:
            while True:
                views = _webviews(device)
                if not views:
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
                pairs = pair(views, pages)
                await self._follow_all(device, reingest, pairs, [v.bounds for v in views], source)
                if device.id in self.problems:  # one failed: not again at once
                    await _next_change(device, RETRY_S)
        finally:
            self.attached.pop(device.id, None)
            self.pages.pop(device.id, None)
            self.followed.pop(device.id, None)
            self.restamps.pop(device.id, None)

    def box_of(self, device_id: str, att: Attachment) -> Bounds | None:
        """Where ``att``'s WebView is now (None: it is not followed any more)."""
        followed = self.followed.get(device_id) or []
        return followed[att.slot].bounds if att.slot < len(followed) else None

    async def _follow_all(
        self,
        device: DeviceRuntime,
        reingest: Callable[[], None],
        pairs: list[tuple[Bounds, WebPageEndpoint]],
        boxes: list[Bounds],
        source: WebSource,
    ) -> None:
        """Follow every pair until one ends or the WebViews on screen change (or, while a
        WebView has no page, the source offers one: asked again every ``RETRY_S``)."""
        self.followed[device.id] = _webviews(device)
        if [v.bounds for v in self.followed[device.id]] != boxes:
            return  # the screen changed while the pages were asked for: pair them again
        async with anyio.create_task_group() as tg:

            async def one(slot: int, page: WebPageEndpoint) -> None:
                await self._follow(device, reingest, page, slot)
                tg.cancel_scope.cancel()

            async def screen() -> None:
                waiting = len(pairs) < len(boxes)
                while await self._moved(device, source, pairs):
                    if not await _next_change(device, RETRY_S if waiting else None):
                        if len(await source.pages()) > len(pairs):
                            break  # a page for a WebView that had none
                tg.cancel_scope.cancel()

            for box, page in pairs:
                tg.start_soon(one, boxes.index(box), page)
            tg.start_soon(screen)
        self.followed.pop(device.id, None)
        self._publish(device, reingest)

    async def _moved(
        self, device: DeviceRuntime, source: WebSource, pairs: list[tuple[Bounds, WebPageEndpoint]]
    ) -> bool:
        """Whether the WebViews followed are still on screen, where they were or moved (then
        ``followed`` says where they are now, each attached page is read again there, and
        the source is asked which pages they show: a different pairing ends the following).
        False: WebViews came, went or were replaced; follow them anew."""
        before = self.followed.get(device.id) or []
        now = _webviews(device)
        if [v.bounds for v in now] == [v.bounds for v in before]:
            return True
        if [v.node_id for v in now] != [v.node_id for v in before]:
            return False
        self.followed[device.id] = now
        for att in (self.pages.get(device.id) or {}).values():
            att.session.changed.set()
        paired = {page.ws_url: box for box, page in pair(now, await source.pages())}
        boxes = [v.bounds for v in now]
        kept = all(paired.get(page.ws_url) == boxes[i] for i, (_, page) in enumerate(pairs))
        if kept and self.log is not None:
            self.log.debug("web_moved", device=device.id, to=boxes)
        return kept

    def _publish(self, device: DeviceRuntime, reingest: Callable[[], None]) -> bool:
        """Set the device's overlay from its attached pages (each under its WebView where it
        was read: a page read before a move shows once it is read at the new place); whether
        it changed."""
        pages = self.pages.get(device.id) or {}
        shown = [
            (a.anchor, a.content)
            for _, a in sorted(pages.items())
            if a.content is not None and a.anchor is not None
        ]
        overlay: WebOverlay | WebOverlays | None
        if not shown:
            overlay = None
        elif len(shown) == 1:
            overlay = WebOverlay(*shown[0])
        else:
            overlay = WebOverlays.of(shown)
        if overlay == device.web_overlay:
            return False
        device.web_overlay = overlay
        reingest()
        return True

    def _drop(self, device: DeviceRuntime, reingest: Callable[[], None]) -> None:
        self.pages.pop(device.id, None)
        self.attached.pop(device.id, None)
        self.followed.pop(device.id, None)
        if device.web_overlay is not None:
            device.web_overlay = None
            reingest()

    async def _follow(
        self,
        device: DeviceRuntime,
        reingest: Callable[[], None],
        page: WebPageEndpoint,
        slot: int,
    ) -> None:
        """Attach to ``page`` and keep its overlay fresh under the WebView followed at
        ``slot`` until the page or that WebView goes."""
        try:
            session = await open_page(page)
        except (PageClosed, PageError, OSError, TimeoutError, ValueError) as exc:
            self.counts.failures += 1
            self.problems[device.id] = f"cannot attach to the page: {exc}"[:300]
            return
        attachment = Attachment(session, page, slot)
        self.counts.attaches += 1
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(session.serve)
                try:
                    await session.prepare()
                    self.pages.setdefault(device.id, {})[slot] = attachment
                    self.attached.setdefault(device.id, attachment)
                    await self._keep_fresh(device, reingest, attachment)
                except (PageClosed, PageError, TimeoutError) as exc:
                    self.counts.failures += 1
                    self.problems[device.id] = f"the page went away: {exc}"[:300]
                    if self.log is not None:
                        self.log.info("web_detached", device=device.id, reason=str(exc)[:200])
                tg.cancel_scope.cancel()
        finally:
            mine = self.pages.get(device.id) or {}
            if mine.get(slot) is attachment:
                del mine[slot]
            if self.attached.get(device.id) is attachment:
                del self.attached[device.id]
                if mine:
                    self.attached[device.id] = next(iter(mine.values()))
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                await session.close()
            self._publish(device, reingest)

    async def _keep_fresh(
        self, device: DeviceRuntime, reingest: Callable[[], None], att: Attachment
    ) -> None:
        last_stable = True
        last_read = 0.0
        session = att.session
        while True:
            box = self.box_of(device.id, att)
            if box is None:
                return
            gap = time.perf_counter() - last_read
            if gap < MIN_READ_GAP_S:  # a page that changes without pause is read 50x/s at most
                await anyio.sleep(MIN_READ_GAP_S - gap)
            session.changed = anyio.Event()
            started = time.perf_counter()
            att.reads_begun += 1
            number = att.reads_begun
            content = await session.read(box, att.endpoint.url)
            self.counts.reads += 1
            self.counts.read_ms.append((time.perf_counter() - started) * 1000)
            del self.counts.read_ms[:-400]
            last_read = time.perf_counter()
            att.content, att.anchor = content, box
            stable = not session.busy
            changed = self._publish_quietly(device)
            if changed or stable != last_stable:
                self.counts.overlays += 1
                push = device.last_push
                if push is not None:
                    device.last_push = self._restamp(device.id, push, stable)
                att.reingested, att.taken_by = number, device.changed
                reingest()
                last_stable = stable
            att.reads_done = number
            att.read_done.set()
            att.read_done = anyio.Event()
            await _dirty_or_moved(device, session, box, lambda: self.box_of(device.id, att))
            if session.closed:
                return

    def _restamp(self, device_id: str, push: TreePush, page_stable: bool) -> TreePush:
        """``push`` to hand to ingest again: quiet (``quiet_ms`` 0), and stable only when the
        page is calm and the agent's own last push said stable. ``push`` is the device's last
        push: the agent's, or the one this layer made last (then the agent's flag is the one
        remembered with it)."""
        last = self.restamps.get(device_id)
        agent_stable = last.agent_stable if last is not None and last.push is push else push.stable
        made = msgspec.structs.replace(push, quiet_ms=0, stable=page_stable and agent_stable)
        self.restamps[device_id] = _Restamp(made, agent_stable)
        return made

    def _publish_quietly(self, device: DeviceRuntime) -> bool:
        """``_publish`` without the re-ingest (the caller re-ingests once, with its push)."""
        changed: list[bool] = []
        self._publish(device, lambda: changed.append(True))
        return bool(changed)

    async def act(
        self, device: DeviceRuntime, node: SemanticNode, verb: ActionVerb, text: str | None
    ) -> Reply:
        """Perform ``verb`` on the web node ``node`` (see the module docstring)."""
        att, item = self._holder(device.id, node)
        if att is None or item is None or item.backend_id is None:
            return Reply(id=0, ok=False, code="NOT_FOUND", message="the page no longer has it")
        reply = await self._act(device, att, item, node, verb, text)
        if reply.ok and reply.method is ActionMethod.ACCESSIBILITY_ACTION:
            await _caught_up(device, att)
        return reply

    async def _act(
        self,
        device: DeviceRuntime,
        att: Attachment,
        item: WebItem,
        node: SemanticNode,
        verb: ActionVerb,
        text: str | None,
    ) -> Reply:
        session = att.session
        node_id = item.backend_id
        assert node_id is not None
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

    def _holder(
        self, device_id: str, node: SemanticNode
    ) -> tuple[Attachment | None, WebItem | None]:
        """The attached page that shows ``node`` (by its id, under the WebView that holds its
        centre when several pages have one of that id) and its item."""
        found: list[tuple[Attachment, WebItem]] = []
        for att in (self.pages.get(device_id) or {}).values():
            item = att.item_of(node.automation_id)
            if item is not None:
                found.append((att, item))
        if len(found) > 1 and node.bounds is not None:
            centre = _centre(node.bounds)
            inside = [f for f in found if f[0].anchor is not None and _inside(centre, f[0].anchor)]
            found = inside or found
        return found[0] if found else (None, None)

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


@dataclass(frozen=True, slots=True)
class WebViewOnScreen:
    bounds: Bounds
    name: str | None
    node_id: str = ""
    """The snapshot's node id (the hub keeps it for the same WebView across snapshots)."""


@dataclass(frozen=True, slots=True)
class _Restamp:
    push: TreePush
    agent_stable: bool


def _webviews(device: DeviceRuntime) -> list[WebViewOnScreen]:
    """The newest snapshot's visible WebViews, in screen order (none: none shown)."""
    current = device.current
    if current is None:
        return []
    out: list[WebViewOnScreen] = []
    for node in current.normalized.compact.nodes:  # a WEB_VIEW is always in the compact view
        if node.role is Role.WEB_VIEW and node.bounds is not None:
            left, top, right, bottom = node.bounds
            if right > left and bottom > top and all(v.bounds != node.bounds for v in out):
                out.append(WebViewOnScreen(node.bounds, node.label or node.text, node.node_id))
        if len(out) >= MAX_WEBVIEWS:
            break
    return out


def _overlap(a: Bounds, b: Bounds) -> int:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, width) * max(0, height)


def pair(
    views: list[WebViewOnScreen], pages: list[WebPageEndpoint]
) -> list[tuple[Bounds, WebPageEndpoint]]:
    """Which page each WebView shows. A page that says where it is on the screen (Android's
    page description) goes to the WebView it overlaps most; then a page whose title is a
    WebView's name (iOS lists no places); then the rest in order, visible pages first. A
    WebView without a page and a page without a WebView are left out."""
    free = list(views)
    out: list[tuple[Bounds, WebPageEndpoint]] = []
    rest: list[WebPageEndpoint] = []
    for page in sorted(pages, key=lambda p: not p.visible):
        if not page.visible and page.screen is not None:
            continue
        if page.screen is not None:
            best = max(
                free, key=lambda v: _overlap(v.bounds, page.screen or v.bounds), default=None
            )
            if best is not None and _overlap(best.bounds, page.screen) > 0:
                free.remove(best)
                out.append((best.bounds, page))
            continue
        rest.append(page)
    for page in list(rest):
        named = next((v for v in free if page.title and v.name == page.title), None)
        if named is not None:
            free.remove(named)
            rest.remove(page)
            out.append((named.bounds, page))
    for view, page in zip(free, rest, strict=False):
        out.append((view.bounds, page))
    return out


def _centre(b: Bounds) -> tuple[int, int]:
    return (b[0] + b[2]) // 2, (b[1] + b[3]) // 2


def _inside(point: tuple[int, int], box: Bounds) -> bool:
    x, y = point
    return box[0] <= x < box[2] and box[1] <= y < box[3]


async def _dirty_or_moved(
    device: DeviceRuntime, att: PageSession, box: Bounds, where: Callable[[], Bounds | None]
) -> None:
    """Wait until the page is dirty, its WebView moved from ``box`` or went (``where()``
    says where it is now), or the page's network calmed (a busy page is looked at again
    when its cap runs out)."""
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
        if att.changed.is_set() or att.closed or where() != box:
            return
        if timeout is not None:
            return


async def _caught_up(device: DeviceRuntime, att: Attachment) -> None:
    """Wait (at most ``CAUGHT_UP_S``) until a read of ``att``'s page begun after now is
    published and, when it changed the overlay, until the device's next capture (the one that
    takes it) is made. A gesture through the native layer needs none of this: its tree
    change is the device's own."""
    wanted = att.reads_begun + 1
    att.session.changed.set()  # read again now, without waiting for the page's notice
    with anyio.move_on_after(CAUGHT_UP_S):
        while att.reads_done < wanted and not att.session.closed:
            await att.read_done.wait()
        taken = att.taken_by
        if taken is not None and att.reingested >= wanted:
            await taken.wait()


async def _next_change(device: DeviceRuntime, timeout_s: float | None) -> bool:
    changed = device.changed
    if timeout_s is None:
        await changed.wait()
        return True
    with anyio.move_on_after(timeout_s):
        await changed.wait()
        return True
    return False
