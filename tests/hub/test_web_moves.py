"""A WebView that moves keeps its page (``bridge.hub.web``): the page stays attached (no new
session), its content is on every screen the hub publishes meanwhile, and the re-ingested
pushes keep the agent's own word on stability (``WebService._restamp``)."""

from __future__ import annotations

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.hub.device import DeviceRuntime
from bridge.hub.web import WebService
from bridge.wire.agent_link import TreePush
from bridge.wire.conditions import Present
from bridge.wire.enums import Orientation, Platform, Role, VerificationResult
from bridge.wire.raw import RawTree, ScreenSize
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_web_chromium

EMAIL = "web:#email"


def _push(stable: bool) -> TreePush:
    tree = RawTree(
        capture=1, platform=Platform.ANDROID, screen=ScreenSize(width=10, height=10), nodes=()
    )
    return TreePush(reason="event", stable=stable, tree=tree, quiet_ms=120)


def test_a_reingested_push_is_stable_only_when_the_agents_own_push_was() -> None:
    web = WebService()
    sliding = _push(stable=False)  # an animation frame: the agent says not stable
    made = web._restamp("d", sliding, page_stable=True)
    assert (made.stable, made.quiet_ms) == (False, 0)
    again = web._restamp("d", made, page_stable=True)  # the device's last push is ours now
    assert not again.stable
    settled = _push(stable=True)  # the agent's next push: the screen came to rest
    assert web._restamp("d", settled, page_stable=True).stable
    assert not web._restamp("d", settled, page_stable=False).stable  # the page is loading
    calm = web._restamp("d", web.restamps["d"].push, page_stable=True)
    assert calm.stable and calm.tree is settled.tree
    assert web._restamp("other", sliding, page_stable=True).stable is False


def _shown(device: DeviceRuntime) -> tuple[tuple[int, int, int, int] | None, bool]:
    """The WebView's bounds and whether the form's email field lies inside them."""
    current = device.current
    assert current is not None
    nodes = current.normalized.compact.nodes
    view = next((n.bounds for n in nodes if n.role is Role.WEB_VIEW), None)
    email = next((n.bounds for n in nodes if n.automation_id == EMAIL), None)
    inside = (
        view is not None
        and email is not None
        and view[0] <= email[0] <= email[2] <= view[2]
        and view[1] <= email[1] <= email[3] <= view[3]
    )
    return view, inside


@need_web_chromium
@pytest.mark.anyio
async def test_a_turned_screen_keeps_the_page_attached_and_its_form_on_every_screen() -> None:
    async with running_hub(sim_scene="web") as rh, connect(rh.url, token=CONTROLLER) as c:
        dev = c.device(rh.device_id)
        shown = await dev.wait(Present(query=build_query(resource_id=EMAIL)), 60_000)
        assert shown.result is VerificationResult.CONDITION_MET, shown
        web = rh.hub.service.web
        device = rh.hub.service.devices[rh.device_id]
        attaches = web.counts.attaches
        before, inside = _shown(device)
        assert before is not None and inside
        lost: list[str] = []

        async def every_screen() -> None:
            while True:
                await device.changed.wait()
                view, _ = _shown(device)
                if view is not None and not any(
                    n.automation_id == EMAIL
                    for n in device.current.normalized.compact.nodes  # type: ignore[union-attr]
                ):
                    lost.append(f"{view}")

        async with anyio.create_task_group() as tg:
            tg.start_soon(every_screen)
            await dev.set_orientation(Orientation.LANDSCAPE)
            with anyio.fail_after(30):
                while True:
                    view, inside = _shown(device)
                    if view is not None and view != before and inside:
                        break
                    await device.changed.wait()
            tg.cancel_scope.cancel()
        assert lost == []
        assert web.counts.attaches == attaches  # the same session, read at the new place
