"""Across languages: the real Java agent core in host mode <- the hub <- the Python client.

The Java agent runs as a subprocess (scripts/run-android-agent-host) on 127.0.0.1 with its
scripted demo screens (login, home). The same login scenario the simulated device passes must
pass here, with ActionResults valid against the reference schemas; the agent is then killed
and restarted and the hub must report it offline, then online with a resync.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from bridge.client import DeviceOffline, HubError, build_query, connect
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.agent_link import (
    AgentHello,
    AgentHubHello,
    AgentToHub,
    NodeActionCommand,
    NodeIdentity,
    Reply,
    TreePush,
)
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, VerificationPolicy
from tests.hub.agent_hub import assert_tree_deltas_rebuild_the_screen, validate_reference
from tests.hub.agent_hub import hub_on as shared_hub_on
from tests.skips import need_jdk

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "run-android-agent-host"
AGENT_TOKEN = "java-agent-token-for-tests"
HUB_TOKEN = "hub-token-for-java-tests"
pytestmark = [
    pytest.mark.anyio,
    need_jdk,
]


@contextmanager
def java_agent(
    port: int = 0, scene: str | None = None, extra: tuple[str, ...] = ()
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The Java host agent on 127.0.0.1 serving ``scene`` (None: its default, ``login``);
    ``extra``: more arguments (``--layout compressed``, ``--sdk 30`` ...)."""
    args = [str(SCRIPT), "--port", str(port), "--token", AGENT_TOKEN, *extra]
    if scene is not None:
        args += ["--scene", scene]
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # builds on first use, then prints READY ws://...
        assert line.startswith("READY "), line
        yield proc, line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def hub_on(url: str) -> Any:
    return shared_hub_on(url, agent_token=AGENT_TOKEN, hub_token=HUB_TOKEN, name="java-e2e")


async def test_login_scenario_through_the_hub_against_the_java_agent() -> None:
    with java_agent() as (_proc, url):
        async with hub_on(url) as hub:
            device_id = next(iter(hub.service.devices))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="java-e2e"
            ) as client:
                dev = client.device(device_id)
                async with dev.watch() as watch:
                    first = await watch.__anext__()
                    assert first.snapshot.package_name == "dev.mobridge.demo"
                    assert (await dev.wait(ScreenShown(name="login"))).result.value == (
                        "CONDITION_MET"
                    )
                    user = await dev.find(build_query(resource_id="username"))
                    result = await dev.act(
                        ActionRequest(
                            action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                        )
                    )
                    validate_reference("action-result", result)
                    pw = await dev.find(build_query(resource_id="password"))
                    await dev.act(
                        ActionRequest(
                            action=ActionVerb.SET_TEXT, target=pw.matches[0].ref, value="pw-1"
                        )
                    )
                    sign_in = await dev.find(build_query(resource_id="login"))
                    assert sign_in.count == 1
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
                    validate_reference("action-result", result)
                    assert result.verification is not None
                    assert result.verification.result.value == "CONDITION_MET"
                    assert (await dev.wait(ScreenShown(name="home"))).result.value == (
                        "CONDITION_MET"
                    )
                    snap = await dev.snapshot(compact=False)
                    validate_reference("snapshot", snap.snapshot)
                    assert "pw-1" not in msgspec.json.encode(snap).decode()
                    # the watcher kept up through deltas
                    with anyio.fail_after(5):
                        async for update in watch:
                            if update.snapshot.snapshot_id == snap.snapshot.snapshot_id:
                                break
                    # and holds what a fresh snapshot of the same id holds (the demo's clock
                    # ticks each second, so the two are compared at one id, not at one moment)
                    for _ in range(10):
                        fresh = (await dev.snapshot()).snapshot
                        with anyio.move_on_after(5):
                            while update.snapshot.snapshot_id != fresh.snapshot_id:
                                update = await watch.__anext__()
                        if update.snapshot.snapshot_id == fresh.snapshot_id:
                            break
                    assert update.snapshot.snapshot_id == fresh.snapshot_id
                    assert update.snapshot.nodes == fresh.nodes


async def test_agent_loss_and_return_are_seen_by_clients() -> None:
    with java_agent() as (proc, url):
        port = int(url.rsplit(":", 1)[1])
        async with hub_on(url) as hub:
            device = next(iter(hub.service.devices.values()))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="loss"
            ) as client:
                dev = client.device(device.id)
                await dev.snapshot()
                proc.terminate()
                proc.wait(10)
                with anyio.fail_after(10):
                    while device.online:
                        await anyio.sleep(0.05)
                with pytest.raises((DeviceOffline, HubError)) as info:
                    await dev.snapshot()
                assert info.value.envelope.recovery  # type: ignore[union-attr]
                with java_agent(port) as (_proc2, _url2):
                    with anyio.fail_after(20):
                        while not device.online:
                            await anyio.sleep(0.1)
                    again = await dev.snapshot()
                    assert again.snapshot.package_name == "dev.mobridge.demo"


async def test_python_websockets_client_talks_to_the_java_server_directly() -> None:
    with java_agent() as (_proc, url):
        with pytest.raises(InvalidStatus) as refused:
            async with ws_connect(url, additional_headers={"Authorization": "Bearer wrong"}):
                pass
        assert refused.value.response.status_code == 401
        decoder = msgspec.json.Decoder(AgentToHub)
        async with ws_connect(
            url, additional_headers={"Authorization": f"Bearer {AGENT_TOKEN}"}
        ) as ws:
            await ws.send(msgspec.json.encode(AgentHubHello(protocol=1, hub="py")).decode())
            hello = decoder.decode(await ws.recv())
            assert isinstance(hello, AgentHello) and hello.platform.value == "ANDROID"
            push = decoder.decode(await ws.recv())
            assert isinstance(push, TreePush) and push.reason == "initial"
            user = next(
                n for n in push.tree.nodes if (n.automation_id or "").endswith(":id/username")
            )
            await ws.send(
                msgspec.json.encode(
                    NodeActionCommand(
                        id=7,
                        capture=push.tree.capture,
                        handle=user.handle,
                        action=ActionVerb.SET_TEXT,
                        identity=NodeIdentity(class_name="android.widget.Button"),
                        text="x",
                    )
                ).decode()
            )
            with anyio.fail_after(5):
                while True:
                    msg = decoder.decode(await ws.recv())
                    if isinstance(msg, Reply):
                        break
            assert msg.id == 7 and not msg.ok and msg.code == "IDENTITY_MISMATCH"


async def test_the_java_agent_sends_tree_deltas_the_hub_applies() -> None:
    with java_agent() as (_proc, url):
        async with hub_on(url) as hub:
            await assert_tree_deltas_rebuild_the_screen(
                hub, hub_token=HUB_TOKEN, name="java-deltas"
            )


async def test_device_actions_through_the_hub_against_the_java_agent() -> None:
    """Coordinates, keys, typing into the focused field, the orientation and the app list:
    the hub's device actions reach the Java agent core's new commands and come back right."""
    with java_agent() as (_proc, url):
        async with hub_on(url) as hub:
            device_id = next(iter(hub.service.devices))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="java-e2e"
            ) as client:
                dev = client.device(device_id)
                shown = await dev.display()
                assert (shown.width, shown.height) == (1080, 2400)
                user = (await dev.find(build_query(resource_id="username"))).matches[0].node
                assert user.bounds is not None
                x, y = (
                    (user.bounds[0] + user.bounds[2]) // 2,
                    (user.bounds[1] + user.bounds[3]) // 2,
                )
                tapped = await dev.double_tap_at(x, y)
                validate_reference("action-result", tapped)
                await dev.type_focused("demo")
                await dev.press_key("DPAD_DOWN")
                await dev.type_focused("pw", submit=True)
                assert (await dev.wait(ScreenShown(name="home"), 5000)).result.value == (
                    "CONDITION_MET"
                )
                with pytest.raises(HubError) as media:
                    await dev.press_key("MEDIA_PLAY_PAUSE")
                assert media.value.code.value == "ACTION_UNSUPPORTED"
                listed = await dev.apps()
                assert {a.app_id for a in listed.apps} >= {"dev.mobridge.demo"}
                turned = await dev.set_orientation("landscape")
                assert turned.verification is not None
                assert turned.verification.result.value == "CONDITION_MET"
                assert (await dev.display()).width == 2400
                await dev.set_orientation("portrait")
