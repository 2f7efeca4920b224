"""The inspector outlines nodes read by vision in their own style (a dashed teal outline, the
confidence after their line, a legend), in a real browser against a hub serving with vision
on the game scene."""

from __future__ import annotations

import pytest

from bridge.client import connect
from bridge.dashboard import page
from bridge.wire.conditions import Present
from bridge.wire.enums import Source, VerificationResult
from bridge.wire.query import SemanticQuery, TextMatch
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path
from tests.hub.hubfixture import OBSERVER, running_hub
from tests.skips import need_chromium, need_vision

pytestmark = [pytest.mark.anyio, need_chromium, need_vision]


async def test_vision_nodes_are_outlined_apart_with_their_confidence() -> None:
    async with running_hub(sim_scene="game", dashboard=page(), vision=True) as rh:
        async with connect(rh.url, token=OBSERVER, name="check") as hub:
            dev = hub.device(rh.device_id)
            ready = await dev.wait(Present(query=SemanticQuery(text=TextMatch(value="PLAY"))),
                                   timeout_ms=20_000)  # fmt: skip
            assert ready.result is VerificationResult.CONDITION_MET
            snap = (await dev.snapshot()).snapshot
        play = next(n for n in snap.nodes if n.text == "PLAY")
        assert play.source is Source.VISION
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("game")
            outline = tab.locator(f'#outlines rect[data-node="{play.node_id}"]')
            await expect(outline).to_have_attribute("data-source", "VISION")
            dashes = await outline.evaluate("r => getComputedStyle(r).strokeDasharray")
            assert dashes not in ("", "none"), dashes
            canvas = next(n for n in snap.nodes if n.role.value == "CANVAS")
            plain = tab.locator(f'#outlines rect[data-node="{canvas.node_id}"]')
            assert await plain.evaluate("r => getComputedStyle(r).strokeDasharray") == "none"
            line = tab.locator(f'#tree [data-node="{play.node_id}"]')
            await expect(line).to_have_attribute("data-confidence", f"{play.confidence:.2f}")
            await expect(tab.get_by_test_id("vision-legend")).to_contain_text("read by vision")
            await tab.screenshot(path=shot_path("dashboard-vision.png"))
