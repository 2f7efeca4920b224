"""Issue 21 across languages on iOS: the Swift agent in host mode (scripts/run-ios-agent-host)
<- a real hub <- the Python client. SpringBoard's alert over the app (``system-dialog``) is listed
as a system alert and accepted (the screen changes); on ``fold`` the keyboard is hidden by its
return key; a permission change is refused naming the alert route."""

from __future__ import annotations

import pytest

from bridge.client import ActionUnsupported, build_query
from bridge.wire.conditions import Absent, Present
from tests.devices.test_ios_swift_pathologies import scene

pytestmark = pytest.mark.anyio


async def test_the_springboard_alert_is_listed_accepted_and_permissions_refused() -> None:
    async with scene("system-dialog") as (_hub, dev):
        listed = await dev.alerts()
        assert [a.buttons for a in listed.alerts] == [("Allow", "Don\u2019t Allow")]
        assert listed.alerts[0].system
        result = await dev.answer_alert("accept")
        assert result.observation.screen_changed
        allowed = await dev.wait(Present(query=build_query(text="Location allowed")), 5000)
        assert allowed.result.value == "CONDITION_MET"
        assert (await dev.alerts()).alerts == ()
        with pytest.raises(ActionUnsupported, match="answer the app's permission alert"):
            await dev.permission("revoke", "dev.mobridge.demo", "camera")


async def test_the_keyboard_is_hidden_by_its_return_key() -> None:
    async with scene("fold") as (_hub, dev):
        keyboard = build_query(label="return")
        assert (await dev.wait(Present(query=keyboard), 5000)).result.value == "CONDITION_MET"
        await dev.hide_keyboard()
        gone = await dev.wait(Absent(query=keyboard), 5000)
        assert gone.result.value == "CONDITION_MET"
