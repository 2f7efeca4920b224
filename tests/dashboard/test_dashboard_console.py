"""Issue 39: the inspector's console, in a real browser (Debian's Chromium driven by
Playwright) against a real hub with the simulated device: a flow step, a ``mobridge`` command
line or a JSON request runs on the selected device and the page shows the hub's answer (the
ActionResult, a find's matches, a refusal); an observer's mutating line is refused by the hub.

Screenshot: ``$MOBRIDGE_TEST_OUTPUT/dashboard/console.png``.
"""

from __future__ import annotations

import anyio
import pytest

from bridge.client import connect
from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def test_the_console_runs_steps_commands_and_requests() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.locator("body").click(position={"x": 5, "y": 5})
        await tab.keyboard.press("c")
        line = tab.get_by_test_id("console-in")
        await expect(line).to_be_focused()
        results = tab.get_by_test_id("console-result")

        async def run(text: str) -> str:
            before = await results.count()
            await line.fill(text)
            await line.press("Enter")
            await expect(results).to_have_count(before + 1)
            return await results.last.text_content() or ""

        said = await run("- inputText: {into: {id: username}, text: demo}")
        assert "DISPATCHED" in said, said
        with anyio.fail_after(5):
            while True:
                async with connect(rh.url, token=OBSERVER, name="check") as hub:
                    snap = (await hub.device(rh.device_id).snapshot(compact=False)).snapshot
                if any(n.value == "demo" for n in snap.nodes):
                    break
                await anyio.sleep(0.05)
        assert "2 matches" in await run("mobridge find --role INPUT")
        assert "1 match:" in await run('{"type": "find", "query": {"text": {"value": "Sign in"}}}')
        assert "PASS" in await run("assertVisible: Sign in")
        assert "FAIL" in await run("assertVisible: No such words")
        assert "NOT_FOUND" in await run("tap: No such button")
        assert "DISPATCHED" in await run(f"mobridge tap {rh.device_id} --id password")
        assert "not a step" in await run("swipeLeft: now")
        await tab.screenshot(path=shot_path("console.png"))
        assert "DISPATCHED" in await run("pressKey: tab")


async def test_an_observers_console_is_refused_by_the_hub() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await expect(tab.get_by_test_id("status")).to_contain_text("observer")
        await tab.get_by_test_id("console-open").click()
        await tab.get_by_test_id("console-in").fill("tap: Sign in")
        await tab.get_by_test_id("console-in").press("Enter")
        await expect(tab.get_by_test_id("console-result")).to_contain_text("refused")
        await tab.get_by_test_id("console-in").fill("mobridge find --role BUTTON")
        await tab.get_by_test_id("console-in").press("Enter")
        await expect(tab.get_by_test_id("console-result").last).to_contain_text("match")
