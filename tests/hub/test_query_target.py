"""``act`` with a semantic query as its target: resolved by the hub, refusals announced.

Real hub, real simulated device, real sockets on 127.0.0.1. An observer watches the device
while a controller acts, and must see every attempt — successes and refusals — with who asked.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from structlog.testing import capture_logs

from bridge.client import (
    AmbiguousError,
    HubConnection,
    NotFoundError,
    PolicyBlockedError,
    ProtocolFailure,
    StaleRefError,
    build_query,
    connect,
)
from bridge.client.channels import EventStream
from bridge.wire.action import ActionRequest
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import ActionVerb, ErrorCode, ProtocolErrorCode, Role
from bridge.wire.query import SemanticQuery, TextMatch, Within
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, OBSERVER, RunningHub, running_hub

pytestmark = pytest.mark.anyio

CONTINUE = SemanticQuery(role=Role.BUTTON, text=TextMatch(value="Continue"))


@asynccontextmanager
async def watched(
    rh: RunningHub,
) -> AsyncIterator[tuple[HubConnection, HubConnection, EventStream]]:
    """A controller ("agent-a") and an observer watching the device's action events."""
    async with (
        connect(rh.url, token=CONTROLLER, name="agent-a") as actor,
        connect(rh.url, token=OBSERVER, name="watcher") as observer,
    ):
        async with observer.device(rh.device_id).watch(settled=True), observer.events() as events:
            yield actor, observer, events


async def next_action(events: EventStream) -> ActionEvent:
    with anyio.fail_after(5):
        async for event in events:
            if isinstance(event, ActionEvent):
                return event
    raise AssertionError("event stream ended")


async def test_ambiguous_query_is_refused_by_the_hub_and_broadcast_with_who_asked() -> None:
    async with running_hub(sim_scene="ambiguous") as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        with pytest.raises(AmbiguousError) as caught:
            await dev.tap(CONTINUE)
        refusal = caught.value
        assert refusal.code is ErrorCode.AMBIGUOUS_MATCH
        assert len(refusal.candidates) == 2
        assert not refusal.matches  # decided by the hub, not by a client-side find
        assert "2 elements match" in refusal.envelope.message
        event = await next_action(events)
        assert event.error is ErrorCode.AMBIGUOUS_MATCH
        assert event.client == "agent-a"
        assert event.query == CONTINUE
        assert event.result is None
        assert event.message is not None and "Continue" in event.message


async def test_not_found_query_is_refused_and_broadcast() -> None:
    async with running_hub(sim_scene="login") as rh, watched(rh) as (actor, _, events):
        with pytest.raises(NotFoundError) as caught:
            await actor.device(rh.device_id).tap(build_query(text="zzz"))
        assert "zzz" in caught.value.envelope.message
        event = await next_action(events)
        assert (event.error, event.client, event.verb) == (
            ErrorCode.NODE_NOT_FOUND,
            "agent-a",
            "act",
        )


async def test_nth_and_within_single_out_a_look_alike_and_success_is_broadcast() -> None:
    async with running_hub(sim_scene="ambiguous") as rh, watched(rh) as (actor, _, events):
        dev = actor.device(rh.device_id)
        result = await dev.tap(
            SemanticQuery(role=Role.BUTTON, text=TextMatch(value="Continue"), nth=1)
        )
        assert result.dispatch.status.value == "DISPATCHED"
        event = await next_action(events)
        assert event.error is None and event.result is not None
        assert event.query is not None and event.query.nth == 1
        chosen = await dev.wait(Present(query=build_query(text="Chose Pro plan")), 3000)
        assert chosen.result.value == "CONDITION_MET"


async def test_within_a_cards_title_picks_that_cards_button() -> None:
    basic = SemanticQuery(
        text=TextMatch(value="Continue"), within=Within(text=TextMatch(value="Basic plan"))
    )
    async with running_hub(sim_scene="ambiguous") as rh:
        async with connect(rh.url, token=CONTROLLER, name="agent-a") as actor:
            dev = actor.device(rh.device_id)
            found = await dev.find(basic)
            assert found.count == 1
            assert "near text 'Basic plan'" in found.matches[0].reason
            await dev.tap(basic)
            chosen = await dev.wait(Present(query=build_query(text="Chose Basic plan")), 3000)
            assert chosen.result.value == "CONDITION_MET"


async def test_type_into_a_field_found_by_its_hint_then_sign_in() -> None:
    async with running_hub(sim_scene="login") as rh:
        async with connect(rh.url, token=CONTROLLER, name="agent-a") as actor:
            dev = actor.device(rh.device_id)
            await dev.type_text(build_query(text="Username"), "demo")
            # typed text does not hide the field from its hint
            await dev.type_text(build_query(text="Username"), "demo")
            await dev.type_text(build_query(text="Password"), "pw")
            await dev.tap(build_query(text="Sign in"))
            shown = await dev.wait(ScreenShown(name="home"))
            assert shown.result.value == "CONDITION_MET"


async def test_target_and_query_together_or_neither_is_invalid() -> None:
    async with running_hub(sim_scene="login") as rh:
        async with connect(rh.url, token=CONTROLLER, name="agent-a") as actor:
            dev = actor.device(rh.device_id)
            found = await dev.find(build_query(text="Sign in"))
            with pytest.raises(ProtocolFailure) as both:
                await dev.act(
                    ActionRequest(action=ActionVerb.CLICK, target=found.matches[0].ref),
                    query=build_query(text="Sign in"),
                )
            assert both.value.code is ProtocolErrorCode.INVALID_PARAMS
            with pytest.raises(ProtocolFailure) as neither:
                await dev.act(ActionRequest(action=ActionVerb.CLICK))
            assert neither.value.code is ProtocolErrorCode.INVALID_PARAMS


async def test_query_with_an_old_generation_is_stale_once_the_screen_moved() -> None:
    async with running_hub(sim_scene="menu") as rh:
        async with connect(rh.url, token=CONTROLLER, name="agent-a") as actor:
            dev = actor.device(rh.device_id)
            seen = await dev.snapshot()
            await dev.tap(build_query(text="Login"))
            assert (await dev.wait(ScreenShown(name="login"))).result.value == "CONDITION_MET"
            with pytest.raises(StaleRefError):
                await dev.act(
                    ActionRequest(action=ActionVerb.CLICK, generation=seen.generation),
                    query=build_query(text="Sign in"),
                )


async def test_lease_refusal_of_a_global_action_is_announced_once() -> None:
    async with running_hub(sim_scene="login") as rh, watched(rh) as (actor, _, events):
        async with connect(rh.url, token=CONTROLLER_2, name="holder") as holder:
            await holder.device(rh.device_id).acquire_lease()
            with pytest.raises(PolicyBlockedError):
                await actor.device(rh.device_id).back()
            seen: list[ActionEvent] = []
            with anyio.move_on_after(0.5):
                async for event in events:  # kept item by item: the loop is cancelled
                    if isinstance(event, ActionEvent):
                        seen.append(event)  # noqa: PERF401
            assert [(e.verb, e.action, e.error, e.client) for e in seen] == [
                ("global", "BACK", ErrorCode.POLICY_BLOCKED, "agent-a")
            ]
            assert seen[0].message and "holder" in seen[0].message


async def test_refusal_is_logged_with_who_asked_and_the_query() -> None:
    with capture_logs() as logs:
        async with running_hub(sim_scene="ambiguous") as rh:
            async with connect(rh.url, token=CONTROLLER, name="agent-a") as actor:
                with pytest.raises(AmbiguousError):
                    await actor.device(rh.device_id).tap(CONTINUE)
    lines = [e for e in logs if e.get("event") == "action"]
    assert len(lines) == 1
    line = lines[0]
    assert line["client"] == "agent-a"
    assert line["outcome"] == "AMBIGUOUS_MATCH"
    assert "Continue" in line["query"]
