"""The dashboard in a real browser (Debian's Chromium, Playwright) with many viewers' pictures
in mind: the page never asks for screenshots (the settled stream's ``picture`` events name
them), shows a viewer-sized WebP of each (the full PNG one click away), and its "Live" toggle
decodes the hub's H.264 mirror with WebCodecs onto a canvas under the element outlines."""

from __future__ import annotations

import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def test_the_page_shows_viewer_sized_pictures_and_the_live_mirror_with_outlines() -> None:
    async with running_hub(sim_scene="login", dashboard=page()) as rh:
        service = rh.hub.service
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
            natural = await tab.evaluate("() => document.getElementById('shot').naturalWidth")
            assert natural < 1080  # the viewer-sized picture, not the device's 1080 px PNG
            pictures = service.statistics()["pictures"]
            assert pictures["views"]["derived"] == 1 and pictures["feed"]["events"] == 1
            first = await tab.get_attribute("#shot", "data-capture")
            # another client changes the screen: the page follows without asking
            async with connect(rh.url, token=CONTROLLER, name="robot") as actor:
                await actor.device(rh.device_id).type_text(build_query(text="Username"), "demo")
            await until(tab, "c => document.getElementById('shot').dataset.capture !== c", first)
            assert service.statistics()["pictures"]["feed"]["events"] == 2
            # the full PNG for zoom opens in a tab of its own
            async with tab.context.expect_page() as popup_info:
                await tab.click("#zoom")
            popup = await popup_info.value
            await popup.wait_for_url("blob:**")
            await popup.wait_for_load_state()
            width = await popup.evaluate(
                "() => document.images[0] && document.images[0].naturalWidth"
            )
            assert width == 1080
            await popup.close()
            # live: frames decoded on a canvas, the outlines still on top of it
            await tab.click("#live")
            await until(
                tab, "() => Number(document.getElementById('live-canvas').dataset.frames) > 10"
            )
            await expect(tab.get_by_test_id("live")).to_be_visible()
            codec = await tab.get_attribute("#live-canvas", "data-codec")
            assert codec is not None and codec.startswith("avc1.")
            await expect(tab.locator("#outlines rect")).not_to_have_count(0)
            on_top = await tab.evaluate(
                "() => { const r = document.getElementById('outlines').getBoundingClientRect();"
                " const hit = document.elementFromPoint("
                "r.left + r.width / 2, r.top + r.height / 2);"
                " return hit && (hit.id === 'outlines' || hit.closest('#outlines') !== null); }"
            )
            assert on_top
            mirror = service.statistics()["mirror"][rh.device_id]
            assert mirror["source_starts"] == 1 and len(mirror["viewers"]) == 1
            await tab.screenshot(path=shot_path("dashboard-live.png"))
            await tab.click("#live")
            await expect(tab.get_by_test_id("live")).to_be_hidden()
            await until(tab, "() => true")
        assert rh.hub.sim.stats.screenshots == 2  # one per screen, none for the mirror
