"""Across languages, one failure class per scene: the Java agent core in host mode serving a
pathology scene (``scripts/run-android-agent-host --scene NAME``) <- the hub <- the Python
client. Each test starts the agent on its scene, links a real hub to it and drives it with
``bridge.client`` as a user would: find, tap, type, wait.

Scenes (agents/android/host FakeScenes; the Swift host serves the same names and texts):
large, deep, busy, prefilled, other-app, landscape, fold, system-dialog, long-text; login is
the default (tests/e2e/test_java_agent.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.client.device import Device
from bridge.hub.app import Hub
from bridge.wire.agent_link import CaptureCommand
from bridge.wire.conditions import Present
from bridge.wire.enums import MatchMode
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawTree
from bridge.wire.snapshot import ScreenSnapshot
from tests.e2e.test_java_agent import HUB_TOKEN, hub_on, java_agent
from tests.skips import need_jdk

pytestmark = [pytest.mark.anyio, need_jdk]

DEMO = "dev.mobridge.demo"
LONG_TEXT_CHARS = 2000


@asynccontextmanager
async def scene(name: str, *extra: str) -> AsyncIterator[tuple[Hub, Device]]:
    """The Java host agent on scene ``name``, a hub linked to it, and a client's device."""
    with java_agent(scene=name, extra=extra) as (_proc, url):
        async with hub_on(url) as hub:
            device_id = next(iter(hub.service.devices))
            async with connect(
                f"ws://127.0.0.1:{hub.port}/v1", token=HUB_TOKEN, name="pathologies"
            ) as client:
                yield hub, client.device(device_id)


async def full(dev: Device) -> ScreenSnapshot:
    return (await dev.snapshot(compact=False)).snapshot


def with_text(snap: ScreenSnapshot, text: str) -> list[SemanticNode]:
    return [n for n in snap.nodes if text in (n.text, n.label, n.value)]


async def wait_text(dev: Device, text: str, timeout_ms: int = 5000) -> None:
    result = await dev.wait(Present(query=build_query(text=text)), timeout_ms=timeout_ms)
    assert result.result.value == "CONDITION_MET", text


async def raw_capture(hub: Hub) -> RawTree:
    """A whole capture straight from the agent over the hub's link."""
    (device,) = hub.service.devices.values()
    assert device.link is not None
    reply = await device.link.command(lambda cid: CaptureCommand(id=cid))
    assert reply.tree is not None
    return reply.tree


async def test_large_scene_of_a_thousand_nodes_is_captured_whole() -> None:
    async with scene("large") as (hub, dev):
        assert len((await raw_capture(hub)).nodes) == 1002
        snap = await full(dev)
        assert not snap.truncated
        assert len(with_text(snap, "Row 200")) == 1
        assert len(with_text(snap, "Detail 1")) == 1


async def test_compressed_layout_is_smaller_and_keeps_every_text() -> None:
    async with scene("large", "--layout", "compressed") as (hub, dev):
        raw = await raw_capture(hub)
        assert len(raw.nodes) == 602
        assert not [n for n in raw.nodes if n.class_name == "android.widget.ImageView"]
        snap = await full(dev)
        assert len(with_text(snap, "Row 200")) == 1


async def test_a_blocked_cache_clear_reaches_the_hub_as_capture_health() -> None:
    async with scene("login", "--sdk", "30", "--hidden-api-blocked") as (hub, _dev):
        (device,) = hub.service.devices.values()
        assert device.capture_warnings
        assert "hidden-API" in device.capture_warnings[0]
        assert device.health_reason is not None and "hidden-API" in device.health_reason
        stats = hub.service.statistics()["devices"][device.id]
        assert stats["capture_warnings"] == list(device.capture_warnings)


async def test_deep_scene_is_cut_at_the_depth_limit_and_marked_truncated() -> None:
    async with scene("deep") as (hub, dev):
        snap = await full(dev)
        assert snap.truncated
        assert not with_text(snap, "Deep leaf")
        (device,) = hub.service.devices.values()
        assert device.health_reason is not None
        assert "depth limit 256" in device.health_reason


async def test_busy_scene_keeps_pushing_and_answers_within_bounded_waits() -> None:
    async with scene("busy") as (_hub, dev):
        ticks: set[str] = set()
        async with dev.watch() as watch:
            with anyio.fail_after(5):
                async for update in watch:
                    ticks.update(
                        n.text for n in update.snapshot.nodes if n.text and "Tick" in n.text
                    )
                    if len(ticks) >= 3:
                        break
        with anyio.fail_after(10):
            typed = await dev.type_text(build_query(resource_id="note"), "hello")
        assert typed.dispatch.status.value == "DISPATCHED"
        with anyio.fail_after(10):
            tapped = await dev.tap(build_query(text="Stop"))
        assert tapped.dispatch.status.value == "DISPATCHED"
        result = await dev.wait(
            Present(query=build_query(text="Stopped at", match=MatchMode.CONTAINS)),
            timeout_ms=5000,
        )
        assert result.result.value == "CONDITION_MET"
        snap = await full(dev)
        (note,) = [n for n in snap.nodes if n.resource_id and n.resource_id.endswith("note")]
        assert (note.value or note.text) == "hello"


async def test_prefilled_field_is_replaced_exactly_and_focus_is_reported() -> None:
    async with scene("prefilled") as (_hub, dev):
        snap = await full(dev)
        (email,) = [n for n in snap.nodes if n.resource_id and n.resource_id.endswith("email")]
        assert (email.value or email.text) == "old@example.com"
        assert email.effective_state.focused
        result = await dev.type_text(build_query(resource_id="email"), "new@example.com")
        assert result.dispatch.status.value == "DISPATCHED"
        await wait_text(dev, "new@example.com")
        snap = await full(dev)
        (email,) = [n for n in snap.nodes if n.resource_id and n.resource_id.endswith("email")]
        assert (email.value or email.text) == "new@example.com"
        assert email.effective_state.focused


async def test_another_app_in_front_is_reported_by_its_package() -> None:
    async with scene("other-app") as (_hub, dev):
        snap = await full(dev)
        assert snap.package_name == "com.android.settings"
        assert with_text(snap, "Wi-Fi")
        assert all(n.text != "Wi-Fi" or n.resource_id is None for n in snap.nodes)


async def test_landscape_bounds_follow_a_density_change() -> None:
    async with scene("landscape") as (_hub, dev):
        snap = await full(dev)
        (title,) = with_text(snap, "Landscape")
        assert title.bounds is not None
        await dev.tap(build_query(text="Density"))
        await wait_text(dev, "Density 3.50")
        after = await full(dev)
        (scaled,) = with_text(after, "Landscape")
        assert scaled.bounds is not None
        assert scaled.bounds != title.bounds
        right_before, right_after = _right(title), _right(scaled)
        assert abs(right_after - right_before * 3.5 / 2.75) <= 1
        assert all(_right(n) <= 2400 for n in after.nodes if n.bounds is not None)


def _right(node: SemanticNode) -> int:
    b = node.bounds
    assert b is not None
    return b[2]


async def test_fold_row_below_is_scrolled_into_view_and_submit_is_never_tapped_through() -> None:
    async with scene("fold") as (_hub, dev):
        result = await dev.tap(build_query(text="Row 40"))
        assert result.dispatch.status.value == "DISPATCHED"
        await wait_text(dev, "Opened Row 40")
        # Submit offers no click action; without the gesture fallback nothing is tapped.
        refused = await dev.tap(build_query(text="Submit"))
        assert refused.dispatch.status.value != "DISPATCHED"
        assert not with_text(await full(dev), "Submitted")
        # With it, the keyboard covering Submit is hidden first, then Submit is tapped.
        done = await dev.tap(build_query(text="Submit"), allow_gesture_fallback=True)
        assert done.dispatch.status.value == "DISPATCHED"
        await wait_text(dev, "Submitted")


async def test_system_dialog_is_captured_with_the_app_behind_it() -> None:
    async with scene("system-dialog") as (hub, dev):
        snap = await full(dev)
        assert snap.package_name == "com.android.permissioncontroller"
        assert with_text(snap, "Allow Demo to access this device's location?")
        assert with_text(snap, "Don't allow")
        (device,) = hub.service.devices.values()
        assert device.current is not None
        await dev.tap(build_query(text="Allow"))
        await wait_text(dev, "Location allowed")
        assert (await full(dev)).package_name == DEMO


async def test_long_text_is_typed_whole_and_read_back() -> None:
    async with scene("long-text") as (_hub, dev):
        snap = await full(dev)
        assert [n for n in snap.nodes if n.text and len(n.text) == LONG_TEXT_CHARS]
        text = "".join(f"w{i}," for i in range(600))[:LONG_TEXT_CHARS]
        assert len(text) == LONG_TEXT_CHARS
        with anyio.fail_after(30):
            result = await dev.type_text(build_query(resource_id="bio"), text)
        assert result.dispatch.status.value == "DISPATCHED", result
        snap = await full(dev)
        (bio,) = [n for n in snap.nodes if n.resource_id and n.resource_id.endswith("bio")]
        assert (bio.value or bio.text) == text


def test_an_unknown_scene_is_refused_before_listening() -> None:
    with pytest.raises(AssertionError), java_agent(scene="nope"):
        pass
