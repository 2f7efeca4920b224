"""The iPhone's Web Inspector bound to pymobiledevice3: ``WirInspector`` (an ``Inspector``
for ``bridge.devices.ios.web_inspector.IosWebSource``) and ``WirTransport`` (one page's
``InspectorTransport``).

Exactly these parts of pymobiledevice3's ``WebinspectorService`` (``services.webinspector``)
are used, and a test checks them against the installed release:

- ``WebinspectorService(lockdown)`` and ``connect()`` (the WIR handshake; raises
  ``WebInspectorNotEnabledError`` when Settings > Safari > Advanced > Web Inspector is off),
  ``close()``, ``is_connected``, ``on_connection_lost``;
- ``get_open_pages()`` (asks every connected application for its listing) with
  ``subscribe_listings()`` / ``unsubscribe_listings(queue)`` (told when a listing arrives);
  the state it keeps: ``connected_application`` (app id -> ``Application``: ``id_``,
  ``bundle``, ``host``, ``proxy``) and ``application_pages`` (app id -> page key -> ``Page``:
  ``id_``, ``type_`` (an enum whose ``value`` is ``WIRTypeKey``), ``web_title``, ``web_url``,
  ``web_connection_id``);
- ``setup_inspector_socket(session_id, app_id, page_id)``,
  ``send_socket_data(session_id, app_id, page_id, data)``,
  ``teardown_inspector_socket(session_id, app_id, page_id)``, ``session_events(session_id)``
  (the session's deque of messages without an id), ``wir_message_results`` (messages with a
  top-level id, all sessions), and ``trace`` (called with ``("device->bridge", session id,
  message)`` for every page message the device sends, just before it is queued: the wake-up
  here, so nothing polls).

WebKit multiplexes a page's inspector through its Target domain (WebKit's
``Source/JavaScriptCore/inspector/protocol/Target.json``): on socket setup the page announces
``Target.targetCreated {targetInfo: {targetId, type, isProvisional}}``; commands go in
``Target.sendMessageToTarget {targetId, message: JSON text}`` and answers and events come back
in ``Target.dispatchMessageFromTarget {targetId, message}``; a navigation that swaps the
page's process creates a provisional target and ``Target.didCommitProvisionalTarget
{oldTargetId, newTargetId}`` makes it current. ``WirTransport`` hides all of that:
``WebKitPage`` sends and receives the page's own messages; on a commit the transport sends
the page's enable commands again to the new target and reports a ``Page.frameNavigated`` so
the page is read again. A command sent to the old target just before the commit (the page
did not know yet) is answered if the old target still answers it; when
``Target.targetDestroyed`` ends the old target first, its command is answered at once with an
error that says the process was swapped while it ran (``SWAPPED``), not left to time out. It
is not sent again to the new target: a tap sent twice could be a tap made twice.

Which pages: those of the application under test (``bundle_id``) and of the WebKit
processes it hosts (a ``WKWebView``'s page is listed under a WebContent proxy application
whose ``host`` is the app). ``None``: every application's pages.

Invariants: every wait is bounded (``SETUP_TIMEOUT_S``, ``LISTING_WAIT_S``); a lost
connection ends every open transport (``PageClosed``) and the next ``pages`` connects again;
at most ``MAX_SESSIONS`` transports at once; the outer answers to ``sendMessageToTarget`` are
taken off ``wir_message_results`` so the shared table does not grow, those arriving after
their transport closed too (``WirInspector.sweep``).
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio

from bridge.devices.ios.web_inspector import WEB_TYPES, InspectorOff, WirPage
from bridge.devices.web.page import PageClosed, PageError

SETUP_TIMEOUT_S = 10.0
"""How long a page may take to announce its target after the socket is set up."""
LISTING_WAIT_S = 1.0
"""How long ``pages`` waits for the listings it asked for (the answer uses what arrived)."""
MAX_SESSIONS = 16
MAX_ORPHANS = 8192
MAX_PAGES = 32
SWAPPED = (
    "the page moved to a new process while this command ran (a navigation); whether it took"
    " effect is unknown, so it was not sent again"
)
"""The error of a command whose target was destroyed before it answered (see the module)."""
REPLAYED = frozenset({"Console.enable", "Page.enable", "Runtime.enable", "Network.enable"})
"""Commands sent again to the target a process swap commits (they are per target)."""
_OUTER_IDS = itertools.count(0x60000000)
"""Ids of the wrapping ``sendMessageToTarget`` messages: a range neither pymobiledevice3's
own sessions (from 1) nor the page's messages reach."""
_REPLAY_IDS = itertools.count(0x70000000)
MAX_AWAITING = 1024


class WirTransport:
    """One page's inspector messages over a ``WebinspectorService`` session (see the module)."""

    def __init__(self, owner: WirInspector, service: Any, page: WirPage) -> None:
        self.owner = owner
        self.service = service
        self.page = page
        self.session_id = str(uuid.uuid4()).upper()
        self.target_id: str | None = None
        self.sent_setup: list[dict[str, Any]] = []
        self._outer: set[int] = set()
        self._awaiting: dict[int, str | None] = {}
        """The page's commands not answered yet: their id and the target they went to (at
        most ``MAX_AWAITING``, the oldest forgotten: their own wait has ended by then)."""
        self._answers: deque[dict[str, Any]] = deque()
        """Answers made here for commands whose target was destroyed (``SWAPPED``)."""
        self._wake = anyio.Event()
        self._closed = False

    def wake(self) -> None:
        self._wake.set()

    @property
    def _page_id(self) -> int:
        return self.page.page_id

    async def start(self) -> None:
        """Set the socket up and wait (bounded) for the page to announce its target."""
        await self.service.setup_inspector_socket(self.session_id, self.page.app_id, self._page_id)
        with anyio.move_on_after(SETUP_TIMEOUT_S):
            while self.target_id is None:
                self._wake = anyio.Event()
                self._drain_announcements()
                if self.target_id is None:
                    self._check_alive()
                    await self._wake.wait()
        if self.target_id is None:
            raise PageClosed(
                f"the page did not announce its inspector target within {SETUP_TIMEOUT_S:g} s"
            )

    def _drain_announcements(self) -> None:
        events = self.service.session_events(self.session_id)
        while events and self.target_id is None:
            message = events.popleft()
            if not isinstance(message, dict) or message.get("method") != "Target.targetCreated":
                continue
            info = (message.get("params") or {}).get("targetInfo") or {}
            if info.get("type", "page") == "page" and not info.get("isProvisional"):
                target = info.get("targetId")
                if isinstance(target, str):
                    self.target_id = target

    def _check_alive(self) -> None:
        if self._closed:
            raise PageClosed("the inspector session was closed")
        if not self.owner.connected(self.service):
            raise PageClosed("the Web Inspector connection to the iPhone was lost")

    async def send(self, message: dict[str, Any]) -> None:
        self._check_alive()
        if message.get("method") in REPLAYED and len(self.sent_setup) < 16:
            self.sent_setup.append(message)
        mid = message.get("id")
        if isinstance(mid, int):
            self._awaiting[mid] = self.target_id  # the target ``_to_target`` sends it to
            while len(self._awaiting) > MAX_AWAITING:
                del self._awaiting[next(iter(self._awaiting))]
        await self._to_target(message)

    async def _to_target(self, message: dict[str, Any]) -> None:
        outer = next(_OUTER_IDS)
        self._outer.add(outer)
        await self.service.send_socket_data(
            self.session_id,
            self.page.app_id,
            self._page_id,
            {
                "id": outer,
                "method": "Target.sendMessageToTarget",
                "params": {"targetId": self.target_id, "message": json.dumps(message)},
            },
        )

    def _forget_outer_answers(self) -> None:
        results = self.service.wir_message_results
        for outer in list(self._outer):
            if outer in results:
                answer = results.pop(outer)
                self._outer.discard(outer)
                error = answer.get("error") if isinstance(answer, dict) else None
                if error is not None:
                    raise PageError(f"Target.sendMessageToTarget: {str(error)[:300]}")
        if len(self._outer) > 4096:  # answers that never came yet: the inspector sweeps them
            dropped = sorted(self._outer)[:2048]
            self._outer.difference_update(dropped)
            self.owner.orphaned(dropped)
        self.owner.sweep(results)

    async def receive(self) -> dict[str, Any]:
        while True:
            if self._answers:
                return self._answers.popleft()
            self._wake = anyio.Event()
            self._forget_outer_answers()
            events = self.service.session_events(self.session_id)
            while events:
                got = await self._unwrap(events.popleft())
                if got is not None:
                    return got
            self._check_alive()
            await self._wake.wait()

    async def _unwrap(self, message: Any) -> dict[str, Any] | None:
        """The page's own message inside a Target event (None: nothing for the page)."""
        if not isinstance(message, dict):
            return None
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        assert isinstance(params, dict)
        if method == "Target.dispatchMessageFromTarget":
            target = params.get("targetId")
            try:
                inner = json.loads(str(params.get("message", "")))
            except ValueError:
                return None
            if not isinstance(inner, dict):
                return None
            mid = inner.get("id")
            if isinstance(mid, int) and mid in self._awaiting:
                if self._awaiting[mid] != target and target != self.target_id:
                    return None  # not the answer of the target it was sent to
                del self._awaiting[mid]
                return inner  # an answer, from the old target too (sent before the commit)
            if target != self.target_id:
                return None  # a provisional target's events, or the old target's
            return inner
        if method == "Target.didCommitProvisionalTarget":
            new = params.get("newTargetId")
            if params.get("oldTargetId") == self.target_id and isinstance(new, str):
                self.target_id = new
                for setup in self.sent_setup:
                    replay = dict(setup)
                    replay["id"] = next(_REPLAY_IDS)
                    await self._to_target(replay)
                return {"method": "Page.frameNavigated", "params": {}}
            return None
        if method == "Target.targetDestroyed":
            gone = params.get("targetId")
            if gone == self.target_id:
                raise PageClosed("the page's inspector target was destroyed")
            lost = [mid for mid, target in self._awaiting.items() if target == gone]
            for mid in lost:  # sent to the old target, which will never answer now
                del self._awaiting[mid]
                self._answers.append({"id": mid, "error": {"message": SWAPPED}})
            return self._answers.popleft() if self._answers else None
        return None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.owner.orphaned(self._outer)  # answers still to come are swept by the inspector
        self._outer = set()
        self.owner.forget(self)
        if self.owner.connected(self.service):
            try:
                await self.service.teardown_inspector_socket(
                    self.session_id, self.page.app_id, self._page_id
                )
            except Exception:  # the device went away: nothing to tear down
                pass


class WirInspector:
    """An iPhone's Web Inspector (``Inspector``): the pages of the app under test, each opened
    as a ``WirTransport``. ``open_service`` returns a connected ``WebinspectorService`` and
    the provider it runs on, or None (the driver: a provider launched, the service made and
    ``connect``-ed); both are closed when the connection is dropped and by ``aclose``."""

    def __init__(
        self,
        open_service: Callable[[], Awaitable[tuple[Any, Any]]],
        bundle_id: str | None,
        *,
        off_errors: tuple[type[BaseException], ...] = (),
        listing_wait_s: float = LISTING_WAIT_S,
    ) -> None:
        self.open_service = open_service
        self.off_errors = off_errors
        """What ``open_service`` raises when the Web Inspector is switched off (pymobiledevice3's
        ``WebInspectorNotEnabledError``): ``pages`` raises ``InspectorOff`` for it."""
        self.bundle_id = bundle_id
        self.listing_wait_s = listing_wait_s
        self.service: Any = None
        self.provider: Any = None
        self.transports: set[WirTransport] = set()
        self.orphans: set[int] = set()
        """Outer ids whose transport closed or gave up on them before their answer came: taken
        off the service's shared answer table when they arrive (at most ``MAX_ORPHANS``)."""
        self._lost: set[int] = set()
        self._lock = anyio.Lock()

    def connected(self, service: Any) -> bool:
        return (
            service is self.service
            and id(service) not in self._lost
            and bool(getattr(service, "is_connected", True))
        )

    def forget(self, transport: WirTransport) -> None:
        self.transports.discard(transport)

    def orphaned(self, outer_ids: Iterable[int]) -> None:
        self.orphans.update(outer_ids)
        if len(self.orphans) > MAX_ORPHANS:  # the oldest will never be answered
            self.orphans.difference_update(sorted(self.orphans)[: len(self.orphans) // 2])

    def sweep(self, results: dict[Any, Any]) -> None:
        """Take the orphans' answers that arrived off ``results`` (the shared table)."""
        for outer in [o for o in self.orphans if o in results]:
            results.pop(outer, None)
            self.orphans.discard(outer)

    def _trace(self, previous: Any) -> Callable[[str, str, Any], None]:
        def trace(direction: str, session_id: str, message: Any) -> None:
            if previous is not None:
                previous(direction, session_id, message)
            for transport in list(self.transports):
                if transport.session_id == session_id or not session_id:
                    transport.wake()

        return trace

    def _on_lost(self, service: Any) -> Callable[[], None]:
        def lost() -> None:
            self._lost.add(id(service))
            for transport in list(self.transports):
                transport.wake()

        return lost

    async def _service(self) -> Any:
        async with self._lock:
            if self.service is not None and not self.connected(self.service):
                await self._drop()
            if self.service is None:
                try:
                    service, self.provider = await self.open_service()
                except self.off_errors as exc:
                    raise InspectorOff(str(exc)) from exc
                service.trace = self._trace(getattr(service, "trace", None))
                service.on_connection_lost = self._on_lost(service)
                self.service = service
            return self.service

    async def _drop(self) -> None:
        service, self.service = self.service, None
        provider, self.provider = self.provider, None
        for transport in list(self.transports):
            transport.wake()
        self.transports.clear()
        self.orphans.clear()  # the table went with its service
        if service is not None:
            self._lost.discard(id(service))
        for closing in (service, provider):
            if closing is None:
                continue
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                try:
                    await closing.close()
                except Exception:  # the device went away: nothing left to close
                    pass

    def _ours(self, service: Any) -> set[str]:
        """The application ids whose pages belong to the app under test."""
        apps = dict(service.connected_application)
        if self.bundle_id is None:
            return set(apps)
        mine = {key for key, app in apps.items() if getattr(app, "bundle", None) == self.bundle_id}
        hosted = {key for key, app in apps.items() if getattr(app, "host", "") in mine}
        return mine | hosted

    async def pages(self) -> list[WirPage]:
        """The inspectable web pages of the app under test (raises when the service cannot
        be reached: ``IosWebSource`` turns that into its ``problem``)."""
        service = await self._service()
        queue = service.subscribe_listings()
        try:
            await service.get_open_pages()
            heard: set[str] = set()
            with anyio.move_on_after(self.listing_wait_s):
                while True:  # until every app of ours has answered (apps may still arrive)
                    heard.add(await queue.get())
                    ours = self._ours(service)
                    if ours and ours <= heard:
                        break
        finally:
            service.unsubscribe_listings(queue)
        if not self.connected(service):
            raise PageClosed("the Web Inspector connection to the iPhone was lost")
        out: list[tuple[bool, WirPage]] = []
        for app_id in sorted(self._ours(service)):
            for page in list(dict(service.application_pages.get(app_id, {})).values())[:MAX_PAGES]:
                kind = getattr(getattr(page, "type_", None), "value", None)
                page_id = getattr(page, "id_", None)
                if kind not in WEB_TYPES or not isinstance(page_id, int):
                    continue
                busy = getattr(page, "web_connection_id", "") not in ("", service.connection_id)
                title, url = getattr(page, "web_title", ""), getattr(page, "web_url", "")
                found = WirPage(
                    app_id=app_id[:256],
                    page_id=page_id,
                    title=title[:200] if isinstance(title, str) else "",
                    url=url[:2048] if isinstance(url, str) else "",
                    type=str(kind),
                )
                out.append((busy, found))
        out.sort(key=lambda pair: pair[0])  # pages another debugger holds come last
        return [page for _, page in out[:MAX_PAGES]]

    async def open(self, page: WirPage) -> WirTransport:
        service = await self._service()
        if len(self.transports) >= MAX_SESSIONS:
            raise PageError(f"more than {MAX_SESSIONS} inspector sessions open")
        transport = WirTransport(self, service, page)
        self.transports.add(transport)
        try:
            await transport.start()
        except BaseException:
            await transport.close()
            raise
        return transport

    async def aclose(self) -> None:
        """End every session and the service (the driver's session ended)."""
        async with self._lock:
            await self._drop()
