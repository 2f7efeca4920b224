"""Issue 39, "live state": the inspector in a real browser (Debian's Chromium driven by
Playwright) against real hubs with the simulated device. When the hub stops the page greys
out within 2 s (its controls inert) and, when a hub is back on the same port, it reconnects by
itself with back-off, without a reload, within 5 s, subscribes again and says what it missed;
the selected element's facts follow what is typed into it; another session's lease leaves
Pick and Act usable (Act-mode clicks pick); after one page vetoes, another page's countdown
stops and says who vetoed; an observer's page has no working Veto button.

Screenshots go to ``$MOBRIDGE_TEST_OUTPUT/dashboard/``: live-offline.png (the greyed page while
the hub is down), live-back.png (live again, what it missed).
"""

from __future__ import annotations

import re
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.dashboard import page
from bridge.devices.sim import SimConfig, SimDevice
from bridge.hub.app import AgentTarget
from tests.dashboard.test_dashboard_browser import browser_tab, shot_path, until
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


@dataclass
class Port:
    port: int


async def _node_id(rh: RunningHub, **fields: str) -> str:
    async with connect(rh.url, token=OBSERVER, name="check") as hub:
        snap = (await hub.device(rh.device_id).snapshot(compact=False)).snapshot
    for n in snap.nodes:
        if all(getattr(n, k) == v for k, v in fields.items()):
            return n.node_id
    raise AssertionError(f"no node with {fields}")


async def test_the_page_greys_when_the_hub_stops_and_comes_back_by_itself() -> None:
    with anyio.fail_after(90):
        async with AsyncExitStack() as first:
            rh = await first.enter_async_context(running_hub(sim_scene="login", dashboard=page()))
            port = rh.port
            async with browser_tab(Port(port), f"#token={CONTROLLER}") as (tab, expect):
                status = tab.get_by_test_id("status")
                await expect(status).to_contain_text("connected as controller")
                await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
                assert not await tab.evaluate("() => document.body.classList.contains('offline')")
                # the hub stops: the page greys out within 2 s, its controls inert
                stopped = time.monotonic()
                await first.aclose()
                with anyio.fail_after(2):
                    while not await tab.evaluate(
                        "() => document.body.classList.contains('offline')"
                    ):
                        await anyio.sleep(0.02)
                grey_s = time.monotonic() - stopped
                assert await tab.evaluate("() => document.getElementById('main').inert")
                assert (
                    await tab.evaluate(
                        "() => getComputedStyle(document.getElementById('main')).filter"
                    )
                    == "grayscale(1)"
                )
                await expect(status).to_contain_text("disconnected")
                await expect(status).to_contain_text("retrying in")
                await expect(tab.get_by_test_id("devices")).to_contain_text("unknown")
                await tab.screenshot(path=shot_path("live-offline.png"))
                # a hub on the same port: live again within 5 s, no reload
                loads = await tab.evaluate(
                    "() => performance.getEntriesByType('navigation').length"
                )
                async with running_hub(sim_scene="login", dashboard=page(), port=port) as again:
                    restarted = time.monotonic()
                    async with connect(again.url, token=CONTROLLER, name="while-away") as robot:
                        await robot.device(again.device_id).tap(build_query(text="Sign in"))
                    with anyio.fail_after(5):
                        while await tab.evaluate(
                            "() => document.body.classList.contains('offline')"
                        ):
                            await anyio.sleep(0.02)
                    live_s = time.monotonic() - restarted
                    await expect(status).to_contain_text("connected as controller")
                    await expect(status).to_contain_text("back after")
                    await expect(status).to_contain_text("missed")
                    assert not await tab.evaluate("() => document.getElementById('main').inert")
                    # subscribed again: the new hub's screen and its activity are shown
                    # (the page may have answered before the new hub's device linked: it
                    # then finds the device at its next listing, 2 s on; 15 s is a failsafe)
                    await expect(tab.get_by_test_id("screen-meta")).to_contain_text(
                        "login", timeout=15_000
                    )
                    await expect(
                        tab.locator("#log .event", has_text="while-away").first
                    ).to_be_visible()
                    said = await status.text_content()
                    assert said is not None
                    # what happened while away is marked, and the count said is the count marked:
                    # the new hub's device came online before the page could reconnect, so at
                    # least that; the tap is among them only if it came before the page was back
                    told = re.search(r"missed (\d+) events?", said)
                    assert told is not None, said
                    marked = tab.locator("#log .event.missed")
                    await expect(marked).to_have_count(int(told.group(1)))
                    await expect(marked.filter(has_text="online").first).to_be_visible()
                    await tab.screenshot(path=shot_path("live-back.png"))
                    assert (
                        await tab.evaluate(
                            "() => performance.getEntriesByType('navigation').length"
                        )
                        == loads
                    )
                    print(
                        f"greyed {grey_s:.2f} s after the stop, "
                        f"live {live_s:.2f} s after the restart"
                    )


async def test_a_device_linked_after_the_page_connected_is_listed_and_can_be_shown() -> None:
    """A phone plugged in after the page connected, or a hub that answered the page before
    its agent linked (a restart's window, which a loaded machine widens: the page then said
    ``no devices yet`` for good). The hub tells a device's changes only to its watchers, so
    the page lists the devices again every 2 s: the new device appears, online, and showing
    it shows its screen."""
    late = SimDevice(SimConfig(token="late-agent-token", scene="login", device_id="sim-late"))
    async with anyio.create_task_group() as tg:
        late_port = await tg.start(late.serve)
        async with (
            running_hub(sim_scene="menu", dashboard=page()) as rh,
            browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
        ):
            devices = tab.get_by_test_id("devices")
            await expect(devices).to_contain_text(rh.device_id)
            await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
            assert "sim-late" not in (await devices.text_content() or "")
            rh.hub.attach(AgentTarget(f"ws://127.0.0.1:{late_port}", "late-agent-token"))
            card = tab.locator('[data-device="sim-late"]')
            await expect(card).to_contain_text("online", timeout=30_000)  # a failsafe: 2 s polls
            await card.click()
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login", timeout=30_000)
        tg.cancel_scope.cancel()


async def test_the_selected_fields_facts_follow_what_is_typed_and_its_query_is_its_id() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        user = await _node_id(rh, hint="Username")
        await tab.click(f'#tree [data-node="{user}"]')
        # the picked field's text box has the focus: typing goes straight to it
        await expect(tab.get_by_test_id("act-text")).to_be_focused()
        await tab.keyboard.type("demo")
        await tab.keyboard.press("Enter")
        facts = tab.get_by_test_id("node-facts")
        await expect(facts).to_contain_text("demo", timeout=5000)
        await expect(tab.get_by_test_id("cli")).to_have_text(
            f"mobridge type {rh.device_id} --id username --value TEXT"
        )
        await expect(tab.get_by_test_id("yaml")).to_have_text(
            "- inputText: {into: {id: username}, text: TEXT}"
        )
        selectors = tab.get_by_test_id("selectors")
        await expect(selectors.locator("li").first).to_contain_text("#username — 1 match")


async def test_look_alikes_are_told_apart_by_within_like_the_cli() -> None:
    async with (
        running_hub(sim_scene="ambiguous", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        async with connect(rh.url, token=OBSERVER, name="check") as hub:
            snap = (await hub.device(rh.device_id).snapshot(compact=False)).snapshot
        second = [n for n in snap.nodes if n.text == "Continue"][1]
        await tab.click(f'#tree [data-node="{second.node_id}"]')
        cli = tab.get_by_test_id("cli")
        await expect(cli).to_contain_text("--within")
        assert "--nth" not in (await cli.text_content() or "")
        # the suggested command finds exactly that one element, by the hub's own rules
        yaml = await tab.get_by_test_id("yaml").text_content()
        assert yaml is not None and "within: " in yaml
        within = yaml.split("within: ")[1].split("}")[0].strip().strip('"')
        async with connect(rh.url, token=OBSERVER, name="check") as hub:
            query = build_query(text="Continue", role="BUTTON")
            import msgspec

            from bridge.wire.query import TextMatch, Within

            found = await hub.device(rh.device_id).find(
                msgspec.structs.replace(query, within=Within(text=TextMatch(value=within)))
            )
        assert [m.node.node_id for m in found.matches] == [second.node_id]


async def test_another_sessions_lease_leaves_pick_and_act_usable() -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.get_by_test_id("mode-act").click()
        async with connect(rh.url, token=CONTROLLER, name="robot-7") as robot:
            async with robot.device(rh.device_id).lease("exclusive"):
                await expect(tab.get_by_test_id("act-lease")).to_contain_text("held by robot-7")
                await expect(tab.get_by_test_id("mode-pick")).to_be_enabled()
                await expect(tab.get_by_test_id("mode-act")).to_be_enabled()
                await expect(tab.get_by_test_id("act-result")).to_contain_text("clicks pick")
                # an Act-mode click picks while the lease is someone else's
                box = await tab.get_by_test_id("shot").bounding_box()
                assert box is not None
                async with connect(rh.url, token=OBSERVER, name="check") as hub:
                    snap = (await hub.device(rh.device_id).snapshot(compact=False)).snapshot
                sign_in = next(n for n in snap.nodes if n.text == "Sign in")
                root = snap.nodes[0].bounds
                b = sign_in.bounds
                x = box["x"] + ((b[0] + b[2]) / 2 - root[0]) / (root[2] - root[0]) * box["width"]
                y = box["y"] + ((b[1] + b[3]) / 2 - root[1]) / (root[3] - root[1]) * box["height"]
                await tab.mouse.click(x, y)
                await expect(tab.get_by_test_id("node-facts")).to_contain_text(sign_in.node_id)
                await tab.get_by_test_id("mode-pick").click()
                await expect(tab.get_by_test_id("mode-pick")).to_have_class("on")
            await expect(tab.get_by_test_id("act-lease")).to_contain_text("lease: free")


async def _announced(tab: Any, expect: Any) -> Any:
    row = tab.get_by_test_id("veto-intent")
    await expect(row).to_contain_text("will CLICK")
    return row


async def test_a_veto_stops_every_pages_countdown_and_an_observer_cannot_veto() -> None:
    with anyio.fail_after(90):
        async with (
            running_hub(sim_scene="login", dashboard=page(), veto_window_ms=15_000) as rh,
            browser_tab(rh, f"#token={CONTROLLER}") as (person, expect),
        ):
            watcher = await person.context.browser.new_page()
            await watcher.goto(f"http://127.0.0.1:{rh.port}/dashboard#token={OBSERVER}")
            await expect(person.get_by_test_id("status")).to_contain_text("connected as")
            await expect(watcher.get_by_test_id("status")).to_contain_text("connected as observer")
            await until(watcher, "() => !!document.getElementById('shot').naturalWidth")
            answers: list[BaseException | None] = []
            async with (
                connect(rh.url, token=CONTROLLER_2_TOKEN, name="agent-2") as agent,
                anyio.create_task_group() as tg,
            ):

                async def click() -> None:
                    try:
                        await agent.device(rh.device_id).tap(build_query(text="Sign in"))
                        answers.append(None)
                    except Exception as exc:  # the refusal is what this test reads
                        answers.append(exc)

                tg.start_soon(click)
                mine = await _announced(person, expect)
                theirs = await _announced(watcher, expect)
                # an observer's page: the button is there but does nothing, and says why
                await expect(theirs.get_by_test_id("veto")).to_be_disabled()
                assert "observer" in (
                    await theirs.get_by_test_id("veto").get_attribute("title") or ""
                )
                await mine.get_by_test_id("veto").click()
                await expect(mine).to_contain_text("Vetoed")
                # the other page's countdown stops, and it says who vetoed
                await expect(theirs).to_contain_text("Vetoed by dashboard", timeout=3000)
                countdown = await theirs.evaluate("(row) => row.countdown.textContent")
                assert countdown == ""
            assert answers and answers[0] is not None and "vetoed" in str(answers[0])


CONTROLLER_2_TOKEN = "second-controller-token"
