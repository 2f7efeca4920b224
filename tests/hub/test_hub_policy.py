"""The policy step of the action pipeline: confirmation objections and DISPATCH_ONLY."""

from __future__ import annotations

import anyio
import pytest

from bridge.client import ConfirmationRequired, HubError, ProtocolFailure, build_query, connect
from bridge.hub.app import AgentTarget
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import ActionVerb, DispatchStatus, ErrorCode, MutationClass
from bridge.wire.enums import VerificationPolicy as P
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted

pytestmark = pytest.mark.anyio


async def test_destructive_needs_confirmation_and_dispatch_only_is_refused() -> None:
    async with anyio.create_task_group() as tg:
        port = await tg.start(serve_scripted)
        async with (
            running_hub(sim=False, agents=[AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)]) as rh,
            connect(rh.url, token=CONTROLLER, name="p") as hub,
            connect(rh.url, token=CONTROLLER_2, name="other") as other,
        ):
            dev = hub.device(rh.device_id)
            delete = (await dev.find(build_query(text="Delete account"))).matches[0].ref
            click = ActionRequest(action=ActionVerb.CLICK, target=delete)
            with pytest.raises(ConfirmationRequired) as raised:
                await dev.act(click)
            objection = raised.value.objection
            assert objection is not None and objection.answerable
            assert raised.value.envelope.recovery
            # a blank answer closes nothing; an unknown id is reported; another session can't
            with pytest.raises(ProtocolFailure, match="blank"):
                await dev.act(click, Confirm(objection=objection.id, answer=" "))
            with pytest.raises(ProtocolFailure, match="not raised"):
                await dev.act(click, Confirm(objection="obj_unknown", answer="approve"))
            with pytest.raises(ProtocolFailure, match="not raised"):
                await other.device(rh.device_id).act(
                    click, Confirm(objection=objection.id, answer="approve")
                )
            result = await dev.act(click, Confirm(objection=objection.id, answer="approve"))
            assert result.dispatch.status is DispatchStatus.DISPATCHED
            assert result.mutation_class is MutationClass.DESTRUCTIVE
            # DISPATCH_ONLY on a financial action: refused, and the objection is unanswerable
            pay = (await dev.find(build_query(text="Pay now"))).matches[0].ref
            pay_only = ActionRequest(
                action=ActionVerb.CLICK, target=pay, verify=Verify(policy=P.DISPATCH_ONLY)
            )
            with pytest.raises(HubError) as blocked:
                await dev.act(pay_only)
            assert blocked.value.code is ErrorCode.POLICY_BLOCKED
            assert blocked.value.objection is not None
            assert not blocked.value.objection.answerable
            with pytest.raises(ProtocolFailure, match="cannot be answered"):
                await dev.act(
                    pay_only, Confirm(objection=blocked.value.objection.id, answer="approve")
                )
            # an ordinary click with DISPATCH_ONLY is fine
            refresh = (await dev.find(build_query(text="Refresh"))).matches[0].ref
            ok = await dev.act(
                ActionRequest(
                    action=ActionVerb.CLICK, target=refresh, verify=Verify(policy=P.DISPATCH_ONLY)
                )
            )
            assert ok.dispatch.status is DispatchStatus.DISPATCHED and ok.verification is None
        tg.cancel_scope.cancel()
