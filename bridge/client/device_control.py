"""``DeviceControl``: requests that act on the device itself, not on a node (mixed into
``Device``): gestures at screen points, named keys, typing into the focused input, the
orientation, the installed apps, and the screen's size.

Every action answers the reference ActionResult and raises like ``act``: a refusal is a
``HubError`` by its code (``ActionUnsupported`` when the device cannot do it,
``ConfirmationRequired`` for a force-stop, an uninstall or an install until the user's answer
is passed as ``confirm``). Coordinates are device pixels of the screen as captured now
(``display()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bridge.wire.action import ActionResult, Verify
from bridge.wire.device_control import (
    AppClear,
    AppInstall,
    AppsList,
    AppsListResult,
    AppTerminate,
    AppUninstall,
    DisplayGet,
    DisplayResult,
    Gesture,
    KeyPress,
    OrientationSet,
    ScreenPoint,
    TypeText,
)
from bridge.wire.enums import GestureKind, KeyName, Orientation
from bridge.wire.request_parts import Confirm

if TYPE_CHECKING:
    from bridge.client.hub_calls import HubCalls

DEFAULT_ACTION_BUDGET_S = 8.0
INSTALL_BUDGET_S = 130.0
"""The hub gives an install 120 s at the device, after copying the package there."""


class DeviceControl:
    """Device-level requests; ``Device`` provides ``_conn`` and ``id``."""

    _conn: HubCalls
    id: str

    # ---- gestures --------------------------------------------------------------------------

    async def gesture(
        self,
        kind: GestureKind | str,
        points: Iterable[tuple[int, int]],
        *,
        duration_ms: int | None = None,
        verify: Verify | None = None,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """A gesture at screen points, sent with no semantic target (the hub still classifies
        it by what it lands on: a tap on a destructive button needs confirmation)."""
        message = Gesture(
            id=self._conn.next_id(),
            device=self.id,
            kind=GestureKind(kind),
            points=tuple(ScreenPoint(x=x, y=y) for x, y in points),
            duration_ms=duration_ms,
            verify=verify,
            confirm=confirm,
        )
        budget = DEFAULT_ACTION_BUDGET_S
        if verify is not None:
            budget = (verify.timeout_ms + verify.stable_for_ms) / 1000
        budget += (duration_ms or 0) / 1000
        return await self._conn.call(message, ActionResult, budget + self._conn.request_timeout)

    async def tap_at(self, x: int, y: int, *, confirm: Confirm | None = None) -> ActionResult:
        return await self.gesture(GestureKind.TAP, [(x, y)], confirm=confirm)

    async def double_tap_at(
        self, x: int, y: int, *, confirm: Confirm | None = None
    ) -> ActionResult:
        return await self.gesture(GestureKind.DOUBLE_TAP, [(x, y)], confirm=confirm)

    async def long_press_at(
        self, x: int, y: int, duration_ms: int | None = None, *, confirm: Confirm | None = None
    ) -> ActionResult:
        return await self.gesture(
            GestureKind.LONG_PRESS, [(x, y)], duration_ms=duration_ms, confirm=confirm
        )

    async def swipe_on_screen(
        self,
        points: Iterable[tuple[int, int]],
        duration_ms: int | None = None,
        *,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """A swipe along ``points`` (2 to 64, in order)."""
        return await self.gesture(
            GestureKind.SWIPE, points, duration_ms=duration_ms, confirm=confirm
        )

    # ---- keys and typing -------------------------------------------------------------------

    async def press_key(
        self, key: KeyName | str, *, confirm: Confirm | None = None
    ) -> ActionResult:
        message = KeyPress(
            id=self._conn.next_id(), device=self.id, key=KeyName(key), confirm=confirm
        )
        return await self._action(message)

    async def type_focused(
        self,
        text: str | None = None,
        *,
        value_ref: str | None = None,
        submit: bool = False,
        confirm: Confirm | None = None,
    ) -> ActionResult:
        """Type ``text`` (or the secret ``value_ref``) into the input that has the focus;
        ``submit`` presses ENTER afterwards."""
        if (text is None) == (value_ref is None):
            raise ValueError("give exactly one of text and value_ref")
        message = TypeText(
            id=self._conn.next_id(),
            device=self.id,
            text=text,
            value_ref=value_ref,
            submit=submit,
            confirm=confirm,
        )
        return await self._action(message)

    # ---- the screen --------------------------------------------------------------------------

    async def display(self) -> DisplayResult:
        """The screen's size in device pixels and its orientation, as captured now."""
        return await self._conn.call(
            DisplayGet(id=self._conn.next_id(), device=self.id), DisplayResult
        )

    async def set_orientation(self, orientation: Orientation | str) -> ActionResult:
        message = OrientationSet(
            id=self._conn.next_id(), device=self.id, orientation=Orientation(orientation)
        )
        return await self._action(message)

    # ---- apps ------------------------------------------------------------------------------

    async def apps(self) -> AppsListResult:
        return await self._conn.call(
            AppsList(id=self._conn.next_id(), device=self.id), AppsListResult
        )

    async def terminate_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        message = AppTerminate(
            id=self._conn.next_id(), device=self.id, app_id=app_id, confirm=confirm
        )
        return await self._action(message)

    async def clear_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        """Clear ``app_id``'s stored data (DESTRUCTIVE: the hub asks for a confirmation)."""
        message = AppClear(id=self._conn.next_id(), device=self.id, app_id=app_id, confirm=confirm)
        return await self._action(message)

    async def install_app(
        self, package: str, *, sha256: str | None = None, confirm: Confirm | None = None
    ) -> ActionResult:
        """Install ``package``, a file name in the hub's install directory."""
        message = AppInstall(
            id=self._conn.next_id(),
            device=self.id,
            package=package,
            sha256=sha256,
            confirm=confirm,
        )
        return await self._conn.call(
            message, ActionResult, INSTALL_BUDGET_S + self._conn.request_timeout
        )

    async def uninstall_app(self, app_id: str, *, confirm: Confirm | None = None) -> ActionResult:
        message = AppUninstall(
            id=self._conn.next_id(), device=self.id, app_id=app_id, confirm=confirm
        )
        return await self._action(message)

    async def _action(
        self,
        message: KeyPress | TypeText | OrientationSet | AppTerminate | AppClear | AppUninstall,
    ) -> ActionResult:
        return await self._conn.call(
            message, ActionResult, DEFAULT_ACTION_BUDGET_S + self._conn.request_timeout
        )
