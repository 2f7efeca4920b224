"""``run_ios``: follow the iPhones usbmux lists and keep each one's runner launched and linked
(or, with ``--ios-simulator``, a Simulator's runner on loopback).

Every ``poll_interval_s`` the driver asks usbmux for the connected devices (``list_devices``);
a device matching ``IosConfig.udid`` (or any, when none is given) gets an ``IphoneRunner`` task;
the task is cancelled when the device is no longer listed (unplugged) — its URL is detached, so
subscribers see the device go offline (an action in flight ends DEVICE_OFFLINE with recovery
hints), and a new task starts when it comes back (same device id: online again, resync). When
usbmuxd cannot be reached the driver says so and keeps asking.

Invariants: at most one task per UDID (a device listed over USB and Wi-Fi counts once); every
URL attached is detached when its task ends; nothing but 127.0.0.1 URLs are handed out.
"""

from __future__ import annotations

import anyio
import anyio.abc
import structlog

from bridge.devices.ios.config import Attach, Detach, IosConfig
from bridge.devices.ios.iphone import IphoneRunner
from bridge.devices.ios.plan import same_udid
from bridge.devices.ios.pmd3 import IosSetupError, Pmd3
from bridge.devices.ios.simulator import NO_TOKEN, NO_XCRUN, SimulatorRunner


class IosDriver:
    def __init__(self, config: IosConfig, attach: Attach, detach: Detach) -> None:
        self.config = config
        self.attach = attach
        self.detach = detach
        self.runners: dict[str, IphoneRunner] = {}
        self._scopes: dict[str, anyio.CancelScope] = {}
        self.log = structlog.get_logger("mobridge").bind(component="ios")

    async def run(self) -> None:
        pmd3 = self.config.pmd3_factory()
        unreachable = False
        async with anyio.create_task_group() as tg:
            while True:
                try:
                    devices = await pmd3.list_devices()
                except pmd3.errors as exc:
                    if not unreachable:
                        self.log.warning(
                            "usbmuxd_unreachable",
                            error=str(exc),
                            hint="is usbmuxd running (Linux: apt install usbmuxd)?",
                        )
                    unreachable = True
                    devices = []
                else:
                    unreachable = False
                self._update(tg, pmd3, [str(d.serial) for d in devices])
                await self.config.sleep(self.config.poll_interval_s)

    def _update(self, tg: anyio.abc.TaskGroup, pmd3: Pmd3, serials: list[str]) -> None:
        wanted: list[str] = []
        for serial in serials:
            if self.config.udid is not None and not same_udid(serial, self.config.udid):
                continue
            if not any(same_udid(serial, w) for w in wanted):
                wanted.append(serial)
        for udid in list(self._scopes):
            if not any(same_udid(udid, w) for w in wanted):
                self.log.info("ios_device_gone", udid=udid)
                self._scopes.pop(udid).cancel()
        for udid in wanted:
            if udid in self._scopes:
                continue
            self.log.info("ios_device", udid=udid)
            scope = anyio.CancelScope()
            self._scopes[udid] = scope
            runner = IphoneRunner(pmd3, udid, self.config, self.attach, self.detach)
            self.runners[udid] = runner
            tg.start_soon(self._device_task, udid, runner, scope)

    async def _device_task(self, udid: str, runner: IphoneRunner, scope: anyio.CancelScope) -> None:
        with scope:
            await runner.run()
        if self._scopes.get(udid) is scope:
            del self._scopes[udid]


def preflight(config: IosConfig) -> str | None:
    """Blocking check before the event loop starts (for the CLI): why ``run_ios`` would refuse
    to start, or None."""
    if config.simulator is not None:
        if config.xctestrun is None:
            return None if config.agent_token else NO_TOKEN
        if not config.xctestrun.is_file():
            return f"no .xctestrun at {config.xctestrun} (scripts/build-ios-agent --simulator)"
        return None if SimulatorRunner(config, _no_attach, _no_detach).xcrun() else NO_XCRUN
    try:
        config.pmd3_factory()
    except IosSetupError as exc:
        return str(exc)
    return None


def _no_attach(
    url: str, token: str | None, opener: object, media: object = None, web: object = None
) -> anyio.Event:
    raise AssertionError("preflight attaches nothing")


def _no_detach(url: str) -> None:
    raise AssertionError("preflight detaches nothing")


async def run_ios(config: IosConfig, attach: Attach, detach: Detach) -> None:
    """Drive iPhones (or the Simulator named by ``config.simulator``) until cancelled:
    ``attach(url, token, open_socket)`` each runner as it comes up, ``detach(url)`` as it goes.
    Raises IosSetupError when pymobiledevice3 is missing or a Simulator runner cannot start."""
    if config.simulator is not None:
        await SimulatorRunner(config, attach, detach).run()
        return
    await IosDriver(config, attach, detach).run()
