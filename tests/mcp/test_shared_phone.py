"""People and agents on one phone, through two SDK clients of ``mobridge mcp`` and an observer
on the hub's websocket: every action is announced as an intent before it is dispatched, a
person's lease request takes an agent's lease at once and the agent hears why in its next
tool result, and a person vetoes an announced action within the hub's veto window."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.client import connect
from bridge.client.channels import HubEvent
from bridge.wire.client_protocol import ActionEvent, IntentEvent, LeaseEvent, Veto, VetoResult
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, OBSERVER, PERSON, running_hub
from tests.mcp.mcpfixture import stdio_mcp, text_of

pytestmark = pytest.mark.anyio


async def test_a_person_takes_an_agents_lease_at_once_and_every_action_is_announced() -> None:
    seen: list[HubEvent] = []
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="login") as hub,
            connect(hub.url, token=OBSERVER, name="wall-screen") as observer,
            stdio_mcp(hub.url, CONTROLLER, name="agent-2", version="1") as agent,
            stdio_mcp(hub.url, CONTROLLER_2, name="alice", version="1", kind="person") as person,
        ):
            async with observer.device(hub.device_id).watch() as watch, observer.events() as ev:
                await watch.__anext__()

                async def record() -> None:
                    async for event in ev:
                        seen.append(event)  # noqa: PERF401 - runs until cancelled

                async with anyio.create_task_group() as tg:
                    tg.start_soon(record)
                    held = await agent.call("lease", {"action": "acquire"})
                    assert not held.isError, text_of(held)
                    typed = await agent.call(
                        "act", {"action": "SET_TEXT", "target": "Username", "text": "demo"}
                    )
                    assert not typed.isError, text_of(typed)
                    # the person outranks the agent: the lease is theirs at once (not idle)
                    taken = await person.call("lease", {"action": "acquire"})
                    assert not taken.isError, text_of(taken)
                    assert "held by alice 1" in text_of(taken)
                    refused = await agent.call("act", {"target": "Sign in"})
                    text = text_of(refused)
                    assert refused.isError and "POLICY_BLOCKED" in text
                    assert text.startswith("note: alice 1 took your lease"), text
                    assert "outranks" in text
                    later = await agent.call("screen", {})
                    assert "note:" not in text_of(later)  # told once
                    signed_in = await person.call("act", {"target": "Sign in"})
                    assert not signed_in.isError, text_of(signed_in)
                    # until the observer has the person's action (its last event here)
                    while not any(
                        isinstance(e, ActionEvent)
                        and e.intent is not None
                        and e.client == "alice 1"
                        for e in seen
                    ):
                        await anyio.sleep(0.02)
                    tg.cancel_scope.cancel()
    intents = [e for e in seen if isinstance(e, IntentEvent)]
    actions = [e for e in seen if isinstance(e, ActionEvent) and e.intent is not None]
    assert [i.message for i in intents] == [
        "agent-2 1 will SET_TEXT input 'Username'",
        "alice 1 will CLICK button 'Sign in'",
    ]
    assert intents[0].kind == "agent" and intents[1].kind == "person"
    for intent in intents:  # announced before, then reported with the same id
        done = next(a for a in actions if a.intent == intent.intent)
        assert seen.index(intent) < seen.index(done)
        assert done.result is not None and done.result.dispatch.status.value == "DISPATCHED"
    preempted = [e for e in seen if isinstance(e, LeaseEvent) and e.change == "preempted"]
    assert len(preempted) == 1 and preempted[0].client == "alice 1"
    assert len(preempted[0].displaced) == 1 and preempted[0].reason


async def test_a_person_vetoes_an_announced_click_and_the_agent_reads_why() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="login", veto_window_ms=5_000) as hub,
            connect(hub.url, token=PERSON, name="dashboard", kind="dashboard") as person,
            connect(hub.url, token=CONTROLLER_2, name="script", kind="script") as script,
            stdio_mcp(hub.url, CONTROLLER, name="agent-2", version="1") as agent,
        ):
            typed = await agent.call(
                "act", {"action": "SET_TEXT", "target": "Username", "text": "demo"}
            )
            assert not typed.isError and "done" in text_of(typed).splitlines()[0]  # no wait
            answers: list[Any] = []
            async with person.device(hub.device_id).watch() as watch, person.events() as ev:
                await watch.__anext__()
                async with anyio.create_task_group() as tg:

                    async def click() -> None:
                        answers.append(await agent.call("act", {"target": "Sign in"}))

                    tg.start_soon(click)
                    async for event in ev:
                        if isinstance(event, IntentEvent):
                            break
                    assert event.veto_ms == 5_000 and event.mutation_class is not None
                    vetoed = await person.request(
                        Veto(id=person.next_id(), device=hub.device_id, intent=event.intent)
                    )
                    assert isinstance(vetoed, VetoResult) and vetoed.vetoed
            refused = answers[0]
            assert refused.isError and text_of(refused).startswith("POLICY_BLOCKED")
            assert "dashboard vetoed this action" in text_of(refused)
            late = await script.request(
                Veto(id=script.next_id(), device=hub.device_id, intent="int_x")
            )
            assert isinstance(late, VetoResult) and not late.vetoed
            still = await agent.call("screen", {})
            assert "screen login" in text_of(still)  # nothing was dispatched
