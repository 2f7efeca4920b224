"""Two WebViews on one screen (the simulated device's ``web2`` scene: the web shop above, a
news page below, each a tab of Debian's real headless Chromium): each page is merged under
its own WebView, typed into and tapped there, and a name both pages show is refused as
ambiguous listing both."""

from __future__ import annotations

import pytest

from bridge.client import build_query, connect
from bridge.client.errors import AmbiguousError
from bridge.core.web_tree import is_web_node
from bridge.wire.action import Verify
from bridge.wire.conditions import AllOf, Present
from bridge.wire.enums import (
    ActionMethod,
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


async def test_each_page_is_merged_under_its_own_webview_and_acted_on_there() -> None:
    async with running_hub(sim_scene="web2") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        both = AllOf(
            conditions=tuple(
                Present(query=build_query(resource_id=rid)) for rid in ("web:#email", "web:#q")
            )
        )
        got = await dev.wait(both, 60_000)  # (the second page may come up after the first)
        assert got.result is VerificationResult.CONDITION_MET
        snap = (await dev.snapshot(compact=False)).snapshot
        by_node = {n.node_id: n for n in snap.nodes}
        views = [n for n in snap.nodes if n.role is Role.WEB_VIEW]
        assert len(views) == 2

        def webview_of(automation_id: str) -> str:
            node = next(n for n in snap.nodes if n.automation_id == automation_id)
            while node.role is not Role.WEB_VIEW:
                assert node.parent_id is not None, automation_id
                node = by_node[node.parent_id]
            return node.node_id

        shop, news = webview_of("web:#email"), webview_of("web:#q")
        assert shop != news and {shop, news} == {v.node_id for v in views}
        for rid, view in (("web:#signin", shop), ("web:#news-signin", news)):
            node = next(n for n in snap.nodes if n.automation_id == rid)
            box = by_node[view].bounds
            assert node.bounds is not None and box is not None
            assert box[1] <= node.bounds[1] and node.bounds[3] <= box[3], (rid, node.bounds, box)
        assert all(
            webview_of(n.automation_id or "") in (shop, news)
            for n in snap.nodes
            if is_web_node(n.automation_id) and n.bounds is not None
        )

        # "Sign in" is on both pages: refused, listing both
        with pytest.raises(AmbiguousError) as refused:
            await dev.tap(build_query(text="Sign in"))
        envelope = refused.value.envelope
        assert envelope.error is ErrorCode.AMBIGUOUS_MATCH
        ids = {
            loc.value
            for cand in envelope.candidates or ()
            for loc in cand.locators
            if isinstance(loc, ResourceIdLocator)
        }
        assert ids == {"web:#signin", "web:#news-signin"}

        # typed into the lower page, tapped there through the native layer
        typed = await dev.type_text(build_query(label="Search news", role="INPUT"), "weather")
        assert typed.dispatch.status is DispatchStatus.DISPATCHED
        after = {n.automation_id: n for n in (await dev.snapshot()).snapshot.nodes}
        assert after["web:#q"].value == "weather"
        assert after["web:#email"].value in (None, "")
        signed = Present(query=build_query(text="Signed in to news"))
        result = await dev.tap(
            build_query(resource_id="web:#news-signin"),
            verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=signed),
        )
        assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
        assert result.verification is not None
        assert result.verification.result is VerificationResult.CONDITION_MET
        stats = rh.hub.service.web.device_state(rh.device_id)
        assert stats is not None and stats["pages"] == 2
