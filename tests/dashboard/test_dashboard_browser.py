"""The dashboard in a real browser (Debian's Chromium driven by Playwright) against a real hub
with the simulated device: it connects with the token from the URL fragment, shows the device
and its screen, follows deltas, and lists another client's actions with who made them."""

from __future__ import annotations

import shutil

import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: install Debian's chromium package (.ci/run does)"
    ),
]


async def test_dashboard_follows_the_device_and_shows_who_acted() -> None:
    async_api = pytest.importorskip("playwright.async_api", reason="playwright not installed")
    async with running_hub(sim_scene="login", dashboard=page()) as rh:
        async with async_api.async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--no-first-run",
                ],
            )
            try:
                tab = await browser.new_page()
                errors: list[str] = []
                tab.on("pageerror", lambda exc: errors.append(str(exc)))
                await tab.goto(f"http://127.0.0.1:{rh.port}/dashboard#token={OBSERVER}")
                status = tab.get_by_test_id("status")
                await async_api.expect(status).to_contain_text("connected as observer")
                await async_api.expect(tab.get_by_test_id("devices")).to_contain_text(rh.device_id)
                tree = tab.get_by_test_id("tree")
                await async_api.expect(tree).to_contain_text("BUTTON Sign in")
                # another client acts: the page follows the screen and names the actor
                async with connect(rh.url, token=CONTROLLER, name="robot-7") as hub:
                    dev = hub.device(rh.device_id)
                    user = await dev.find(build_query(resource_id="username"))
                    await dev.act(
                        ActionRequest(
                            action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                        )
                    )
                await async_api.expect(tree).to_contain_text("=demo")
                log = tab.get_by_test_id("log")
                await async_api.expect(log).to_contain_text("robot-7")
                await async_api.expect(log).to_contain_text("SET_TEXT")
                await async_api.expect(log).to_contain_text("seq ")
                # what the page shows equals snapshot.get, node for node
                async with connect(rh.url, token=OBSERVER, name="check") as hub:
                    snap = (await hub.device(rh.device_id).snapshot()).snapshot
                shown = await tree.locator("[data-node]").evaluate_all(
                    "els => els.map(e => e.dataset.node)"
                )
                assert shown == [n.node_id for n in snap.nodes]
                await tab.screenshot(path="/tmp/mobridge-dashboard.png")
                assert not errors, errors
            finally:
                await browser.close()


async def test_dashboard_is_served_and_a_wrong_token_is_refused_in_the_page() -> None:
    async_api = pytest.importorskip("playwright.async_api", reason="playwright not installed")
    async with running_hub(sim_scene="login", dashboard=page()) as rh:
        async with async_api.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                tab = await browser.new_page()
                response = await tab.goto(f"http://127.0.0.1:{rh.port}/")
                assert response is not None and response.url.endswith("/dashboard")
                assert response.headers.get("x-frame-options") == "DENY"
                await tab.fill("#token", "not-the-token")
                await tab.click("#connect")
                await async_api.expect(tab.get_by_test_id("status")).to_contain_text("refused")
            finally:
                await browser.close()
