"""How an ``act`` is answered, against the simulated device over real sockets: ``observe:
none`` answers at dispatch (observers still see the action and its frames), and the settle
rule (``bridge.core.settle``) ends the wait early only once the effect is seen, never inside
an animation and never before an expected late change."""

from __future__ import annotations

import anyio
import pytest

from bridge.client import ProtocolFailure, build_query, connect
from bridge.wire.action import Verify
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import (
    ActionVerb,
    DispatchStatus,
    ProtocolErrorCode,
    Stability,
    VerificationPolicy,
    VerificationResult,
)
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def test_observe_none_answers_at_dispatch_and_observers_still_see_it() -> None:
    async with (
        running_hub(sim_scene="menu") as rh,
        connect(rh.url, token=CONTROLLER, name="fire") as actor,
        connect(rh.url, token=OBSERVER, name="watcher") as observer,
    ):
        async with observer.device(rh.device_id).watch(), observer.events() as events:
            dev = actor.device(rh.device_id)
            before = (await dev.snapshot()).snapshot.snapshot_id
            result = await dev.tap(build_query(text="Login"), observe="none")
            assert result.dispatch.status is DispatchStatus.DISPATCHED
            obs = result.observation
            assert obs.stability is Stability.UNKNOWN
            assert obs.before_snapshot_id == before
            assert obs.after_snapshot_id is None and obs.diff is None and obs.diff_ref is None
            assert result.verification is None
            with anyio.fail_after(5):
                async for event in events:
                    if isinstance(event, ActionEvent):
                        assert event.client == "fire" and event.result == result
                        break
            shown = await dev.wait(ScreenShown(name="login"), 3000)
            assert shown.result is VerificationResult.CONDITION_MET


async def test_observe_none_refuses_a_verification_it_would_not_make() -> None:
    async with running_hub(sim_scene="menu") as rh, connect(rh.url, token=CONTROLLER) as actor:
        dev = actor.device(rh.device_id)
        verify = Verify(
            policy=VerificationPolicy.EXPLICIT_CONDITION, expected=ScreenShown(name="login")
        )
        with pytest.raises(ProtocolFailure) as refused:
            await dev.tap(build_query(text="Login"), verify=verify, observe="none")
        assert refused.value.code is ProtocolErrorCode.INVALID_PARAMS
        assert "observe none" in refused.value.message
        dispatch_only = Verify(policy=VerificationPolicy.DISPATCH_ONLY)
        ok = await dev.tap(build_query(text="Login"), verify=dispatch_only, observe="none")
        assert ok.observation.stability is Stability.UNKNOWN


async def test_an_animated_transition_is_answered_on_its_last_frame() -> None:
    """Animations on: the tap's answer is the settled screen, and no frame follows it."""
    async with running_hub(sim_scene="menu") as rh, connect(rh.url, token=CONTROLLER) as actor:
        dev = actor.device(rh.device_id)
        result = await dev.tap(build_query(text="Login"))
        assert result.observation.stability is Stability.STABLE
        assert result.observation.screen_changed
        await anyio.sleep(0.6)  # longer than the whole transition and the old window
        now = (await dev.snapshot()).snapshot.snapshot_id
        assert now == result.observation.after_snapshot_id


async def test_an_expected_late_change_is_waited_for() -> None:
    """Search results come 300 ms after the query changed: an expectation naming them holds
    in the answer, though the first change (a progress indicator) came at once."""
    async with running_hub(sim_scene="search") as rh, connect(rh.url, token=CONTROLLER) as actor:
        dev = actor.device(rh.device_id)
        expect = Present(query=build_query(text="Apple"))
        result = await dev.act_on(
            build_query(resource_id="dev.mobridge.demo:id/query"),
            ActionVerb.SET_TEXT,
            value="app",
            verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=expect),
        )
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        assert result.observation.stability is Stability.STABLE
