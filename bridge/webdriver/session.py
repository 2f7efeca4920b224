"""One WebDriver session: one hub connection, one device, its lease, its live snapshot.

Rules:

- ``run`` opens a hub session with the caller's token (``kind`` ``script``), leases the
  device (exclusive; ``mobridge:leaseWait`` seconds in the hub's queue, else refused at
  once), subscribes to the device's full snapshot stream and keeps ``snapshot`` current;
  it reports ``started`` (or ``startup_error``) and then lives until ``close`` or until no
  command came for ``newCommandTimeout`` seconds. Closing releases the lease and the hub
  session, so another client may act at once;
- element ids map to NodeRefs built from the snapshot the element was found in (at most
  ``MAX_ELEMENTS`` per session, the oldest forgotten first); actions send the ref and the
  hub resolves it, so an element that is gone is refused (stale), never replaced by a
  look-alike;
- commands of one session run one at a time (``lock``), as WebDriver clients expect.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskStatus

from bridge.client import connect
from bridge.client.connection import HubConnection
from bridge.client.device import Device
from bridge.client.errors import ClientError, ConfirmationRequired, HubError, PolicyBlockedError
from bridge.core.noderef import Resolved, build_ref, resolve_ref
from bridge.core.tree import NodeTree
from bridge.webdriver.capabilities import SessionCaps
from bridge.webdriver.errors import WebDriverError, hub_code_to_w3c
from bridge.webdriver.page_source import PageSource, build
from bridge.wire.acquire import DeviceSelector
from bridge.wire.client_protocol import LeaseEvent
from bridge.wire.enums import AppAction, Orientation, Platform
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef
from bridge.wire.request_parts import Confirm
from bridge.wire.snapshot import ScreenSnapshot

T = TypeVar("T")
log = logging.getLogger("mobridge.webdriver")
MAX_ELEMENTS = 4096
SEEN_SNAPSHOTS = 64
CATCH_UP_S = 10.0
"""The longest a command after an action waits for the stream to show the action's snapshot.
It returns as soon as the snapshot arrives (milliseconds at idle); the bound only matters for
a stream that lags: 1 s was passed under load, and a page source read then showed the screen
from before a swipe."""


@dataclass
class ElementEntry:
    """What an element id stands for: the node it was found as and the hub-checkable ref;
    ``among``: how many nodes its locator matched (more than 1: acting on it is refused
    unless the session asked for Appium's first match)."""

    node_id: str
    ref: NodeRef
    among: int = 1
    locator: str = ""
    matched: tuple[str, ...] = ()
    """The node ids its locator matched (the first 16) when ``among`` > 1."""


class WdSession:
    def __init__(self, caps: SessionCaps, hub_url: str, token: str | None) -> None:
        self.id = secrets.token_hex(16)
        self.caps = caps
        self.hub_url = hub_url
        self.token = token
        self.hub: HubConnection | None = None
        self.device: Device | None = None
        self.device_id = ""
        self.platform = Platform.ANDROID
        self.snapshot: ScreenSnapshot | None = None
        self.startup_error: WebDriverError | None = None
        self.closed_reason: str | None = None
        self.implicit_wait_ms = 0
        self.page_load_ms = 300_000
        self.script_ms = 30_000
        self.elements: OrderedDict[str, ElementEntry] = OrderedDict()
        self.lock = anyio.Lock()
        self.last_used = anyio.current_time()
        self._changed = anyio.Event()
        self._stop = anyio.Event()
        self._touched = anyio.Event()
        self._seen: deque[str] = deque(maxlen=SEEN_SNAPSHOTS)
        self._source: tuple[str, int, PageSource] | None = None
        self._tree: tuple[str, int, NodeTree] | None = None
        self._version = 0
        self.capabilities: dict[str, Any] = {}
        self.screen_sizes: dict[Orientation, tuple[int, int]] = {}
        """The screen's size per orientation, as the device reported it (``window_rect``)."""
        self.header_token: str | None = None
        """The token of the ``Authorization`` header that opened the session: every command
        must carry it again (None: opened with the capability)."""
        self.xpath_limiter: anyio.CapacityLimiter | None = None
        """Shared by the endpoint's sessions (``server``): at most that many XPath
        evaluations at once, each in a worker thread (lxml drops the GIL), so an expression
        that takes long holds a thread, never the event loop."""

    # ---- lifecycle -------------------------------------------------------------------------

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve the session until ``close`` or the command timeout; see the module rules."""
        started = False
        try:
            async with connect(
                self.hub_url,
                token=self.token,
                discover_token=False,
                name=self.caps.name,
                kind="script",
            ) as hub:
                self.hub = hub
                leased = await self._pick(hub)
                device = self.device
                assert device is not None
                async with device.watch(compact=False) as watch, anyio.create_task_group() as tg:
                    first = await watch.__anext__()
                    self._take(first.snapshot)
                    tg.start_soon(self._follow, watch)
                    if not leased:
                        await self._lease_one(hub, device)
                    await self._start_app(device)
                    started = True
                    task_status.started()
                    await self._idle_loop()
                    tg.cancel_scope.cancel()
        except Exception as exc:  # a task group wraps what its body raised: look inside
            self._ended(exc, started)
        finally:
            self.closed_reason = self.closed_reason or "the session was deleted"
            self._stop.set()
            self._changed.set()
            if not started:
                task_status.started()

    def _ended(self, exc: Exception, started: bool) -> None:
        """Record why the session could not start or ended; never re-raised, so one
        session's failure never reaches the endpoint's other sessions or the hub."""
        wd = _find(exc, WebDriverError)
        client = _find(exc, ClientError)
        if wd is not None:
            self.startup_error = self.startup_error or wd
        elif client is not None:
            code = "session not created" if not started else "unknown error"
            self.startup_error = self.startup_error or WebDriverError(code, str(client))
            self.closed_reason = self.closed_reason or f"the hub session ended: {client}"
        else:
            log.error("webdriver session %s… failed", self.id[:8], exc_info=exc)
            self.startup_error = self.startup_error or WebDriverError(
                "session not created" if not started else "unknown error",
                "the session failed inside mobridge (logged)",
            )

    async def _pick(self, hub: HubConnection) -> bool:
        """Choose the device: by udid (then the caller leases it, following it first), or
        any free one of the platform through the hub's queue (leased here: True)."""
        caps = self.caps
        wanted = caps.device
        devices = await hub.devices()
        if wanted is None and caps.device_name and any(d.id == caps.device_name for d in devices):
            wanted = caps.device_name
        if wanted is None:
            platform = None if caps.platform is None else Platform(caps.platform)
            try:
                got = await hub.acquire(
                    DeviceSelector(platform=platform), timeout_s=caps.lease_wait_s
                )
            except HubError as exc:
                raise WebDriverError(
                    "session not created", f"{reason(exc)}; set mobridge:leaseWait to wait for it"
                ) from None
            self.device_id = got.device
            self.platform = got.platform
            self.device = hub.device(self.device_id)
            return True
        known = next((d for d in devices if d.id == wanted), None)
        if known is None:
            names = ", ".join(d.id for d in devices) or "none"
            raise WebDriverError(
                "session not created", f"no device {wanted!r} on this hub (devices: {names})"
            )
        if caps.platform is not None and known.platform.value != caps.platform:
            raise WebDriverError(
                "session not created",
                f"device {wanted} is {known.platform.value}, not {caps.platform}",
            )
        self.device_id = wanted
        self.platform = known.platform
        self.device = hub.device(wanted)
        return False

    async def _lease_one(self, hub: HubConnection, device: Device) -> None:
        """Lease one named device, waiting up to ``leaseWait`` for its holder to let go:
        woken by the hub's lease events (the session already follows the device, so they
        reach it), not by polling."""
        wait = self.caps.lease_wait_s
        deadline = anyio.current_time() + wait
        last: HubError | None = None
        async with hub.events() as events:  # opened first: no release slips between tries
            while True:
                try:
                    await device.acquire_lease()
                    return
                except PolicyBlockedError as exc:
                    last = exc
                remaining = deadline - anyio.current_time()
                if remaining <= 0:
                    break
                with anyio.move_on_after(remaining):
                    async for event in events:
                        if isinstance(event, LeaseEvent) and event.device == device.id:
                            break
        waited = f" (waited {wait:g} s)" if wait > 0 else ""
        raise WebDriverError(
            "session not created",
            f"{reason(last) if last else 'POLICY_BLOCKED'}{waited}; set mobridge:leaseWait to "
            "wait for the lease",
        )

    async def _start_app(self, device: Device) -> None:
        app_id = self.caps.app_id
        if app_id is None:
            return
        try:
            if not self.caps.no_reset:
                await self.approved(lambda c: device.terminate_app(app_id, confirm=c), True)
            opened = await device.app(AppAction.APP_OPEN, app_id)
            await self.caught_up(opened.observation.after_snapshot_id)
        except HubError as exc:
            raise WebDriverError(
                "session not created", f"starting {app_id}: {reason(exc)}"
            ) from None

    async def _follow(self, watch: Any) -> None:
        try:
            async for update in watch:
                self._take(update.snapshot)
        except ClientError as exc:
            self.closed_reason = f"the hub session ended: {exc}"
            self._stop.set()
        self._changed.set()

    def _take(self, snapshot: ScreenSnapshot) -> None:
        self.snapshot = snapshot
        self._version += 1
        self._seen.append(snapshot.snapshot_id)
        self._changed.set()
        self._changed = anyio.Event()

    async def _idle_loop(self) -> None:
        timeout = self.caps.new_command_timeout_s
        while not self._stop.is_set():
            if timeout <= 0:
                await self._stop.wait()
                return
            remaining = self.last_used + timeout - anyio.current_time()
            if remaining <= 0:
                self.closed_reason = (
                    f"no command for {timeout:g} s (appium:newCommandTimeout): the session "
                    "ended and its lease was released"
                )
                return
            with anyio.move_on_after(remaining):
                await self._stop.wait()

    def touch(self) -> None:
        self.last_used = anyio.current_time()

    def close(self, reason: str = "the session was deleted") -> None:
        self.closed_reason = self.closed_reason or reason
        self._stop.set()

    @property
    def alive(self) -> bool:
        return not self._stop.is_set()

    # ---- the live screen -------------------------------------------------------------------

    def current(self) -> ScreenSnapshot:
        if self.snapshot is None:
            raise WebDriverError("unknown error", "no screen from the device yet")
        return self.snapshot

    def source(self) -> PageSource:
        snap = self.current()
        cached = self._source
        if cached is not None and cached[1] == self._version:
            return cached[2]
        page = build(snap)
        self._source = (snap.snapshot_id, self._version, page)
        return page

    def tree(self) -> NodeTree:
        snap = self.current()
        cached = self._tree
        if cached is not None and cached[1] == self._version:
            return cached[2]
        tree = NodeTree(snap.nodes)
        self._tree = (snap.snapshot_id, self._version, tree)
        return tree

    async def next_change(self, deadline: float) -> bool:
        """Wait for the next screen the hub pushes, at most until ``deadline``
        (``anyio.current_time()`` scale); False when the deadline came first."""
        event = self._changed
        with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
            await event.wait()
            return self.alive
        return False

    async def caught_up(self, snapshot_id: str | None) -> None:
        """Wait (at most ``CATCH_UP_S``) until the stream has shown ``snapshot_id``, so a
        command after an action reads the screen the action left."""
        if snapshot_id is None:
            return
        deadline = anyio.current_time() + CATCH_UP_S
        while snapshot_id not in self._seen and await self.next_change(deadline):
            pass

    # ---- elements --------------------------------------------------------------------------

    def remember(
        self, node_id: str, among: int, locator: str, matched: tuple[str, ...] = ()
    ) -> str:
        """The element id for ``node_id`` of the current snapshot (a new entry each time
        an ambiguous locator found it; the same id for a plain find of the same node)."""
        ref = build_ref(self.current(), self.tree(), node_id)
        if ref is None:
            raise WebDriverError("no such element", f"node {node_id} is not on the screen")
        key = node_id if among == 1 else f"{node_id}.{secrets.token_hex(4)}"
        self.elements[key] = ElementEntry(node_id, ref, among, locator, matched)
        self.elements.move_to_end(key)
        while len(self.elements) > MAX_ELEMENTS:
            self.elements.popitem(last=False)
        return key

    def entry(self, element_id: str) -> ElementEntry:
        found = self.elements.get(element_id)
        if found is None:
            raise WebDriverError(
                "no such element", f"element {element_id[:64]!r} was never found in this session"
            )
        return found

    def node(self, element_id: str) -> SemanticNode:
        """The element's node on the current screen, or ``stale element reference`` with
        the reason the hub's resolution rules give."""
        entry = self.entry(element_id)
        tree = self.tree()
        node = tree.by_id.get(entry.node_id)
        if node is not None:
            return node
        outcome = resolve_ref(entry.ref, self.current(), tree, same_id_space=True)
        if isinstance(outcome, Resolved):
            return outcome.node
        reason = type(outcome).__name__
        raise WebDriverError(
            "stale element reference",
            f"STALE_NODE_REF: element {element_id[:64]} ({entry.locator}) is no longer on the "
            f"screen ({reason}); find it again",
        )

    # ---- calling the hub -------------------------------------------------------------------

    async def approved(
        self, call: Callable[[Confirm | None], Awaitable[T]], approve: bool | None = None
    ) -> T:
        """``call()``; when the hub objects and the session may approve (``mobridge:approve``,
        or ``approve`` for commands that name the destructive step themselves), answer the
        objection and call again."""
        try:
            return await call(None)
        except ConfirmationRequired as exc:
            allowed = self.caps.approve if approve is None else approve
            objection = exc.objection
            if not allowed or objection is None or not objection.answerable:
                raise
            return await call(Confirm(objection=objection.id, answer="approve"))


def hub_failure(exc: ClientError, *, on_element: bool, hint: str = "") -> WebDriverError:
    """A client error as the WebDriver error to answer."""
    if isinstance(exc, HubError):
        code = hub_code_to_w3c(exc.code.value, on_element=on_element)
        message = reason(exc)
        if exc.code.value == "USER_CONFIRMATION_REQUIRED":
            message += "; set the capability mobridge:approve to true to approve it"
        return WebDriverError(code, message + hint)
    return WebDriverError("unknown error", str(exc))


E = TypeVar("E", bound=BaseException)


def _find(exc: BaseException, kind: type[E]) -> E | None:
    """``exc`` or the first exception of ``kind`` inside its (nested) exception groups."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    return None


def reason(exc: HubError) -> str:
    """The hub's refusal in one line, led by its code (``AMBIGUOUS_MATCH: ...``)."""
    text = str(exc)
    code = exc.code.value
    return text if text.startswith(code) else f"{code}: {text}"
