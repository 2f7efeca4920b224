"""Device requests and helpers: what goes on the wire and what comes back (FakeHub)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bridge.client import (
    AmbiguousError,
    ClientError,
    Device,
    NotFoundError,
    ProtocolFailure,
    StaleRefError,
    build_query,
    connect,
)
from bridge.client.screenshot import capture_url, fetch_capture
from bridge.wire.action import ActionRequest
from bridge.wire.client_protocol import (
    Act,
    App,
    Global,
    LeaseAcquire,
    LeaseEvent,
    LeaseRelease,
    ScreenshotResult,
    Wait,
)
from bridge.wire.conditions import Present, ScreenShown
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    GlobalAction,
    ProtocolErrorCode,
    Role,
    VerificationResult,
)
from tests.client.fake_hub import DEVICE, PNG, TOKEN, FakeHub

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def device_of(fake: FakeHub) -> AsyncIterator[Device]:
    async with fake.serving() as url, connect(url, token=TOKEN) as hub:
        yield hub.device(DEVICE)


def acts(fake: FakeHub) -> list[ActionRequest]:
    return [m.request for m in fake.received if isinstance(m, Act)]


async def test_find_by_keywords_builds_the_query() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        assert (await device.find(role="BUTTON")).count == 4
        assert (await device.find(resource_id="username")).matches[0].node.node_id == "n2"
        assert (await device.find(label="Nothing")).count == 0
    with pytest.raises(ValueError, match="at least one field"):
        build_query()
    assert build_query(role="INPUT").role is Role.INPUT


async def test_tap_on_a_query_sends_the_query_for_the_hub_to_resolve() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        await device.tap(build_query(text="Sign in"))
        match = (await device.find(resource_id="password")).matches[0]
        await device.tap(match)  # a FindMatch: its ref, no generation
        await device.tap(match.ref, idempotency_key="k-1")
        await device.act_on(build_query(resource_id="username"), "LONG_CLICK")
    sent = [m for m in fake.received if isinstance(m, Act)]
    first, second, third, fourth = sent
    assert first.request.action is ActionVerb.CLICK and first.request.target is None
    assert first.query == build_query(text="Sign in")
    assert second.request.target == match.ref and second.query is None
    assert second.request.generation is None
    assert third.request.idempotency_key == "k-1"
    assert fourth.request.action is ActionVerb.LONG_CLICK
    assert fourth.query == build_query(resource_id="username")


async def test_tap_on_several_matches_raises_the_hubs_refusal() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        with pytest.raises(AmbiguousError) as caught:
            await device.tap(build_query(label="Continue"))
        with pytest.raises(NotFoundError):
            await device.tap(build_query(label="Nowhere"))
        with pytest.raises(AmbiguousError) as client_side:
            await device.find_one(build_query(label="Continue"))
    # the hub's refusal carries candidate refs; find_one's also the matched nodes
    assert [r.node_id for r in caught.value.candidates] == ["n5", "n6"]
    assert caught.value.matches == ()
    assert [m.node.node_id for m in client_side.value.matches] == ["n5", "n6"]


async def test_type_text_sends_a_value_or_a_secret_reference() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        await device.type_text(build_query(resource_id="username"), "demo")
        await device.type_text(build_query(resource_id="password"), value_ref="secret://pw")
        with pytest.raises(ValueError, match="exactly one"):
            await device.type_text(build_query(resource_id="password"))
    user, password = acts(fake)
    assert (user.action, user.value, user.value_ref) == (ActionVerb.SET_TEXT, "demo", None)
    assert (password.value, password.value_ref) == (None, "secret://pw")


async def test_scroll_back_home_and_app() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        await device.scroll(build_query(text="Sign in"))
        await device.scroll(build_query(text="Sign in"), forward=False)
        await device.back()
        await device.home()
        await device.app("APP_OPEN", app_id="dev.mobridge.demo")
    verbs = [r.action for r in acts(fake)]
    assert verbs == [ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD]
    globals_ = [m.action for m in fake.received if isinstance(m, Global)]
    assert globals_ == [GlobalAction.BACK, GlobalAction.HOME]
    (app,) = [m for m in fake.received if isinstance(m, App)]
    assert (app.action, app.app_id) == (AppAction.APP_OPEN, "dev.mobridge.demo")


async def test_resolve_and_stale_refs() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        ref = (await device.find(resource_id="login")).matches[0].ref
        resolved = await device.resolve(ref)
        assert resolved.node_id == "n4" and resolved.locator == "RESOURCE_ID"
        fake.current = fake.screens[2]
        with pytest.raises(StaleRefError):
            await device.resolve(ref, generation=1)


async def test_wait_returns_met_or_not_met_without_raising() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        met = await device.wait(Present(query=build_query(text="Sign in")), timeout_ms=50)
        assert met.result is VerificationResult.CONDITION_MET
        not_met = await device.wait_for_screen("home", timeout_ms=50)
        assert not_met.result is VerificationResult.CONDITION_NOT_MET
        assert (await device.wait_for_screen("login")).result is VerificationResult.CONDITION_MET
    waits = [m for m in fake.received if isinstance(m, Wait)]
    assert [w.timeout_ms for w in waits] == [50, 50, None]
    assert isinstance(waits[1].condition, ScreenShown)


async def test_lease_is_acquired_for_the_block_and_released_after() -> None:
    fake = FakeHub()
    async with fake.serving() as url, connect(url, token=TOKEN, name="leaser") as hub:
        device = hub.device(DEVICE)
        async with hub.events() as events:
            with pytest.raises(RuntimeError):
                async with device.lease("shared") as held:
                    assert held.lease is not None and held.lease.mode == "shared"
                    assert held.lease.holder_names == ("leaser",)
                    raise RuntimeError("released anyway")
            event = await events.__anext__()
    assert isinstance(event, LeaseEvent) and event.change == "acquired"
    kinds = [type(m) for m in fake.received if isinstance(m, LeaseAcquire | LeaseRelease)]
    assert kinds == [LeaseAcquire, LeaseRelease]


async def test_screenshot_png_is_fetched_with_the_token() -> None:
    fake = FakeHub()
    async with device_of(fake) as device:
        capture = await device.screenshot()
        assert capture.bytes == len(PNG)
        assert await device.fetch_screenshot(capture) == PNG
        assert (await device.fetch_screenshot()).startswith(b"\x89PNG")
        with pytest.raises(ProtocolFailure) as caught:
            await fetch_capture(fake.url, "wrong-token", capture)
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
