"""The device capabilities of issue 21 over real sockets against the simulated device: system
alerts (the permission dialog and the demo dialog), permissions (a grant needs the user's
word), location, pinch and two-finger tap, the clipboard (a secret never shows) and hiding
the keyboard — each one broadcast to observers as an ``action`` event."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from bridge.client import ActionUnsupported, HubError, ProtocolFailure
from bridge.client.device import build_query
from bridge.core.secret_mask import MASK
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import ErrorCode, MutationClass
from tests.hub.hubfixture import running_hub
from tests.hub.test_app_lifecycle import confirmed
from tests.hub.test_device_actions import FAST, next_action, watched

pytestmark = pytest.mark.anyio

DEMO = "dev.mobridge.demo"


async def _texts(dev: object) -> list[str]:
    snap = (await dev.snapshot(compact=False)).snapshot  # type: ignore[attr-defined]
    return [n.text for n in snap.nodes if n.text]


async def _open_camera(dev: object) -> None:
    await dev.app("APP_DEEP_LINK", None, "mobridge-demo://camera")  # type: ignore[attr-defined]
    met = await dev.wait(ScreenShown(name="camera"), 3000)  # type: ignore[attr-defined]
    assert met.result.value == "CONDITION_MET"


async def test_alert_accept_on_the_permission_dialog_grants_the_camera() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, observer, events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        await next_action(events)
        listed = await observer.device(rh.device_id).alerts()  # a read: observers may
        assert [a.buttons for a in listed.alerts] == [("Don't allow", "Allow")]
        assert listed.alerts[0].system and "take pictures" in listed.alerts[0].title
        assert "Camera: not asked" in await _texts(dev)
        result = await dev.answer_alert("accept")
        assert result.observation.window_changed
        # the dialog was in the tree: the hub waited until it was gone, and says so
        assert result.verification is not None
        assert result.verification.result.value == "CONDITION_MET"
        assert [(e.what, e.observed) for e in result.verification.evidence] == [("alert", "gone")]
        done = await next_action(events)
        assert (done.verb, done.action, done.message) == ("alert", "ACCEPT", "alert accept")
        assert (await dev.alerts()).alerts == ()
        assert "Camera: granted" in await _texts(dev)
        with pytest.raises(HubError, match="no alert is on screen"):
            await dev.answer_alert("dismiss")


async def test_dismiss_denies_and_a_named_button_is_pressed() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        with pytest.raises(HubError, match="no button 'Maybe'; its buttons: Don't allow, Allow"):
            await dev.answer_alert(button="Maybe")
        await dev.answer_alert("dismiss")
        assert "Camera: denied" in await _texts(dev)
        await dev.app("APP_DEEP_LINK", None, "mobridge-demo://dialog")
        assert (await dev.alerts()).alerts[0].title == "Discard draft?"
        await dev.answer_alert(button="ok")
        assert (await dev.wait(ScreenShown(name="menu"), 3000)).result.value == "CONDITION_MET"
        del events


async def test_permissions_grant_needs_the_users_word_revoke_and_reset_do_not() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        await next_action(events)
        result = await confirmed(
            lambda: dev.permission("grant", DEMO, "camera"),
            lambda c: dev.permission("grant", DEMO, "camera", confirm=c),
        )
        assert result.mutation_class is MutationClass.EXTERNAL_SIDE_EFFECT
        refused = await next_action(events)
        assert refused.error is ErrorCode.USER_CONFIRMATION_REQUIRED
        done = await next_action(events)
        assert done.message == f"permission grant camera {DEMO}"
        texts = await _texts(dev)
        assert "Camera: granted" in texts and not (await dev.alerts()).alerts
        await dev.permission("revoke", DEMO, "camera")
        assert "Camera: denied" in await _texts(dev)
        await dev.permission("reset", DEMO, "camera")
        assert "Camera: not asked" in await _texts(dev)
        with pytest.raises(ValueError, match="'teleport' is not a valid Permission"):
            await dev.permission("grant", DEMO, "teleport")  # type: ignore[arg-type]


async def test_an_action_with_nothing_to_verify_reports_a_screen_captured_after_it() -> None:
    """A device whose agent pushes late (1.5 s of quiet before each push, as a loaded machine
    makes any agent look): a revoke settles on quiet before the push comes, and the hub then
    asks the agent for a capture, so the result says what the screen shows after it."""
    slow = {**FAST, "quiet_ms": 1500.0, "cap_ms": 3000.0}
    async with running_hub(sim_options=slow) as rh, watched(rh) as (actor, _, _events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        await dev.permission("reset", DEMO, "camera")
        assert "Camera: not asked" in await _texts(dev)
        revoked = await dev.permission("revoke", DEMO, "camera")
        assert revoked.observation.screen_changed, revoked.observation
        assert revoked.observation.after_snapshot_id != revoked.observation.before_snapshot_id
        assert "Camera: denied" in await _texts(dev)  # the newest capture, no wait


async def test_location_is_shown_and_out_of_range_is_refused_before_the_device() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        await dev.answer_alert("accept")
        await dev.set_location(48.8566, 2.3522)
        assert "Location: 48.85660, 2.35220" in await _texts(dev)
        await dev.clear_location()
        assert "Location: not set" in await _texts(dev)
        with pytest.raises((ProtocolFailure, msgspec.ValidationError)):
            await dev.set_location(200.0, 0.0)
        del events


async def test_pinch_on_the_photo_zooms_and_two_finger_tap_is_recorded() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await _open_camera(dev)
        await dev.answer_alert("accept")
        await next_action(events)
        await next_action(events)
        photo = build_query(resource_id="photo")
        result = await dev.pinch(2.0, query=photo)
        assert result.mutation_class is MutationClass.REVERSIBLE
        done = await next_action(events)
        assert (done.verb, done.action) == ("gesture", "pinch")
        texts = await _texts(dev)
        assert "Photo zoom 2.00x" in texts
        assert any(t.startswith("Pinched x2 at") for t in texts)
        await dev.two_finger_tap(at=(540, 700))
        assert "Two-finger tap at (540, 700)" in await _texts(dev)
        with pytest.raises((ProtocolFailure, msgspec.ValidationError)):
            await dev.pinch(0.0, query=photo)
        with pytest.raises(HubError, match="no element matches"):
            await dev.pinch(2.0, query=build_query(text="Nowhere"))


async def test_clipboard_round_trip_and_a_secret_never_shows(tmp_path: Path) -> None:
    table = tmp_path / "secrets.json"
    table.write_text(json.dumps({"pin": "s3cr3t-pin-42"}), encoding="utf-8")
    async with (
        running_hub(sim_options=FAST, secrets_file=table) as rh,
        watched(rh) as (actor, observer, events),
    ):
        dev = actor.device(rh.device_id)
        await dev.set_clipboard("hello there")
        done = await next_action(events)
        assert done.message == "clipboard set (11 characters)"
        assert await observer.device(rh.device_id).clipboard() == "hello there"
        await dev.set_clipboard(value_ref="secret://pin")
        done = await next_action(events)
        assert done.message == "clipboard set (a secret)"
        assert "s3cr3t" not in msgspec.json.encode(done).decode()
        assert await dev.clipboard() == MASK
        history = msgspec.json.encode(await dev.history()).decode()
        assert "s3cr3t" not in history and "hello there" not in history


async def test_hide_keyboard_drops_the_focus_and_keeps_the_text() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        await dev.app("APP_DEEP_LINK", None, "mobridge-demo://login")
        assert (await dev.wait(ScreenShown(name="login"), 3000)).result.value == "CONDITION_MET"
        await dev.tap(build_query(text="Username"))
        await dev.type_focused("demo")
        snap = (await dev.snapshot(compact=False)).snapshot
        assert any(n.effective_state.focused for n in snap.nodes)
        await dev.hide_keyboard()
        snap = (await dev.snapshot(compact=False)).snapshot
        assert not any(n.effective_state.focused for n in snap.nodes)
        assert "demo" in [n.value for n in snap.nodes]
        del events


async def test_a_device_without_the_capability_is_refused_with_what_to_do() -> None:
    from bridge.hub.capability_actions import IOS_NO_PERMISSIONS

    assert "alert" in IOS_NO_PERMISSIONS
    async with running_hub(sim_options=FAST) as rh:
        device = rh.hub.service.devices[rh.device_id]
        device.capabilities = tuple(c for c in device.capabilities if c != "location")
        async with watched(rh) as (actor, _, events):
            with pytest.raises(ActionUnsupported, match="does not offer location"):
                await actor.device(rh.device_id).set_location(1.0, 2.0)
            del events


async def test_a_lease_that_auto_accepts_answers_every_alert_and_says_so() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, observer, events):
        dev = actor.device(rh.device_id)
        async with dev.lease(alerts="accept") as held:
            assert held.lease is not None and held.lease.alerts is not None
            await dev.app("APP_DEEP_LINK", None, "mobridge-demo://camera")
            assert (await next_action(events)).action == "APP_DEEP_LINK"
            auto = await next_action(events)
            assert (auto.verb, auto.action, auto.client) == ("alert", "AUTO_ACCEPT", "agent-a")
            assert auto.message is not None and "take pictures" in auto.message
            granted = Present(query=build_query(text="Camera: granted"))
            assert (await dev.wait(granted, 3000)).result.value == "CONDITION_MET"
        listed = await observer.devices()
        assert all(d.lease is None for d in listed)
        await dev.permission("reset", DEMO, "camera")
        await dev.app("APP_DEEP_LINK", None, "mobridge-demo://camera")
        await dev.wait(ScreenShown(name="camera"), 3000)
        assert (await dev.alerts()).alerts  # the option ended with the lease
