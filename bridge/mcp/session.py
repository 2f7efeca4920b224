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
from anyio.streams.memory import MemoryObjectSendStream

from bridge.client import ConnectionLost, HubConnection, connect
from bridge.client.channels import Channel, SubscriptionEvent
from bridge.client.errors import ClientError
from bridge.mcp.coalesce import ScreenChange, announce_changes
from bridge.mcp.handles import HandleTable
from bridge.mcp.replica import Replica, Replicas
from bridge.mcp.schemas import ActivityEntry
from bridge.mcp.view import DEFAULT_TOKENS, View, compile_view
from bridge.wire.client_protocol import (
    ActionEvent,
    DeviceEvent,
    DeviceSummary,
    FindResult,
    LeaseEvent,
    ScreenshotResult,
    SnapshotEvent,
)
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

MAX_OBJECTIONS = 64
MAX_CAPTURES = 32
MAX_WATCHES = 16
MAX_VIEWS = 32
MAX_NOTES = 8
DEFAULT_DEVICE_TTL_S = 2.0
"""How long the answer "the hub has one device, this one" is reused for calls that name no
device (a device list request per call otherwise; a second device appearing is noticed
within this time)."""
WATCH_BUFFER = 64
"""Screen events buffered per resource watch (see ``bridge.mcp.coalesce``)."""


@dataclass(frozen=True)
class HubTarget:
    """Which hub to reach, and the token when the transport does not carry one (stdio)."""

    url: str
    token: str | None = None
    request_timeout: float = 10.0
    kind: str = "agent"
    """The client kind every session declares in ``hello`` (the hub's lease priority)."""


@dataclass
class PendingAct:
    """A tool call refused pending an objection, kept so that ``confirm`` can repeat it by
    id: the tool's name and its arguments (without the answer)."""

    device: str
    arguments: dict[str, object]
    reason: str
    answerable: bool
    tool: str = "act"


@dataclass
class McpSession:
    target: HubTarget
    client_name: str = "mcp-client"
    token: str | None = None
    handles: HandleTable = field(default_factory=HandleTable)
    objections: OrderedDict[str, PendingAct] = field(default_factory=OrderedDict)
    captures: OrderedDict[str, ScreenshotResult] = field(default_factory=OrderedDict)
    watches: dict[str, anyio.CancelScope] = field(default_factory=dict)
    views: OrderedDict[str, View] = field(default_factory=OrderedDict)
    """Views shown to the model, by id (``since``), the newest ``MAX_VIEWS``."""
    last_view: dict[str, View] = field(default_factory=dict)
    max_tokens: int = DEFAULT_TOKENS
    """The screen budget of answers; a call's ``maxTokens`` sets it for the session."""
    notes: list[str] = field(default_factory=list)
    _view_seq: int = 0
    _default: tuple[str, float] | None = None
    acquired: str | None = None
    """The device the ``acquire`` tool leased: the default while no device is named."""
    _followed: set[str] = field(default_factory=set)
    _listeners: dict[str, dict[str, MemoryObjectSendStream[ScreenChange]]] = field(
        default_factory=dict
    )
    """device -> watch key -> the watch's bounded stream of screen events of the device."""
    replicas: Replicas = field(default_factory=Replicas)
    """Live copies of the screens of devices this session touched (``bridge.mcp.replica``)."""
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
                self.replicas.stop_all()
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
        """Open the hub session and keep it until ``release``. A failure to open reaches the
        caller of ``hub()``; a failure after that only ends this connection (the next call
        reopens one), never the MCP session."""
        started = False
        try:
            async with connect(
                self.target.url,
                token=self.token if self.token is not None else self.target.token,
                name=self.client_name[:128] or "mcp-client",
                kind=self.target.kind,
                request_timeout=self.target.request_timeout,
            ) as hub:
                self._followed = set()
                async with anyio.create_task_group() as inner:
                    for device_id in list(self._listeners):  # resubscribe watches after a loss
                        inner.start_soon(self._refollow, hub, device_id)
                    await inner.start(self._hear_preemptions, hub)
                    task_status.started(hub)
                    started = True
                    await release.wait()
                    inner.cancel_scope.cancel()
        except ClientError:
            if not started:
                raise

    async def _hear_preemptions(
        self, hub: HubConnection, *, task_status: anyio.abc.TaskStatus[None]
    ) -> None:
        """A lease this session held, taken by a session that outranks it (a person), is
        told to the model in its next tool result (``notes``): the hub sends that lease
        event to the displaced session whether or not it watches the device."""
        async with hub.events() as events:
            task_status.started()
            async for event in events:
                mine = hub.session.session if hub.session is not None else None
                if (
                    isinstance(event, LeaseEvent)
                    and event.change == "preempted"
                    and mine in event.displaced
                ):
                    self.note(
                        f"{event.client} took your lease on {event.device} "
                        f"({event.reason or 'higher priority'}); stop acting on it and tell "
                        "the user, or call activity to see what they do"
                    )

    def note(self, text: str) -> None:
        self.notes.append(text)
        del self.notes[:-MAX_NOTES]

    async def _refollow(self, hub: HubConnection, device_id: str) -> None:
        try:
            await self._follow_on(hub, device_id)
        except ClientError:
            pass

    async def follow(self, device_id: str) -> None:
        """Subscribe to the device's frame and settled streams once per hub connection and
        hand their events to the device's resource watches (``bridge.mcp.coalesce`` decides
        what is announced). Once per device: the hub names a subscription by its stream, so
        subscribing twice would replace the first channel."""
        await self._follow_on(await self.hub(), device_id)

    async def _follow_on(self, hub: HubConnection, device_id: str) -> None:
        if device_id in self._followed or len(self._followed) >= MAX_WATCHES:
            return
        self._followed.add(device_id)
        assert self._tg is not None
        try:
            # the hub keeps one compact frame stream per session: the replica's
            replica = await self.replicas.ensure(self._tg, hub, device_id)
            _, settled = await hub.subscribe(device_id, compact=True, settled=True)
        except ClientError:
            self._followed.discard(device_id)
            raise

        def poke_all(is_settled: bool, sid: str) -> None:
            for poke in list(self._listeners.get(device_id, {}).values()):
                try:
                    poke.send_nowait((is_settled, sid))
                except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    pass  # a lagging watch loses frames; the settle timeout covers it

        replica.pins = 1
        replica.on_frame = lambda sid: poke_all(False, sid)

        async def pump(channel: Channel[SubscriptionEvent]) -> None:
            async for event in channel.receive:
                sid = (
                    event.snapshot.snapshot_id
                    if isinstance(event, SnapshotEvent)
                    else event.snapshot_id
                )
                poke_all(True, sid)

        self._tg.start_soon(pump, settled)

    # ---- devices and screens ---------------------------------------------------------------

    async def device_id(self, requested: str | None) -> str:
        """The named device, or the only (else the only online) device when none is named."""
        if requested is not None:
            return requested
        if self.acquired is not None:
            return self.acquired
        now = anyio.current_time()
        if self._default is not None and now - self._default[1] < DEFAULT_DEVICE_TTL_S:
            return self._default[0]
        devices = await (await self.hub()).devices()
        online = [d for d in devices if d.online]
        for pool in (devices, online):
            if len(pool) == 1:
                self._default = (pool[0].id, now)
                return pool[0].id
        names = ", ".join(d.id for d in devices) or "none"
        raise DeviceChoice(f"name the device: the hub has {len(devices)} ({names})")

    async def devices(self) -> tuple[DeviceSummary, ...]:
        return await (await self.hub()).devices()

    async def look(
        self,
        device_id: str,
        *,
        goal: str | None = None,
        max_tokens: int | None = None,
        since: str | None = None,
        diff: bool = False,
        after: str | None = None,
    ) -> tuple[str, View, int]:
        """The screen now, compiled for the model (``bridge.mcp.view``): returns the view's
        id, the view and the snapshot's generation. ``since`` names an earlier view of this
        session to diff against; ``diff`` diffs against the last view of the device shown
        to this session (what an action's answer does). An unknown ``since`` is refused.
        ``after``: the snapshot id an action reported after itself; the screen is then read
        from the device's replica once it has reached that snapshot (``bridge.mcp.replica``),
        else asked of the hub."""
        previous: View | None = None
        if since is not None:
            previous = self.views.get(since)
            if previous is None or previous.device != device_id:
                raise UnknownView(since)
        elif diff:
            previous = self.last_view.get(device_id)
        generation, snapshot = await self._screen(device_id, after)

        def handle_of(node: SemanticNode) -> str:
            return self.handles.handle_for(
                device_id, node.node_id, generation=generation, role=node.role
            )

        if max_tokens is not None:
            self.max_tokens = max_tokens
        view = compile_view(
            snapshot,
            handle_of,
            goal=goal,
            max_tokens=self.max_tokens,
            since=previous,
        )
        self._view_seq += 1
        view_id = f"v{self._view_seq}"
        self.views[view_id] = view
        while len(self.views) > MAX_VIEWS:
            self.views.popitem(last=False)
        self.last_view[device_id] = view
        return view_id, view, generation

    async def _screen(self, device_id: str, after: str | None) -> tuple[int, ScreenSnapshot]:
        """The screen now: from a replica made by this call (its subscription's snapshot is
        the hub's current one), from a live replica that has reached ``after``, else from the
        hub (``snapshot.get``)."""
        hub = await self.hub()
        replica: Replica | None = self.replicas.get(hub, device_id)
        if replica is None and self._tg is not None:
            try:
                replica = await self.replicas.ensure(self._tg, hub, device_id)
            except ClientError:
                replica = None
            if replica is not None and replica.snapshot is not None:
                return replica.generation, replica.snapshot
        elif replica is not None and after is not None:
            got = await replica.after(after)
            if got is not None:
                return got
        snap = await hub.device(device_id).snapshot()
        return snap.generation, snap.snapshot

    def clear_notes(self) -> tuple[str, ...]:
        """Notes for the model gathered since the last tool result (a lease taken over)."""
        notes, self.notes = tuple(self.notes), []
        return notes

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
        """Call ``notify`` when the device's screen changes (``bridge.mcp.coalesce``) until
        ``unwatch(key)``. Subscribing twice to one key keeps one watch."""
        if key in self.watches:
            return
        if len(self.watches) >= MAX_WATCHES:
            raise DeviceChoice(f"at most {MAX_WATCHES} screen subscriptions per session")
        await self.follow(device_id)
        poke, poked = anyio.create_memory_object_stream[ScreenChange](WATCH_BUFFER)
        self._listeners.setdefault(device_id, {})[key] = poke
        scope = anyio.CancelScope()
        self.watches[key] = scope
        assert self._tg is not None

        async def run() -> None:
            with scope:
                try:
                    await announce_changes(poked, notify)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    pass  # the MCP transport closed: nobody is left to notify
                finally:
                    self.watches.pop(key, None)
                    listeners = self._listeners.get(device_id, {})
                    listeners.pop(key, None)
                    if not listeners:
                        self._listeners.pop(device_id, None)
                        unpinned = self.replicas.get_any(device_id)
                        if unpinned is not None:
                            unpinned.pins = 0
                    poke.close()
                    poked.close()

        self._tg.start_soon(run)

    def unwatch(self, key: str) -> None:
        scope = self.watches.pop(key, None)
        if scope is not None:
            scope.cancel()


def activity_entry(
    event: ActionEvent | LeaseEvent | DeviceEvent, mine: str | None
) -> ActivityEntry:
    """One hub event as an activity line (``mine``: this session's hub session id)."""
    match event:
        case ActionEvent():
            target = None
            if event.target is not None:
                role = event.target.role.value.lower() if event.target.role else "node"
                target = f'{role} "{event.target.label or ""}"'
            outcome = event.error.value if event.error is not None else None
            if outcome is None and event.result is not None:
                outcome = event.result.dispatch.status.value
            return ActivityEntry(
                kind="action",
                client=event.client,
                session=event.session,
                verb=event.verb,
                action=event.action,
                target=target,
                outcome=outcome,
                mine=event.session == mine,
            )
        case LeaseEvent():
            return ActivityEntry(
                kind="lease",
                client=event.client,
                session=event.session,
                outcome=event.change,
                mine=event.session == mine,
            )
    return ActivityEntry(kind="device", outcome="online" if event.online else "offline")


class UnknownView(Exception):
    """``since`` names no view this session still keeps."""


class DeviceChoice(Exception):
    """The call did not say which device, and the hub has several (a caller mistake)."""
