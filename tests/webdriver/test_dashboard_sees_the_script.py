"""The dashboard, in a real browser (Debian's Chromium driven by Playwright), shows what an
Appium script does through ``serve``'s WebDriver endpoint: its clicks and typing in the
timeline under the session's name, and its refused ambiguous click with the hub's reason.
The script is Appium's Python client, run in a worker thread. Screenshot:
``$MOBRIDGE_TEST_OUTPUT/dashboard/dashboard-webdriver.png``."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from appium import webdriver
from appium.options.common import AppiumOptions
from appium.webdriver.common.appiumby import AppiumBy
from selenium.common.exceptions import InvalidSelectorException

from bridge.dashboard import page
from bridge.webdriver.server import WebDriverServer
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


def script(url: str) -> str:
    """An Appium script: sign-in steps, then a click on one of two look-alikes."""
    options = AppiumOptions()
    options.set_capability("platformName", "Android")
    options.set_capability("mobridge:token", CONTROLLER)
    options.set_capability("mobridge:name", "appium-suite")
    driver = webdriver.Remote(url, options=options)
    try:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
        driver.find_element(AppiumBy.ID, "username").send_keys("demo")
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Ambiguous").click()
        try:
            driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Continue").click()
        except InvalidSelectorException as exc:
            return str(exc.msg)
        return "clicked"
    finally:
        driver.quit()


async def test_the_dashboard_timeline_shows_the_appium_scripts_actions() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="menu", dashboard=page()) as rh,
            anyio.create_task_group() as tg,
        ):
            port = await tg.start(WebDriverServer(rh.url, port=0).run)
            async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
                await expect(tab.get_by_test_id("status")).to_contain_text("connected as observer")
                await expect(tab.get_by_test_id("devices")).to_contain_text(rh.device_id)
                said: Any = await anyio.to_thread.run_sync(script, f"http://127.0.0.1:{port}")
                assert said.startswith("AMBIGUOUS_MATCH")
                log = tab.get_by_test_id("log")
                done = log.locator(".event.ok", has_text="appium-suite")
                await expect(done.filter(has_text="SET_TEXT")).to_have_count(1)
                await expect(done.filter(has_text="CLICK").first).to_be_visible()
                refused = log.locator(".event.refused", has_text="appium-suite")
                await expect(refused).to_have_count(1)
                await expect(refused).to_contain_text("AMBIGUOUS_MATCH")
                await tab.screenshot(path=shot_path("dashboard-webdriver.png"))
            tg.cancel_scope.cancel()
