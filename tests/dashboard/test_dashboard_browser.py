"""The dashboard inspector in a real browser (Debian's Chromium driven by Playwright) against a
real hub with the simulated device, in a 1366x768 window: sign-in form, device grid, the
screen as a picture with outlines, picking an element (its query and ref), the activity
timeline with successes and refusals (live within 500 ms, and history on connect), filters.

Screenshots of the page go to ``$MOBRIDGE_TEST_OUTPUT/dashboard/`` (default
``test-output/dashboard/`` in the checkout): dashboard-signin.png, dashboard-inspector.png,
dashboard-selected.png, dashboard-refusals.png.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.client import NotFoundError, build_query, connect
from bridge.dashboard import page
from bridge.wire.snapshot import ScreenSnapshot
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub
from tests.skips import need_chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path(os.environ.get("MOBRIDGE_TEST_OUTPUT", ROOT / "test-output")) / "dashboard"
WINDOW = {"width": 1366, "height": 768}
SELECTED = re.compile(r"\bselected\b")
HOVER = re.compile(r"\bhover\b")
pytestmark = [pytest.mark.anyio, need_chromium]


def shot_path(name: str) -> str:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return str(OUTPUT / name)


@asynccontextmanager
async def browser_tab(rh: RunningHub, fragment: str = "") -> AsyncIterator[tuple[Any, Any]]:
    from playwright import async_api

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
            tab = await browser.new_page(viewport=WINDOW)
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            await tab.goto(f"http://127.0.0.1:{rh.port}/dashboard{fragment}")
            yield tab, async_api.expect
            assert not errors, errors
        finally:
            await browser.close()


async def until(tab: Any, predicate: str, arg: Any = None) -> None:
    """Poll a page predicate through the debugger, for 5 s at most (the page's CSP forbids
    the eval that ``wait_for_function`` would use)."""
    with anyio.fail_after(5):
        while not await tab.evaluate(predicate, arg):
            await anyio.sleep(0.05)


def centre_on_picture(
    box: dict[str, float], snap: ScreenSnapshot, text: str
) -> tuple[float, float]:
    """Where a node's centre is on the page, from its device bounds and the picture's box."""
    root = snap.nodes[0].bounds
    node = next(n for n in snap.nodes if n.text == text)
    assert root is not None and node.bounds is not None
    left, top, right, bottom = node.bounds
    x = box["x"] + ((left + right) / 2 - root[0]) / (root[2] - root[0]) * box["width"]
    y = box["y"] + ((top + bottom) / 2 - root[1]) / (root[3] - root[1]) * box["height"]
    return x, y


async def test_sign_in_then_pick_an_element_on_the_picture_and_follow_the_timeline() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh) as (tab, expect),
    ):
        # no token: a sign-in form, and a wrong token is refused in it
        signin = tab.get_by_test_id("signin")
        await expect(signin).to_be_visible()
        await tab.screenshot(path=shot_path("dashboard-signin.png"))
        await tab.fill("#token", "not-the-token")
        await tab.click("#connect")
        await expect(tab.get_by_test_id("signin-error")).to_contain_text("refused this token")
        await tab.fill("#token", OBSERVER)
        await tab.click("#connect")
        await expect(tab.get_by_test_id("status")).to_contain_text("connected as observer")
        await expect(signin).to_be_hidden()
        # the device grid
        devices = tab.get_by_test_id("devices")
        await expect(devices).to_contain_text(rh.device_id)
        await expect(devices).to_contain_text("online")
        await expect(devices).to_contain_text("lease: free")
        # the screen as a picture with outlines, and the element list
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login")
        shot = tab.get_by_test_id("shot")
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await expect(tab.locator("#outlines rect")).not_to_have_count(0)
        # a click on the picture selects the node under it and shows its query and ref
        async with connect(rh.url, token=OBSERVER, name="check") as hub:
            snap = (await hub.device(rh.device_id).snapshot()).snapshot
        box = await shot.bounding_box()
        assert box is not None
        x, y = centre_on_picture(box, snap, "Sign in")
        await tab.mouse.click(x, y)
        sign_in = next(n for n in snap.nodes if n.text == "Sign in")
        facts = tab.get_by_test_id("node-facts")
        await expect(facts).to_contain_text(sign_in.node_id)
        await expect(facts).to_contain_text("BUTTON")
        query = tab.get_by_test_id("query")
        await expect(query).to_have_text('{"role":"BUTTON","text":{"value":"Sign in"}}')
        await expect(tab.get_by_test_id("ref")).to_contain_text('"snapshotId"')
        await expect(tab.locator(f'#outlines rect[data-node="{sign_in.node_id}"]')).to_have_class(
            SELECTED
        )
        await expect(tab.locator(f'#tree [data-node="{sign_in.node_id}"]')).to_have_class(SELECTED)
        await tab.screenshot(path=shot_path("dashboard-selected.png"))
        # hovering a line of the list marks its outline on the picture
        user = next(n for n in snap.nodes if n.hint == "Username")
        await tab.hover(f'#tree [data-node="{user.node_id}"]')
        await expect(tab.locator(f'#outlines rect[data-node="{user.node_id}"]')).to_have_class(
            HOVER
        )
        # another client's action and refusal appear within 500 ms, with who and what
        log = tab.get_by_test_id("log")
        async with connect(rh.url, token=CONTROLLER, name="robot-7") as actor:
            dev = actor.device(rh.device_id)
            await dev.type_text(build_query(text="Username"), "demo")
            await expect(log.locator(".event.ok").first).to_contain_text("robot-7", timeout=500)
            await expect(log.locator(".event.ok").first).to_contain_text("SET_TEXT")
            with pytest.raises(NotFoundError):
                await dev.tap(build_query(text="zzz"))
            refused = log.locator(".event.refused").first
            await expect(refused).to_contain_text("NODE_NOT_FOUND", timeout=500)
            await expect(refused).to_contain_text("robot-7")
            await expect(refused).to_contain_text('"zzz"')
            await expect(refused).not_to_contain_text("undefined")
            # the screen moves on: the picture and the list follow once it settles
            await dev.type_text(build_query(text="Password"), "pw")
            old_src = await shot.get_attribute("src")
            await dev.tap(build_query(text="Sign in"))
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("home", timeout=5000)
        await until(tab, "src => document.getElementById('shot').src !== src", old_src)
        await expect(tab.get_by_test_id("tree")).to_contain_text('"Home"')
        await expect(tab.get_by_test_id("details")).to_contain_text("gone from the screen")
        # it fills the window: no page scrolling, the panels reach the right and bottom edges
        size = await tab.evaluate(
            "() => { const m = document.querySelector('main').getBoundingClientRect();"
            " return [document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
            " m.right, m.bottom]; }"
        )
        assert size[0] <= WINDOW["width"] and size[1] <= WINDOW["height"], size
        assert size[2] >= WINDOW["width"] - 1 and size[3] >= WINDOW["height"] - 1, size
        for panel in ("devices", "picture", "tree", "details", "log"):
            got = await tab.get_by_test_id(panel).bounding_box()
            assert got is not None and got["width"] > 150 and got["height"] > 100, (panel, got)
        await tab.screenshot(path=shot_path("dashboard-inspector.png"))
        # the timeline filters: refusals only, then by words
        await tab.select_option("#kind", "refused")
        await expect(log.locator(".event:visible")).to_have_count(1)
        await expect(log.locator(".event:visible")).to_contain_text("NODE_NOT_FOUND")
        await tab.screenshot(path=shot_path("dashboard-refusals.png"))
        await tab.select_option("#kind", "all")
        await tab.fill("#filter", "SET_TEXT")
        await expect(log.locator(".event:visible")).to_have_count(2)


async def test_history_before_the_page_connected_is_shown_on_connect() -> None:
    async with running_hub(sim_scene="ambiguous", dashboard=page()) as rh:
        async with connect(rh.url, token=CONTROLLER, name="early-bird") as actor:
            dev = actor.device(rh.device_id)
            async with dev.watch():
                with pytest.raises(Exception, match="AMBIGUOUS_MATCH"):
                    await dev.tap(build_query(text="Continue"))
                await dev.tap_at(5, 2390)  # a device action: the row says what it did
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            log = tab.get_by_test_id("log")
            touched = log.locator(".event.ok.past")
            await expect(touched).to_contain_text("tap at (5, 2390)")
            await expect(touched).to_contain_text("early-bird")
            refused = log.locator(".event.refused.past")
            await expect(refused).to_have_count(1)
            await expect(refused).to_contain_text("early-bird")
            await expect(refused).to_contain_text("AMBIGUOUS_MATCH")
            await expect(refused).to_contain_text("2 elements match")


async def test_root_redirects_and_the_page_is_not_framable() -> None:
    async with running_hub(sim_scene="login", dashboard=page()) as rh, browser_tab(rh) as (tab, _):
        response = await tab.goto(f"http://127.0.0.1:{rh.port}/")
        assert response is not None and response.url.endswith("/dashboard")
        assert response.headers.get("x-frame-options") == "DENY"
        assert "img-src 'self' blob:" in (await tab.content())


async def test_device_capabilities_are_rows_of_the_timeline() -> None:
    """Issue 21: alerts, permissions, location and the clipboard show in the timeline; the
    clipboard's text never does."""
    async with running_hub(sim_scene="camera", dashboard=page()) as rh:
        async with connect(rh.url, token=CONTROLLER, name="caps-agent") as actor:
            dev = actor.device(rh.device_id)
            async with dev.watch():
                await dev.answer_alert("accept")
                await dev.permission("revoke", "dev.mobridge.demo", "camera")
                await dev.set_location(48.8566, 2.3522)
                await dev.set_clipboard("clip-text-never-shown")
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            log = tab.get_by_test_id("log")
            rows = log.locator(".event.ok.past")
            await expect(rows).to_have_count(4)
            for said in (
                "alert accept",
                "permission revoke camera dev.mobridge.demo",
                "location set to 48.85660,2.35220",
                "clipboard set (21 characters)",
            ):
                await expect(log).to_contain_text(said)
            await expect(log).not_to_contain_text("clip-text-never-shown")
