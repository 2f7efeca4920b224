"""Issue 39: the inspector at phone width, its zoomable picture, element search, the
collapsible tree and keyboard shortcuts, in a real browser (Debian's Chromium driven by
Playwright) against a real hub with the simulated device.

Screenshots go to ``$MOBRIDGE_TEST_OUTPUT/dashboard/``: layout-phone.png (390 px wide),
layout-zoom.png (the picture at 100 %), layout-search.png (a search's matches).
"""

from __future__ import annotations

import pytest

from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def test_one_column_at_phone_width() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, _expect),
    ):
        await tab.set_viewport_size({"width": 390, "height": 844})
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        width = await tab.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, width
        lefts = await tab.evaluate(
            "() => ['devices-panel', 'screen-panel', 'tree-panel', 'details-panel',"
            " 'activity-panel'].map((id) => { const r = document.getElementById(id)"
            ".getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top),"
            " Math.round(r.width)]; })"
        )
        assert len({left for left, _, _ in lefts}) == 1, lefts  # one column
        tops = [top for _, top, _ in lefts]
        assert tops == sorted(tops), lefts
        assert all(w >= 300 for _, _, w in lefts), lefts
        scale = float(await tab.evaluate("() => document.getElementById('picture').dataset.scale"))
        assert scale > 0.25  # the picture fills the column's width
        await tab.screenshot(path=shot_path("layout-phone.png"), full_page=True)


async def test_the_picture_zooms_to_device_pixels_and_scrolls() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        picture = tab.get_by_test_id("picture")
        fit = float(await picture.get_attribute("data-scale") or 0)
        await tab.get_by_test_id("scale").click()
        await expect(tab.get_by_test_id("scale")).to_have_text("50 %")
        await expect(picture).to_have_attribute("data-scale", "0.500")
        await tab.get_by_test_id("scale").click()
        await expect(picture).to_have_attribute("data-scale", "1.000")
        assert await tab.evaluate(
            "() => { const p = document.getElementById('picture');"
            " return p.scrollHeight > p.clientHeight; }"
        )
        await tab.screenshot(path=shot_path("layout-zoom.png"))
        # keys: 0 fits again, + zooms in
        await tab.locator("body").click(position={"x": 5, "y": 5})
        await tab.keyboard.press("0")
        await expect(tab.get_by_test_id("scale")).to_have_text("Fit")
        assert abs(float(await picture.get_attribute("data-scale") or 0) - fit) < 0.01
        await tab.keyboard.press("+")
        zoomed = float(await picture.get_attribute("data-scale") or 0)
        assert zoomed > fit * 1.2


async def test_search_the_tree_fold_it_and_use_the_keys() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.locator("body").click(position={"x": 5, "y": 5})
        await tab.keyboard.press("/")
        search = tab.get_by_test_id("search")
        await expect(search).to_be_focused()
        await tab.keyboard.type("sign in")
        await expect(tab.get_by_test_id("search-count")).to_have_text("1 found")
        assert await tab.locator("#outlines rect.found").count() == 1
        await tab.screenshot(path=shot_path("layout-search.png"))
        await tab.keyboard.press("Enter")
        await expect(tab.get_by_test_id("node-facts")).to_contain_text("Sign in")
        await search.fill("#username")
        await expect(tab.get_by_test_id("search-count")).to_have_text("1 found")
        await search.fill("//BUTTON[@text='Sign in']")
        await expect(tab.get_by_test_id("search-count")).to_have_text("1 found")
        await search.fill('{"role": "INPUT"}')  # a query the hub runs
        await expect(tab.get_by_test_id("search-count")).to_have_text("2 found")
        await tab.keyboard.press("Escape")
        await expect(search).not_to_be_focused()
        # folding the root hides everything inside it; picking on the picture unfolds
        visible = await tab.locator("#tree .node:visible").count()
        await tab.get_by_test_id("fold").first.click()
        assert await tab.locator("#tree .node:visible").count() == 1 < visible
        await tab.get_by_test_id("fold").first.click()
        assert await tab.locator("#tree .node:visible").count() == visible
        # p / a switch modes
        await tab.keyboard.press("a")
        await expect(tab.get_by_test_id("mode-act")).to_have_class("on")
        await expect(tab.get_by_test_id("act-type-box")).to_be_focused()
        await tab.keyboard.press("Escape")
        await tab.keyboard.press("p")
        await expect(tab.get_by_test_id("mode-pick")).to_have_class("on")
        # tab order reaches the controls in page order: the header first, the search later
        order: list[str] = []
        await tab.locator("body").click(position={"x": 5, "y": 5})
        for _ in range(40):
            await tab.keyboard.press("Tab")
            order.append(
                await tab.evaluate(
                    "() => document.activeElement.dataset.testid || document.activeElement.id"
                )
            )
        assert "search" in order and "mode-act" in order
        assert order.index("tt-open") < order.index("mode-act") < order.index("search")
