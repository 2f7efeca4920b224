"""One MCP session's state: its own hub session, handles, objections, captures, watches.

Rules:

- every MCP session is its own hub session: the connection is opened on the first tool call
  (after ``initialize``, so it is named after the MCP client: ``"<name> <version>"``) with the
  token of that MCP session (stdio: the configured one; HTTP: the caller's bearer token), and
  it is reopened when the hub dropped it. The hub therefore applies its own roles, leases,
  policies and verification to the agent, and shows its actions under the agent's name;
- the connection and every watch are tasks of the session's task group (``McpSession.run``);
  leaving it closes them, so an MCP session that ends leaves nothing behind at the hub
  (its lease is released by the hub when the connection closes);
- every table is bounded: handles (``HandleTable``), objections (``MAX_OBJECTIONS``),
  captures (``MAX_CAPTURES``), resource watches (``MAX_WATCHES``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import anyio.abc

from bridge.client import ConnectionLost, HubConnection, connect
from bridge.client.errors import ClientError
from bridge.mcp.handles import HandleTable
from bridge.mcp.outline import Outline, build_outline
from bridge.wire.client_protocol import (
    DeviceSummary,
    FindResult,
    ScreenshotResult,
    SnapshotResult,
)
from bridge.wire.enums import Role
from bridge.wire.query import SemanticQuery

MAX_OBJECTIONS = 64
MAX_CAPTURES = 32
MAX_WATCHES = 16
COALESCE_QUIET_S = 0.25
"""A screen that keeps changing is announced once at the first change, then once more when it
has been quiet this long (the simulated agent pushes transitional frames at most 300 ms apart)."""


@dataclass(frozen=True)
class HubTarget:
    """Which hub to reach, and the token when the transport does not carry one (stdio)."""

    url: str
    token: str | None = None
    request_timeout: float = 10.0


@dataclass
class PendingAct:
    """An act refused pending an objection, kept so that ``confirm`` can repeat it by id."""

    device: str
    arguments: dict[str, object]
    reason: str
    answerable: bool


@dataclass
class ScreenView:
    """The screen as last shown to the agent: snapshot, generation, outline, handles."""

    device: str
    snapshot: SnapshotResult
    outline: Outline
    handles: dict[str, str]


@dataclass
class McpSession:
    target: HubTarget
    client_name: str = "mcp-client"
    token: str | None = None
    handles: HandleTable = field(default_factory=HandleTable)
    objections: OrderedDict[str, PendingAct] = field(default_factory=OrderedDict)
    captures: OrderedDict[str, ScreenshotResult] = field(default_factory=OrderedDict)
    watches: dict[str, anyio.CancelScope] = field(default_factory=dict)
    _tg: anyio.abc.TaskGroup | None = None
    _hub: HubConnection | None = None
    _release: anyio.Event | None = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    # ---- lifetime --------------------------------------------------------------------------

    @asynccontextmanager
    async def run(self) -> AsyncIterator[McpSession]:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            try:
                yield self
            finally:
                tg.cancel_scope.cancel()
                self._tg = None
                self._hub = None

    async def hub(self) -> HubConnection:
        """This session's hub connection (opened, or reopened after a loss, on demand)."""
        async with self._lock:
            if self._hub is not None and not self._hub.closed:
                return self._hub
            if self._tg is None:
                raise ConnectionLost("the MCP session is closing")
            if self._release is not None:
                self._release.set()
            self._release = anyio.Event()
            self._hub = await self._tg.start(self._hold, self._release)
            return self._hub

    async def _hold(
        self, release: anyio.Event, *, task_status: anyio.abc.TaskStatus[HubConnection]
    ) -> None:
        async with connect(
            self.target.url,
            token=self.token if self.token is not None else self.target.token,
            name=self.client_name[:128] or "mcp-client",
            kind="agent",
            request_timeout=self.target.request_timeout,
        ) as hub:
            task_status.started(hub)
            await release.wait()

    # ---- devices and screens ---------------------------------------------------------------

    async def device_id(self, requested: str | None) -> str:
        """The named device, or the only (else the only online) device when none is named."""
        if requested is not None:
            return requested
        devices = await (await self.hub()).devices()
        online = [d for d in devices if d.online]
        for pool in (devices, online):
            if len(pool) == 1:
                return pool[0].id
        names = ", ".join(d.id for d in devices) or "none"
        raise DeviceChoice(f"name the device: the hub has {len(devices)} ({names})")

    async def devices(self) -> tuple[DeviceSummary, ...]:
        return await (await self.hub()).devices()

    async def screen(self, device_id: str, max_lines: int = 200) -> ScreenView:
        """The compact snapshot, its outline, and a handle (with a hub ref) for each line.

        Refs come from the hub's own ``find`` (one query per role shown, sent together), so
        every handle maps to a NodeRef the hub built; a node the finds did not return (the
        screen moved on in between) keeps its handle without a fresh ref."""
        hub = await self.hub()
        dev = hub.device(device_id)
        snap = await dev.snapshot()
        roles = sorted({n.role for n in snap.snapshot.nodes if n.role is not Role.SCREEN}, key=str)
        found: dict[Role, FindResult] = {}

        async def find_role(role: Role) -> None:
            try:
                found[role] = await dev.find(SemanticQuery(role=role))
            except ClientError:
                pass

        async with anyio.create_task_group() as tg:
            for role in roles:
                tg.start_soon(find_role, role)
        # Handles are issued in document order (the outline's), then given the hub's refs.
        outline = build_outline(
            snap.snapshot,
            snap.generation,
            lambda node: self.handles.handle_for(device_id, node.node_id),
            max_lines,
        )
        self.remember_finds(device_id, found.values(), snap.generation, set(outline.shown))
        handles = {self.handles.handle_for(device_id, nid): nid for nid in outline.shown}
        return ScreenView(device_id, snap, outline, handles)

    def remember_finds(
        self,
        device_id: str,
        results: Iterable[FindResult],
        generation: int | None = None,
        only: set[str] | None = None,
    ) -> None:
        """Refresh handles from find results (``only`` these node ids, when given);
        ``generation`` is the one the agent saw (default: each find's own)."""
        for result in results:
            gen = result.generation if generation is None else generation
            for match in result.matches:
                if only is not None and match.node.node_id not in only:
                    continue
                self.handles.handle_for(device_id, match.node.node_id, match.ref, gen)

    # ---- objections and captures -----------------------------------------------------------

    def remember_objection(self, objection_id: str, pending: PendingAct) -> None:
        self.objections[objection_id] = pending
        self.objections.move_to_end(objection_id)
        while len(self.objections) > MAX_OBJECTIONS:
            self.objections.popitem(last=False)

    def remember_capture(self, result: ScreenshotResult) -> None:
        self.captures[result.capture] = result
        self.captures.move_to_end(result.capture)
        while len(self.captures) > MAX_CAPTURES:
            self.captures.popitem(last=False)

    # ---- resource watches ------------------------------------------------------------------

    async def watch(self, key: str, device_id: str, notify: Callable[[], Awaitable[None]]) -> None:
        """Call ``notify`` when the device's screen changes (coalesced, see the module
        constant) until ``unwatch(key)``. Subscribing twice to one key keeps one watch."""
        if key in self.watches:
            return
        if len(self.watches) >= MAX_WATCHES:
            raise DeviceChoice(f"at most {MAX_WATCHES} screen subscriptions per session")
        hub = await self.hub()
        result, channel = await hub.subscribe(device_id, compact=True)
        scope = anyio.CancelScope()
        self.watches[key] = scope
        assert self._tg is not None

        async def run() -> None:
            with scope:
                try:
                    await _announce_changes(channel.receive, notify)
                finally:
                    self.watches.pop(key, None)
                    with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                        try:
                            await hub.unsubscribe(result.subscription)
                        except ClientError:
                            pass

        self._tg.start_soon(run)

    def unwatch(self, key: str) -> None:
        scope = self.watches.pop(key, None)
        if scope is not None:
            scope.cancel()


class DeviceChoice(Exception):
    """The call did not say which device, and the hub has several (a caller mistake)."""


async def _announce_changes(
    events: anyio.abc.ObjectReceiveStream[object], notify: Callable[[], Awaitable[None]]
) -> None:
    """Leading edge at once, then one trailing notice once the screen has been quiet."""
    async for _event in events:
        await notify()
        changed_since = False
        while True:
            with anyio.move_on_after(COALESCE_QUIET_S) as quiet:
                try:
                    await events.receive()
                except anyio.EndOfStream:
                    return
                changed_since = True
            if quiet.cancelled_caught:
                break
        if changed_since:
            await notify()
