"""Issue 33.3: an observer token that declares itself a ``person`` cannot veto a controller's
announced action (the role is the token's, not the declared kind); a person with a
controller token can, and the refusal says who vetoed (name, kind, session, token)."""

from __future__ import annotations

import anyio
import pytest

from bridge.client import PolicyBlockedError, ProtocolFailure, build_query, connect
from bridge.wire.client_protocol import IntentEvent, Veto, VetoResult
from tests.hub.hubfixture import CONTROLLER, OBSERVER, PERSON, running_hub


async def test_only_a_controller_token_vetoes_and_the_refusal_names_it() -> None:
    with anyio.fail_after(60):
        async with (
            running_hub(sim_scene="login", veto_window_ms=4_000) as rh,
            connect(rh.url, token=CONTROLLER, name="agent-7", kind="agent") as agent,
            connect(rh.url, token=OBSERVER, name="mallory", kind="person") as fake,
            connect(rh.url, token=PERSON, name="alice", kind="person") as person,
        ):
            dev = agent.device(rh.device_id)
            target = (await dev.find_one(build_query(text="Sign in")))[0].ref
            outcome: list[BaseException | object] = []
            async with (
                fake.device(rh.device_id).watch() as watch,
                fake.events() as events,
                anyio.create_task_group() as tg,
            ):
                await watch.__anext__()

                async def click() -> None:
                    try:
                        outcome.append(await dev.tap(target))
                    except PolicyBlockedError as exc:
                        outcome.append(exc)

                tg.start_soon(click)
                async for event in events:
                    if isinstance(event, IntentEvent) and event.veto_ms > 0:
                        break
                with pytest.raises(ProtocolFailure, match="FORBIDDEN"):
                    await fake.request(
                        Veto(id=fake.next_id(), device=rh.device_id, intent=event.intent)
                    )
                vetoed = await person.request(
                    Veto(id=person.next_id(), device=rh.device_id, intent=event.intent)
                )
                assert isinstance(vetoed, VetoResult) and vetoed.vetoed
            refused = outcome[0]
            assert isinstance(refused, PolicyBlockedError), refused
            message = refused.envelope.message
            assert "alice vetoed this action" in message
            assert "person" in message and "p1" in message  # kind and token named
            assert "mallory" not in message
