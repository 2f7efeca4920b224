"""``Device``: the requests about one device, typed with the wire types.

Helpers that take a ``Target`` accept plain text (``"Sign in"``, as the CLI and MCP take it:
the hub matches the visible text, else the label, and a field's hint), a handle from
``mobridge screen`` (``"n12"``), a ``NodeRef`` (acted on as is), a ``FindMatch`` (its ref),
or a ``SemanticQuery``: text and queries are sent as the ``act``'s ``query`` and resolved by the
hub when the action's turn comes; it must match exactly one node — none raises
``NotFoundError``, several raise ``AmbiguousError`` carrying every candidate's ref (the hub
never picks one of several, and reports the refusal to every watcher as an ``action`` event).
Use ``nth`` / ``within`` in the query to single out a look-alike.

Deadlines: ordinary requests wait ``request_timeout``; ``wait`` adds its own ``timeoutMs``
(10 s when unset), actions their verification budget (``timeoutMs + stableForMs``, 8 s when
unset).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from bridge.client.capabilities import DeviceCapabilities
from bridge.client.device_control import DeviceControl
from bridge.client.errors import ConnectionLost, RequestTimeout, ambiguous, not_found
from bridge.client.history import DeviceHistory
from bridge.client.media import DeviceMediaCalls
from bridge.client.network import DeviceNetwork
from bridge.client.targets import HANDLE, as_query, text_query
from bridge.client.watch import DEFAULT_RESYNC_TIMEOUT, Watch
from bridge.wire.action import ActionRequest, ActionResult, ObserveMode, Verify
from bridge.wire.client_protocol import (
    Act,
    App,
    Confirm,
    Find,
    FindMatch,
    FindResult,
    Global,
    History,
    HistoryResult,
    LeaseAcquire,
    LeaseMode,
    LeaseRelease,
    LeaseResult,
    Resolve,
    ResolveResult,
    Screenshot,
    ScreenshotResult,
    SnapshotGet,
    SnapshotResult,
    Wait,
    WaitResult,
)
from bridge.wire.conditions import Absent, Condition, Present, ScreenShown
from bridge.wire.device_capabilities import AlertChoice
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    GlobalAction,
    MatchMode,
    Role,
    Source,
    VerificationPolicy,
)
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery, TextMatch

if TYPE_CHECKING:
    from bridge.client.hub_calls import HubCalls

Target = NodeRef | FindMatch | SemanticQuery | str
"""What to act on: plain text, a handle (``n12``), a NodeRef, a FindMatch or a query."""
DEFAULT_ACTION_BUDGET_MS = 8000
SCREEN_TIMEOUT_MS = 10_000


def expect(condition: Condition | str, timeout_ms: int = 8000) -> Verify:
    """A ``verify`` that checks ``condition`` after the action (a plain string: that text
    is on the screen), e.g. ``await dev.tap("Sign in", verify=expect(ScreenShown(name="home")))``;
    the result's ``verification.result`` is a ``VerificationResult``."""
    expected = Present(query=text_query(condition)) if isinstance(condition, str) else condition
    return Verify(
        policy=VerificationPolicy.EXPLICIT_CONDITION, expected=expected, timeout_ms=timeout_ms
    )


def build_query(
    *,
    text: str | None = None,
    label: str | None = None,
    role: Role | str | None = None,
    resource_id: str | None = None,
    match: MatchMode = MatchMode.NORMALIZED_EXACT,
) -> SemanticQuery:
    """A query from the common fields (raises ValueError when none is given)."""
    return SemanticQuery(
        text=None if text is None else TextMatch(value=text, match=match),
        label=None if label is None else TextMatch(value=label, match=match),
        role=None if role is None else Role(role),
        resource_id=resource_id,
    )


class Device(DeviceControl, DeviceHistory, DeviceCapabilities, DeviceMediaCalls, DeviceNetwork):
    """Requests about device ``id`` over one hub connection (device-level actions:
    ``bridge.client.device_control``)."""

    def __init__(self, conn: HubCalls, device_id: str) -> None:
        self._conn = conn
        self.id = device_id

    def __repr__(self) -> str:
        return f"Device({self.id!r})"

    # ---- reading ---------------------------------------------------------------------------

    async def snapshot(self, compact: bool = True, *, fresh: bool = False) -> SnapshotResult:
        """The newest snapshot the hub holds; ``fresh``: one the agent captures now (slower:
        a full capture on the device, which subscribers then see as any other change)."""
        message = SnapshotGet(id=self._conn.next_id(), device=self.id, compact=compact, fresh=fresh)
        return await self._conn.call(message, SnapshotResult)

    async def find(
        self,
        query: SemanticQuery | str | None = None,
        *,
        text: str | None = None,
        label: str | None = None,
        role: Role | str | None = None,
        resource_id: str | None = None,
        sources: tuple[Source, ...] | None = None,
    ) -> FindResult:
        """Nodes matching ``query`` (plain text, or a query); ``sources``: only those
        (``(Source.VISION,)``: text read from the screenshot, which turns the hub's vision on)."""
        if query is None:
            query = build_query(text=text, label=label, role=role, resource_id=resource_id)
        query = as_query(query)
        message = Find(id=self._conn.next_id(), device=self.id, query=query, sources=sources)
        return await self._conn.call(message, FindResult)

    async def find_one(self, query: SemanticQuery | str) -> tuple[FindMatch, int]:
        """The single match of ``query`` (plain text, or a query) and the generation it was
        found in; ``NotFoundError`` / ``AmbiguousError`` otherwise."""
        query = as_query(query)
        found = await self.find(query)
        if found.count == 0 or not found.matches:
            raise not_found(f"no node matches {_describe(query)}")
        if found.count != 1 or len(found.matches) != 1:
            raise ambiguous(f"{found.count} nodes match {_describe(query)}", found.matches)
        return found.matches[0], found.generation

    async def history(self, limit: int = 50) -> HistoryResult:
        """The device's recent action, lease and device events, oldest first."""
        message = History(id=self._conn.next_id(), device=self.id, limit=limit)
        return await self._conn.call(message, HistoryResult)

    async def resolve(self, ref: NodeRef, generation: int | None = None) -> ResolveResult:
        message = Resolve(id=self._conn.next_id(), device=self.id, ref=ref, generation=generation)
        return await self._conn.call(message, ResolveResult)

    def watch(
        self,
        compact: bool = True,
        *,
        strict: bool = False,
        resync_timeout: float = DEFAULT_RESYNC_TIMEOUT,
        settled: bool = False,
        patches: bool = True,
    ) -> Watch:
        """Live snapshots: ``async with device.watch() as w: async for update in w``.
        ``settled=True``: only settled screens, one update per screen change (the hub holds
        animation frames back). ``patches=False``: changes come as classic ``delta`` events
        instead of slim ``patch`` events (the snapshots are the same)."""
        return Watch(self._conn, self.id, compact, strict, resync_timeout, settled, patches)

    # ---- acting ----------------------------------------------------------------------------

    async def act(
        self,
        request: ActionRequest,
        confirm: Confirm | None = None,
        *,
        query: SemanticQuery | None = None,
        observe: ObserveMode = "settle",
    ) -> ActionResult:
        """Send ``request``; its target is ``request.target`` or, instead, ``query`` (the
        hub resolves it: exactly one match, else a refusal with the candidates). ``observe``
        ``none``: answered at dispatch (stability UNKNOWN, no diff, no verification); watch
        the stream for the effect."""
        message = Act(
            id=self._conn.next_id(),
            device=self.id,
            request=request,
            confirm=confirm,
            query=query,
            observe=observe,
        )
        return await self._conn.call(message, ActionResult, self._action_deadline(request.verify))

    async def act_on(
        self,
        query: SemanticQuery | str,
        action: ActionVerb | str,
        *,
        value: str | None = None,
        value_ref: str | None = None,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
        allow_gesture_fallback: bool = False,
        observe: ObserveMode = "settle",
    ) -> ActionResult:
        """Act on the single node ``query`` (plain text, or a query) matches, resolved by
        the hub."""
        return await self._act_on(
            ActionVerb(action),
            as_query(query),
            value=value,
            value_ref=value_ref,
            verify=verify,
            confirm=confirm,
            idempotency_key=idempotency_key,
            allow_gesture_fallback=allow_gesture_fallback,
            observe=observe,
        )

    async def tap(
        self,
        target: Target,
        *,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
        allow_gesture_fallback: bool = False,
        observe: ObserveMode = "settle",
    ) -> ActionResult:
        return await self._act_on(
            ActionVerb.CLICK,
            target,
            verify=verify,
            confirm=confirm,
            idempotency_key=idempotency_key,
            allow_gesture_fallback=allow_gesture_fallback,
            observe=observe,
        )

    async def long_press(
        self,
        target: Target,
        *,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
        observe: ObserveMode = "settle",
    ) -> ActionResult:
        """LONG_CLICK on ``target`` (``mobridge long-press``)."""
        return await self._act_on(
            ActionVerb.LONG_CLICK,
            target,
            verify=verify,
            confirm=confirm,
            idempotency_key=idempotency_key,
            observe=observe,
        )

    async def type_text(
        self,
        target: Target,
        text: str | None = None,
        *,
        value_ref: str | None = None,
        verify: Verify | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        """SET_TEXT into ``target`` (a field is found by its hint too: ``"Username"``) with
        a literal ``text`` or a ``value_ref`` (``secret://...``), not both."""
        if (text is None) == (value_ref is None):
            raise ValueError("give exactly one of text and value_ref")
        return await self._act_on(
            ActionVerb.SET_TEXT,
            target,
            value=text,
            value_ref=value_ref,
            verify=verify,
            idempotency_key=idempotency_key,
        )

    async def scroll(
        self, target: Target, forward: bool = True, *, verify: Verify | None = None
    ) -> ActionResult:
        verb = ActionVerb.SCROLL_FORWARD if forward else ActionVerb.SCROLL_BACKWARD
        return await self._act_on(verb, target, verify=verify)

    async def back(self) -> ActionResult:
        return await self.global_action(GlobalAction.BACK)

    async def home(self) -> ActionResult:
        return await self.global_action(GlobalAction.HOME)

    async def global_action(self, action: GlobalAction | str) -> ActionResult:
        message = Global(id=self._conn.next_id(), device=self.id, action=GlobalAction(action))
        return await self._conn.call(message, ActionResult, self._action_deadline(None))

    async def app(
        self,
        action: AppAction | str,
        app_id: str | None = None,
        uri: str | None = None,
        arguments: dict[str, str] | None = None,
    ) -> ActionResult:
        """An app action; ``arguments``: APP_OPEN's launch arguments (a device whose agent
        does not take them refuses with ACTION_UNSUPPORTED)."""
        message = App(
            id=self._conn.next_id(),
            device=self.id,
            action=AppAction(action),
            app_id=app_id,
            uri=uri,
            arguments=arguments,
        )
        return await self._conn.call(message, ActionResult, self._action_deadline(None))

    # ---- waiting ---------------------------------------------------------------------------

    async def wait(self, condition: Condition, timeout_ms: int | None = None) -> WaitResult:
        """Evaluated by the hub on every new snapshot; the result says met or not (it does
        not raise when the condition is not met). ``timeout_ms`` None takes the hub's default
        (10 s for a ``screen`` condition, else 5 s)."""
        message = Wait(
            id=self._conn.next_id(), device=self.id, condition=condition, timeout_ms=timeout_ms
        )
        budget_ms = SCREEN_TIMEOUT_MS if timeout_ms is None else timeout_ms
        return await self._conn.call(
            message, WaitResult, budget_ms / 1000 + self._conn.request_timeout
        )

    async def wait_for_screen(self, name: str, timeout_ms: int | None = None) -> WaitResult:
        """Until the screen is ``name`` (``mobridge wait DEVICE --screen NAME``)."""
        return await self.wait(ScreenShown(name=name), timeout_ms)

    async def wait_for(
        self, target: SemanticQuery | str, timeout_ms: int | None = None
    ) -> WaitResult:
        """Until a node matching ``target`` (plain text, or a query) is on the screen
        (``mobridge wait DEVICE --present TEXT``); ``.result`` says whether it came."""
        return await self.wait(Present(query=as_query(target)), timeout_ms)

    async def wait_gone(
        self, target: SemanticQuery | str, timeout_ms: int | None = None
    ) -> WaitResult:
        """Until no node matches ``target`` (``mobridge wait DEVICE --gone TEXT``)."""
        return await self.wait(Absent(query=as_query(target)), timeout_ms)

    # ---- leases and captures ---------------------------------------------------------------

    async def acquire_lease(
        self, mode: LeaseMode = "exclusive", *, alerts: str | None = None
    ) -> LeaseResult:
        """``alerts``: ``accept`` / ``dismiss`` every alert that shows while this lease is held."""
        choice = None if alerts is None else AlertChoice(alerts)
        message = LeaseAcquire(id=self._conn.next_id(), device=self.id, mode=mode, alerts=choice)
        return await self._conn.call(message, LeaseResult)

    async def release_lease(self) -> LeaseResult:
        message = LeaseRelease(id=self._conn.next_id(), device=self.id)
        return await self._conn.call(message, LeaseResult)

    @asynccontextmanager
    async def lease(
        self, mode: LeaseMode = "exclusive", *, alerts: str | None = None
    ) -> AsyncIterator[LeaseResult]:
        """Hold the device's lease for the block; released on exit (a lost connection
        releases it at the hub anyway). ``alerts``: see ``acquire_lease``."""
        acquired = await self.acquire_lease(mode, alerts=alerts)
        try:
            yield acquired
        finally:
            import anyio  # here: the one-shot session (no event loop) never holds a lease

            with anyio.CancelScope(shield=True):
                try:
                    await self.release_lease()
                except (ConnectionLost, RequestTimeout):
                    pass

    async def screenshot(self, fresh: bool = False) -> ScreenshotResult:
        """The picture of the current screen, shared with every other request for the same
        screen generation; ``fresh``: a new device screenshot (a few per session)."""
        message = Screenshot(id=self._conn.next_id(), device=self.id, fresh=fresh)
        return await self._conn.call(message, ScreenshotResult, 3 * self._conn.request_timeout)

    async def fetch_screenshot(self, result: ScreenshotResult | None = None) -> bytes:
        """The PNG of ``result`` (a fresh capture when omitted)."""
        return await self._conn.fetch_screenshot(result or await self.screenshot())

    # ---- internals -------------------------------------------------------------------------

    async def _act_on(
        self,
        verb: ActionVerb,
        target: Target,
        *,
        value: str | None = None,
        value_ref: str | None = None,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
        allow_gesture_fallback: bool = False,
        observe: ObserveMode = "settle",
    ) -> ActionResult:
        query: SemanticQuery | None = None
        ref: NodeRef | None = None
        if isinstance(target, str):
            target = (
                await self.match_of_handle(target) if HANDLE.match(target) else text_query(target)
            )
        if isinstance(target, SemanticQuery):
            query = target
        elif isinstance(target, FindMatch):
            ref = target.ref
        else:
            ref = target
        request = ActionRequest(
            action=verb,
            target=ref,
            value=value,
            value_ref=value_ref,
            verify=verify,
            idempotency_key=idempotency_key,
            allow_gesture_fallback=allow_gesture_fallback,
        )
        return await self.act(request, confirm, query=query, observe=observe)

    async def match_of_handle(self, handle: str) -> FindMatch:
        """The current match of the node whose handle (``nodeId``) is ``handle``; node ids
        are stable for an element, so this is the element ``mobridge screen`` showed."""
        snapshot = (await self.snapshot(compact=False)).snapshot
        node = next((n for n in snapshot.nodes if n.node_id == handle), None)
        if node is None:
            raise not_found(f"no node {handle} on the current screen of {self.id}")
        found = await self.find(SemanticQuery(role=node.role))
        match = next((m for m in found.matches if m.node.node_id == handle), None)
        if match is None:
            raise not_found(f"{handle} is gone from the screen of {self.id}")
        return match

    def _action_deadline(self, verify: Verify | None) -> float:
        budget_ms = (
            DEFAULT_ACTION_BUDGET_MS if verify is None else verify.timeout_ms + verify.stable_for_ms
        )
        return budget_ms / 1000 + self._conn.request_timeout


def _describe(query: SemanticQuery) -> str:
    parts = []
    if query.role is not None:
        parts.append(f"role={query.role.value}")
    if query.text is not None:
        parts.append(f"text={query.text.value!r}")
    if query.label is not None:
        parts.append(f"label={query.label.value!r}")
    if query.resource_id is not None:
        parts.append(f"resourceId={query.resource_id!r}")
    return " ".join(parts) or "the query"
