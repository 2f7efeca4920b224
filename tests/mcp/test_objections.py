"""Objections through MCP: a destructive click is refused pending the user's word; ``confirm``
answers it by id, and a client that supports elicitation is asked directly. The device is the
hub tests' scripted agent (a screen with "Delete account"), since the demo app has nothing
destructive."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.shared.context import RequestContext

from bridge.hub.app import AgentTarget
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted
from tests.mcp.mcpfixture import stdio_mcp, text_of

pytestmark = pytest.mark.anyio
DELETE = {"target": "Delete account"}


async def test_confirm_repeats_the_refused_act_with_the_answer() -> None:
    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            port = await tg.start(serve_scripted)
            agents = [AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)]
            async with (
                running_hub(sim=False, agents=agents) as hub,
                stdio_mcp(hub.url, CONTROLLER) as mcp,
            ):
                refused = await mcp.call("act", DELETE)
                assert refused.isError
                text = text_of(refused)
                assert text.startswith("USER_CONFIRMATION_REQUIRED") and "confirm" in text
                objection = next(w for w in text.split() if w.startswith("obj_"))
                done = await mcp.call("confirm", {"objection": objection, "answer": "approve"})
                assert not done.isError, text_of(done)
                assert " · done" in text_of(done).splitlines()[0]
                again = await mcp.call("confirm", {"objection": objection, "answer": "approve"})
                assert again.isError and "UNKNOWN_OBJECTION" in text_of(again)
            tg.cancel_scope.cancel()


async def test_a_client_with_elicitation_asks_the_user_directly() -> None:
    asked: list[str] = []
    answers = iter((False, True))

    async def user(
        context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": next(answers)})

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            port = await tg.start(serve_scripted)
            agents = [AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)]
            async with (
                running_hub(sim=False, agents=agents) as hub,
                stdio_mcp(hub.url, CONTROLLER, elicitation=user) as mcp,
            ):
                declined = await mcp.call("act", DELETE)
                assert declined.isError and "USER_REJECTED" in text_of(declined)
                allowed = await mcp.call("act", DELETE)
                assert not allowed.isError, text_of(allowed)
                assert len(asked) == 2 and all("Delete account" in m or "CLICK" in m for m in asked)
            tg.cancel_scope.cancel()
