"""``DeviceCapabilities`` (mixed into ``Device``) and its blocking twin: the device
capabilities of issue 21 — system alerts, app permissions, the simulated location,
multi-touch, the clipboard and hiding the keyboard.

Actions answer the reference ActionResult and raise like every action (``ActionUnsupported``
when the device cannot: an iPhone and permissions, an agent without the capability;
``ConfirmationRequired`` for a permission grant until the user's answer is passed as
``confirm``; ``InvalidParams``-style protocol errors for a latitude of 200 or a scale of 0).
``alerts()`` and ``clipboard()`` are reads (an observer may call them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bridge.client.targets import as_query
from bridge.wire.action import ActionResult
from bridge.wire.device_capabilities import (
    AlertChoice,
    AlertList,
    AlertListResult,
    AlertRespond,
    CapabilityAction,
    ClipboardGet,
    ClipboardResult,
    ClipboardSet,
    KeyboardHide,
    LocationSet,
    Permission,
    PermissionAction,
    PermissionSet,
    Pinch,
    TwoFingerTap,
)
from bridge.wire.device_control import ScreenPoint
from bridge.wire.query import SemanticQuery
from bridge.wire.request_parts import Confirm

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from bridge.client.hub_calls import HubCalls

ACTION_BUDGET_S = 8.0


def _point(at: tuple[int, int] | None) -> ScreenPoint | None:
    return None if at is None else ScreenPoint(x=at[0], y=at[1])


class DeviceCapabilities:
    """Alerts, permissions, location, multi-touch, clipboard, keyboard; ``Device`` provides
    ``_conn`` and ``id``."""

    _conn: HubCalls
    id: str

    async def alerts(self) -> AlertListResult:
        """The alerts on screen now (title, message, buttons; ``system`` for the OS's own)."""
        return await self._conn.call(
            AlertList(id=self._conn.next_id(), device=self.id), AlertListResult
        )

    async def answer_alert(
        self,
        choice: AlertChoice | str | None = None,
        *,
        button: str | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """Accept or dismiss the alert on screen, or press its ``button`` (exactly one)."""
        message = AlertRespond(
            id=self._conn.next_id(),
            device=self.id,
            choice=None if choice is None else AlertChoice(choice),
            button=button,
            confirm=confirm,
        )
        return await self._capability(message)

    async def permission(
        self,
        action: PermissionAction | str,
        app_id: str,
        permission: Permission | str,
        *,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """Grant (needs the user's confirmation), revoke or reset an app's permission."""
        message = PermissionSet(
            id=self._conn.next_id(),
            device=self.id,
            action=PermissionAction(action),
            app_id=app_id,
            permission=Permission(permission),
            confirm=confirm,
        )
        return await self._capability(message)

    async def set_location(self, latitude: float, longitude: float) -> ActionResult:
        message = LocationSet(
            id=self._conn.next_id(), device=self.id, latitude=latitude, longitude=longitude
        )
        return await self._capability(message)

    async def clear_location(self) -> ActionResult:
        message = LocationSet(id=self._conn.next_id(), device=self.id, clear=True)
        return await self._capability(message)

    async def pinch(
        self,
        scale: float,
        *,
        query: SemanticQuery | str | None = None,
        at: tuple[int, int] | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """Pinch on the element ``query`` matches (or at ``at``; neither: the screen's centre);
        ``scale`` > 1 zooms in, < 1 zooms out."""
        target = None if query is None else as_query(query)
        message = Pinch(id=self._conn.next_id(), device=self.id, scale=scale, query=target,
                        at=_point(at), confirm=confirm)  # fmt: skip
        return await self._capability(message)

    async def two_finger_tap(
        self,
        *,
        query: SemanticQuery | str | None = None,
        at: tuple[int, int] | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        target = None if query is None else as_query(query)
        message = TwoFingerTap(id=self._conn.next_id(), device=self.id, query=target,
                               at=_point(at), confirm=confirm)  # fmt: skip
        return await self._capability(message)

    async def clipboard(self) -> str:
        """The clipboard's text (a secret the hub typed reads back masked)."""
        got = await self._conn.call(
            ClipboardGet(id=self._conn.next_id(), device=self.id), ClipboardResult
        )
        return got.text

    async def set_clipboard(
        self, text: str | None = None, *, value_ref: str | None = None
    ) -> ActionResult:
        """Put ``text``, or the hub's secret ``value_ref`` (``secret://…``), on the clipboard."""
        message = ClipboardSet(
            id=self._conn.next_id(), device=self.id, text=text, value_ref=value_ref
        )
        return await self._capability(message)

    async def hide_keyboard(self) -> ActionResult:
        return await self._capability(KeyboardHide(id=self._conn.next_id(), device=self.id))

    async def _capability(self, message: CapabilityAction) -> ActionResult:
        return await self._conn.call(
            message, ActionResult, ACTION_BUDGET_S + self._conn.request_timeout
        )


class SyncDeviceCapabilities:
    """The blocking twin of ``DeviceCapabilities`` (needs ``_portal`` and ``device``)."""

    _portal: BlockingPortal
    device: DeviceCapabilities

    @property
    def _caps(self) -> DeviceCapabilities:
        return self.device

    def alerts(self) -> AlertListResult:
        return self._portal.call(self._caps.alerts)

    def answer_alert(
        self,
        choice: AlertChoice | str | None = None,
        *,
        button: str | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        caps = self._caps
        return self._portal.call(lambda: caps.answer_alert(choice, button=button, confirm=confirm))

    def permission(
        self,
        action: PermissionAction | str,
        app_id: str,
        permission: Permission | str,
        *,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        caps = self._caps
        return self._portal.call(
            lambda: caps.permission(action, app_id, permission, confirm=confirm)
        )

    def set_location(self, latitude: float, longitude: float) -> ActionResult:
        return self._portal.call(self._caps.set_location, latitude, longitude)

    def clear_location(self) -> ActionResult:
        return self._portal.call(self._caps.clear_location)

    def pinch(
        self,
        scale: float,
        *,
        query: SemanticQuery | str | None = None,
        at: tuple[int, int] | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        caps = self._caps
        return self._portal.call(lambda: caps.pinch(scale, query=query, at=at, confirm=confirm))

    def two_finger_tap(
        self, *, query: SemanticQuery | str | None = None, at: tuple[int, int] | None = None
    ) -> ActionResult:
        caps = self._caps
        return self._portal.call(lambda: caps.two_finger_tap(query=query, at=at))

    def clipboard(self) -> str:
        return self._portal.call(self._caps.clipboard)

    def set_clipboard(
        self, text: str | None = None, *, value_ref: str | None = None
    ) -> ActionResult:
        caps = self._caps
        return self._portal.call(lambda: caps.set_clipboard(text, value_ref=value_ref))

    def hide_keyboard(self) -> ActionResult:
        return self._portal.call(self._caps.hide_keyboard)
