"""Device actions over real sockets against the simulated device: gestures at points, keys,
typing into the focused input, orientation, and reads of the screen size and the app list.

Each action is checked for its result, its refusals, its caps, the observer's FORBIDDEN, the
lease, and the ``action`` event every watcher receives with who did it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from bridge.client import (
    ActionUnsupported,
    ConfirmationRequired,
    EventStream,
    HubConnection,
    PolicyBlockedError,
    ProtocolFailure,
    build_query,
    connect,
)
from bridge.hub.app import AgentTarget
from bridge.wire.action import Verify
from bridge.wire.client_protocol import ActionEvent, Confirm
from bridge.wire.codec import encode
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.device_control import Gesture, ScreenPoint
from bridge.wire.enums import (
    ActionMethod,
    DispatchStatus,
    ErrorCode,
    FallbackType,
    GestureKind,
    MutationClass,
    Orientation,
    ProtocolErrorCode,
    VerificationPolicy,
    VerificationResult,
)
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, OBSERVER, RunningHub, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted, serve_scripted_gestures

pytestmark = pytest.mark.anyio

FAST = {"animations": False}


@asynccontextmanager
async def watched(
    rh: RunningHub,
) -> AsyncIterator[tuple[HubConnection, HubConnection, EventStream]]:
    """A controller ("agent-a") and an observer ("watcher") subscribed to the device."""
    async with (
        connect(rh.url, token=CONTROLLER, name="agent-a") as actor,
        connect(rh.url, token=OBSERVER, name="watcher") as observer,
    ):
        async with observer.device(rh.device_id).watch(), observer.events() as events:
            yield actor, observer, events


async def next_action(events: EventStream) -> ActionEvent:
    with anyio.fail_after(5):
        async for event in events:
            if isinstance(event, ActionEvent):
                return event
    raise AssertionError("event stream ended")


async def centre_of(hub: HubConnection, device: str, text: str) -> tuple[int, int]:
    found = await hub.device(device).find(build_query(text=text))
    assert found.count == 1, text
    bounds = found.matches[0].node.bounds
    assert bounds is not None
    return (bounds[0] + bounds[2]) // 2, (bounds[1] + bounds[3]) // 2


async def test_a_tap_at_a_point_hits_the_view_there_and_is_reported_without_a_target() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        x, y = await centre_of(actor, rh.device_id, "Login")
        result = await dev.tap_at(x, y)
        assert result.dispatch.status is DispatchStatus.DISPATCHED
        assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
        assert result.dispatch.fallback_type is FallbackType.GESTURE
        assert result.target is None  # no semantic target: the hub does not vouch for one
        assert result.mutation_class is MutationClass.SIDE_EFFECT
        assert result.observation.screen_changed
        assert (await dev.wait(ScreenShown(name="login"), 2000)).result.value == "CONDITION_MET"
        event = await next_action(events)
        assert (event.verb, event.action, event.client) == ("gesture", "tap", "agent-a")
        assert event.target is None and event.error is None and event.result == result
        assert event.message == f"tap at ({x}, {y})"


async def test_double_tap_long_press_and_swipe_reach_the_game_board() -> None:
    async with running_hub(sim_scene="game", sim_options=FAST) as rh, watched(rh) as (a, _, ev):
        dev = a.device(rh.device_id)
        shown = await dev.double_tap_at(500, 1500)
        assert shown.observation.screen_changed
        assert (await dev.find(build_query(text="Double-tapped at (500, 1500)"))).count == 1
        assert (await next_action(ev)).action == "double_tap"
        await dev.long_press_at(300, 1700, 1200)
        assert (await dev.find(build_query(text="Long-pressed at (300, 1700) for 1200 ms"))).count
        event = await next_action(ev)
        assert (
            event.action == "long_press"
            and event.message == "long_press at (300, 1700) for 1200 ms"
        )
        await dev.swipe_on_screen([(200, 2000), (600, 1600), (900, 1200)])
        assert (await dev.find(build_query(text="Swiped from (200, 2000) to (900, 1200)"))).count
        assert (await next_action(ev)).message == "swipe at (200, 2000) to (900, 1200) for 300 ms"


async def test_a_swipe_scrolls_the_list_under_it_and_verifies_a_condition() -> None:
    async with running_hub(sim_scene="list", sim_options=FAST) as rh:
        async with connect(rh.url, token=CONTROLLER, name="a") as hub:
            dev = hub.device(rh.device_id)
            x, y = await centre_of(hub, rh.device_id, "Item 5")
            wanted = Present(query=build_query(text="Item 11"))
            result = await dev.gesture(
                GestureKind.SWIPE,
                [(x, y + 400), (x, y - 400)],
                verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=wanted),
            )
            assert result.verification is not None
            assert result.verification.result is VerificationResult.CONDITION_MET
            assert (await dev.find(build_query(text="Item 1"))).count == 0


async def test_gesture_caps_and_shapes_are_refused_before_anything_is_dispatched() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, _events):
        dev = actor.device(rh.device_id)
        before = (await dev.snapshot()).snapshot.snapshot_id
        with pytest.raises(ProtocolFailure, match=r"off the screen \(0, 0\)-\(1080, 2400\)"):
            await dev.tap_at(1080, 10)
        with pytest.raises(ProtocolFailure, match="exactly one point"):
            await dev.gesture(GestureKind.TAP, [(1, 1), (2, 2)])
        with pytest.raises(ProtocolFailure, match="2 to 64 points"):
            await dev.swipe_on_screen([(1, 1)])
        with pytest.raises(ProtocolFailure, match="long_press and swipe only"):
            await dev.gesture(GestureKind.TAP, [(1, 1)], duration_ms=5)
        with pytest.raises(ProtocolFailure) as too_long:
            await dev.long_press_at(10, 10, 10_001)
        assert too_long.value.code is ProtocolErrorCode.INVALID_PARAMS
        with pytest.raises(ProtocolFailure) as too_many:
            await dev.swipe_on_screen([(i, i) for i in range(65)])
        assert too_many.value.code is ProtocolErrorCode.INVALID_PARAMS
        with pytest.raises(ProtocolFailure, match="target"):
            await dev.gesture(
                GestureKind.TAP, [(5, 5)], verify=Verify(policy=VerificationPolicy.NODE_APPEARED)
            )
        with pytest.raises(ProtocolFailure) as negative:  # the decoder refuses it
            negative_point = ScreenPoint(x=-1, y=5)  # constructing does not validate; decoding does
            await actor.call(
                Gesture(
                    id=actor.next_id(),
                    device=rh.device_id,
                    kind=GestureKind.TAP,
                    points=(negative_point,),
                ),
                object,
            )
        assert negative.value.code is ProtocolErrorCode.INVALID_PARAMS
        assert (await dev.snapshot()).snapshot.snapshot_id == before  # nothing happened


async def test_a_tap_on_a_destructive_button_needs_the_same_confirmation_as_a_click() -> None:
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted_gestures)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER, name="p") as hub,
        ):
            dev = hub.device(rh.device_id)
            x, y = await centre_of(hub, rh.device_id, "Delete account")
            with pytest.raises(ConfirmationRequired) as raised:
                await dev.tap_at(x, y)
            objection = raised.value.objection
            assert objection is not None and objection.answerable
            assert (await dev.find(build_query(text="Delete account"))).count == 1
            approved = Confirm(objection=objection.id, answer="approve")
            result = await dev.tap_at(x, y, confirm=approved)
            assert result.mutation_class is MutationClass.DESTRUCTIVE
            assert (await dev.find(build_query(text="Delete account"))).count == 0
            # a tap on the plain "Refresh" button needs nothing
            x, y = await centre_of(hub, rh.device_id, "Refresh")
            assert (await dev.tap_at(x, y)).mutation_class is MutationClass.SIDE_EFFECT
        tg.cancel_scope.cancel()


async def test_an_agent_without_the_capability_is_refused_with_a_clear_message() -> None:
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted)
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER, name="p") as hub,
            connect(rh.url, token=OBSERVER, name="w") as watcher,
        ):
            dev = hub.device(rh.device_id)
            async with watcher.device(rh.device_id).watch(), watcher.events() as events:
                for call, what in (
                    (dev.tap_at(10, 10), "gesture"),
                    (dev.press_key("ENTER"), "key"),
                    (dev.type_focused("x"), "text"),
                    (dev.set_orientation("landscape"), "orientation"),
                    (dev.terminate_app("com.example.bank"), "terminate"),
                    (dev.clear_app("com.example.bank"), "clear"),
                    (dev.uninstall_app("com.example.bank"), "uninstall"),
                ):
                    with pytest.raises(ActionUnsupported, match=f"does not offer {what}"):
                        await call
                    event = await next_action(events)
                    assert event.error is ErrorCode.ACTION_UNSUPPORTED
                    assert event.client == "p"
            with pytest.raises(ActionUnsupported, match="does not offer apps"):
                await dev.apps()
        tg.cancel_scope.cancel()


async def test_observers_cannot_act_but_may_read_the_display_and_the_apps() -> None:
    async with running_hub(sim_options=FAST) as rh:
        async with connect(rh.url, token=OBSERVER, name="obs") as hub:
            dev = hub.device(rh.device_id)
            for call in (
                dev.tap_at(5, 5),
                dev.press_key("ENTER"),
                dev.type_focused("x"),
                dev.set_orientation("landscape"),
                dev.terminate_app("dev.mobridge.demo"),
                dev.install_app("x.json"),
                dev.uninstall_app("com.example.notes"),
            ):
                with pytest.raises(ProtocolFailure) as forbidden:
                    await call
                assert forbidden.value.code is ProtocolErrorCode.FORBIDDEN
            shown = await dev.display()
            assert (shown.width, shown.height, shown.orientation) == (
                1080,
                2400,
                Orientation.PORTRAIT,
            )
            listed = await dev.apps()
            assert {a.app_id for a in listed.apps} == {"dev.mobridge.demo", "dev.mobridge.launcher"}
            assert listed.foreground == "dev.mobridge.demo"


async def test_another_sessions_lease_blocks_device_actions_and_the_refusal_is_broadcast() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        async with connect(rh.url, token=CONTROLLER_2, name="holder") as holder:
            await holder.device(rh.device_id).acquire_lease()
            dev = actor.device(rh.device_id)
            with pytest.raises(PolicyBlockedError, match="holder"):
                await dev.press_key("TAB")
            event = await next_action(events)
            while event.verb != "key":
                event = await next_action(events)
            assert event.error is ErrorCode.POLICY_BLOCKED and event.client == "agent-a"
            await holder.device(rh.device_id).release_lease()
            assert (await dev.press_key("TAB")).dispatch.status is DispatchStatus.DISPATCHED


async def test_keys_and_typing_into_the_focused_field_sign_in_with_a_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "s3cret-hunter-42"
    monkeypatch.setenv("MOBRIDGE_SECRET_DEMO_PW", secret)
    async with running_hub(sim_scene="login", sim_options=FAST) as rh, watched(rh) as (a, _, ev):
        dev = a.device(rh.device_id)
        x, y = await centre_of(a, rh.device_id, "Username")
        await dev.tap_at(x, y)
        typed = await dev.type_focused("demo")
        assert typed.mutation_class is MutationClass.REVERSIBLE
        assert typed.target is None and typed.observation.screen_changed
        username = (await dev.find(build_query(text="demo"))).matches[0].node
        assert username.resource_id is not None and username.resource_id.endswith("username")
        await dev.press_key("DPAD_DOWN")  # focus moves to the password field
        result = await dev.type_focused(value_ref="secret://demo_pw", submit=True)
        assert result.mutation_class is MutationClass.SIDE_EFFECT  # ENTER on a field
        assert (await dev.wait(ScreenShown(name="home"), 3000)).result.value == "CONDITION_MET"
        seen: list[bytes] = [encode(result)]
        for _ in range(4):
            event = await next_action(ev)
            seen.append(encode(event))
        assert [json.loads(e).get("verb") for e in seen[1:]] == ["gesture", "type", "key", "type"]
        history = await dev.history()
        seen.append(encode(history))
        assert all(secret.encode() not in blob for blob in seen)
        messages = [json.loads(blob).get("message") or "" for blob in seen[1:]]
        assert not any("demo" in m for m in messages)  # a typed value is never echoed
        assert json.loads(seen[-2])["message"] == "typed into the focused input, then ENTER"


async def test_a_key_the_device_cannot_press_is_refused_action_unsupported() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        with pytest.raises(ActionUnsupported, match="MEDIA_PLAY_PAUSE"):
            await dev.press_key("MEDIA_PLAY_PAUSE")
        event = await next_action(events)
        assert (event.verb, event.action, event.error) == (
            "key",
            "MEDIA_PLAY_PAUSE",
            ErrorCode.ACTION_UNSUPPORTED,
        )
        volume = await dev.press_key("VOLUME_UP")
        assert volume.dispatch.status is DispatchStatus.DISPATCHED
        assert not volume.observation.screen_changed


async def test_orientation_turns_the_screen_and_points_follow_it() -> None:
    async with running_hub(sim_options=FAST) as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        with pytest.raises(ProtocolFailure, match="off the screen"):
            await dev.tap_at(2000, 500)
        result = await dev.set_orientation(Orientation.LANDSCAPE)
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        assert result.verification.evidence[0].observed == "landscape"
        event = await next_action(events)
        assert (event.verb, event.action) == ("orientation", "landscape")
        shown = await dev.display()
        assert (shown.width, shown.height, shown.orientation) == (2400, 1080, Orientation.LANDSCAPE)
        snap = (await dev.snapshot()).snapshot
        assert snap.orientation is Orientation.LANDSCAPE
        assert (await dev.tap_at(2000, 500)).dispatch.status is DispatchStatus.DISPATCHED
        await dev.set_orientation("portrait")
        assert (await dev.display()).height == 2400


async def test_a_secret_typed_into_an_ordinary_field_is_masked_in_every_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "typed-secret-9876"
    monkeypatch.setenv("MOBRIDGE_SECRET_TOKEN_X", secret)
    async with running_hub(sim_scene="login", sim_options=FAST) as rh, watched(rh) as (a, o, _):
        dev = a.device(rh.device_id)
        x, y = await centre_of(a, rh.device_id, "Username")
        await dev.tap_at(x, y)
        async with o.device(rh.device_id).watch(compact=False) as watch:
            first = await watch.__anext__()
            result = await dev.type_focused(value_ref="secret://token_x")
            assert result.observation.screen_changed
            update = await watch.__anext__()
        for snap in (first.snapshot, update.snapshot, (await dev.snapshot(False)).snapshot):
            assert secret.encode() not in encode(snap)
        username = next(
            n
            for n in update.snapshot.nodes
            if n.resource_id is not None and n.resource_id.endswith("username")
        )
        assert username.text == "••••••••" or username.value == "••••••••", username
        assert secret.encode() not in encode(result)
        with pytest.raises(ProtocolFailure, match="not configured"):
            await dev.type_focused(value_ref="secret://absent")
