"""Across languages, issue 20: the Swift agent in host mode serves each pathology scene
(``scripts/run-ios-agent-host --scene NAME``), a real hub links to it and the Python client
drives it, asserting what a real iPhone gets wrong without the core's decisions: a 1,000-node
screen, a 300-level tree (captured, limited while taken, ``truncated``), a screen that never
goes idle (input still works within bounded waits), keyboard focus and clearing a pre-filled
field, another app in front, landscape and a scale change, an element below the fold and one
under the keyboard (scrolled into view, or refused NOT_VISIBLE — never tapped through), a system
alert window over the app, and a 2,000-character text. One host process per scene; the build is
shared (the first start builds)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.client import HubError, build_query, connect
from bridge.wire.action import ActionRequest
from bridge.wire.agent_link import (
    AgentHello,
    AgentHubHello,
    AgentToHub,
    CaptureCommand,
    Reply,
    TreePush,
)
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import ActionVerb
from tests.devices.ios_fakes.swift_host import swift_agent
from tests.hub.agent_hub import hub_on as shared_hub_on

AGENT_TOKEN = "swift-scene-token"
HUB_TOKEN = "hub-token-for-swift-scenes"
pytestmark = pytest.mark.anyio
LONG = "".join(" " if i and i % 50 == 0 else str(i % 10) for i in range(2000))


@asynccontextmanager
async def scene(name: str) -> AsyncIterator[tuple[Any, Any]]:
    """The hub linked to a Swift host agent serving scene ``name``, and a client's device."""
    with swift_agent(AGENT_TOKEN, 0, "--scene", name) as (_proc, url):
        async with shared_hub_on(
            url, agent_token=AGENT_TOKEN, hub_token=HUB_TOKEN, name=f"scene-{name}"
        ) as hub:
            (device_id,) = hub.service.devices
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name=f"scene-{name}"
            ) as client:
                yield hub, client.device(device_id)


async def _one(dev: Any, **query: Any) -> Any:
    found = await dev.find(build_query(**query))
    assert found.count >= 1, query
    return found.matches[0]


async def _present(dev: Any, text: str, timeout_ms: int = 5000) -> None:
    waited = await dev.wait(Present(query=build_query(text=text)), timeout_ms)
    assert waited.result.value == "CONDITION_MET", text


async def test_login_scene_is_the_default_login_screen() -> None:
    async with scene("login") as (_hub, dev):
        assert (await dev.wait(ScreenShown(name="login"))).result.value == "CONDITION_MET"


async def test_large_scene_serves_a_thousand_nodes() -> None:
    async with scene("large") as (_hub, dev):
        snap = (await dev.snapshot(compact=False)).snapshot
        assert len(snap.nodes) >= 1000
        assert (await dev.find(build_query(text="Row 200"))).count == 1


async def test_deep_scene_is_captured_limited_and_says_truncated() -> None:
    with swift_agent(AGENT_TOKEN, 0, "--scene", "deep") as (_proc, url):
        decoder = msgspec.json.Decoder(AgentToHub)
        async with ws_connect(
            url, additional_headers={"Authorization": f"Bearer {AGENT_TOKEN}"}
        ) as ws:
            await ws.send(msgspec.json.encode(AgentHubHello(protocol=1, hub="py")).decode())
            assert isinstance(decoder.decode(await ws.recv()), AgentHello)
            push = decoder.decode(await ws.recv())
            assert isinstance(push, TreePush)
            await ws.send(msgspec.json.encode(CaptureCommand(id=3)).decode())
            with anyio.fail_after(10):
                while not isinstance(reply := decoder.decode(await ws.recv()), Reply):
                    pass
            assert reply.ok and reply.tree is not None
            nodes = reply.tree.nodes
            assert 40 <= len(nodes) <= 60, len(nodes)  # limited while taken (50 levels)
            assert any("truncated" in n.traits for n in nodes)
        async with shared_hub_on(
            url, agent_token=AGENT_TOKEN, hub_token=HUB_TOKEN, name="deep"
        ) as hub:
            (device_id,) = hub.service.devices
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="deep"
            ) as client:
                snap = (await client.device(device_id).snapshot(compact=False)).snapshot
                assert snap.package_name == "dev.mobridge.demo" and len(snap.nodes) >= 40


async def test_busy_scene_takes_taps_and_typing_within_bounded_waits() -> None:
    async with scene("busy") as (_hub, dev):
        stop = await _one(dev, text="Stop")
        started = time.monotonic()
        result = await dev.act(ActionRequest(action=ActionVerb.CLICK, target=stop.ref))
        assert result.dispatch.status.value == "DISPATCHED"
        await _present(dev, "Stopped")
        note = await _one(dev, resource_id="note")
        result = await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=note.ref, value="hello")
        )
        assert result.dispatch.status.value == "DISPATCHED"
        assert time.monotonic() - started < 8.0  # never a `busy` after 8 s
        assert (await _one(dev, resource_id="note")).node.value == "hello"


async def test_prefilled_field_is_replaced_exactly_and_has_keyboard_focus() -> None:
    async with scene("prefilled") as (_hub, dev):
        email = await _one(dev, resource_id="email")
        assert email.node.value == "old@example.com"
        result = await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=email.ref, value="new@example.com")
        )
        assert result.dispatch.status.value == "DISPATCHED"
        after = (await _one(dev, resource_id="email")).node
        assert after.value == "new@example.com"
        assert after.state is not None and after.state.focused


async def test_other_app_in_front_is_reported_and_tapped() -> None:
    async with scene("other-app") as (_hub, dev):
        snap = (await dev.snapshot()).snapshot
        assert snap.package_name == "com.apple.Preferences"
        wifi = await _one(dev, text="Wi-Fi")
        await dev.act(ActionRequest(action=ActionVerb.CLICK, target=wifi.ref))
        await _present(dev, "Wi-Fi opened")


async def test_landscape_and_a_scale_change_keep_pixels_right() -> None:
    async with scene("landscape") as (_hub, dev):
        shown = await dev.display()
        assert (shown.width, shown.height) == (852 * 3, 393 * 3)
        button = await _one(dev, text="Change scale")
        assert tuple(button.node.bounds) == (63, 240, 963, 372)
        await dev.act(ActionRequest(action=ActionVerb.CLICK, target=button.ref))
        await _present(dev, "Scale 2")
        assert (await dev.display()).width == 852 * 2
        moved = (await _one(dev, text="Change scale")).node
        assert tuple(moved.bounds) == (42, 160, 642, 248)
        await dev.tap_at((42 + 642) // 2, (160 + 248) // 2)  # pixels at the new scale
        await _present(dev, "Scale 3")


async def test_below_the_fold_is_scrolled_and_under_the_keyboard_is_refused() -> None:
    async with scene("fold") as (_hub, dev):
        row = await _one(dev, text="Row 40")
        result = await dev.act(ActionRequest(action=ActionVerb.CLICK, target=row.ref))
        assert result.dispatch.status.value == "DISPATCHED"
        await _present(dev, "Tapped Row 40")
        submit = await _one(dev, text="Submit")
        with pytest.raises(HubError) as refused:
            await dev.act(ActionRequest(action=ActionVerb.CLICK, target=submit.ref))
        assert refused.value.code.value == "ACTION_REJECTED"
        assert "NOT_VISIBLE" in refused.value.envelope.message
        assert "keyboard" in refused.value.envelope.message
        assert refused.value.envelope.recovery
        name = (await _one(dev, resource_id="name")).node
        assert "x" not in (name.value or ""), "the keyboard was never tapped"
        await dev.press_key("ENTER")  # the recovery: hide the keyboard
        submit = await _one(dev, text="Submit")
        await dev.act(ActionRequest(action=ActionVerb.CLICK, target=submit.ref))
        await _present(dev, "Submitted")


async def test_system_dialog_window_is_captured_with_the_app() -> None:
    async with scene("system-dialog") as (_hub, dev):
        snap = (await dev.snapshot(compact=False)).snapshot
        shown = {n.label for n in snap.nodes} | {n.text for n in snap.nodes}
        assert "Allow “Demo” to use your location?" in shown
        assert "Location: not asked" in shown  # the app's window under it
        allow = await _one(dev, text="Allow")
        await dev.act(ActionRequest(action=ActionVerb.CLICK, target=allow.ref))
        await _present(dev, "Location: allowed")


async def test_long_text_is_typed_and_verified() -> None:
    async with scene("long-text") as (_hub, dev):
        long = (await _one(dev, resource_id="long")).node
        assert len(long.label or long.text or "") == 2000
        bio = await _one(dev, resource_id="bio")
        result = await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=bio.ref, value=LONG)
        )
        assert result.dispatch.status.value == "DISPATCHED"
        assert (await _one(dev, resource_id="bio")).node.value == LONG
