"""Device requests and helpers against the real hub (simulated device, in this process): what
each helper does to the screen and what comes back.

Issue 42.3: these ran against a canned fake hub and asserted the requests it received; they now
assert what the real hub did with them (the screen changed, the field holds the text, the
refusal names the real candidates). What no hub does for real is tested with the fake hub in
tests/client/test_connection.py and tests/client/test_watch.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bridge.client import (
    AmbiguousError,
    ClientError,
    Device,
    HubError,
    NotFoundError,
    ProtocolFailure,
    StaleRefError,
    build_query,
    connect,
)
from bridge.client.screenshot import capture_url, fetch_capture
from bridge.wire.client_protocol import ScreenshotResult
from bridge.wire.conditions import Present
from bridge.wire.enums import (
    ActionVerb,
    DispatchStatus,
    ProtocolErrorCode,
    Role,
    VerificationResult,
)
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, running_hub

pytestmark = pytest.mark.anyio
PACKAGE = "dev.mobridge.demo"


@asynccontextmanager
async def device_on(scene: str, name: str = "client-test") -> AsyncIterator[Device]:
    async with (
        running_hub(sim_scene=scene) as rh,
        connect(rh.url, token=CONTROLLER, name=name) as hub,
    ):
        yield hub.device(rh.device_id)


async def value_of(device: Device, resource_id: str) -> str | None:
    found = await device.find(resource_id=resource_id)
    assert found.count == 1, found
    return found.matches[0].node.value


async def test_find_by_keywords_builds_the_query() -> None:
    async with device_on("login") as device:
        buttons = await device.find(role="BUTTON")
        assert buttons.count >= 1 and all(m.node.role is Role.BUTTON for m in buttons.matches)
        username = (await device.find(resource_id="username")).matches
        assert len(username) == 1 and username[0].node.resource_id is not None
        assert (await device.find(label="Nothing like this")).count == 0
    with pytest.raises(ValueError, match="at least one field"):
        build_query()
    assert build_query(role="INPUT").role is Role.INPUT


async def test_tap_on_a_query_match_or_ref_acts_on_that_element() -> None:
    async with device_on("menu") as device:
        result = await device.tap(build_query(text="Login"))
        assert result.dispatch.status is DispatchStatus.DISPATCHED
        assert (await device.wait_for_screen("login")).result is VerificationResult.CONDITION_MET
        match = (await device.find(resource_id="password")).matches[0]
        tapped = await device.tap(match)  # a FindMatch: its ref
        assert tapped.target is not None and tapped.dispatch.status is DispatchStatus.DISPATCHED
        again = await device.tap(match.ref, idempotency_key="k-1")
        replay = await device.tap(match.ref, idempotency_key="k-1")
        assert replay.dispatch == again.dispatch  # the hub answered the key's first result
        long = await device.act_on(build_query(resource_id="username"), "LONG_CLICK")
        assert long.dispatch.status is DispatchStatus.DISPATCHED


async def test_tap_on_several_matches_raises_the_hubs_refusal() -> None:
    async with device_on("ambiguous") as device:
        with pytest.raises(AmbiguousError) as caught:
            await device.tap(build_query(text="Continue"))
        with pytest.raises(NotFoundError):
            await device.tap(build_query(text="Nowhere at all"))
        with pytest.raises(AmbiguousError) as client_side:
            await device.find_one(build_query(text="Continue"))
    # the hub's refusal carries candidate refs; find_one's also the matched nodes
    assert len(caught.value.candidates) == 2 and caught.value.matches == ()
    assert [m.node.text for m in client_side.value.matches] == ["Continue", "Continue"]
    assert {r.node_id for r in caught.value.candidates} == {
        m.node.node_id for m in client_side.value.matches
    }


async def test_type_text_sets_a_value_or_a_secret_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_CLIENT_PW", "pw-from-the-hub")
    async with device_on("login") as device:
        typed = await device.type_text(build_query(resource_id="username"), "demo")
        assert typed.dispatch.status is DispatchStatus.DISPATCHED
        assert await value_of(device, "username") == "demo"
        await device.type_text(build_query(resource_id="password"), value_ref="secret://client_pw")
        assert await value_of(device, "password") != "pw-from-the-hub"
        with pytest.raises(ValueError, match="exactly one"):
            await device.type_text(build_query(resource_id="password"))


async def test_scroll_back_home_and_app() -> None:
    async with device_on("list") as device:
        first = (await device.snapshot()).snapshot
        forward = await device.scroll(build_query(role="LIST"))
        assert forward.dispatch.status is DispatchStatus.DISPATCHED
        moved = (await device.snapshot()).snapshot
        assert moved.snapshot_id != first.snapshot_id
        back = await device.scroll(build_query(role="LIST"), forward=False)
        assert back.dispatch.status is DispatchStatus.DISPATCHED
        await device.back()
        home = await device.home()
        assert home.dispatch.status is DispatchStatus.DISPATCHED
        opened = await device.app("APP_OPEN", app_id=PACKAGE)
        assert opened.dispatch.status is DispatchStatus.DISPATCHED
        front = await device.snapshot()
        assert front.snapshot.package_name == PACKAGE


async def test_resolve_and_stale_refs() -> None:
    async with device_on("login") as device:
        found = await device.find(resource_id="username")
        ref = found.matches[0].ref
        resolved = await device.resolve(ref)
        assert resolved.node_id == found.matches[0].node.node_id
        generation = found.generation
        await device.back()  # the login screen goes away
        await device.wait_for_screen("menu")
        with pytest.raises(StaleRefError):
            await device.resolve(ref, generation=generation)


async def test_wait_returns_met_or_not_met_without_raising() -> None:
    async with device_on("login") as device:
        met = await device.wait(Present(query=build_query(text="Sign in")), timeout_ms=50)
        assert met.result is VerificationResult.CONDITION_MET
        not_met = await device.wait_for_screen("home", timeout_ms=50)
        assert not_met.result is VerificationResult.CONDITION_NOT_MET
        assert (await device.wait_for_screen("login")).result is VerificationResult.CONDITION_MET


async def test_lease_is_acquired_for_the_block_and_released_after() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="leaser") as hub,
    ):
        device = hub.device(rh.device_id)
        with pytest.raises(RuntimeError):
            async with device.lease("shared") as held:
                assert held.lease is not None and held.lease.mode == "shared"
                assert held.lease.holder_names == ("leaser",)
                async with connect(rh.url, token=CONTROLLER_2, name="intruder") as other:
                    with pytest.raises((HubError, ProtocolFailure)) as refused:
                        await other.device(rh.device_id).acquire_lease("exclusive")
                    assert "leaser" in str(refused.value), refused.value
                raise RuntimeError("released anyway")
        # released: another controller gets the exclusive lease at once
        async with connect(rh.url, token=CONTROLLER_2, name="next") as other:
            taken = await other.device(rh.device_id).acquire_lease("exclusive")
            assert taken.lease is not None and taken.lease.holder_names == ("next",)


async def test_screenshot_png_is_fetched_with_the_token() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="shots") as hub,
    ):
        device = hub.device(rh.device_id)
        capture = await device.screenshot()
        png = await device.fetch_screenshot(capture)
        assert png.startswith(b"\x89PNG") and len(png) == capture.bytes
        assert (await device.fetch_screenshot()).startswith(b"\x89PNG")
        with pytest.raises(ProtocolFailure) as caught:
            await fetch_capture(rh.url, "wrong-token", capture)
        assert caught.value.code is ProtocolErrorCode.UNAUTHENTICATED


def test_capture_urls_stay_on_the_hubs_origin() -> None:
    hub = "ws://127.0.0.1:8765/v1"
    assert capture_url(hub, "/v1/captures/c.png") == "http://127.0.0.1:8765/v1/captures/c.png"
    absolute = "http://127.0.0.1:8765/v1/captures/c.png"
    assert capture_url(hub, absolute) == absolute
    assert capture_url("wss://hub.example/v1", "c.png") == "https://hub.example:443/c.png"
    for elsewhere in (
        "http://evil.example:8765/c.png",
        "http://127.0.0.1:9999/c.png",
        "https://127.0.0.1:8765/c.png",
        "//evil.example/c.png",
    ):
        with pytest.raises(ClientError, match="not the hub's origin"):
            capture_url(hub, elsewhere)
    ScreenshotResult(capture="c", url="/x", width=1, height=1, bytes=0)  # constructible


def test_act_on_takes_a_verb_name_or_a_verb() -> None:
    assert ActionVerb("LONG_CLICK") is ActionVerb.LONG_CLICK
