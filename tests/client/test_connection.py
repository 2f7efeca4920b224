"""The connection: handshake and auth, request/response correlation, timeouts, formats and
the mapping of every refusal to its exception.

Behaviour runs against the real hub (``real``: in this process, simulated device). The
client-only FakeHub stays only where the fault cannot be made real or the test observes a
frame the real hub does not expose: a hub that never answers (SILENT), one that closes the
socket in the middle of a request (CLOSE), a result of the wrong shape, a refusal code the
simulated device cannot produce (SECURE_WINDOW, VERIFY_TIMEOUT on demand), the requests held
back by the in-flight limit, and the ``cancel`` frame a timed-out wait sends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from bridge.client import (
    AmbiguousError,
    ConfirmationRequired,
    ConnectionFailed,
    ConnectionLost,
    DeviceOffline,
    HubConnection,
    HubError,
    NotFoundError,
    PolicyBlockedError,
    ProtocolFailure,
    RequestTimeout,
    StaleRefError,
    build_query,
    connect,
)
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ActionEvent,
    Cancel,
    Confirm,
    Hello,
    Objection,
    Ping,
    PongResult,
    Wait,
)
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ErrorCode, ProtocolErrorCode
from bridge.wire.errors import ErrorEnvelope
from tests.client.fake_hub import CLOSE, DEVICE, SILENT, TOKEN, FakeHub
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session(fake: FakeHub, **options: Any) -> AsyncIterator[HubConnection]:
    options.setdefault("token", TOKEN)
    async with fake.serving() as url, connect(url, name="test-client", **options) as hub:
        yield hub


@asynccontextmanager
async def real(scene: str = "login", **options: Any) -> AsyncIterator[tuple[HubConnection, str]]:
    """A session with the real hub (simulated device on ``scene``) and the device's id."""
    options.setdefault("token", CONTROLLER)
    try:
        async with (
            running_hub(sim_scene=scene) as rh,
            connect(rh.url, name="test-client", **options) as hub,
        ):
            yield hub, rh.device_id
    except BaseExceptionGroup as group:  # the hub's task group wraps what the block raised
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


def envelope(code: ErrorCode, **extra: Any) -> ErrorEnvelope:
    return ErrorEnvelope(error=code, message=f"{code.value} here", recovery=("retry",), **extra)


# ---- handshake -----------------------------------------------------------------------------


async def test_hello_goes_first_with_the_bearer_header() -> None:
    async with real() as (hub, _):
        assert hub.session is not None and hub.session.role == "controller"
        await hub.ping()
    fake = FakeHub()  # what went on the wire: only a fake hub records the handshake's frames
    async with session(fake) as hub:
        await hub.ping()
    assert fake.auth_headers == [f"Bearer {TOKEN}"]
    assert fake.subprotocols == [SUBPROTOCOL_JSON]
    hello = fake.received[0]
    assert isinstance(hello, Hello)
    assert hello.client.name == "test-client" and hello.protocol == "mobridge.v1"
    assert hello.token is None  # the header carried it


async def test_token_may_travel_in_hello_instead() -> None:
    async with real(token_in="hello") as (hub, _):
        assert len(await hub.devices()) == 1
        assert hub.session is not None and hub.session.role == "controller"


async def test_wrong_header_token_is_refused_at_the_handshake() -> None:
    with pytest.raises(ProtocolFailure) as caught:
        async with real(token="wrong"):
            pass
    assert caught.value.code is ProtocolErrorCode.UNAUTHENTICATED


async def test_missing_token_is_refused_at_hello() -> None:
    with pytest.raises(ProtocolFailure) as caught:
        async with real(token=None, discover_token=False):
            pass
    assert caught.value.code is ProtocolErrorCode.UNAUTHENTICATED


async def test_nothing_listening_is_a_connection_failure() -> None:
    fake = FakeHub()
    async with fake.serving():
        url = fake.url
    with pytest.raises(ConnectionFailed):
        async with connect(url, token=TOKEN, request_timeout=2):
            pass


async def test_msgpack_format_negotiates_its_subprotocol_and_works() -> None:
    async with real("ambiguous", format="msgpack") as (hub, dev):
        found = await hub.device(dev).find(text="Continue")
        assert found.count == 2 and found.matches[0].node.text == "Continue"
        with pytest.raises(AmbiguousError):
            await hub.device(dev).tap(build_query(text="Continue"))
    fake = FakeHub()  # the negotiated subprotocol: only a fake hub records it
    async with session(fake, format="msgpack") as hub:
        await hub.ping()
    assert fake.subprotocols == [SUBPROTOCOL_MSGPACK]


# ---- correlation ---------------------------------------------------------------------------


async def test_answers_reach_their_requests_across_interleaved_events() -> None:
    async with real("menu") as (hub, dev):
        device = hub.device(dev)
        results: dict[str, Any] = {}
        async with hub.events() as events, device.watch() as watch:
            first = await watch.__anext__()

            async def slow_wait() -> None:  # sent first, answered last
                results["wait"] = await device.wait(ScreenShown(name="home"), timeout_ms=1500)

            async def the_rest() -> None:
                results["find"] = await device.find(text="Login")
                results["tap"] = await device.tap(build_query(text="Login"))
                results["devices"] = await hub.devices()
                results["snapshot"] = await device.snapshot()

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow_wait)
                tg.start_soon(the_rest)
            with anyio.fail_after(10):
                update = await watch.__anext__()
                event = await events.__anext__()
                while not isinstance(event, ActionEvent):
                    event = await events.__anext__()
        assert results["wait"].result.value == "CONDITION_NOT_MET"
        assert results["find"].count == 1
        assert "Login" in results["tap"].target.label
        assert results["devices"][0].id == dev
        assert update.seq > first.seq
        assert isinstance(event, ActionEvent) and event.target is not None
        assert "Login" in (event.target.label or "")
        stats = hub.statistics()
        assert stats.pending == 0 and stats.unmatched_answers == 0 and stats.events >= 2


async def test_a_silent_hub_times_out_and_the_connection_stays_usable() -> None:
    fake = FakeHub()
    fake.script("ping", SILENT)
    async with session(fake, request_timeout=0.2) as hub:
        with pytest.raises(RequestTimeout):
            await hub.ping()
        assert isinstance(RequestTimeout("x"), TimeoutError)
        await hub.ping()  # answered this time
        assert hub.statistics().pending == 0


async def test_requests_beyond_the_in_flight_limit_wait_for_a_slot() -> None:
    fake = FakeHub()
    fake.script("ping", SILENT, SILENT)
    async with session(fake) as hub:
        hub._inflight = anyio.Semaphore(2)  # the hub's limit is 64; 2 keeps the test small
        outcomes: list[str] = []

        async def ping(deadline: float) -> None:
            try:
                await hub.call(Ping(id=hub.next_id()), PongResult, deadline)
                outcomes.append("pong")
            except RequestTimeout:
                outcomes.append("timeout")

        async with anyio.create_task_group() as tg:
            tg.start_soon(ping, 0.3)
            tg.start_soon(ping, 0.3)
            await anyio.sleep(0.05)
            tg.start_soon(ping, 5.0)
            await anyio.sleep(0.15)
            assert sum(isinstance(m, Ping) for m in fake.received) == 2  # the third one waits
    assert sorted(outcomes) == ["pong", "timeout", "timeout"]
    assert sum(isinstance(m, Ping) for m in fake.received) == 3


async def test_a_timed_out_wait_is_cancelled_at_the_hub() -> None:
    fake = FakeHub()
    fake.script("wait", SILENT)
    async with session(fake, request_timeout=0.2) as hub:
        with pytest.raises(RequestTimeout):
            await hub.device(DEVICE).wait(ScreenShown(name="home"), timeout_ms=0)
        await hub.ping()
    waits = [m for m in fake.received if isinstance(m, Wait)]
    cancels = [m for m in fake.received if isinstance(m, Cancel)]
    assert len(waits) == 1 and [c.request for c in cancels] == [waits[0].id]


async def test_a_closed_connection_fails_pending_and_later_requests() -> None:
    fake = FakeHub()
    fake.script("find", CLOSE)
    async with session(fake) as hub:
        with pytest.raises(ConnectionLost):
            await hub.device(DEVICE).find(text="Sign in")
        with pytest.raises(ConnectionLost):
            await hub.ping()
        assert hub.closed


async def test_an_exception_in_the_block_propagates_unwrapped() -> None:
    with pytest.raises(KeyError):
        async with real():
            raise KeyError("mine")


async def test_a_protocol_error_without_id_is_recorded_and_survived() -> None:
    async with real() as (hub, _):
        await hub._ws.send("this is not json")
        await hub.ping()  # the hub answers frames in order: its complaint came first
        assert hub.last_protocol_error is not None
        assert hub.last_protocol_error.code is ProtocolErrorCode.MALFORMED
        assert hub.statistics().protocol_errors == 1


# ---- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (ErrorCode.NODE_NOT_FOUND, NotFoundError),
        (ErrorCode.STALE_NODE_REF, StaleRefError),
        (ErrorCode.POLICY_BLOCKED, PolicyBlockedError),
        (ErrorCode.DEVICE_OFFLINE, DeviceOffline),
        (ErrorCode.SECURE_WINDOW, HubError),
        (ErrorCode.VERIFY_TIMEOUT, HubError),
    ],
)
async def test_each_error_code_raises_its_exception(code: ErrorCode, kind: type[HubError]) -> None:
    fake = FakeHub()
    fake.script("act", envelope(code))
    async with session(fake) as hub:
        with pytest.raises(kind) as caught:
            await hub.device(DEVICE).tap(build_query(text="Sign in"))
    assert type(caught.value) is kind
    assert caught.value.code is code and caught.value.recovery == ("retry",)


async def test_hub_ambiguity_carries_its_candidates() -> None:
    async with real("ambiguous") as (hub, dev):
        device = hub.device(dev)
        refs = {m.ref.node_id for m in (await device.find(text="Continue")).matches}
        with pytest.raises(AmbiguousError) as caught:
            await device.tap(build_query(text="Continue"))
    assert {r.node_id for r in caught.value.candidates} == refs and caught.value.matches == ()


async def test_confirmation_required_carries_the_objection_to_answer() -> None:
    async with real("home") as (hub, dev):
        device = hub.device(dev)
        with pytest.raises(ConfirmationRequired) as caught:
            await device.terminate_app("dev.mobridge.demo")
        objection = caught.value.objection
        assert objection is not None and objection.answerable
        answer = Confirm(objection=objection.id, answer="approve")
        result = await device.terminate_app("dev.mobridge.demo", confirm=answer)
        assert result.dispatch.status.value == "DISPATCHED"


async def test_policy_refusal_keeps_its_objection() -> None:
    fake = FakeHub()
    blocked = Objection(id="o-1", answerable=False, reason="held by someone else")
    fake.script("act", (envelope(ErrorCode.POLICY_BLOCKED), blocked))
    async with session(fake) as hub:
        with pytest.raises(PolicyBlockedError) as caught:
            await hub.device(DEVICE).tap(build_query(text="Sign in"))
    assert caught.value.objection == blocked


async def test_protocol_errors_raise_protocol_failure() -> None:
    async with real() as (hub, _):
        with pytest.raises(ProtocolFailure) as caught:
            await hub.device("nope").find(text="x")
        assert caught.value.code is ProtocolErrorCode.UNKNOWN_DEVICE
        await hub.ping()


async def test_a_result_that_does_not_fit_its_request_is_a_protocol_failure() -> None:
    fake = FakeHub()
    fake.script("find", {"count": "many"})
    async with session(fake) as hub:
        with pytest.raises(ProtocolFailure) as caught:
            await hub.device(DEVICE).find(text="x")
    assert caught.value.code is ProtocolErrorCode.INVALID_PARAMS
