"""End to end over real sockets on 127.0.0.1: the hub, the simulated device, the client."""

from __future__ import annotations

import json
import os

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.client import (
    HubError,
    ProtocolFailure,
    StaleRefError,
    apply_delta,
    build_query,
    connect,
)
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.client_protocol import DeltaEvent, SnapshotEvent
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, ErrorCode, GlobalAction, VerificationPolicy
from bridge.wire.query import SemanticQuery, TextMatch
from bridge.wire.snapshot import ScreenSnapshot
from tests.conftest import SHARED_DIR
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


def _validate(kind: str, obj: object) -> None:
    if not SHARED_DIR.is_dir():
        return
    from tests.wire.schemas import reference_validator

    doc = json.loads(msgspec.json.encode(obj))
    errors = list(reference_validator(kind).iter_errors(doc))
    assert not errors, (kind, [e.message for e in errors[:3]])


async def test_login_flow_with_verification_and_reference_conformance() -> None:
    os.environ["MOBRIDGE_SECRET_DEMO_PASSWORD"] = "hunter2-secret"
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="e2e") as hub,
    ):
        dev = hub.device(rh.device_id)
        snap = await dev.snapshot()
        _validate("snapshot", snap.snapshot)
        user = await dev.find(build_query(resource_id="username"))
        assert user.count == 1
        _validate("noderef", user.matches[0].ref)
        result = await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo")
        )
        _validate("action-result", result)
        pw = await dev.find(build_query(resource_id="password"))
        result = await dev.act(
            ActionRequest(
                action=ActionVerb.SET_TEXT,
                target=pw.matches[0].ref,
                value_ref="secret://demo/password",
            )
        )
        assert "hunter2" not in msgspec.json.encode(result).decode()
        sign_in = await dev.find(SemanticQuery(text=TextMatch(value="Sign in")))
        assert sign_in.count == 1
        result = await dev.act(
            ActionRequest(
                action=ActionVerb.CLICK,
                target=sign_in.matches[0].ref,
                verify=Verify(
                    policy=VerificationPolicy.EXPLICIT_CONDITION,
                    expected=ScreenShown(name="home"),
                    timeout_ms=5000,
                ),
            )
        )
        _validate("action-result", result)
        assert result.verification is not None
        assert result.verification.result.value == "CONDITION_MET"
        assert result.observation.screen_changed
        waited = await dev.wait(ScreenShown(name="home"))
        assert waited.result.value == "CONDITION_MET"
        after = await dev.snapshot(compact=False)
        assert "hunter2" not in msgspec.json.encode(after).decode()


async def test_two_controllers_stale_ref_and_exclusive_lease() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="a") as a,
        connect(rh.url, token=CONTROLLER_2, name="b") as b,
    ):
        da, db = a.device(rh.device_id), b.device(rh.device_id)
        found = await da.find(build_query(resource_id="username"))
        ref, generation = found.matches[0].ref, found.generation
        await db.back()  # b navigates away
        with anyio.fail_after(5):
            while (await db.snapshot()).generation == generation:
                await anyio.sleep(0.05)
        with pytest.raises((StaleRefError, HubError)) as info:
            await da.act(
                ActionRequest(
                    action=ActionVerb.SET_TEXT, target=ref, value="x", generation=generation
                )
            )
        assert isinstance(info.value, HubError)
        assert info.value.code in (ErrorCode.STALE_NODE_REF, ErrorCode.NODE_NOT_FOUND)
        await da.acquire_lease("exclusive")
        with pytest.raises(HubError) as blocked:
            await db.back()
        assert blocked.value.code is ErrorCode.POLICY_BLOCKED
        assert "a" in blocked.value.envelope.message
        await da.release_lease()
        await db.global_action(GlobalAction.BACK)


async def test_ticking_clock_does_not_invalidate_refs_on_home() -> None:
    async with (
        running_hub(sim_scene="home") as rh,
        connect(rh.url, token=CONTROLLER, name="clock") as hub,
    ):
        dev = hub.device(rh.device_id)
        found = await dev.find(build_query(role="BUTTON"))
        assert found.count >= 1
        ref, generation = found.matches[0].ref, found.generation
        with anyio.fail_after(5):
            while (await dev.snapshot()).generation == generation:
                await anyio.sleep(0.1)
        resolved = await dev.resolve(ref, generation=generation)
        assert resolved.node_id == ref.node_id


async def test_many_subscribers_reconstruct_snapshot_from_deltas() -> None:
    """50 raw websocket subscribers apply every delta to their snapshot; each must end on the
    hub's own current snapshot, node for node. The home screen's clock keeps ticking, so the
    check is made at a moment when the subscribers and the hub agree on the snapshot id
    (asked again until they do: under load a tick can fall between the two reads)."""
    subscribers = 50
    async with running_hub(sim_scene="home") as rh:
        latest: dict[int, ScreenSnapshot] = {}
        moved = [anyio.Event()]  # set when any subscriber's snapshot changes

        async def follow(i: int, done: anyio.Event) -> None:
            async with ws_connect(
                rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "id": 1, "client": {"name": f"s{i}"}}))
                await ws.recv()
                await ws.send(json.dumps({"type": "subscribe", "id": 2, "device": rh.device_id}))
                res = json.loads(await ws.recv())["result"]
                snap = msgspec.convert(res["snapshot"], type=ScreenSnapshot)
                seq = res["seq"]
                deltas = 0
                latest[i] = snap
                moved[0].set()
                while True:
                    msg = msgspec.json.decode(await ws.recv())
                    if msg.get("type") == "delta":
                        ev = msgspec.convert(msg, type=DeltaEvent)
                        assert ev.seq == seq + 1 and ev.base == snap.snapshot_id
                        seq = ev.seq
                        snap = apply_delta(snap, ev)
                        deltas += 1
                    elif msg.get("type") == "snapshot":
                        ev2 = msgspec.convert(msg, type=SnapshotEvent)
                        snap, seq = ev2.snapshot, ev2.seq
                    latest[i] = snap
                    moved[0].set()
                    if deltas >= 2:
                        done.set()

        async with anyio.create_task_group() as tg:
            dones = [anyio.Event() for _ in range(subscribers)]
            for i in range(subscribers):
                tg.start_soon(follow, i, dones[i])
            with anyio.fail_after(60):
                for d in dones:
                    await d.wait()
                async with connect(rh.url, token=OBSERVER, name="check") as hub:
                    while True:
                        # armed before the hub is asked: a subscriber that moves after the
                        # answer wakes the next try
                        waiting = moved[0] = anyio.Event()
                        truth = (await hub.device(rh.device_id).snapshot()).snapshot
                        caught_up = [
                            s for s in latest.values() if s.snapshot_id == truth.snapshot_id
                        ]
                        if len(caught_up) == subscribers:
                            break
                        await waiting.wait()
            for snap in caught_up:
                assert snap.nodes == truth.nodes
            tg.cancel_scope.cancel()


async def test_bad_clients_get_clear_errors_and_the_hub_keeps_serving() -> None:
    async with running_hub(sim_scene="login") as rh:
        # wrong token in the header: refused at the handshake
        with pytest.raises(Exception) as denied:
            async with ws_connect(rh.url, additional_headers={"Authorization": "Bearer nope"}):
                pass
        assert "401" in str(denied.value)
        async with ws_connect(rh.url) as ws:
            # no hello yet: any request is refused
            await ws.send(json.dumps({"type": "ping", "id": 1}))
            assert json.loads(await ws.recv())["code"] == "UNAUTHENTICATED"
            await ws.send(
                json.dumps({"type": "hello", "id": 2, "client": {"name": "x"}, "token": OBSERVER})
            )
            assert json.loads(await ws.recv())["type"] == "result"
            await ws.send("{not json")
            assert json.loads(await ws.recv())["code"] == "MALFORMED"
            await ws.send(json.dumps({"type": "launch.missiles", "id": 3}))
            reply = json.loads(await ws.recv())
            assert reply["code"] == "UNKNOWN_TYPE" and reply["id"] == 3
            await ws.send("x" * (2 << 20))
            assert json.loads(await ws.recv())["code"] == "TOO_LARGE"
            await ws.send(
                json.dumps(
                    {
                        "type": "find",
                        "id": 4,
                        "device": rh.device_id,
                        "query": {"text": {"value": "(?!x)a", "match": "REGEX"}},
                    }
                )
            )
            assert json.loads(await ws.recv())["code"] == "INVALID_PARAMS"
            await ws.send(
                json.dumps({"type": "global", "id": 5, "device": rh.device_id, "action": "BACK"})
            )
            assert json.loads(await ws.recv())["code"] == "FORBIDDEN"
            await ws.send(json.dumps({"type": "ping", "id": 6}))
            assert json.loads(await ws.recv()) == {"type": "result", "id": 6, "result": {}}
        async with connect(rh.url, token=CONTROLLER, name="after") as hub:
            assert (await hub.devices())[0].online
        with pytest.raises(ProtocolFailure):
            async with connect(rh.url, token=None, discover_token=False, name="anon"):
                pass


async def test_screenshot_capture_is_fetched_over_http_with_auth_and_stats_are_served() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="shot") as hub,
    ):
        dev = hub.device(rh.device_id)
        shot = await dev.screenshot()
        assert shot.url.startswith(f"http://127.0.0.1:{rh.port}/v1/captures/")
        png = await dev.fetch_screenshot(shot)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) == shot.bytes
        assert int.from_bytes(png[16:20], "big") == shot.width

        async def get(path: str, token: str | None) -> tuple[int, bytes]:
            stream = await anyio.connect_tcp("127.0.0.1", rh.port)
            auth = f"Authorization: Bearer {token}\r\n" if token else ""
            await stream.send(
                f"GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n".encode()
            )
            data = b""
            with anyio.fail_after(5):
                try:
                    while True:
                        data += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    pass
            head, _, body = data.partition(b"\r\n\r\n")
            return int(head.split()[1]), body

        path = shot.url.split(str(rh.port), 1)[1]
        assert (await get(path, None))[0] == 401
        assert (await get(path, OBSERVER))[0] == 200
        status, body = await get("/v1/stats", OBSERVER)
        stats = json.loads(body)
        assert status == 200 and rh.device_id in stats["devices"]
        assert any(s["client"] == "shot" for s in stats["sessions"].values())
        assert (await get("/healthz", None))[0] == 200
        assert (await get("/healthz", "wrong-key"))[0] == 401


async def test_app_open_is_verified_intrinsically_by_the_foreground_app() -> None:
    from bridge.wire.enums import AppAction

    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="apps") as hub,
    ):
        dev = hub.device(rh.device_id)
        closed = await dev.app(AppAction.APP_CLOSE_UI)
        assert closed.verification is None  # no promise to check: Back/Home only
        opened = await dev.app(AppAction.APP_OPEN, app_id="dev.mobridge.demo")
        _validate("action-result", opened)
        assert opened.verification is not None
        assert opened.verification.predicate.source is not None
        assert opened.verification.predicate.source.value == "INTRINSIC"
        assert opened.verification.result.value == "CONDITION_MET"
        assert opened.observation.window_changed
