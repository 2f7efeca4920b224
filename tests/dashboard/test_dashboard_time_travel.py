"""Issue 39, time travel you can trust, in a real browser (Debian's Chromium driven by
Playwright) against a real hub with a journal: while a page watches, the journal keeps a
picture of every settled screen change (a screen seen again is not written twice), so scrubbing
to any of five moments of a scripted session shows the picture of the screen the journal
recorded for that moment (taken after that screen was recorded, before the next change), each
a different picture; "compare with now" shows both pictures side by side and lists what was
added, removed and changed; a moment before any picture says so.

Screenshot: ``$MOBRIDGE_TEST_OUTPUT/dashboard/time-travel-compare.png``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def scrub_to(tab: Any, at_ms: int) -> None:
    await tab.evaluate(
        """(at) => { const r = document.querySelector('[data-testid=scrubber]');
                     r.value = String(at); r.dispatchEvent(new Event('input')); }""",
        at_ms,
    )


def now_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_five_moments_each_show_their_own_picture_and_compare_lists_changes(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(180):
        async with (
            running_hub(
                journal=tmp_path / "j.sqlite3", dashboard=page(), sim_options={"animations": False}
            ) as rh,
            browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
        ):
            await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
            moments: list[tuple[str, int]] = []
            meta = tab.get_by_test_id("screen-meta")

            capture = "() => document.getElementById('shot').dataset.capture || ''"

            async def settled(name: str, before: str) -> None:
                """The page shows ``name`` and a new picture (the journal keeps the same one)."""
                await expect(meta).to_contain_text(name, timeout=5000)
                with anyio.fail_after(5):
                    while await tab.evaluate(capture) == before:
                        await anyio.sleep(0.05)
                await anyio.sleep(0.3)
                moments.append((name, now_ms()))

            async with connect(rh.url, token=CONTROLLER, name="script") as hub:
                dev = hub.device(rh.device_id)
                await settled("menu", "")
                before = await tab.evaluate(capture)
                await dev.tap(build_query(text="Settings"))
                await settled("settings", before)
                before = await tab.evaluate(capture)
                await dev.tap(build_query(text="Wi-Fi"))  # the same screen, changed
                await settled("settings", before)
                before = await tab.evaluate(capture)
                await dev.back()
                await settled("menu", before)  # seen before: the same pixels, not written again
                before = await tab.evaluate(capture)
                await dev.tap(build_query(text="Login"))
                await settled("login", before)
            await tab.get_by_test_id("tt-open").click()
            await expect(tab.get_by_test_id("tt-note")).to_contain_text("recorded moments")
            shot = tab.get_by_test_id("tt-shot")
            age = tab.get_by_test_id("tt-shot-age")
            seen: list[str] = []
            for name, at in moments:
                await scrub_to(tab, at)
                await expect(tab.get_by_test_id("tt-time")).to_contain_text(
                    time.strftime("%H:%M:%S", time.gmtime(at / 1000))
                )
                await expect(age).to_contain_text("picture of this screen")
                await until(
                    tab,
                    "(at) => { const i = document.querySelector('[data-testid=tt-shot]');"
                    " return i.dataset.moment === String(at) && i.complete"
                    " && i.naturalWidth > 0; }",
                    at,
                )
                taken = int(await shot.get_attribute("data-shot-ms") or 0)
                recorded = int(await shot.get_attribute("data-recorded-ms") or 0)
                assert recorded <= taken <= at, (name, recorded, taken, at)
                seen.append(
                    await tab.evaluate(
                        """() => { // the pixels shown (the page's CSP allows no fetch of blobs)
                           const img = document.querySelector('[data-testid=tt-shot]');
                           const c = document.createElement('canvas');
                           c.width = img.naturalWidth; c.height = img.naturalHeight;
                           const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                           const px = g.getImageData(0, 0, c.width, c.height).data;
                           let h = 2166136261;
                           for (let i = 0; i < px.length; i++) h = Math.imul(h ^ px[i], 16777619);
                           return c.width + 'x' + c.height + ':' + (h >>> 0); }"""
                    )
                )
            # menu twice: the same picture; every other moment its own
            assert seen[0] == seen[3]
            assert len({seen[0], seen[1], seen[2], seen[4]}) == 4
            # a moment before the first picture says there is none
            await scrub_to(tab, moments[0][1] - 60_000)
            await expect(age).to_contain_text("no picture kept")
            # compare the settings screen with now (login): both pictures and the lists
            await scrub_to(tab, moments[1][1])
            await expect(age).to_contain_text("picture of this screen")
            await tab.get_by_test_id("tt-compare").click()
            comparison = tab.get_by_test_id("tt-comparison")
            await expect(comparison).to_be_visible()
            await until(
                tab,
                "() => ['tt-then', 'tt-now'].every((t) =>"
                " document.querySelector(`[data-testid=${t}]`).naturalWidth > 0)",
            )
            added = tab.get_by_test_id("tt-added").locator("li")
            removed = tab.get_by_test_id("tt-removed").locator("li")
            await expect(added.filter(has_text="Username")).to_have_count(1)
            await expect(removed.filter(has_text="Wi-Fi")).not_to_have_count(0)
            note = await tab.get_by_test_id("tt-note").text_content()
            assert note is not None
            count = int(note.split(", ")[1].split(" added")[0])
            await expect(added).to_have_count(count)
            # outlined on the pictures: what went (then) and what came (now)
            assert await tab.locator("[data-testid=tt-then-marks] rect").count() >= 1
            marked = await tab.locator("[data-testid=tt-now-marks] rect").count()
            assert marked >= count  # every added element, and any changed one
            await tab.screenshot(path=shot_path("time-travel-compare.png"))
            # an activity row of the page jumps to its moment
            await tab.get_by_test_id("tt-compare").page.keyboard.press("Escape")
            row = tab.locator("#log .event.ok", has_text="Settings").first
            at_row = int(await row.get_attribute("data-at") or 0)
            await tab.locator("[data-testid=time-travel] button", has_text="Close").click()
            await row.click()
            await expect(tab.get_by_test_id("time-travel")).to_be_visible()
            await expect(tab.get_by_test_id("tt-time")).to_contain_text(
                time.strftime("%H:%M:%S", time.gmtime(at_row / 1000))
            )
