"""The Android driver inside a real hub, wired as ``bridge.hub.app`` wires it: agentless mode
over the fake of adbutils serving a real uiautomator dump; a real client lists the device,
taps by text, and sees the device go offline on unplug and come back on replug; apps are
listed, installed (the package staged over adb by the driver), terminated and uninstalled."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bridge.client import ConfirmationRequired, build_query, connect
from bridge.devices.android import AndroidConfig, run_android
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import ActionMethod
from tests.devices.android_fakes.apk_builder import build_apk
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
                lambda url, token, stage, media=None, web=None: hub.attach(
                    AgentTarget(url, token, stage_package=stage, media=media, web=web)
                ),
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


async def test_agentless_phone_apps_install_terminate_uninstall(
    shared_dir: Path, tmp_path: Path
) -> None:
    xml = (shared_dir / "data" / "real-dumps" / DIALOG).read_bytes()
    (tmp_path / "notes.apk").write_bytes(build_apk("com.example.notes", 3, "1.2"))
    client = FakeAdbClient()
    dev = client.add(FakeDevice("emulator-5554", screen_xml=xml))
    hub = Hub(
        HubConfig(
            port=0, sim=False, tokens={TOKEN: Principal("controller", "c1")}, install_dir=tmp_path
        )
    )
    config = AndroidConfig(
        agentless=True, adb_factory=lambda: client, sleep=SleepRecorder(), poll_interval_s=0.05
    )
    try:
        async with anyio.create_task_group() as tg:
            port = await tg.start(hub.run)
            tg.start_soon(
                run_android,
                config,
                lambda url, token, stage, media=None, web=None: hub.attach(
                    AgentTarget(url, token, stage_package=stage, media=media, web=web)
                ),
                hub.detach,
            )
            devices = hub.service.devices
            await eventually(lambda: "emulator-5554" in devices and devices["emulator-5554"].online)
            async with connect(f"ws://127.0.0.1:{port}/v1", token=TOKEN, name="test") as conn:
                phone = conn.device("emulator-5554")
                listed = await phone.apps()
                assert ("com.android.settings", True) in {(a.app_id, a.system) for a in listed.apps}
                with pytest.raises(ConfirmationRequired) as asked:
                    await phone.install_app("notes.apk")
                assert asked.value.objection is not None
                approve = Confirm(objection=asked.value.objection.id, answer="approve")
                installed = await phone.install_app("notes.apk", confirm=approve)
                assert installed.dispatch.status.value == "DISPATCHED"
                (staged,) = dev.pushes
                assert staged.startswith("/data/local/tmp/mobridge-pkg-") and staged.endswith(
                    ".apk"
                )
                assert staged not in dev.files, "the staged copy is deleted after installing"
                assert ["pm", "install", "-r", "-t", staged] in dev.argvs("pm")
                assert "com.example.notes" in dev.packages
                apps = {a.app_id: a for a in (await phone.apps()).apps}
                assert not apps["com.example.notes"].system
                with pytest.raises(ConfirmationRequired) as stop:
                    await phone.terminate_app("com.example.notes")
                assert stop.value.objection is not None
                await phone.terminate_app(
                    "com.example.notes",
                    confirm=Confirm(objection=stop.value.objection.id, answer="approve"),
                )
                assert dev.stopped[-1] == "com.example.notes"
                with pytest.raises(ConfirmationRequired) as remove:
                    await phone.uninstall_app("com.example.notes")
                assert remove.value.objection is not None
                gone = await phone.uninstall_app(
                    "com.example.notes",
                    confirm=Confirm(objection=remove.value.objection.id, answer="approve"),
                )
                assert gone.verification is not None
                assert gone.verification.result.value == "CONDITION_MET"
                assert "com.example.notes" not in dev.packages
            tg.cancel_scope.cancel()
    finally:
        client.stop()
