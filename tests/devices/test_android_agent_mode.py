"""Agent mode through the fake of adbutils: install, instrumentation readiness, forward and
attach; crash and restart with back-off; readiness timeout; forward loss; unplug and replug;
adb server restart; serial filter."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from bridge.devices.android import AndroidConfig
from bridge.devices.android.agent_mode import AgentRunner
from bridge.devices.android.apk import AGENT_PACKAGE, INSTRUMENTATION
from bridge.devices.android.driver import AndroidDriver
from tests.devices.android_fakes.apk_builder import build_apk
from tests.devices.android_fakes.fake_adbutils import FakeAdbClient, FakeDevice
from tests.devices.android_fakes.hub_double import HubDouble, SleepRecorder, eventually

pytestmark = pytest.mark.anyio


@pytest.fixture
def client() -> AsyncIterator[FakeAdbClient]:
    fake = FakeAdbClient()
    yield fake  # type: ignore[misc]
    fake.stop()


@pytest.fixture
def config(tmp_path: Path, client: FakeAdbClient) -> AndroidConfig:
    apk = tmp_path / "mobridge-agent.apk"
    apk.write_bytes(build_apk())
    return AndroidConfig(
        agent_apk=apk,
        adb_factory=lambda: client,
        sleep=SleepRecorder(),
        ready_timeout_s=2.0,
        forward_check_s=0.05,
    )


@asynccontextmanager
async def driving(config: AndroidConfig) -> AsyncIterator[tuple[AndroidDriver, HubDouble]]:
    hub = HubDouble()
    driver = AndroidDriver(config, hub.attach, hub.detach)
    async with anyio.create_task_group() as tg:
        tg.start_soon(driver.run)
        try:
            yield driver, hub
        finally:
            tg.cancel_scope.cancel()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def test_plugged_device_gets_the_agent_installed_started_forwarded_and_attached(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("emulator-5554"))
    async with driving(config) as (_, hub):
        await eventually(lambda: hub.attached)
        url, token = hub.attached[0]
        (inst,) = dev.instrumentations
        assert inst.argv[:4] == ["am", "instrument", "-w", "-r"]
        assert inst.argv[-1] == INSTRUMENTATION
        assert inst.args["device"] == "emulator-5554"
        assert token == inst.token and len(token) >= 24
        assert inst.socket.startswith("mobridge-")
        assert dev.forwards == {f"tcp:{_port(url)}": f"localabstract:{inst.socket}"}
        assert dev.packages[AGENT_PACKAGE].version_name == "0.1.0"
        assert ["am", "force-stop", AGENT_PACKAGE] in dev.argvs("am")  # leftovers stopped first
    assert hub.detached == [url]
    assert f"tcp:{_port(url)}" in dev.removed_forwards


async def test_instrumentation_crash_detaches_then_restarts_with_a_new_socket_and_token(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))
    async with driving(config) as (driver, hub):
        await eventually(lambda: hub.attached)
        first_url, first_token = hub.attached[0]
        dev.instrumentations[0].crash()
        await eventually(lambda: len(hub.attached) == 2)
        second_url, second_token = hub.attached[1]
        assert hub.detached == [first_url]
        assert second_token != first_token
        assert dev.instrumentations[1].socket != dev.instrumentations[0].socket
        assert f"tcp:{_port(first_url)}" not in dev.forwards
        runner = driver.runners["s1"]
        assert isinstance(runner, AgentRunner)
        assert "Process crashed" in runner.sessions[0].reason
        assert runner.delays == [config.backoff_initial_s]
        assert len(dev.pushes) == 1  # installed once, not again on restart
        assert hub.linked == {second_url}


async def test_repeated_crashes_back_off_exponentially_up_to_the_cap(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))

    def ready_then_crash(inst: object) -> None:
        inst.ready()  # type: ignore[attr-defined]
        inst.crash()  # type: ignore[attr-defined]

    dev.on_instrument = ready_then_crash
    cfg = replace(config, backoff_initial_s=1.0, backoff_cap_s=8.0)
    async with driving(cfg) as (driver, hub):
        await eventually(lambda: "s1" in driver.runners and len(driver.runners["s1"].delays) >= 6)
        assert driver.runners["s1"].delays[:6] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert set(hub.detached) == {url for url, _ in hub.attached}


async def test_no_readiness_within_the_timeout_is_a_failed_start(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))
    dev.on_instrument = lambda inst: None  # says nothing
    async with driving(replace(config, ready_timeout_s=0.1)) as (driver, hub):
        await eventually(lambda: "s1" in driver.runners and len(driver.runners["s1"].delays) >= 2)
        assert "no readiness status within 0.1 s" in driver.runners["s1"].sessions[0].reason
        assert hub.attached == []
        assert dev.forwards == {}


async def test_lost_forward_restarts_the_session(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))
    async with driving(config) as (driver, hub):
        await eventually(lambda: hub.attached)
        dev.forwards.clear()  # e.g. someone ran `adb forward --remove-all`
        await eventually(lambda: len(hub.attached) == 2)
        assert "disappeared" in driver.runners["s1"].sessions[0].reason
        assert hub.detached == [hub.attached[0][0]]
        assert dev.instrumentations[0].ended  # the old agent was force-stopped


async def test_uninstalled_agent_is_installed_again(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))
    async with driving(config) as (driver, hub):
        await eventually(lambda: hub.attached)
        del dev.packages[AGENT_PACKAGE]  # the user uninstalled it
        dev.instrumentations[0].crash()
        await eventually(lambda: len(hub.attached) == 2)
        reasons = [s.reason for s in driver.runners["s1"].sessions]
        assert any("Unable to find instrumentation" in r for r in reasons)
        assert len(dev.pushes) == 2


async def test_unplug_detaches_and_stops_replug_attaches_again(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    dev = client.add(FakeDevice("s1"))
    async with driving(config) as (driver, hub):
        await eventually(lambda: hub.attached)
        url = hub.attached[0][0]
        client.unplug("s1")
        await eventually(lambda: hub.detached == [url] and "s1" not in driver._scopes)
        await anyio.sleep(0.1)
        assert len(hub.attached) == 1  # nothing restarted while it is away
        client.plug(dev)
        await eventually(lambda: len(hub.attached) == 2)
        assert hub.linked == {hub.attached[1][0]}


async def test_adb_server_restart_relinks_every_device(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    client.add(FakeDevice("s1"))
    async with driving(config) as (_, hub):
        await eventually(lambda: hub.attached)
        client.kill_server()
        await eventually(lambda: len(hub.attached) == 2)
        assert client.track_calls == 2
        assert hub.detached == [hub.attached[0][0]]


async def test_a_relinked_device_starts_after_the_old_links_teardown(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    """An adb server restart stops the phone's runner, whose teardown force-stops the
    agent in the background; a runner started meanwhile had its new agent stopped under it
    (a second detach, and a restart a second later). The old teardown is held here: the
    new runner must not start its agent until the teardown is done."""
    import threading

    dev = client.add(FakeDevice("s1"))
    async with driving(config) as (driver, hub):
        await eventually(lambda: hub.attached)
        hold = threading.Event()
        dev.hold_force_stop = hold
        client.kill_server()
        await eventually(dev.force_stop_held.is_set)  # the old teardown is in its stop
        await eventually(lambda: client.track_calls == 2 and "s1" in driver._scopes)
        with anyio.move_on_after(0.5):  # a runner not waiting would start its agent now
            await eventually(lambda: len(dev.instrumentations) == 2)
        assert len(dev.instrumentations) == 1
        hold.set()
        await eventually(lambda: len(hub.attached) == 2)
        assert not dev.instrumentations[1].ended
        assert hub.detached == [hub.attached[0][0]]


async def test_only_the_chosen_serial_and_only_authorized_devices(
    client: FakeAdbClient, config: AndroidConfig
) -> None:
    a = client.add(FakeDevice("A"))
    b = client.add(FakeDevice("B"))
    async with driving(replace(config, serial="B")) as (driver, hub):
        await eventually(lambda: hub.attached)
        await anyio.sleep(0.1)
        assert a.calls == [] and len(b.instrumentations) == 1
        client.status("B", "unauthorized")
        await eventually(lambda: hub.detached)
        assert "B" not in driver._scopes
