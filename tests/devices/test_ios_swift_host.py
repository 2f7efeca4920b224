"""Across languages: the real Swift agent core in host mode <- the hub <- the Python client.

The Swift agent runs as a subprocess (scripts/run-ios-agent-host) on 127.0.0.1 with its scripted
demo screens (login, home), its trees built by the same converter the XCUITest runner uses. The
login scenario the simulated device and the Java agent pass must pass here — SET_TEXT with a
value and with a ``valueRef`` secret, CLICK verified by the home screen, a wait for home — with
reference-valid ActionResults and snapshots; the agent is then killed and restarted and clients
see it offline, then online; python-websockets talks to the Swift server directly.
"""

from __future__ import annotations

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
    AgentPing,
    AgentToHub,
    CaptureCommand,
    NodeActionCommand,
    NodeIdentity,
    Reply,
    TreePush,
)
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, Role, VerificationPolicy
from tests.devices.ios_fakes.swift_host import swift_agent
from tests.hub.agent_hub import assert_tree_deltas_rebuild_the_screen, validate_reference
from tests.hub.agent_hub import hub_on as shared_hub_on

AGENT_TOKEN = "swift-agent-token-for-tests"
HUB_TOKEN = "hub-token-for-swift-tests"
pytestmark = pytest.mark.anyio


def hub_on(url: str) -> Any:
    return shared_hub_on(url, agent_token=AGENT_TOKEN, hub_token=HUB_TOKEN, name="swift-e2e")


async def test_login_scenario_through_the_hub_against_the_swift_agent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_DEMO_PASSWORD", "hunter2-swift")
    with swift_agent(AGENT_TOKEN) as (_proc, url):
        async with hub_on(url) as hub:
            (device_id,) = hub.service.devices
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="swift-e2e"
            ) as client:
                dev = client.device(device_id)
                async with dev.watch() as watch:
                    first = await watch.__anext__()
                    assert first.snapshot.platform.value == "IOS"
                    assert first.snapshot.package_name == "dev.mobridge.demo"
                    validate_reference("snapshot", first.snapshot)
                    assert (await dev.wait(ScreenShown(name="login"))).result.value == (
                        "CONDITION_MET"
                    )
                    user = await dev.find(build_query(resource_id="username"))
                    assert user.count == 1 and user.matches[0].node.role is Role.INPUT
                    validate_reference("noderef", user.matches[0].ref)
                    result = await dev.act(
                        ActionRequest(
                            action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                        )
                    )
                    validate_reference("action-result", result)
                    assert result.dispatch.status.value == "DISPATCHED"
                    assert result.dispatch.method is not None
                    assert result.dispatch.method.value == "ACCESSIBILITY_ACTION"
                    pw = await dev.find(build_query(resource_id="password"))
                    assert pw.matches[0].node.effective_state.password
                    result = await dev.act(
                        ActionRequest(
                            action=ActionVerb.SET_TEXT,
                            target=pw.matches[0].ref,
                            value_ref="secret://demo/password",
                        )
                    )
                    validate_reference("action-result", result)
                    assert "hunter2" not in msgspec.json.encode(result).decode()
                    sign_in = await dev.find(build_query(text="Sign in"))
                    assert sign_in.count == 1 and sign_in.matches[0].node.role is Role.BUTTON
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
                    assert result.observation.screen_changed
                    waited = await dev.wait(ScreenShown(name="home"))
                    assert waited.result.value == "CONDITION_MET"
                    snap = await dev.snapshot(compact=False)
                    validate_reference("snapshot", snap.snapshot)
                    assert "hunter2" not in msgspec.json.encode(snap).decode()
                    entries = [n for n in snap.snapshot.nodes if n.role is Role.LIST_ITEM]
                    assert [n.label for n in entries] == ["Alert", "Sign out"]
                    with anyio.fail_after(5):
                        async for update in watch:  # the watcher kept up through deltas
                            if update.snapshot.snapshot_id == snap.snapshot.snapshot_id:
                                break
                    latest = (await dev.snapshot()).snapshot  # the clock may have ticked since
                    assert [n.node_id for n in update.snapshot.nodes] == [
                        n.node_id for n in latest.nodes
                    ]


async def test_agent_loss_and_return_are_seen_by_clients() -> None:
    with swift_agent(AGENT_TOKEN) as (proc, url):
        port = int(url.rsplit(":", 1)[1])
        async with hub_on(url) as hub:
            device = next(iter(hub.service.devices.values()))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="loss"
            ) as client:
                dev = client.device(device.id)
                await dev.snapshot()
                proc.kill()  # the agent dies
                proc.wait(10)
                with anyio.fail_after(10):
                    while device.online:
                        await anyio.sleep(0.05)
                with pytest.raises((DeviceOffline, HubError)) as info:
                    await dev.snapshot()
                assert info.value.envelope.recovery  # type: ignore[union-attr]
                with swift_agent(AGENT_TOKEN, port) as (_proc2, _url2):
                    with anyio.fail_after(20):
                        while not device.online:
                            await anyio.sleep(0.1)
                    again = await dev.snapshot()
                    assert again.snapshot.package_name == "dev.mobridge.demo"
                    found = await dev.find(build_query(resource_id="login"))
                    assert found.count == 1


async def test_python_websockets_client_talks_to_the_swift_server_directly() -> None:
    with swift_agent(AGENT_TOKEN) as (_proc, url):
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
            assert isinstance(hello, AgentHello) and hello.platform.value == "IOS"
            assert hello.agent.name == "mobridge-ios-agent-host"
            push = decoder.decode(await ws.recv())
            assert isinstance(push, TreePush) and push.reason == "initial"
            assert push.tree.nodes[0].class_name == "XCUIElementTypeApplication"
            user = next(n for n in push.tree.nodes if n.automation_id == "username")
            await ws.send(
                msgspec.json.encode(
                    NodeActionCommand(
                        id=7,
                        capture=push.tree.capture,
                        handle=user.handle,
                        action=ActionVerb.SET_TEXT,
                        identity=NodeIdentity(class_name="XCUIElementTypeButton"),
                        text="x",
                    )
                ).decode()
            )
            await ws.send(msgspec.json.encode(AgentPing(id=8)).decode())
            await ws.send(msgspec.json.encode(CaptureCommand(id=9)).decode())
            replies: dict[int, Reply] = {}
            with anyio.fail_after(10):
                while len(replies) < 3:
                    msg = decoder.decode(await ws.recv())
                    if isinstance(msg, Reply):
                        replies[msg.id] = msg
            assert not replies[7].ok and replies[7].code == "IDENTITY_MISMATCH"
            assert replies[8].ok
            assert replies[9].ok and replies[9].tree is not None
            assert replies[9].tree.capture > push.tree.capture


async def test_the_swift_agent_sends_tree_deltas_the_hub_applies() -> None:
    with swift_agent(AGENT_TOKEN) as (_proc, url):
        async with hub_on(url) as hub:
            await assert_tree_deltas_rebuild_the_screen(
                hub, hub_token=HUB_TOKEN, name="swift-deltas"
            )


async def test_device_actions_through_the_hub_against_the_swift_agent() -> None:
    """Coordinates (in pixels: the agent divides by the screen scale), keys, typing into the
    focused field, volume, the orientation, the app list and terminate reach the Swift core; a
    clear is refused with the reason an iPhone cannot."""
    with swift_agent(AGENT_TOKEN) as (_proc, url):
        async with hub_on(url) as hub:
            (device_id,) = hub.service.devices
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="swift-e2e"
            ) as client:
                dev = client.device(device_id)
                shown = await dev.display()
                assert (shown.width, shown.height) == (1179, 2556)
                user = (await dev.find(build_query(resource_id="username"))).matches[0].node
                assert user.bounds is not None
                x, y = (
                    (user.bounds[0] + user.bounds[2]) // 2,
                    (user.bounds[1] + user.bounds[3]) // 2,
                )
                tapped = await dev.tap_at(x, y)
                validate_reference("action-result", tapped)
                await dev.type_focused("demo", submit=True)
                assert (await dev.wait(ScreenShown(name="home"), 5000)).result.value == (
                    "CONDITION_MET"
                )
                assert (await dev.press_key("VOLUME_UP")).dispatch.status.value == "DISPATCHED"
                with pytest.raises(HubError) as dpad:
                    await dev.press_key("DPAD_DOWN")
                assert dpad.value.code.value == "ACTION_UNSUPPORTED"
                assert "not available on iOS" in dpad.value.envelope.message
                listed = await dev.apps()
                assert "dev.mobridge.demo" in {a.app_id for a in listed.apps}
                turned = await dev.set_orientation("landscape")
                assert turned.verification is not None
                assert turned.verification.result.value == "CONDITION_MET"
                assert (await dev.display()).width == 2556
                await dev.set_orientation("portrait")
                with pytest.raises(HubError) as wipe:  # no confirmation asked: nothing to do
                    await dev.clear_app("dev.mobridge.demo")
                assert wipe.value.code.value == "ACTION_UNSUPPORTED"
                assert wipe.value.envelope.message.endswith(
                    "an iPhone cannot clear one app's data; reinstall the app "
                    "(app uninstall + install)"
                )
