"""Dashboard time travel in a real browser (Debian's Chromium driven by Playwright) against a
real hub with a journal: the scrubber shows the picture, the element tree and the activity as
they were at a past moment, and "Compare with now" marks what changed since."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from bridge.client import Stable, build_query, connect
from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def scrub_to(tab: object, at_ms: int) -> None:
    await tab.evaluate(  # type: ignore[attr-defined]
        """(at) => { const r = document.querySelector('[data-testid=scrubber]');
                     r.value = String(at); r.dispatchEvent(new Event('input')); }""",
        at_ms,
    )


async def test_the_scrubber_shows_a_past_screen_and_compares_it_with_now(tmp_path: Path) -> None:
    async with running_hub(
        journal=tmp_path / "j.sqlite3", dashboard=page(), sim_options={"animations": False}
    ) as rh:
        async with connect(rh.url, token=CONTROLLER, name="script") as hub:
            dev = hub.device(rh.device_id)
            await anyio.sleep(0.3)
            await dev.screenshot()  # the journal keeps screenshots by reference
            await anyio.sleep(0.3)
            on_menu = time.time_ns() // 1_000_000
            await anyio.sleep(0.3)
            await dev.tap(build_query(text="Settings"))
            await dev.wait(Stable(for_ms=300))
            await dev.screenshot()
            await anyio.sleep(0.3)
            on_settings = time.time_ns() // 1_000_000
            await anyio.sleep(0.3)
            await dev.tap(build_query(text="Wi-Fi"))
            await dev.wait(Stable(for_ms=300))
        async with browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect):
            await expect(tab.get_by_test_id("devices")).to_contain_text(rh.device_id)
            await tab.get_by_test_id("tt-open").click()
            panel = tab.get_by_test_id("time-travel")
            await expect(panel).to_be_visible()
            await expect(tab.get_by_test_id("tt-note")).to_contain_text("recorded moments")
            tree = tab.get_by_test_id("tt-tree")
            await expect(tree).to_contain_text("Wi-Fi")  # now: settings, Wi-Fi turned off

            await scrub_to(tab, on_menu)
            await expect(tree).to_contain_text('"Settings"')
            await expect(tree).not_to_contain_text("Wi-Fi")
            await until(
                tab, "() => document.querySelector('[data-testid=tt-shot]').naturalWidth > 0"
            )
            later = tab.locator("[data-testid=tt-activity] .row.later[data-kind=action]")
            await expect(later).to_have_count(2)  # both taps came after this moment
            await expect(tab.get_by_test_id("tt-time")).to_contain_text(
                time.strftime("%Y-%m-%d", time.gmtime(on_menu / 1000))
            )

            await scrub_to(tab, on_settings)
            await expect(tree).to_contain_text("Wi-Fi")
            wifi = tab.locator("[data-testid=tt-tree] .node", has_text="Wi-Fi")
            await expect(wifi.first).to_contain_text("checked")
            await expect(later).to_have_count(1)
            await tab.get_by_test_id("tt-compare").click()
            await expect(tab.get_by_test_id("tt-note")).to_contain_text("changed")
            changed = tab.locator("[data-testid=tt-tree] .node.changed")
            await expect(changed).not_to_have_count(0)
            await expect(changed.filter(has_text="Wi-Fi")).not_to_have_count(0)
            await tab.screenshot(path=shot_path("dashboard-time-travel.png"))
