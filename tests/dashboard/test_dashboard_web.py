"""The inspector outlines a WebView's page elements in their own style (a dotted blue
outline, the CSS id or role selector after their line, a legend), in a real browser against
a hub on the web scene (whose page is itself a real Chromium)."""

from __future__ import annotations

import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from bridge.wire.conditions import Present
from bridge.wire.enums import VerificationResult
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path
from tests.hub.hubfixture import OBSERVER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def test_web_nodes_are_outlined_apart_with_their_selector() -> None:
    async with running_hub(sim_scene="web", dashboard=page()) as rh:
        async with connect(rh.url, token=OBSERVER, name="check") as hub:
            dev = hub.device(rh.device_id)
            ready = await dev.wait(Present(query=build_query(resource_id="web:#email")), 60_000)
            assert ready.result is VerificationResult.CONDITION_MET
            snap = (await dev.snapshot()).snapshot
        email = next(n for n in snap.nodes if n.automation_id == "web:#email")
        native = next(n for n in snap.nodes if n.resource_id and "native_continue" in n.resource_id)
        heading = next(n for n in snap.nodes if n.text == "Sign in to Web Shop")
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("web")
            outline = tab.locator(f'#outlines rect[data-node="{email.node_id}"]')
            await expect(outline).to_have_attribute("data-web", "#email")
            dashes = await outline.evaluate("r => getComputedStyle(r).strokeDasharray")
            assert dashes not in ("", "none"), dashes
            plain = tab.locator(f'#outlines rect[data-node="{native.node_id}"]')
            assert await plain.get_attribute("data-web") is None
            line = tab.locator(f'#tree [data-node="{heading.node_id}"]')
            await expect(line).to_have_attribute(
                "data-web", 'role=text[name="Sign in to Web Shop"]'
            )
            await expect(tab.get_by_test_id("web-legend")).to_contain_text("WebView's page")
            await tab.screenshot(path=shot_path("dashboard-web.png"))
