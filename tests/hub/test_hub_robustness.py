"""Hub robustness over real sockets: agent loss mid-action, idempotent retries, secrets kept
out of logs and events, and many subscribers."""

from __future__ import annotations

import io
import json
import os

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect as ws_connect

from bridge.client import DeviceOffline, HubError, apply_delta, build_query, connect
from bridge.hub import logs
from bridge.wire.action import ActionRequest
from bridge.wire.client_protocol import DeltaEvent, SnapshotEvent
from bridge.wire.enums import ActionVerb, ErrorCode
from bridge.wire.snapshot import ScreenSnapshot
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def test_agent_lost_mid_action_gives_device_offline_then_recovers() -> None:
    async with (
        running_hub(sim_scene="login", sim_options={"action_ms": 1500}) as rh,
        connect(rh.url, token=CONTROLLER, name="mid") as hub,
    ):
        dev = hub.device(rh.device_id)
        user = await dev.find(build_query(resource_id="username"))
        events = []

        async def watch_events() -> None:
            async with hub.events() as stream:
                async for ev in stream:
                    events.append(ev)  # noqa: PERF401 - collected as they arrive

        async with anyio.create_task_group() as tg:
            await dev.snapshot()
            await hub.subscribe(rh.device_id, True)  # device events go to watchers of the device
            tg.start_soon(watch_events)

            async def drop_soon() -> None:
                await anyio.sleep(0.4)
                await rh.hub.sim.drop_connections(abrupt=True)

            tg.start_soon(drop_soon)
            with pytest.raises((DeviceOffline, HubError)) as info:
                await dev.act(
                    ActionRequest(
                        action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo"
                    )
                )
            assert info.value.envelope.error is ErrorCode.DEVICE_OFFLINE  # type: ignore[union-attr]
            assert info.value.envelope.recovery  # type: ignore[union-attr]
            device = rh.hub.service.devices[rh.device_id]
            with anyio.fail_after(10):
                while not device.online:
                    await anyio.sleep(0.05)
            again = await dev.find(build_query(resource_id="username"))
            assert again.count == 1
            tg.cancel_scope.cancel()
        kinds = [getattr(e, "online", None) for e in events if type(e).__name__ == "DeviceEvent"]
        assert False in kinds and True in kinds


async def test_idempotent_retry_runs_once_and_secrets_stay_out_of_logs() -> None:
    os.environ["MOBRIDGE_SECRET_ROBUST_PW"] = "s3cr3t-value-xyz"
    sink = io.StringIO()
    logs.configure(json_lines=True, stream=sink)
    try:
        async with (
            running_hub(sim_scene="login") as rh,
            connect(rh.url, token=CONTROLLER, name="idem") as hub,
        ):
            dev = hub.device(rh.device_id)
            pw = await dev.find(build_query(resource_id="password"))
            request = ActionRequest(
                action=ActionVerb.SET_TEXT,
                target=pw.matches[0].ref,
                value_ref="secret://robust/pw",
                idempotency_key="retry-1",
            )
            before = rh.hub.service.devices[rh.device_id].stats.action_ms[:]
            async with anyio.create_task_group() as tg:
                results = []

                async def send() -> None:
                    results.append(await dev.act(request))

                tg.start_soon(send)
                tg.start_soon(send)  # arrives while the first one runs
            assert len(results) == 2 and results[0] == results[1]
            after = rh.hub.service.devices[rh.device_id].stats.action_ms
            assert len(after) == len(before) + 1  # executed once
            snap = await dev.snapshot(compact=False)
            assert "s3cr3t" not in msgspec.json.encode(snap).decode()
            assert "s3cr3t" not in msgspec.json.encode(results[0]).decode()
    finally:
        logs.configure(json_lines=True)
    text = sink.getvalue()
    assert '"event": "action"' in text  # the action was logged...
    assert "s3cr3t" not in text  # ...without the secret
    assert CONTROLLER not in text


async def test_200_subscribers_reconstruct_the_snapshot_from_deltas() -> None:
    subscribers = 200
    async with running_hub(sim_scene="home", sim_options={"time_scale": 4.0}) as rh:
        finals: list[tuple[ScreenSnapshot, int]] = []

        async def follow(i: int, ready: anyio.Event, stop: anyio.Event) -> None:
            async with ws_connect(
                rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "id": 1, "client": {"name": f"s{i}"}}))
                await ws.recv()
                await ws.send(json.dumps({"type": "subscribe", "id": 2, "device": rh.device_id}))
                res = json.loads(await ws.recv())["result"]
                snap = msgspec.convert(res["snapshot"], type=ScreenSnapshot)
                seq = res["seq"]
                applied = 0
                ready.set()
                while not stop.is_set():
                    with anyio.move_on_after(0.2):
                        msg = msgspec.json.decode(await ws.recv())
                        if msg.get("type") == "delta":
                            ev = msgspec.convert(msg, type=DeltaEvent)
                            assert ev.seq == seq + 1 and ev.base == snap.snapshot_id
                            seq, snap = ev.seq, apply_delta(snap, ev)
                            applied += 1
                        elif msg.get("type") == "snapshot":
                            ev2 = msgspec.convert(msg, type=SnapshotEvent)
                            seq, snap = ev2.seq, ev2.snapshot
                finals.append((snap, applied))

        stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            readies = [anyio.Event() for _ in range(subscribers)]
            for i in range(subscribers):
                tg.start_soon(follow, i, readies[i], stop)
            with anyio.fail_after(30):
                for r in readies:
                    await r.wait()
            device = rh.hub.service.devices[rh.device_id]
            start_gen = device.generation
            with anyio.fail_after(15):
                while device.generation < start_gen + 3:  # at least three clock deltas
                    await anyio.sleep(0.05)
            stop.set()
        device = rh.hub.service.devices[rh.device_id]
        assert len(finals) == subscribers
        for snap, applied in finals:
            assert applied >= 3
            # exactly what snapshot.get returned for that snapshot id (the hub keeps history)
            capture = device.capture_of(snap.snapshot_id)
            assert capture is not None, snap.snapshot_id
            assert snap == capture.snapshot(True)
        async with connect(rh.url, token=OBSERVER, name="truth") as hub:
            got = await hub.device(rh.device_id).snapshot()
            capture = device.capture_of(got.snapshot.snapshot_id)
            assert capture is not None and got.snapshot == capture.snapshot(True)


async def test_idle_exclusive_lease_can_be_taken_over_and_disconnect_releases() -> None:
    from tests.hub.hubfixture import CONTROLLER_2

    async with running_hub(sim_scene="login", takeover_after_ms=300) as rh:
        async with (
            connect(rh.url, token=CONTROLLER, name="holder") as a,
            connect(rh.url, token=CONTROLLER_2, name="taker") as b,
        ):
            da, db = a.device(rh.device_id), b.device(rh.device_id)
            held = await da.acquire_lease("exclusive")
            assert held.lease is not None and held.lease.holder_names == ("holder",)
            with pytest.raises(HubError) as early:
                await db.acquire_lease("exclusive")
            assert early.value.code is ErrorCode.POLICY_BLOCKED
            await anyio.sleep(0.4)  # the holder stays idle past the takeover time
            taken = await db.acquire_lease("exclusive")
            assert taken.lease is not None and taken.lease.holder_names == ("taker",)
            with pytest.raises(HubError):
                await da.back()  # the former holder is now the one blocked
        async with connect(rh.url, token=CONTROLLER, name="after") as c:
            # the taker disconnected: its lease went with it
            assert (await c.devices())[0].lease is None


async def test_request_floods_are_rate_limited_with_ids_and_the_connection_survives() -> None:
    async with running_hub(sim_scene="login") as rh:
        async with ws_connect(
            rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 0, "client": {"name": "flood"}}))
            await ws.recv()
            for i in range(1, 901):
                await ws.send(json.dumps({"type": "ping", "id": i}))
            answers = [json.loads(await ws.recv()) for _ in range(900)]
            limited = [a for a in answers if a.get("code") == "RATE_LIMITED"]
            assert limited, "a 900-request burst must hit the per-connection limit"
            assert all(isinstance(a["id"], int) for a in limited)  # each refusal names its request
            assert sorted(a["id"] for a in answers) == list(range(1, 901))  # one answer each
            await anyio.sleep(1.0)  # the bucket refills
            await ws.send(json.dumps({"type": "ping", "id": 1000}))
            assert json.loads(await ws.recv()) == {"type": "result", "id": 1000, "result": {}}


async def test_a_pending_wait_can_be_cancelled_by_its_id() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        ws_connect(rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}) as ws,
    ):
        await ws.send(json.dumps({"type": "hello", "id": 0, "client": {"name": "c"}}))
        await ws.recv()
        never = {"kind": "present", "query": {"text": {"value": "no such text"}}}
        await ws.send(
            json.dumps(
                {
                    "type": "wait",
                    "id": "w1",
                    "device": rh.device_id,
                    "condition": never,
                    "timeoutMs": 60000,
                }
            )
        )
        await anyio.sleep(0.2)
        await ws.send(json.dumps({"type": "cancel", "id": "c1", "request": "w1"}))
        with anyio.fail_after(5):
            answers = {a["id"]: a for a in [json.loads(await ws.recv()) for _ in range(2)]}
        assert answers["c1"] == {"type": "result", "id": "c1", "result": {}}
        assert answers["w1"]["type"] == "protocol_error"
        assert answers["w1"]["code"] == "CANCELLED"


async def test_random_requests_are_each_answered_and_the_hub_keeps_serving() -> None:
    """Fuzz over real sockets: well-typed requests from the protocol's own strategies (random
    devices, queries, refs, conditions) and junk frames; every request gets exactly one answer
    and nothing takes the hub down."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from bridge.wire.client_protocol import ClientToHub, Hello
    from bridge.wire.codec import encode
    from tests.strategies import strategy_for

    requests: list[bytes] = []

    @settings(
        max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(st.one_of(strategy_for(ClientToHub), st.binary(max_size=64)))
    def collect(item: object) -> None:
        if isinstance(item, bytes):
            requests.append(item)
        elif not isinstance(item, Hello):
            requests.append(encode(item))

    collect()
    async with running_hub(sim_scene="login") as rh:
        async with ws_connect(
            rh.url, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "client": {"name": "fuzz"}}))
            await ws.recv()
            for frame in requests:
                text = frame.decode("utf-8", "replace")
                try:
                    doc = json.loads(text)
                except ValueError:
                    doc = None
                if isinstance(doc, dict):  # aim at the real device, keep waits short
                    if "device" in doc:
                        doc["device"] = rh.device_id
                    if doc.get("type") == "wait":
                        doc["timeoutMs"] = 200
                    text = json.dumps(doc)
                await ws.send(text)
                with anyio.fail_after(15):
                    answer = json.loads(await ws.recv())
                    while answer["type"] not in ("result", "error", "protocol_error"):
                        answer = json.loads(await ws.recv())  # events of subscriptions
                assert answer.get("code") != "INTERNAL", (text, answer)
            await ws.send(json.dumps({"type": "ping", "id": "last"}))
            with anyio.fail_after(5):
                while True:
                    answer = json.loads(await ws.recv())
                    if answer.get("id") == "last":
                        break
            assert answer == {"type": "result", "id": "last", "result": {}}
        async with connect(rh.url, token=CONTROLLER, name="after-fuzz") as hub:
            assert (await hub.devices())[0].online
