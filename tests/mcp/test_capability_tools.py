"""The capability tools of issue 21 through ``mobridge mcp`` (a real subprocess) with the MCP
SDK's own client, against a real hub whose simulated device starts on the camera screen: the
permission dialog answered with ``alert``, ``permission`` with the user's word, ``location``,
``pinch`` by target, ``clipboard`` (a secret never reaches the model) and ``hide_keyboard``."""

from __future__ import annotations

import anyio
import pytest

from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.mcp.mcpfixture import SECRET, stdio_mcp, text_of
from tests.mcp.test_device_tools import FAST, ok

pytestmark = pytest.mark.anyio


async def test_alert_permission_location_pinch_clipboard_keyboard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_DEMO_PASSWORD", SECRET)
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="camera", sim_options=FAST) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
            stdio_mcp(hub.url, OBSERVER, name="watcher") as watcher,
        ):
            listed = await ok(watcher, "alert", {})
            assert listed["alerts"][0]["buttons"] == ["Don't allow", "Allow"]
            accepted = await mcp.call("alert", {"action": "accept"})
            assert not accepted.isError, text_of(accepted)
            assert "Camera: granted" in text_of(accepted)
            assert (await ok(mcp, "alert", {}))["alerts"] == []
            wrong = await mcp.call("alert", {"action": "press"})
            assert wrong.isError and "press needs button" in text_of(wrong)
            revoked = await mcp.call(
                "permission", {"action": "revoke", "appId": "dev.mobridge.demo",
                               "permission": "camera"}
            )  # fmt: skip
            assert "Camera: denied" in text_of(revoked)
            asked = await mcp.call(
                "permission", {"action": "grant", "appId": "dev.mobridge.demo",
                               "permission": "camera"}
            )  # fmt: skip
            text = text_of(asked)
            assert asked.isError and text.startswith("USER_CONFIRMATION_REQUIRED"), text
            objection = next(w for w in text.split() if w.startswith("obj_"))
            done = await mcp.call("confirm", {"objection": objection, "answer": "approve"})
            assert not done.isError and "Camera: granted" in text_of(done), text_of(done)
            unknown = await mcp.call(
                "permission", {"action": "grant", "appId": "dev.mobridge.demo",
                               "permission": "teleport"}
            )  # fmt: skip
            assert unknown.isError and "INVALID_ARGUMENTS" in text_of(unknown)
            placed = await mcp.call("location", {"latitude": 35.6762, "longitude": 139.6503})
            assert "Location: 35.67620, 139.65030" in text_of(placed)
            far = await mcp.call("location", {"latitude": 200, "longitude": 0})
            assert far.isError and "INVALID_ARGUMENTS" in text_of(far)
            assert "Location: not set" in text_of(await mcp.call("location", {"clear": True}))
            pinched = await mcp.call("pinch", {"target": {"resourceId": "photo"}, "scale": 3})
            assert "Photo zoom 3.00x" in text_of(pinched), text_of(pinched)
            tapped = await mcp.call("pinch", {"target": {"x": 540, "y": 700},
                                              "kind": "two_finger_tap"})  # fmt: skip
            assert "Two-finger tap at (540, 700)" in text_of(tapped)
            zero = await mcp.call("pinch", {"target": "Photo zoom 3.00x", "scale": 0})
            assert zero.isError and "INVALID_ARGUMENTS" in text_of(zero)
            await ok(mcp, "clipboard", {"text": "copied"})
            assert (await ok(watcher, "clipboard", {}))["text"] == "copied"
            secret = await mcp.call("clipboard", {"valueRef": "secret://demo_password"})
            assert not secret.isError and SECRET not in text_of(secret)
            assert SECRET not in text_of(await mcp.call("clipboard", {}))
            await mcp.call("act", {"target": "Caption"})
            hidden = await mcp.call("hide_keyboard", {})
            assert not hidden.isError, text_of(hidden)
