"""A blocking facade over the async client, for scripts.

``with connect_sync(url, token=...) as hub:`` runs the async client's event loop in a
background thread (an anyio ``BlockingPortal``); every method here submits the async call to
that loop and blocks until it returns, raising the same exceptions. The connection's task
group is entered and left inside the portal, so its rules are the async client's rules.
Not for use from inside a running event loop (use ``bridge.client.connect`` there).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from types import TracebackType
from typing import Literal

from anyio.from_thread import BlockingPortal, start_blocking_portal

from bridge.client.capabilities import SyncDeviceCapabilities
from bridge.client.connection import (
    DEFAULT_REQUEST_TIMEOUT,
    ClientStatistics,
    HubConnection,
    connect,
)
from bridge.client.delta import WatchUpdate
from bridge.client.device import Device, Target
from bridge.client.history import SyncDeviceHistory
from bridge.client.media import SyncDeviceMediaCalls
from bridge.client.watch import DEFAULT_RESYNC_TIMEOUT, Watch
from bridge.wire.action import ActionRequest, ActionResult, Verify
from bridge.wire.client_protocol import (
    Confirm,
    DeviceSummary,
    FindMatch,
    FindResult,
    HelloResult,
    HistoryResult,
    LeaseMode,
    LeaseResult,
    ResolveResult,
    ScreenshotResult,
    SnapshotResult,
    WaitResult,
)
from bridge.wire.conditions import Condition
from bridge.wire.device_control import AppsListResult, DisplayResult
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    GestureKind,
    GlobalAction,
    KeyName,
    Orientation,
    Role,
)
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery


class SyncWatch:
    """``with device.watch() as watch: for update in watch: ...``"""

    def __init__(self, portal: BlockingPortal, watch: Watch) -> None:
        self._portal = portal
        self.watch = watch

    def __enter__(self) -> SyncWatch:
        self._portal.call(self.watch.start)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._portal.call(self.watch.aclose)

    def __iter__(self) -> Iterator[WatchUpdate]:
        return self

    def __next__(self) -> WatchUpdate:
        update = self._portal.call(self._next)
        if update is None:
            raise StopIteration
        return update

    async def _next(self) -> WatchUpdate | None:
        try:
            return await self.watch.__anext__()
        except StopAsyncIteration:
            return None


class SyncDevice(SyncDeviceHistory, SyncDeviceCapabilities, SyncDeviceMediaCalls):
    """The blocking twin of ``bridge.client.Device``."""

    device: Device

    def __init__(self, portal: BlockingPortal, device: Device) -> None:
        self._portal = portal
        self.device = device
        self.id = device.id

    def snapshot(self, compact: bool = True) -> SnapshotResult:
        return self._portal.call(self.device.snapshot, compact)

    def find(
        self,
        query: SemanticQuery | str | None = None,
        *,
        text: str | None = None,
        label: str | None = None,
        role: Role | str | None = None,
        resource_id: str | None = None,
    ) -> FindResult:
        return self._portal.call(
            lambda: self.device.find(
                query, text=text, label=label, role=role, resource_id=resource_id
            )
        )

    def find_one(self, query: SemanticQuery | str) -> tuple[FindMatch, int]:
        return self._portal.call(self.device.find_one, query)

    def history(self, limit: int = 50) -> HistoryResult:
        return self._portal.call(self.device.history, limit)

    def resolve(self, ref: NodeRef, generation: int | None = None) -> ResolveResult:
        return self._portal.call(self.device.resolve, ref, generation)

    def act(
        self,
        request: ActionRequest,
        confirm: Confirm | None = None,
        *,
        query: SemanticQuery | None = None,
    ) -> ActionResult:
        return self._portal.call(lambda: self.device.act(request, confirm, query=query))

    def act_on(
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
    ) -> ActionResult:
        return self._portal.call(
            lambda: self.device.act_on(
                query,
                action,
                value=value,
                value_ref=value_ref,
                verify=verify,
                confirm=confirm,
                idempotency_key=idempotency_key,
                allow_gesture_fallback=allow_gesture_fallback,
            )
        )

    def tap(
        self,
        target: Target,
        *,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
        allow_gesture_fallback: bool = False,
    ) -> ActionResult:
        return self._portal.call(
            lambda: self.device.tap(
                target,
                verify=verify,
                confirm=confirm,
                idempotency_key=idempotency_key,
                allow_gesture_fallback=allow_gesture_fallback,
            )
        )

    def long_press(
        self,
        target: Target,
        *,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        return self._portal.call(
            lambda: self.device.long_press(
                target, verify=verify, confirm=confirm, idempotency_key=idempotency_key
            )
        )

    def type_text(
        self,
        target: Target,
        text: str | None = None,
        *,
        value_ref: str | None = None,
        verify: Verify | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        return self._portal.call(
            lambda: self.device.type_text(
                target, text, value_ref=value_ref, verify=verify, idempotency_key=idempotency_key
            )
        )

    def scroll(
        self, target: Target, forward: bool = True, *, verify: Verify | None = None
    ) -> ActionResult:
        return self._portal.call(lambda: self.device.scroll(target, forward, verify=verify))

    def back(self) -> ActionResult:
        return self._portal.call(self.device.back)

    def home(self) -> ActionResult:
        return self._portal.call(self.device.home)

    def global_action(self, action: GlobalAction | str) -> ActionResult:
        return self._portal.call(self.device.global_action, action)

    def app(
        self, action: AppAction | str, app_id: str | None = None, uri: str | None = None
    ) -> ActionResult:
        return self._portal.call(self.device.app, action, app_id, uri)

    # ---- the device itself (``bridge.client.device_control``) ----------------------------

    def gesture(
        self,
        kind: GestureKind | str,
        points: Iterable[tuple[int, int]],
        *,
        duration_ms: int | None = None,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        call = partial(
            self.device.gesture,
            kind,
            list(points),
            duration_ms=duration_ms,
            verify=verify,
            confirm=confirm,
        )
        return self._portal.call(call)

    def tap_at(self, x: int, y: int, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.tap_at, x, y, confirm=confirm))

    def double_tap_at(self, x: int, y: int, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.double_tap_at, x, y, confirm=confirm))

    def long_press_at(
        self, x: int, y: int, duration_ms: int | None = None, *, confirm: Confirm | None = None
    ) -> ActionResult:
        call = partial(self.device.long_press_at, x, y, duration_ms, confirm=confirm)
        return self._portal.call(call)

    def swipe_on_screen(
        self,
        points: Iterable[tuple[int, int]],
        duration_ms: int | None = None,
        *,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        call = partial(self.device.swipe_on_screen, list(points), duration_ms, confirm=confirm)
        return self._portal.call(call)

    def press_key(self, key: KeyName | str, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.press_key, key, confirm=confirm))

    def type_focused(
        self,
        text: str | None = None,
        *,
        value_ref: str | None = None,
        submit: bool = False,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        call = partial(
            self.device.type_focused, text, value_ref=value_ref, submit=submit, confirm=confirm
        )
        return self._portal.call(call)

    def display(self) -> DisplayResult:
        return self._portal.call(self.device.display)

    def set_orientation(self, orientation: Orientation | str) -> ActionResult:
        return self._portal.call(self.device.set_orientation, orientation)

    def apps(self) -> AppsListResult:
        return self._portal.call(self.device.apps)

    def terminate_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.terminate_app, app_id, confirm=confirm))

    def clear_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.clear_app, app_id, confirm=confirm))

    def install_app(
        self, package: str, *, sha256: str | None = None, confirm: Confirm | None = None
    ) -> ActionResult:
        call = partial(self.device.install_app, package, sha256=sha256, confirm=confirm)
        return self._portal.call(call)

    def uninstall_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(partial(self.device.uninstall_app, app_id, confirm=confirm))

    def wait(self, condition: Condition, timeout_ms: int | None = None) -> WaitResult:
        return self._portal.call(self.device.wait, condition, timeout_ms)

    def wait_for(self, target: SemanticQuery | str, timeout_ms: int | None = None) -> WaitResult:
        return self._portal.call(self.device.wait_for, target, timeout_ms)

    def wait_gone(self, target: SemanticQuery | str, timeout_ms: int | None = None) -> WaitResult:
        return self._portal.call(self.device.wait_gone, target, timeout_ms)

    def match_of_handle(self, handle: str) -> FindMatch:
        return self._portal.call(self.device.match_of_handle, handle)

    def wait_for_screen(self, name: str, timeout_ms: int | None = None) -> WaitResult:
        return self._portal.call(self.device.wait_for_screen, name, timeout_ms)

    def acquire_lease(self, mode: LeaseMode = "exclusive") -> LeaseResult:
        return self._portal.call(self.device.acquire_lease, mode)

    def release_lease(self) -> LeaseResult:
        return self._portal.call(self.device.release_lease)

    def lease(
        self, mode: LeaseMode = "exclusive", *, alerts: str | None = None
    ) -> AbstractContextManager[LeaseResult]:
        return self._portal.wrap_async_context_manager(self.device.lease(mode, alerts=alerts))

    def screenshot(self, fresh: bool = False) -> ScreenshotResult:
        return self._portal.call(self.device.screenshot, fresh)

    def fetch_screenshot(self, result: ScreenshotResult | None = None) -> bytes:
        return self._portal.call(self.device.fetch_screenshot, result)

    def watch(
        self,
        compact: bool = True,
        *,
        strict: bool = False,
        resync_timeout: float = DEFAULT_RESYNC_TIMEOUT,
        settled: bool = False,
    ) -> SyncWatch:
        watch = self.device.watch(
            compact, strict=strict, resync_timeout=resync_timeout, settled=settled
        )
        return SyncWatch(self._portal, watch)


class SyncHub:
    """The blocking twin of ``bridge.client.HubConnection``."""

    def __init__(self, portal: BlockingPortal, hub: HubConnection) -> None:
        self._portal = portal
        self.hub = hub

    @property
    def session(self) -> HelloResult | None:
        return self.hub.session

    def devices(self) -> tuple[DeviceSummary, ...]:
        return self._portal.call(self.hub.devices)

    def device(self, device_id: str) -> SyncDevice:
        return SyncDevice(self._portal, self.hub.device(device_id))

    def ping(self) -> None:
        self._portal.call(self.hub.ping)

    def fetch_screenshot(self, result: ScreenshotResult) -> bytes:
        return self._portal.call(self.hub.fetch_screenshot, result)

    def statistics(self) -> ClientStatistics:
        return self.hub.statistics()


@contextmanager
def connect_sync(
    url: str | None = None,
    *,
    token: str | None = None,
    discover_token: bool = True,
    name: str = "mobridge-python",
    kind: str | None = None,
    format: Literal["json", "msgpack"] = "json",
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    token_in: Literal["header", "hello"] = "header",
) -> Iterator[SyncHub]:
    """``with connect_sync(url, token=...) as hub:`` — the same session as ``connect``."""
    with start_blocking_portal("asyncio", name="mobridge-client") as portal:
        session = connect(
            url,
            token=token,
            discover_token=discover_token,
            name=name,
            kind=kind,
            format=format,
            request_timeout=request_timeout,
            token_in=token_in,
        )
        with portal.wrap_async_context_manager(session) as hub:
            yield SyncHub(portal, hub)
