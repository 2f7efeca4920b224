"""Agent mode end to end with the real Java agent core: the fake of adbutils turns the
driver's ``am instrument -e token T -e socket NAME`` into ``scripts/run-android-agent-host
--token T`` and its ``adb forward`` into a loopback relay. The hub (wired as ``bridge.hub.app``
wires the driver) links it, a client signs in as ``demo``; the agent is then killed, the device
goes offline, and the driver restarts it with a new token: online again."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.devices.android import AndroidConfig, run_android
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, VerificationPolicy
from tests.devices.android_fakes.apk_builder import build_apk
from tests.devices.android_fakes.fake_adbutils import FakeAdbClient
from tests.devices.android_fakes.hub_double import SleepRecorder, eventually
from tests.devices.android_fakes.java_host import JavaHostDevice
from tests.skips import need_jdk

pytestmark = [
    pytest.mark.anyio,
    need_jdk,
]

TOKEN = "android-java-host-hub-token"


async def test_agent_mode_against_the_java_agent_in_host_mode(tmp_path: Path) -> None:
    apk = tmp_path / "mobridge-agent.apk"
    apk.write_bytes(build_apk())
    client = FakeAdbClient()
    phone = client.add(JavaHostDevice("emulator-5554"))
    hub = Hub(HubConfig(port=0, sim=False, tokens={TOKEN: Principal("controller", "c1")}))
    config = AndroidConfig(
        agent_apk=apk, adb_factory=lambda: client, sleep=SleepRecorder(), ready_timeout_s=120
    )
    devices = hub.service.devices
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
            await eventually(lambda: any(d.online for d in devices.values()), 120)
            (device_id,) = devices
            async with connect(f"ws://127.0.0.1:{port}/v1", token=TOKEN, name="t") as conn:
                (summary,) = await conn.devices()
                assert summary.online and summary.agent == "mobridge-android-agent-host 0.1.0"
                dev = conn.device(device_id)
                user = await dev.find(build_query(resource_id="username"))
                await dev.act(
                    ActionRequest(
                        action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                    )
                )
                sign_in = await dev.find(build_query(resource_id="login"))
                result = await dev.act(
                    ActionRequest(
                        action=ActionVerb.CLICK,
                        target=sign_in.matches[0].ref,
                        verify=Verify(
                            policy=VerificationPolicy.EXPLICIT_CONDITION,
                            expected=ScreenShown(name="home"),
                            timeout_ms=8000,
                        ),
                    )
                )
                assert result.verification is not None
                assert result.verification.result.value == "CONDITION_MET"

                first_token = phone.instrumentations[0].token
                phone.kill_agent()  # the agent process dies
                await eventually(lambda: not devices[device_id].online, 30)
                await eventually(lambda: devices[device_id].online, 120)
                assert len(phone.instrumentations) == 2
                assert phone.instrumentations[1].token != first_token
                home_or_login = await dev.find(build_query(resource_id="login"))
                assert home_or_login.count in (0, 1)  # the restarted fake app answers again
            tg.cancel_scope.cancel()
    finally:
        client.stop()
        phone.shutdown()


def test_the_layout_option_reaches_the_agent_as_an_instrumentation_argument() -> None:
    from bridge.devices.android.agent_mode import instrument_command

    default = instrument_command("t", "s", "emulator-5554")
    assert "layout" not in default
    compressed = instrument_command("t", "s", "emulator-5554", "compressed")
    assert "-e layout compressed" in compressed
    assert compressed.endswith("dev.mobridge.agent.android/.BridgeInstrumentation")
