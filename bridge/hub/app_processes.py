"""App launch and terminate by the device layer (an iPhone's DVT process control) for a device
whose agent does not announce the capability (``app`` for APP_OPEN, ``terminate`` for
``app.terminate``), or that announces it but answers the command UNSUPPORTED (then the device
layer does it once, in the same action). An agent that announces it is always asked first: it
runs inside the device's UI session and its reply is what the hub has always trusted.

Only the executor changes: the caller keeps its whole plan (controller, lease, approval,
intent, ``action`` event, observation and the intrinsic foreground verification). Failures
are refusals with one line each: an app that is not installed names ``mobridge apps DEVICE``
(ACTION_REJECTED); terminating an app with no process is NO_EFFECT; any other device-layer
failure is ACTION_REJECTED with its reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bridge.core.media import AppNotInstalled, AppNotRunning
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import Refusal, refusal
from bridge.hub.media_sources import AppProcesses
from bridge.wire.agent_link import Reply
from bridge.wire.enums import ErrorCode

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext


def hub_processes(
    svc: HandlerContext, device: DeviceRuntime, capability: str
) -> AppProcesses | None:
    """The device layer's process control when the agent does not announce ``capability``
    and the device layer has one, else None (the agent is asked, as before)."""
    if capability in device.capabilities:
        return None
    return device_processes(svc, device)


def device_processes(svc: HandlerContext, device: DeviceRuntime) -> AppProcesses | None:
    """The device layer's process control, if it has one (the fallback after an agent's
    UNSUPPORTED answer)."""
    media = svc.media.get(device.id)
    return media.processes() if media is not None else None


async def launch_on_hub(device: DeviceRuntime, processes: AppProcesses, app_id: str) -> Reply:
    """Launch through the device layer: an ok reply, or a refusal (module docstring)."""
    try:
        await processes.launch(app_id)
    except AppNotInstalled as exc:
        raise refusal(
            ErrorCode.ACTION_REJECTED,
            f"{app_id} is not installed on {device.id}: see `mobridge apps {device.id}`",
            (f"list the installed apps: mobridge apps {device.id}", "install the app first"),
        ) from exc
    except (OSError, RuntimeError, ValueError) as exc:
        raise _failed(device, "launch", app_id, exc) from exc
    return Reply(id=0, ok=True)


async def terminate_on_hub(device: DeviceRuntime, processes: AppProcesses, app_id: str) -> Reply:
    """Terminate through the device layer: an ok reply, or a refusal (module docstring)."""
    try:
        await processes.terminate(app_id)
    except AppNotRunning as exc:
        raise refusal(
            ErrorCode.NO_EFFECT,
            f"{app_id} is not running on {device.id}: nothing was terminated",
            ("check the app id", f"list the installed apps: mobridge apps {device.id}"),
        ) from exc
    except (OSError, RuntimeError, ValueError) as exc:
        raise _failed(device, "terminate", app_id, exc) from exc
    return Reply(id=0, ok=True)


def _failed(device: DeviceRuntime, verb: str, app_id: str, exc: BaseException) -> Refusal:
    return refusal(
        ErrorCode.ACTION_REJECTED,
        f"device {device.id} did not {verb} {app_id}: {exc}",
        ("check the device (unlocked, tunneld running from iOS 17: docs/ios.md)", "retry"),
    )
