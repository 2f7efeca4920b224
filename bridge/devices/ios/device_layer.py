"""The iOS device layers the hub asks beside the agent (``bridge.hub.device_layer``): what
XCUITest cannot do from inside the device.

- ``SimulatorLayer``: ``permission`` (``simctl privacy``), ``location`` (``simctl location``)
  and the clipboard (``simctl pbcopy`` / ``pbpaste``) of one booted Simulator;
- ``IphoneLayer``: ``location`` through pymobiledevice3 (``bridge.devices.ios.location``),
  with a provider launched for the call and closed after it.

Every other command goes to the agent (``answer`` returns None). Failures are failed replies:
UNSUPPORTED when the tool cannot (a permission simctl has no switch for), FAILED otherwise.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bridge.devices.ios.location import LocationCalls, simulate_location
from bridge.devices.ios.plan import major_version
from bridge.devices.ios.simctl import Simctl, SimctlRefused
from bridge.wire.agent_link import (
    ClipboardCommand,
    HubToAgent,
    LocationCommand,
    PermissionCommand,
    Reply,
)


def _done(cid: int, ok: bool, text: str) -> Reply:
    return Reply(id=cid, ok=True) if ok else Reply(id=cid, ok=False, code="FAILED", message=text)


@dataclass
class SimulatorLayer:
    simctl: Simctl
    capabilities: tuple[str, ...] = ("permission", "location", "clipboard")

    async def answer(self, command: HubToAgent) -> Reply | None:
        try:
            match command:
                case PermissionCommand(id=cid, action=act, app_id=app, permission=perm):
                    return _done(cid, *await self.simctl.privacy(act, app, perm))
                case LocationCommand(id=cid, latitude=lat, longitude=lon):
                    return _done(cid, *await self.simctl.location(lat, lon))
                case ClipboardCommand(id=cid, set=None):
                    ok, text = await self.simctl.pbpaste()
                    return Reply(id=cid, ok=True, text=text) if ok else _done(cid, ok, text)
                case ClipboardCommand(id=cid, set=value) if value is not None:
                    return _done(cid, *await self.simctl.pbcopy(value))
        except SimctlRefused as exc:
            return Reply(id=command.id, ok=False, code="UNSUPPORTED", message=str(exc))  # type: ignore[union-attr]
        return None


@dataclass
class IphoneLayer:
    launch: Callable[[], Awaitable[Any]]
    """Launches a provider (lockdown below iOS 17, the RSD tunnel from 17) with ``close()``."""
    calls: Callable[[], LocationCalls]
    errors: tuple[type[BaseException], ...] = (OSError,)
    capabilities: tuple[str, ...] = ("location",)

    async def answer(self, command: HubToAgent) -> Reply | None:
        if not isinstance(command, LocationCommand):
            return None
        provider: Any = None
        try:
            provider = await self.launch()
            major = major_version(str(provider.product_version))
            await simulate_location(
                self.calls(), provider, major, command.latitude, command.longitude
            )
        except self.errors as exc:
            return Reply(
                id=command.id, ok=False, code="FAILED", message=f"{type(exc).__name__}: {exc}"
            )
        finally:
            if provider is not None:
                await provider.close()
        return Reply(id=command.id, ok=True)
