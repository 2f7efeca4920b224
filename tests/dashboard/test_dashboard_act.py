"""Acting from the inspector (``static/act.js``) in a real browser (Debian's Chromium driven
by Playwright) against a real hub with the simulated device: a controller taps, long-presses,
swipes and presses keys on the picture and types into a picked field, each action a request
on the page's own session that the timeline shows like any client's; the lease is shown and
respected; a picked element offers its CLI command by stable query, a flow step and a Python
line; an observer sees all of it but no act controls; no request of the page ends in a 404
(the favicon).

Screenshots go to ``$MOBRIDGE_TEST_OUTPUT/dashboard/`` (default ``test-output/dashboard/``):
act-picture.png (the simulated device's picture), act-tap.png (a tap made from the page, in
the timeline), act-picked.png (a picked field: its command, flow step, Python line, and text
to type into it), act-observer.png (an observer's page, no act controls).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from bridge.wire.snapshot import ScreenSnapshot
from tests.dashboard.test_dashboard_browser import (
    browser_tab,
    centre_on_picture,
    shot_path,
    until,
)
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def _snapshot(rh: RunningHub) -> ScreenSnapshot:
    async with connect(rh.url, token=OBSERVER, name="check") as hub:
        return (await hub.device(rh.device_id).snapshot(compact=False)).snapshot


async def _picture_point(tab: Any, rh: RunningHub, text: str) -> tuple[float, float]:
    box = await tab.get_by_test_id("shot").bounding_box()
    assert box is not None
    return centre_on_picture(box, await _snapshot(rh), text)


async def test_a_controller_acts_on_the_picture_and_every_action_is_in_the_timeline() -> None:
    async with (
        running_hub(sim_scene="menu", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        missing: list[str] = []
        tab.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
        bar = tab.get_by_test_id("act-bar")
        await expect(bar).to_be_visible()
        await expect(tab.get_by_test_id("act-lease")).to_contain_text("lease: free")
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.screenshot(path=shot_path("act-picture.png"))
        log = tab.get_by_test_id("log")
        # Act mode: a click is a tap on the element under the pointer (by its query), through
        # the hub; where no element can be tapped it is a tap at that point (below: Back)
        await tab.get_by_test_id("mode-act").click()
        x, y = await _picture_point(tab, rh, "Login")
        await tab.mouse.click(x, y)
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login", timeout=5000)
        tapped = log.locator(".event.ok").first
        await expect(tapped).to_contain_text("dashboard")
        await expect(tapped).to_contain_text("CLICK")
        await expect(tab.get_by_test_id("act-result")).to_contain_text('tap "Login"')
        await until(
            tab,
            "() => [...document.querySelectorAll('#tree .node')].some("
            "n => n.textContent.includes('Username'))",
        )
        await tab.screenshot(path=shot_path("act-tap.png"))
        # Pick mode: pick the Username field; its command, flow step and Python line
        await tab.get_by_test_id("mode-pick").click()
        snap = await _snapshot(rh)
        user = next(n for n in snap.nodes if n.hint == "Username")
        await tab.click(f'#tree [data-node="{user.node_id}"]')
        await expect(tab.get_by_test_id("cli")).to_have_text(
            f"mobridge type {rh.device_id} --id username --value TEXT"
        )
        await expect(tab.get_by_test_id("yaml")).to_have_text(
            "- inputText: {into: {id: username}, text: TEXT}"
        )
        await expect(tab.get_by_test_id("python")).to_have_text(
            'await dev.type_text(build_query(resource_id="username"), "TEXT")'
        )
        # type into the picked field
        await tab.get_by_test_id("act-text").fill("demo")
        await tab.screenshot(path=shot_path("act-picked.png"))
        await tab.get_by_test_id("act-type").click()
        await expect(log.locator(".event.ok").first).to_contain_text("SET_TEXT")
        with anyio.fail_after(5):
            while not any(
                n.value == "demo" or n.text == "demo" for n in (await _snapshot(rh)).nodes
            ):
                await anyio.sleep(0.05)
        # a key, and Back: the hub runs them; the timeline says so
        await tab.get_by_test_id("key-tab").click()
        await expect(log.locator(".event.ok").first).to_contain_text("TAB")
        await tab.get_by_test_id("key-back").click()
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("menu", timeout=5000)
        await expect(log.locator(".event.ok").first).to_contain_text("BACK")
        # hold still: a long-press; drag: a swipe along the drag
        await tab.get_by_test_id("mode-act").click()
        x, y = await _picture_point(tab, rh, "Login")
        await tab.mouse.move(x, y)
        await tab.mouse.down()
        await anyio.sleep(0.7)
        await tab.mouse.up()
        await expect(log.locator(".event.ok").first).to_contain_text("long_press at (")
        await tab.mouse.move(x, y + 120)
        await tab.mouse.down()
        await tab.mouse.move(x, y, steps=5)
        await tab.mouse.up()
        await expect(log.locator(".event.ok").first).to_contain_text("swipe")
        # the lease: another session's exclusive lease turns the controls off, and says whose
        async with connect(rh.url, token=CONTROLLER, name="robot-7") as robot:
            async with robot.device(rh.device_id).lease("exclusive"):
                lease = tab.get_by_test_id("act-lease")
                await expect(lease).to_contain_text("held by robot-7")
                await expect(lease).to_contain_text("you cannot act")
                await expect(tab.get_by_test_id("key-back")).to_be_disabled()
            await expect(tab.get_by_test_id("act-lease")).to_contain_text("lease: free")
            await expect(tab.get_by_test_id("key-back")).to_be_enabled()
            # the page holds it: the robot is refused, and the page shows that too
            await tab.get_by_test_id("lease-hold").click()
            await expect(tab.get_by_test_id("act-lease")).to_contain_text("lease: yours")
            with pytest.raises(Exception, match="leased by dashboard"):
                await robot.device(rh.device_id).tap(build_query(text="Login"))
            refused = log.locator(".event.refused").first
            await expect(refused).to_contain_text("robot-7")
            await tab.get_by_test_id("lease-release").click()
            await expect(tab.get_by_test_id("act-lease")).to_contain_text("lease: free")
        assert not missing, missing  # the favicon included


async def test_an_observer_sees_the_suggestions_but_no_act_controls() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await expect(tab.get_by_test_id("status")).to_contain_text("connected as observer")
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        snap = await _snapshot(rh)
        sign_in = next(n for n in snap.nodes if n.text == "Sign in")
        await tab.click(f'#tree [data-node="{sign_in.node_id}"]')
        await expect(tab.get_by_test_id("cli")).to_have_text(
            f"mobridge tap {rh.device_id} 'Sign in' --role BUTTON"
        )
        await expect(tab.get_by_test_id("yaml")).to_have_text(
            "- tap: {text: Sign in, role: BUTTON}"
        )
        await expect(tab.get_by_test_id("python")).to_have_text(
            'await dev.tap(build_query(text="Sign in", role="BUTTON"))'
        )
        assert await tab.get_by_test_id("act-bar").count() == 0
        assert await tab.get_by_test_id("act-picked").count() == 0
        # a click on the picture picks, never acts
        x, y = await _picture_point(tab, rh, "Sign in")
        await tab.mouse.click(x, y)
        await expect(tab.get_by_test_id("node-facts")).to_contain_text(sign_in.node_id)
        await tab.screenshot(path=shot_path("act-observer.png"))
        assert await tab.locator("#log .event.ok").count() == 0  # nothing was done


async def test_earlier_rows_of_the_timeline_have_no_stray_dot_when_they_wrap() -> None:
    async with running_hub(sim_scene="login", dashboard=page()) as rh:
        async with connect(rh.url, token=CONTROLLER, name="a-client-with-a-long-name") as actor:
            await actor.device(rh.device_id).tap_at(5, 2390)
        async with browser_tab(rh, f"#token={OBSERVER}") as (tab, expect):
            await tab.set_viewport_size({"width": 900, "height": 700})
            row = tab.locator("#log .event.past").first
            await expect(row).to_contain_text("a-client-with-a-long-name")
            after = await tab.evaluate(
                "() => getComputedStyle(document.querySelector('#log .event.past .when'),"
                " '::after').content"
            )
            assert after in ("none", "normal")  # no generated " ·" to dangle on its own line
            lines = await tab.evaluate(
                "() => { const r = document.createRange();"
                " r.selectNodeContents(document.querySelector('#log .event.past .when'));"
                " return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }"
            )
            assert lines == 1  # the time stays on one line, nothing dangles below it
