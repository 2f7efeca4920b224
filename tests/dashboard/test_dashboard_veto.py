"""A person vetoes an agent's announced click from the dashboard, in a real browser (Debian's
Chromium driven by Playwright): the hub holds the click for its veto window, the dashboard's
veto bar shows "agent-2 1 will CLICK button 'Sign in'", the person (signed in with a controller
token: an observer's page has no working Veto button, see test_dashboard_live.py) presses
Veto, and the agent (an SDK client of ``mobridge mcp``) reads who stopped it. Screenshot:
``$MOBRIDGE_TEST_OUTPUT/dashboard/dashboard-veto.png``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path
from tests.hub.hubfixture import CONTROLLER, PERSON, running_hub
from tests.mcp.mcpfixture import stdio_mcp, text_of
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def test_a_person_vetoes_an_agents_click_from_the_dashboard() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="login", dashboard=page(), veto_window_ms=15_000) as rh,
            browser_tab(rh, f"#token={PERSON}") as (tab, expect),
            stdio_mcp(rh.url, CONTROLLER, name="agent-2", version="1") as agent,
        ):
            await expect(tab.get_by_test_id("status")).to_contain_text("connected as controller")
            await expect(tab.get_by_test_id("devices")).to_contain_text(rh.device_id)
            with anyio.fail_after(30):  # the dashboard subscribes to the device's streams
                while not any(
                    getattr(m, "client_name", None) == "dashboard"  # the page (controller)
                    for s in rh.hub.service.devices[rh.device_id].all_streams()
                    for m in s.members
                ):
                    await anyio.sleep(0.05)
            answers: list[Any] = []
            async with anyio.create_task_group() as tg:

                async def click() -> None:
                    answers.append(await agent.call("act", {"target": "Sign in"}))

                tg.start_soon(click)
                pending = tab.get_by_test_id("veto-intent")
                await expect(pending).to_contain_text("agent-2 1 will CLICK button 'Sign in'")
                await tab.screenshot(path=shot_path("dashboard-veto.png"))
                await pending.get_by_test_id("veto").click()
                await expect(pending).to_contain_text("Vetoed")
            refused = answers[0]
            assert refused.isError and text_of(refused).startswith("POLICY_BLOCKED")
            assert "dashboard vetoed this action" in text_of(refused)
            assert "screen login" in text_of(await agent.call("screen", {}))
