"""The Android driver inside a real hub, wired as ``bridge.hub.app`` wires it: agentless mode
over the fake of adbutils serving a real uiautomator dump; a real client lists the device,
taps by text, and sees the device go offline on unplug and come back on replug."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.devices.android import AndroidConfig, run_android
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.enums import ActionMethod
from tests.devices.android_fakes.fake_adbutils import FakeAdbClient, FakeDevice
from tests.devices.android_fakes.hub_double import SleepRecorder, eventually

pytestmark = pytest.mark.anyio

TOKEN = "android-hub-test-token"
DIALOG = "android/droidmate__com.rhmsoft.fm_new_dir_popup.xml"


async def test_agentless_phone_through_the_hub(shared_dir: Path) -> None:
    xml = (shared_dir / "data" / "real-dumps" / DIALOG).read_bytes()
    client = FakeAdbClient()
    dev = client.add(FakeDevice("emulator-5554", screen_xml=xml))
    hub = Hub(HubConfig(port=0, sim=False, tokens={TOKEN: Principal("controller", "c1")}))
    config = AndroidConfig(
        agentless=True, adb_factory=lambda: client, sleep=SleepRecorder(), poll_interval_s=0.05
    )
    try:
        async with anyio.create_task_group() as tg:
            port = await tg.start(hub.run)
            tg.start_soon(
                run_android,
                config,
                lambda url, token: hub.attach(AgentTarget(url, token)),
                hub.detach,
            )
            devices = hub.service.devices
            await eventually(lambda: "emulator-5554" in devices and devices["emulator-5554"].online)
            async with connect(f"ws://127.0.0.1:{port}/v1", token=TOKEN, name="test") as conn:
                (summary,) = await conn.devices()
                assert summary.id == "emulator-5554" and summary.online
                assert "agentless" in summary.capabilities
                assert summary.agent is not None and "agentless" in summary.agent
                result = await conn.device("emulator-5554").tap(build_query(text="OK"))
                assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
                assert result.dispatch.fallback_used
                assert dev.argvs("input")[-1] == ["input", "tap", "236", "484"]
                client.unplug("emulator-5554")
                await eventually(lambda: not devices["emulator-5554"].online)
                (offline,) = await conn.devices()
                assert not offline.online
                client.plug(FakeDevice("emulator-5554", screen_xml=xml))
                await eventually(lambda: devices["emulator-5554"].online)
            tg.cancel_scope.cancel()
    finally:
        client.stop()
