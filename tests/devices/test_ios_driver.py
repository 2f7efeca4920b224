"""The iOS driver (bridge.devices.ios) at the pymobiledevice3 boundary: fakes of exactly the calls
it makes (tests/devices/ios_fakes/fake_pmd3.py) with the real Swift agent in host mode standing in
for the runner on the phone, the real hub, the Python client.

What this cannot stand in for: usbmuxd, lockdown, testmanagerd and XCTest on a real iPhone (see
docs/ios.md for what was not verified)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from bridge.client import DeviceOffline, HubError, build_query, connect
from bridge.devices.ios import IosConfig, run_ios
from bridge.devices.ios.iphone import IphoneRunner
from bridge.hub.app import Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb, ErrorCode
from tests.devices.android_fakes.hub_double import eventually
from tests.devices.ios_fakes.fake_pmd3 import FakeIphone, FakeUsbmux, swift_runner
from tests.devices.ios_fakes.swift_host import require_swift

pytestmark = pytest.mark.anyio

TOKEN = "ios-driver-hub-token"
UDID = "00008120-001A2B3C4D5E6F70"


class QuickSleep:
    """``IosConfig.sleep``: records every delay asked for, sleeps at most 50 ms."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.sleep(min(seconds, 0.05))


def config(mux: FakeUsbmux, **kw: object) -> IosConfig:
    return IosConfig(
        pmd3_factory=mux.pmd3,
        sleep=QuickSleep(),
        poll_interval_s=0.2,
        ready_timeout_s=60,
        **kw,  # type: ignore[arg-type]
    )


@asynccontextmanager
async def hub_with(cfg: IosConfig) -> AsyncIterator[Hub]:
    hub = Hub(HubConfig(port=0, sim=False, tokens={TOKEN: Principal("controller", "c")}, ios=cfg))
    async with anyio.create_task_group() as tg:
        await tg.start(hub.run)
        try:
            yield hub
        finally:
            tg.cancel_scope.cancel()


async def test_iphone_runner_is_launched_linked_through_usbmux_and_restarted() -> None:
    require_swift()
    phone = FakeIphone(UDID, product_version="16.7")
    mux = FakeUsbmux(phone)
    try:
        async with hub_with(config(mux, target_bundle_id=None)) as hub:
            devices = hub.service.devices
            await eventually(lambda: any(d.online for d in devices.values()), 90)
            assert list(devices) == [UDID]  # the runner announces the UDID it was given
            env = phone.runs[0]
            assert env["MOBRIDGE_PORT"] == "8200" and env["MOBRIDGE_DEVICE_ID"] == UDID
            assert len(env["MOBRIDGE_TOKEN"]) >= 24
            assert f"create_using_usbmux {UDID}" in mux.calls
            assert "TestConfig.create_for lockdown dev.mobridge.runner.xctrunner" in mux.calls
            assert "XCUITestService.run lockdown" in mux.calls
            assert f"connect {UDID} 8200" in mux.calls  # the hub's link: a usbmux socket
            assert not any(c.startswith("get_tunneld") for c in mux.calls), "no tunnel below 17"
            async with connect(f"ws://127.0.0.1:{hub.port}/v1", token=TOKEN, name="t") as client:
                (summary,) = await client.devices()
                assert summary.agent == "mobridge-ios-agent-host 0.1.0"
                dev = client.device(UDID)
                user = await dev.find(build_query(resource_id="username"))
                result = await dev.act(
                    ActionRequest(
                        action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                    )
                )
                assert result.dispatch.status.value == "DISPATCHED"

                phone.kill_runner()  # the runner process dies on the phone
                await eventually(lambda: not devices[UDID].online, 30)
                await eventually(lambda: devices[UDID].online, 90)
                assert len(phone.runs) == 2
                assert phone.runs[1]["MOBRIDGE_TOKEN"] != env["MOBRIDGE_TOKEN"]
                again = await dev.find(build_query(resource_id="login"))
                assert again.count == 1
    finally:
        phone.shutdown()


async def test_unplugged_mid_action_is_device_offline_with_recovery_then_back() -> None:
    require_swift()

    def slow_typist(env: dict[str, str]) -> list[str]:
        return [*swift_runner(env), "--type-cps", "3"]  # ~6 s to type 20 characters

    phone = FakeIphone(UDID, runner_argv=slow_typist)
    mux = FakeUsbmux(phone)
    try:
        async with hub_with(config(mux)) as hub:
            devices = hub.service.devices
            await eventually(lambda: any(d.online for d in devices.values()), 90)
            async with connect(f"ws://127.0.0.1:{hub.port}/v1", token=TOKEN, name="t") as client:
                dev = client.device(UDID)
                user = await dev.find(build_query(resource_id="username"))
                outcome: list[BaseException] = []

                async def act() -> None:
                    try:
                        await dev.act(
                            ActionRequest(
                                action=ActionVerb.SET_TEXT,
                                target=user.matches[0].ref,
                                value="abcdefghijklmnopqrst",
                            )
                        )
                    except (DeviceOffline, HubError) as exc:
                        outcome.append(exc)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(act)
                    await anyio.sleep(1.5)
                    phone.unplug()
                assert outcome, "the action must not succeed once the phone is gone"
                refused = outcome[0]
                assert isinstance(refused, HubError)
                assert refused.envelope.error is ErrorCode.DEVICE_OFFLINE
                assert refused.envelope.recovery
                await eventually(lambda: not devices[UDID].online, 10)
                phone.replug()
                await eventually(lambda: devices[UDID].online, 90)
                assert len(phone.runs) >= 2
    finally:
        phone.shutdown()


async def test_ios17_launches_through_the_tunnel_and_says_how_to_start_it() -> None:
    require_swift()
    phone = FakeIphone(UDID, product_version="17.5")
    mux = FakeUsbmux(phone)
    sessions: list[str] = []
    attached: list[str] = []

    def attach(
        url: str, token: str | None, opener: object, media: object = None, web: object = None
    ) -> anyio.Event:
        attached.append(url)
        return anyio.Event()

    runner = IphoneRunner(mux.pmd3(), UDID, config(mux), attach, lambda url: None)
    with anyio.move_on_after(1):
        await runner.run()  # no tunneld: every session fails, saying what to run
    sessions = [s.reason for s in runner.sessions]
    assert sessions and all("remote tunneld" in r for r in sessions), sessions
    assert not attached
    assert "lockdown.close" in mux.calls, "the lockdown used to read the version is closed"
    assert runner.delays[:3] == [1.0, 2.0, 4.0], "restarts back off"

    mux.tunneld_up = True
    runner = IphoneRunner(mux.pmd3(), UDID, config(mux), attach, lambda url: None)
    with anyio.move_on_after(1):
        await runner.run()  # tunneld runs but has no tunnel to this phone
    assert all("has no tunnel" in s.reason for s in runner.sessions)

    mux.tunnels.add(UDID)
    try:
        async with hub_with(config(mux)) as hub:
            await eventually(lambda: any(d.online for d in hub.service.devices.values()), 90)
        assert "XCUITestService.run rsd" in mux.calls, "iOS 17+: launched through the RSD tunnel"
        assert f"connect {UDID} 8200" in mux.calls, "... and linked through usbmux"
    finally:
        phone.shutdown()


async def test_launch_failures_name_their_remedy() -> None:
    cases = [
        (FakeIphone(UDID, installed=set()), "scripts/build-ios-agent"),
        (FakeIphone(UDID, locked=True), "unlock the iPhone"),
        (FakeIphone(UDID, ddi_mounted=False), "mounter auto-mount"),
    ]
    for phone, remedy in cases:
        mux = FakeUsbmux(phone)
        runner = IphoneRunner(mux.pmd3(), UDID, config(mux), lambda *a, **k: anyio.Event(), print)
        with anyio.move_on_after(0.5):
            await runner.run()
        assert runner.sessions and remedy in runner.sessions[0].reason, runner.sessions[0].reason


async def test_devices_come_and_go_and_usbmuxd_outages_are_survived() -> None:
    a = FakeIphone("00008101-000A", runner_argv=lambda env: ["false"])
    b = FakeIphone("00008101-000B", connection_type="Network", runner_argv=lambda env: ["false"])
    mux = FakeUsbmux(a, b)
    mux.usbmuxd_up = False
    cfg = config(mux, udid="00008101000B")  # dashes are optional in a UDID
    from bridge.devices.ios.driver import IosDriver

    driver = IosDriver(cfg, lambda *args: anyio.Event(), lambda url: None)
    async with anyio.create_task_group() as tg:
        tg.start_soon(driver.run)
        await eventually(lambda: mux.calls.count("list_devices") >= 2, 5)
        assert not driver.runners, "usbmuxd down: nothing to drive, and no crash"
        mux.usbmuxd_up = True
        await eventually(lambda: "00008101-000B" in driver.runners, 5)
        assert "00008101-000A" not in driver.runners, "only the UDID asked for"
        b.unplug()
        await eventually(lambda: "00008101-000B" not in driver._scopes, 5)
        tg.cancel_scope.cancel()


async def test_run_ios_refuses_to_start_without_pymobiledevice3() -> None:
    from bridge.devices.ios import IosSetupError, preflight

    def missing() -> object:
        raise IosSetupError("pymobiledevice3 is not installed: pip install 'mobridge[ios]'")

    cfg = IosConfig(pmd3_factory=missing)  # type: ignore[arg-type]
    assert "mobridge[ios]" in (preflight(cfg) or "")
    with pytest.raises(IosSetupError):
        await run_ios(cfg, lambda *a: anyio.Event(), lambda url: None)
