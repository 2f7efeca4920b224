"""The device tools through ``mobridge mcp`` (a real subprocess) with the MCP SDK's own client,
against a real hub with the simulated device: what an agent moving from mobile-mcp calls —
screen size, orientation, touches and swipes at coordinates, buttons and keys, typing into
the focused input, the app list, terminate / install / uninstall with the user's word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.shared.context import RequestContext

from bridge.mcp.device_schemas import PressButton
from bridge.wire.enums import GlobalAction, KeyName
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.mcp.mcpfixture import SECRET, McpClient, stdio_mcp, text_of

pytestmark = pytest.mark.anyio
FAST = {"animations": False}


async def ok(mcp: McpClient, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A successful call: its structured facts, or (action tools answer in text only) the
    facts read from its first line: ``status`` and ``verification``."""
    result = await mcp.call(tool, args)
    assert not result.isError, text_of(result)
    if result.structuredContent is not None:
        return result.structuredContent
    first = text_of(result).splitlines()[0]
    facts: dict[str, Any] = {"status": "DISPATCHED" if " · done" in first else first}
    if " · expect " in first:
        facts["verification"] = first.split(" · expect ", 1)[1].split(" ", 1)[0]
    return facts


def test_press_offers_every_global_action_and_every_key() -> None:
    assert {b.value for b in PressButton} == set(GlobalAction.__members__) | set(
        KeyName.__members__
    )


async def test_coordinates_orientation_keys_and_typing_like_mobile_mcp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_DEMO_PASSWORD", SECRET)
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="login", sim_options=FAST) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
        ):
            seen: list[str] = []
            shown = await ok(mcp, "orientation", {})
            assert (shown["width"], shown["height"], shown["orientation"]) == (
                1080,
                2400,
                "portrait",
            )
            found = await ok(
                mcp, "find", {"query": {"resourceId": "dev.mobridge.demo:id/username"}}
            )
            left, top, right, bottom = found["matches"][0]["bounds"]
            tapped = await mcp.call("touch", {"x": (left + right) // 2, "y": (top + bottom) // 2})
            assert not tapped.isError, text_of(tapped)
            assert text_of(tapped).startswith(
                f"tap at ({(left + right) // 2}, {(top + bottom) // 2})"
            )
            assert "GESTURE_FALLBACK" in text_of(tapped)
            typed = await mcp.call("type", {"text": "demo"})
            assert not typed.isError and " · done" in text_of(typed).splitlines()[0]
            await ok(mcp, "press", {"button": "DPAD_DOWN"})
            secret = await mcp.call("type", {"valueRef": "secret://demo_password", "submit": True})
            assert not secret.isError, text_of(secret)
            seen.append(secret.model_dump_json())
            home = await ok(mcp, "wait", {"condition": {"kind": "screen", "name": "home"}})
            assert home["met"] is True
            refused = await mcp.call("press", {"button": "MEDIA_PLAY_PAUSE"})
            assert refused.isError and text_of(refused).startswith("ACTION_UNSUPPORTED")
            off = await mcp.call("touch", {"x": 5000, "y": 10})
            assert off.isError and text_of(off).startswith("INVALID_ARGUMENTS: point (5000, 10)")
            assert "call orientation" in text_of(off)
            turned = await ok(mcp, "orientation", {"orientation": "landscape"})
            assert turned["verification"] == "CONDITION_MET"
            shown = await ok(mcp, "orientation", {})
            assert (shown["width"], shown["height"], shown["orientation"]) == (
                2400,
                1080,
                "landscape",
            )
            await ok(mcp, "orientation", {"orientation": "portrait"})
            activity = await mcp.call("activity", {"limit": 20})
            seen.append(activity.model_dump_json())
            lines = text_of(activity)
            assert "you: tap" in lines and "you: TYPE" in lines and "you: DPAD_DOWN" in lines
            assert SECRET not in "\n".join(seen) and "secret://demo_password" not in "\n".join(seen)


async def test_swipes_and_touch_kinds_reach_lists_and_the_game_board() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="list", sim_options=FAST) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
        ):
            swiped = await ok(
                mcp,
                "swipe",
                {
                    "direction": "up",
                    "expect": {"kind": "present", "query": "Item 11"},
                },
            )
            assert swiped["verification"] == "CONDITION_MET"
            both = await mcp.call(
                "swipe", {"direction": "up", "points": [{"x": 1, "y": 1}, {"x": 2, "y": 2}]}
            )
            assert both.isError and "INVALID_ARGUMENTS" in text_of(both)
            await ok(mcp, "app", {"action": "open_url", "url": "mobridge-demo://game"})
            await ok(mcp, "touch", {"x": 500, "y": 1500, "kind": "double_tap"})
            board = await ok(
                mcp, "find", {"query": {"text": {"value": "Double-tapped at (500, 1500)"}}}
            )
            assert board["count"] == 1
            await ok(mcp, "touch", {"x": 400, "y": 1600, "kind": "long_press", "durationMs": 900})
            board = await ok(
                mcp,
                "find",
                {"query": {"text": {"value": "Long-pressed at (400, 1600) for 900 ms"}}},
            )
            assert board["count"] == 1
            path = [{"x": 100, "y": 2000}, {"x": 500, "y": 1500}, {"x": 900, "y": 1000}]
            await ok(mcp, "swipe", {"points": path, "durationMs": 500})
            board = await ok(
                mcp,
                "find",
                {"query": {"text": {"value": "Swiped from (100, 2000) to (900, 1000)"}}},
            )
            assert board["count"] == 1


async def test_apps_terminate_install_and_uninstall_need_the_users_word(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text(
        json.dumps({"appId": "com.example.notes", "name": "Notes"})
    )
    with anyio.fail_after(120):
        async with (
            running_hub(sim_options=FAST, install_dir=tmp_path) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
            stdio_mcp(hub.url, OBSERVER, name="watcher") as watcher,
        ):
            # an observer may read the app list
            listed = await ok(watcher, "app", {"action": "list"})
            assert {a["appId"] for a in listed["apps"]} == {
                "dev.mobridge.demo",
                "dev.mobridge.launcher",
            }
            assert listed["foreground"] == "dev.mobridge.demo"
            for args in (
                {"action": "install", "package": "notes.json"},
                {"action": "terminate", "appId": "dev.mobridge.demo"},
            ):
                refused = await mcp.call("app", args)
                text = text_of(refused)
                assert refused.isError and text.startswith("USER_CONFIRMATION_REQUIRED"), text
                objection = next(w for w in text.split() if w.startswith("obj_"))
                done = await mcp.call("confirm", {"objection": objection, "answer": "approve"})
                assert not done.isError, text_of(done)
                assert "expect CONDITION_MET" in text_of(done).splitlines()[0]
            listed = await ok(mcp, "app", {"action": "list"})
            assert "com.example.notes" in {a["appId"] for a in listed["apps"]}
            assert listed["foreground"] == "dev.mobridge.launcher"
            blocked = await mcp.call(
                "app", {"action": "terminate", "appId": "dev.mobridge.launcher"}
            )
            assert blocked.isError and "critical-app list" in text_of(blocked)
            missing = await mcp.call("app", {"action": "uninstall"})
            assert missing.isError and "needs appId" in text_of(missing)
            forbidden = await watcher.call(  # an observer's refusal is a tool result too
                "app", {"action": "uninstall", "appId": "com.example.notes"}
            )
            assert forbidden.isError and text_of(forbidden).startswith("FORBIDDEN")


async def test_a_client_with_elicitation_is_asked_before_an_uninstall(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text(
        json.dumps({"appId": "com.example.notes", "name": "Notes"})
    )
    asked: list[str] = []

    async def user(
        context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    with anyio.fail_after(120):
        async with (
            running_hub(sim_options=FAST, install_dir=tmp_path) as hub,
            stdio_mcp(hub.url, CONTROLLER, elicitation=user) as mcp,
        ):
            installed = await ok(mcp, "app", {"action": "install", "package": "notes.json"})
            assert installed["status"] == "DISPATCHED"
            gone = await ok(mcp, "app", {"action": "uninstall", "appId": "com.example.notes"})
            assert gone["verification"] == "CONDITION_MET"
            assert len(asked) == 2 and "app" in asked[1] and "uninstall" in asked[1]
