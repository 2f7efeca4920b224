"""Issue 21's capabilities across languages: the Java host agent (scripts/run-android-agent-host)
<- the hub <- the Python client. On the permission-controller scene the alert is listed and
accepted (the screen changes); on the keyboard scene the keyboard is hidden; a permission
grant, a location and a pinch reach the agent."""

from __future__ import annotations

import pytest

from bridge.client import ConfirmationRequired, build_query, connect
from bridge.wire.conditions import Absent, Present
from bridge.wire.enums import DispatchStatus
from bridge.wire.request_parts import Confirm
from tests.e2e.test_java_agent import HUB_TOKEN, hub_on, java_agent, pytestmark  # noqa: F401


async def test_alert_accept_on_the_permission_dialog_of_the_java_agent() -> None:
    with java_agent(scene="system-dialog") as (_proc, url):
        async with hub_on(url) as hub:
            device_id = next(iter(hub.service.devices))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="java-e2e"
            ) as client:
                dev = client.device(device_id)
                listed = await dev.alerts()
                assert [a.buttons for a in listed.alerts] == [("Allow", "Don't allow")]
                assert listed.alerts[0].system
                result = await dev.answer_alert("accept")
                # settled once the dialog left the tree, however late the agent pushed it
                assert result.verification is not None
                assert result.verification.result.value == "CONDITION_MET", result
                assert result.observation.window_changed
                allowed = Present(query=build_query(text="Location allowed"))
                assert (await dev.wait(allowed, 5000)).result.value == "CONDITION_MET"
                assert (await dev.alerts()).alerts == ()


async def test_keyboard_permission_location_and_pinch_through_the_java_agent() -> None:
    with java_agent(scene="fold") as (_proc, url):
        async with hub_on(url) as hub:
            device_id = next(iter(hub.service.devices))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="java-e2e"
            ) as client:
                dev = client.device(device_id)
                keyboard = build_query(label="Keyboard")
                shown = await dev.wait(Present(query=keyboard), 5000)
                assert shown.result.value == "CONDITION_MET"
                await dev.hide_keyboard()
                gone = await dev.wait(Absent(query=keyboard), 5000)
                assert gone.result.value == "CONDITION_MET"
                # a grant asks for the user's word first: refused until it is given
                with pytest.raises(ConfirmationRequired) as asked:
                    await dev.permission("grant", "dev.mobridge.demo", "camera")
                objection = asked.value.objection
                assert objection is not None
                confirm = Confirm(objection=objection.id, answer="approve")
                granted = await dev.permission(
                    "grant", "dev.mobridge.demo", "camera", confirm=confirm
                )
                assert granted.dispatch.status is DispatchStatus.DISPATCHED, granted
                placed = await dev.set_location(48.8566, 2.3522)
                assert placed.dispatch.status is DispatchStatus.DISPATCHED, placed
                cleared = await dev.clear_location()
                assert cleared.dispatch.status is DispatchStatus.DISPATCHED, cleared
                pinched = await dev.pinch(1.5, at=(540, 1200))
                assert pinched.dispatch.status is DispatchStatus.DISPATCHED, pinched
