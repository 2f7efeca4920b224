"""Reads about the device itself: ``display.get`` (screen size and orientation of the newest
capture) and ``apps.list`` (the installed apps, asked of the agent).

Both are reads: an observer may send them, they take no lease and do not queue behind the
device's actions. ``apps.list`` is one agent command, cancellable by ``cancel`` like a
screenshot; a device whose agent does not list apps is refused ACTION_UNSUPPORTED.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from bridge.core.device_control import screen_rect
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, offline, refusal
from bridge.net.agent_link import AgentLost
from bridge.net.client_server import Session
from bridge.wire.agent_link import AppsCommand, Reply
from bridge.wire.device_control import AppsListResult, DisplayResult
from bridge.wire.enums import ErrorCode, ProtocolErrorCode

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext

APPS_TIMEOUT_S = 15.0


def display(svc: HandlerContext, device: DeviceRuntime) -> DisplayResult:
    cap = svc.current(device)
    snapshot = cap.normalized.full
    rect = screen_rect(snapshot)
    if rect is None:
        raise offline(device.id, "the newest capture shows no screen")
    return DisplayResult(
        device=device.id,
        width=rect[2] - rect[0],
        height=rect[3] - rect[1],
        orientation=snapshot.orientation,
        generation=cap.generation,
    )


async def apps(
    svc: HandlerContext, session: Session, request_id: object, device: DeviceRuntime
) -> AppsListResult:
    if device.link is None or not device.online:
        raise offline(device.id, device.offline_reason)
    media = svc.media.get(device.id)
    manager = media.app_manager() if media is not None else None
    if "apps" not in device.capabilities and manager is not None:
        try:
            listed = tuple(await manager.list_apps())
        except (OSError, RuntimeError, ValueError) as exc:
            raise refusal(
                ErrorCode.ACTION_REJECTED,
                f"device {device.id} did not list its apps: {exc}",
                ("retry",),
            ) from exc
        return AppsListResult(
            device=device.id,
            apps=tuple(sorted(listed, key=lambda a: a.app_id)),
            foreground=_foreground(device),
        )
    if "apps" not in device.capabilities:
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"device {device.id} cannot list its apps: its agent does not offer apps",
            ("use the platform's own tools to list apps", "use another device"),
        )
    link = device.link
    reply: Reply | None = None
    with anyio.CancelScope() as scope:
        svc.cancels[(session.id, request_id)] = scope
        try:
            reply = await link.command(lambda cid: AppsCommand(id=cid), timeout_s=APPS_TIMEOUT_S)
        except (AgentLost, TimeoutError) as exc:
            raise offline(device.id, str(exc)) from exc
        finally:
            svc.cancels.pop((session.id, request_id), None)
    if reply is None:
        raise BadRequest(ProtocolErrorCode.CANCELLED, "the app list was cancelled")
    if not reply.ok or reply.apps is None:
        code = (
            ErrorCode.ACTION_UNSUPPORTED
            if reply.code == "UNSUPPORTED"
            else (ErrorCode.ACTION_REJECTED)
        )
        raise refusal(
            code,
            f"device {device.id} did not list its apps: {reply.message or reply.code}",
            ("retry",),
        )
    ordered = tuple(sorted(reply.apps, key=lambda a: a.app_id))
    return AppsListResult(device=device.id, apps=ordered, foreground=_foreground(device))


def _foreground(device: DeviceRuntime) -> str | None:
    """The app of the newest capture."""
    current = device.current
    if current is None:
        return None
    snap = current.normalized.full
    return snap.app_id or snap.package_name
