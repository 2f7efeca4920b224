"""The ``web`` scene end to end: a real hub, the simulated device, and its WebView's page in
Debian's real headless Chromium. The page's form, list and modal are nodes of the one
screen; queries, refs, taps, typing, waits and verification treat them like native ones."""

from __future__ import annotations

import io

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.client.errors import AmbiguousError
from bridge.core.web_tree import is_web_node
from bridge.devices.web.page import BINDING, CdpPage
from bridge.wire.action import Verify
from bridge.wire.conditions import Present
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    DispatchStatus,
    ErrorCode,
    Role,
    VerificationPolicy,
    VerificationResult,
)
from bridge.wire.noderef import ResourceIdLocator
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_web_chromium

pytestmark = [pytest.mark.anyio, need_web_chromium]


async def _page_shown(dev):  # type: ignore[no-untyped-def]
    """Wait (on the hub's answer to a condition) until the page's form is on the screen."""
    got = await dev.wait(Present(query=build_query(resource_id="web:#email")), 60_000)
    assert got.result is VerificationResult.CONDITION_MET, got


async def test_the_form_is_part_of_the_screen_and_a_verified_login_works() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        snap = (await dev.snapshot()).snapshot
        web = [n for n in snap.nodes if is_web_node(n.automation_id)]
        by_id = {n.automation_id: n for n in web}
        assert by_id["web:#email"].role is Role.INPUT
        assert by_id["web:#password"].effective_state.password
        assert by_id["web:#signin"].role is Role.BUTTON
        webview = next(n for n in snap.nodes if n.role is Role.WEB_VIEW)
        assert webview.bounds is not None
        for node in web:  # every web node lies under the WebView, in device pixels
            assert node.bounds is None or (
                webview.bounds[0] <= node.bounds[0] and node.bounds[2] <= webview.bounds[2]
            )
        typed = await dev.type_text(build_query(label="Email", role="INPUT"), "demo@example.com")
        assert typed.dispatch.status is DispatchStatus.DISPATCHED
        after = {n.automation_id: n for n in (await dev.snapshot()).snapshot.nodes}
        assert after["web:#email"].value == "demo@example.com"
        await dev.type_text(build_query(label="Password", role="INPUT"), "s3cret-pw")
        whole = (await dev.snapshot(compact=False)).snapshot
        assert all("s3cret-pw" not in repr(n) for n in whole.nodes)
        welcome = Present(query=build_query(text="Welcome, demo@example.com"))
        result = await dev.tap(
            build_query(text="Sign in"),
            verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=welcome),
        )
        # a tap at the element's mapped point, through the native layer
        assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        rows = [n for n in (await dev.snapshot()).snapshot.nodes if n.role is Role.LIST_ITEM]
        assert len(rows) >= 5


async def test_a_typed_value_is_in_the_next_snapshot_when_the_pages_notice_never_comes() -> None:
    """Read-your-writes: an in-page act's answer waits for a read of the page begun after it
    (``bridge.hub.web.CAUGHT_UP_S``), so it does not depend on the page's change notice being
    on time. Here the notice is silenced altogether (the page's binding replaced by a no-op)."""
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        session = rh.hub.service.web.attached[rh.device_id].session
        assert isinstance(session, CdpPage)
        await session.client.call(
            "Runtime.evaluate", {"expression": f"window.{BINDING} = () => {{}}; 1"}
        )
        typed = await dev.type_text(build_query(label="Email", role="INPUT"), "late@example.com")
        assert typed.dispatch.status is DispatchStatus.DISPATCHED
        after = {n.automation_id: n for n in (await dev.snapshot()).snapshot.nodes}
        assert after["web:#email"].value == "late@example.com"


async def test_a_continue_on_both_sides_is_refused_listing_both() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        with pytest.raises(AmbiguousError) as refused:
            await dev.tap(build_query(text="Continue"))
        envelope = refused.value.envelope
        assert envelope.error is ErrorCode.AMBIGUOUS_MATCH
        ids = {
            loc.value
            for cand in envelope.candidates or ()
            for loc in cand.locators
            if isinstance(loc, ResourceIdLocator)
        }
        assert ids == {"dev.mobridge.demo:id/native_continue", "web:#continue"}
        # picked by its web id, the page's button is the one pressed
        done = await dev.tap(build_query(resource_id="web:#continue"))
        assert done.dispatch.status is DispatchStatus.DISPATCHED
        shown = await dev.wait(Present(query=build_query(text="Continued on the web")), 20_000)
        assert shown.result is VerificationResult.CONDITION_MET
        natives = [
            n for n in (await dev.snapshot()).snapshot.nodes if n.text == "Continued in the app"
        ]
        assert natives == []


async def test_the_modal_and_a_cdp_fallback_and_the_composed_picture() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        await dev.type_text(build_query(label="Email", role="INPUT"), "demo@example.com")
        await dev.type_text(build_query(label="Password", role="INPUT"), "pw")
        await dev.tap(build_query(text="Sign in"))
        await dev.wait(Present(query=build_query(text="Order details", role="BUTTON")), 20_000)
        await dev.tap(build_query(text="Order details", role="BUTTON"))
        dialog = await dev.wait(Present(query=build_query(role="DIALOG")), 20_000)
        assert dialog.result is VerificationResult.CONDITION_MET
        # the list behind the modal is inert: the page's tree no longer shows it
        snap = (await dev.snapshot()).snapshot
        assert not any(n.role is Role.LIST_ITEM for n in snap.nodes)
        # the picture: the page's pixels are composed into the WebView's box
        png = await dev.fetch_screenshot()
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB")
        webview = next(n for n in snap.nodes if n.role is Role.WEB_VIEW)
        assert webview.bounds is not None
        close = next(n for n in snap.nodes if n.text == "Close")
        assert close.bounds is not None
        x, y = (close.bounds[0] + close.bounds[2]) // 2, close.bounds[1] + 6
        red, green, blue = image.getpixel((x, y))  # the page's blue button, not the sim's
        assert blue > 150 and red < 80, (red, green, blue)
        await dev.tap(build_query(text="Close"))
        gone = await dev.wait(Present(query=build_query(text="Coffee beans")), 20_000)
        assert gone.result is VerificationResult.CONDITION_MET


async def test_an_element_below_the_fold_is_clicked_over_cdp() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        await dev.type_text(build_query(label="Email", role="INPUT"), "demo@example.com")
        await dev.type_text(build_query(label="Password", role="INPUT"), "pw")
        await dev.tap(build_query(text="Sign in"))
        found = await dev.wait(Present(query=build_query(text="Sign out")), 20_000)
        assert found.result is VerificationResult.CONDITION_MET
        snap = (await dev.snapshot(compact=False)).snapshot
        webview = next(n for n in snap.nodes if n.role is Role.WEB_VIEW)
        out = next(n for n in snap.nodes if n.text == "Sign out")
        assert out.bounds is not None and webview.bounds is not None
        assert out.bounds[1] >= webview.bounds[3]  # in the margin below the WebView
        result = await dev.tap(build_query(text="Sign out"))
        assert result.dispatch.method is ActionMethod.ACCESSIBILITY_ACTION
        back = await dev.wait(Present(query=build_query(resource_id="web:#signin")), 20_000)
        assert back.result is VerificationResult.CONDITION_MET


async def test_a_verb_the_page_cannot_take_is_refused() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        # as for a native element whose agent cannot: dispatched nowhere, rejected
        result = await dev.act_on(build_query(resource_id="web:#signin"), ActionVerb.SCROLL_FORWARD)
        assert result.dispatch.status is DispatchStatus.REJECTED


async def test_a_page_that_never_stops_changing_is_read_at_a_bounded_rate() -> None:
    """A hostile page mutates its DOM without pause: the hub keeps reading it, at most once
    per ``MIN_READ_GAP_S``, and keeps answering (the screen stays usable)."""
    import time

    import anyio

    from bridge.devices.web.cdp import CdpClient
    from bridge.hub.web import MIN_READ_GAP_S

    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        target = rh.hub.sim.webview.target
        assert target is not None
        page = await CdpClient.connect(target.ws_url)
        async with anyio.create_task_group() as tg:
            tg.start_soon(page.serve)
            spin = "setInterval(() => { document.title = String(Math.random()); }, 0)"
            await page.call("Runtime.evaluate", {"expression": spin})
            counts = rh.hub.service.web.counts
            start, began = counts.reads, time.perf_counter()
            with anyio.fail_after(30):
                while counts.reads < start + 25:
                    await dev.snapshot()  # the hub answers meanwhile
                    await anyio.sleep(0.02)  # a polite reader (requests are rate-limited)
            elapsed = time.perf_counter() - began
            assert elapsed >= 25 * MIN_READ_GAP_S * 0.9, elapsed
            await page.call("Runtime.evaluate", {"expression": "location.reload()"})
            tg.cancel_scope.cancel()


async def test_the_page_scrolls_until_a_target_is_in_view_and_says_when_at_the_end() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        await dev.type_text(build_query(label="Email", role="INPUT"), "demo@example.com")
        await dev.type_text(build_query(label="Password", role="INPUT"), "pw")
        await dev.tap(build_query(text="Sign in"))
        found = await dev.wait(Present(query=build_query(text="Sign out")), 20_000)
        assert found.result is VerificationResult.CONDITION_MET
        snap = (await dev.snapshot(compact=False)).snapshot
        webview = next(n for n in snap.nodes if n.role is Role.WEB_VIEW)
        assert webview.bounds is not None
        scrollers = [
            n
            for n in snap.nodes
            if is_web_node(n.automation_id) and ActionVerb.SCROLL_FORWARD in n.actions
        ]
        assert len(scrollers) == 1, scrollers  # the page itself
        page = build_query(resource_id=scrollers[0].automation_id)

        async def sign_out_bottom() -> int:
            nodes = (await dev.snapshot()).snapshot.nodes
            out = next(n for n in nodes if n.text == "Sign out")
            assert out.bounds is not None
            return out.bounds[3]

        assert webview.bounds is not None
        assert await sign_out_bottom() > webview.bounds[3]  # below the fold
        _, events = await c.subscribe(rh.device_id, compact=True)
        result = await dev.act_on(page, ActionVerb.SCROLL_FORWARD)
        assert result.dispatch.status is DispatchStatus.DISPATCHED, result
        assert result.dispatch.method is ActionMethod.ACCESSIBILITY_ACTION
        with anyio.fail_after(20):  # the page's scroll event brings the change: no polling
            while await sign_out_bottom() > webview.bounds[3]:
                await events.receive.receive()
        for _ in range(10):  # at the end, a scroll says nothing moved
            result = await dev.act_on(page, ActionVerb.SCROLL_FORWARD)
            if result.dispatch.status is not DispatchStatus.DISPATCHED:
                break
        assert result.dispatch.status is DispatchStatus.FAILED, result
        assert result.observation is not None and not result.observation.screen_changed
        back = await dev.act_on(page, ActionVerb.SCROLL_BACKWARD)
        assert back.dispatch.status is DispatchStatus.DISPATCHED


async def test_a_frames_document_is_merged_under_it_tapped_and_its_box_scrolled() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        await _page_shown(dev)
        contact = build_query(text="Contact us")
        got = await dev.wait(Present(query=contact), 20_000)
        assert got.result is VerificationResult.CONDITION_MET
        snap = (await dev.snapshot(compact=False)).snapshot
        by_node = {n.node_id: n for n in snap.nodes}
        button = next(n for n in snap.nodes if n.text == "Contact us")
        assert is_web_node(button.automation_id) and button.role is Role.BUTTON
        frame = by_node[button.parent_id or ""]
        while frame.text != "Help" and frame.parent_id is not None:
            frame = by_node[frame.parent_id]
        assert frame.text == "Help" and is_web_node(frame.automation_id)
        assert frame.bounds is not None and button.bounds is not None
        # the frame's elements are where the frame is: inside its box, in device pixels
        assert frame.bounds[0] <= button.bounds[0] and button.bounds[3] <= frame.bounds[3]
        assert button.bounds[1] > frame.bounds[1]
        welcome = Present(query=build_query(text="We will write to you"))
        result = await dev.tap(
            contact, verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=welcome)
        )
        assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        # the frame's scrolling box (its questions) takes SCROLL_*; the content moves
        scrollers = [
            n
            for n in (await dev.snapshot(compact=False)).snapshot.nodes
            if is_web_node(n.automation_id) and ActionVerb.SCROLL_FORWARD in n.actions
        ]
        # the questions' box (and, now that the answer made the frame's document taller,
        # the frame itself)
        assert "web:#faq" in {n.automation_id for n in scrollers}, scrollers
        moved = Verify(policy=VerificationPolicy.COLLECTION_POSITION_CHANGED, timeout_ms=5000)
        box = build_query(resource_id="web:#faq")
        result = await dev.act_on(box, ActionVerb.SCROLL_FORWARD, verify=moved)
        assert result.dispatch.status is DispatchStatus.DISPATCHED, result
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET, result
        last = build_query(text="How do I contact you?")
        for _ in range(6):
            nodes = (await dev.snapshot()).snapshot.nodes
            shown = next((n for n in nodes if n.text == "How do I contact you?"), None)
            faq = next(n for n in nodes if n.automation_id == "web:#faq")
            if (
                shown is not None
                and shown.bounds
                and faq.bounds
                and shown.bounds[3] <= faq.bounds[3]
            ):
                break
            await dev.act_on(box, ActionVerb.SCROLL_FORWARD, verify=moved)
        else:
            raise AssertionError("the last question never came into the box")
        assert (await dev.find(last)).matches
