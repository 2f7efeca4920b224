"""Across languages, one failure class per scene: the Java agent core in host mode serving a
pathology scene (``scripts/run-android-agent-host --scene NAME``) <- the hub <- the Python
client. The scene steps and assertions shared with the Swift host agent live in
tests/e2e/pathology_scenario.py (``SHARED_SCENES``, run here by ``test_shared_scene``); this
file says how to start the Java agent and keeps what only Android has: the compressed layout,
the hidden-API cache clear, the exact node counts, the density change, and Submit under the
keyboard (a touch-only view: refused without the gesture fallback, tapped after the keyboard
is hidden with it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bridge.client import build_query, connect
from bridge.client.device import Device
from bridge.hub.app import Hub
from bridge.wire.node import SemanticNode
from tests.e2e.pathology_scenario import (
    SHARED_SCENES,
    PlatformFacts,
    by_id,
    full,
    raw_capture,
    run_scene,
    wait_text,
    with_text,
)
from tests.e2e.test_java_agent import HUB_TOKEN, hub_on, java_agent
from tests.skips import need_jdk

pytestmark = [pytest.mark.anyio, need_jdk]

ANDROID = PlatformFacts(
    settings_package="com.android.settings",
    dialog_question="Allow Demo to access this device's location?",
    depth_reason="depth limit 256 reached",
    deep_nodes=(250, 260),
)


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


@pytest.mark.parametrize("name", sorted(SHARED_SCENES))
async def test_shared_scene(name: str) -> None:
    await run_scene(name, scene, ANDROID)


async def test_large_scene_of_a_thousand_nodes_is_captured_whole() -> None:
    async with scene("large") as (hub, _dev):
        assert len((await raw_capture(hub)).nodes) == 1002


async def test_compressed_layout_is_smaller_and_keeps_every_text() -> None:
    async with scene("large", "--layout", "compressed") as (hub, dev):
        raw = await raw_capture(hub)
        assert len(raw.nodes) == 602
        assert not [n for n in raw.nodes if n.class_name == "android.widget.ImageView"]
        snap = await full(dev)
        assert len(with_text(snap, "Row 200")) == 1


async def test_a_refused_cache_clear_reaches_the_hub_as_capture_health() -> None:
    # Issue 34: before API 34 the clear is setServiceInfo (public): the hidden-API policy no
    # longer matters, a refused setServiceInfo still reaches the hub.
    async with scene("login", "--sdk", "30", "--hidden-api-blocked") as (hub, _dev):
        (device,) = hub.service.devices.values()
        assert not device.capture_warnings
    async with scene("login", "--sdk", "30", "--service-info-refused") as (hub, _dev):
        (device,) = hub.service.devices.values()
        assert device.capture_warnings
        assert "setServiceInfo" in device.capture_warnings[0]
        assert device.health_reason is not None and "setServiceInfo" in device.health_reason
        stats = hub.service.statistics()["devices"][device.id]
        assert stats["capture_warnings"] == list(device.capture_warnings)


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


async def test_fold_submit_is_never_tapped_through_the_keyboard() -> None:
    async with scene("fold") as (_hub, dev):
        # Submit offers no click action; without the gesture fallback nothing is tapped.
        refused = await dev.tap(build_query(text="Submit"))
        assert refused.dispatch.status.value != "DISPATCHED"
        assert not with_text(await full(dev), "Submitted")
        # With it, the keyboard covering Submit is hidden first, then Submit is tapped.
        done = await dev.tap(build_query(text="Submit"), allow_gesture_fallback=True)
        assert done.dispatch.status.value == "DISPATCHED"
        await wait_text(dev, "Submitted")


async def test_prefilled_field_has_focus_before_it_is_typed_into() -> None:
    async with scene("prefilled") as (_hub, dev):
        email = by_id(await full(dev), "email")
        assert (email.value or email.text) == "old@example.com"
        assert email.effective_state.focused


async def test_system_dialog_is_reported_as_the_permission_controller() -> None:
    async with scene("system-dialog") as (hub, dev):
        snap = await full(dev)
        assert snap.package_name == "com.android.permissioncontroller"
        assert with_text(snap, "Don't allow")
        (device,) = hub.service.devices.values()
        assert device.current is not None


def test_an_unknown_scene_is_refused_before_listening() -> None:
    with pytest.raises(AssertionError), java_agent(scene="nope"):
        pass
