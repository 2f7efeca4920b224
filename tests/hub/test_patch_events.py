"""Slim ``patch`` events end to end: raw websocket subscribers on 127.0.0.1 — classic and
patch, JSON and MessagePack, compact and full, all on one hub and the simulated device —
follow a series of changes (clock ticks, a screen transition, typed text, back); after every
event each rebuilt snapshot equals the hub's snapshot of that id, and at each checkpoint it
equals ``snapshot.get`` exactly. A one-field change's patch frame is at most 300 bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.typing import Subprotocol

from bridge.client import Stable, apply_delta, apply_patch_event, build_query, connect
from bridge.wire.action import ActionRequest
from bridge.wire.client_protocol import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ClientInfo,
    DeltaEvent,
    Hello,
    PatchEvent,
    ResultMessage,
    SnapshotEvent,
    Subscribe,
    SubscribeResult,
)
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat, convert, encode
from bridge.wire.enums import ActionVerb, GlobalAction
from bridge.wire.node_edit import changes
from bridge.wire.snapshot import ScreenSnapshot
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub

pytestmark = pytest.mark.anyio

ONE_FIELD_LIMIT = 300


@dataclass
class Follower:
    """One raw subscriber: its rebuilt snapshot and every change frame's size by seq."""

    ws: ClientConnection
    fmt: WireFormat
    compact: bool
    patches: bool
    snapshot: ScreenSnapshot
    seq: int
    sizes: dict[int, int] = field(default_factory=dict)
    events: dict[int, DeltaEvent | PatchEvent] = field(default_factory=dict)
    kinds: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        form = "patch" if self.patches else "delta"
        return f"{self.fmt.value}/{'compact' if self.compact else 'full'}/{form}"


async def _request(ws: ClientConnection, fmt: WireFormat, message: Any) -> Any:
    await ws.send(encode(message, fmt), text=fmt is WireFormat.JSON)
    while True:
        decoded = HUB_TO_CLIENT.decode(await ws.recv(), fmt)
        if isinstance(decoded, ResultMessage) and decoded.id == message.id:
            return decoded.result


async def _follow(rh: RunningHub, fmt: WireFormat, compact: bool, patches: bool) -> Follower:
    proto = SUBPROTOCOL_JSON if fmt is WireFormat.JSON else SUBPROTOCOL_MSGPACK
    ws = await ws_connect(
        rh.url,
        subprotocols=[Subprotocol(proto)],
        additional_headers={"Authorization": f"Bearer {OBSERVER}"},
        compression=None,
    )
    await _request(ws, fmt, Hello(id=1, client=ClientInfo(name="patch-e2e")))
    body = await _request(
        ws, fmt, Subscribe(id=2, device=rh.device_id, compact=compact, patches=patches)
    )
    result = convert(body, SubscribeResult)
    return Follower(ws, fmt, compact, patches, result.snapshot, result.seq)


async def _catch_up(rh: RunningHub, follower: Follower, target: ScreenSnapshot) -> None:
    """Apply events until the follower holds ``target``'s id; after every event the rebuilt
    snapshot must equal the hub's own snapshot of that id."""
    device = rh.hub.service.devices[rh.device_id]
    with anyio.fail_after(10):
        while follower.snapshot.snapshot_id != target.snapshot_id:
            frame = await follower.ws.recv()
            event = HUB_TO_CLIENT.decode(frame, follower.fmt)
            if isinstance(event, SnapshotEvent):
                raise AssertionError(f"{follower.name} was resynced: {event.seq}")
            if not isinstance(event, DeltaEvent | PatchEvent):
                continue  # device/lease/action events
            assert event.seq == follower.seq + 1, (follower.name, event.seq, follower.seq)
            follower.kinds.add(type(event).__name__)
            if isinstance(event, PatchEvent):
                rebuilt = apply_patch_event(follower.snapshot, event)
            else:
                rebuilt = apply_delta(follower.snapshot, event)
            assert isinstance(rebuilt, ScreenSnapshot), (follower.name, rebuilt)
            held = device.capture_of(rebuilt.snapshot_id)
            assert held is not None
            assert rebuilt == held.snapshot(follower.compact), follower.name
            follower.snapshot, follower.seq = rebuilt, event.seq
            follower.sizes[event.seq] = len(frame)
            follower.events[event.seq] = event
    assert follower.snapshot == target, follower.name


def _one_field(event: DeltaEvent | PatchEvent) -> bool:
    """A patch event changing one field of one node (besides the meta)."""
    if not isinstance(event, PatchEvent) or event.remove or event.upsert or event.order:
        return False
    return len(event.edit) == 1 and len(changes(event.edit[0])) == 1


async def test_classic_and_patch_subscribers_rebuild_snapshot_get_exactly() -> None:
    async with (
        running_hub(sim_scene="home") as rh,
        connect(rh.url, token=CONTROLLER, name="actor") as actor,
    ):
        followers = [
            await _follow(rh, fmt, compact, patches)
            for fmt in WireFormat
            for compact in (True, False)
            for patches in (False, True)
        ]
        dev = actor.device(rh.device_id)

        async def checkpoint() -> None:
            truth = {c: (await dev.snapshot(compact=c)).snapshot for c in (True, False)}
            for follower in followers:
                await _catch_up(rh, follower, truth[follower.compact])

        async def next_tick() -> None:
            start = (await dev.snapshot()).generation
            with anyio.fail_after(5):
                while (await dev.snapshot()).generation == start:
                    await anyio.sleep(0.05)

        try:
            for _ in range(3):  # the home screen's clock: one text changes per second
                await next_tick()
                await checkpoint()
            await dev.tap(build_query(text="Login"))
            await dev.wait(Stable(for_ms=400))  # the transition's frames, waited for
            await checkpoint()
            user = (await dev.find(build_query(resource_id="username"))).matches[0].ref
            await dev.act(ActionRequest(action=ActionVerb.SET_TEXT, target=user, value="demo"))
            await checkpoint()
            await dev.global_action(GlobalAction.BACK)
            await dev.wait(Stable(for_ms=400))
            await next_tick()
            await checkpoint()
        finally:
            for follower in followers:
                await follower.ws.close()

    by_name = {f.name: f for f in followers}
    for follower in followers:
        assert follower.sizes, follower.name
        expected = "PatchEvent" if follower.patches else "DeltaEvent"
        assert follower.kinds == {expected}, (follower.name, follower.kinds)
    # The seq is the stream's: classic and patch members of one view saw the same seqs.
    for fmt in WireFormat:
        for view in ("compact", "full"):
            classic = by_name[f"{fmt.value}/{view}/delta"]
            slim = by_name[f"{fmt.value}/{view}/patch"]
            assert set(classic.sizes) == set(slim.sizes)
    # A one-field change (a clock tick): its patch frame, beside the classic delta frame.
    report = []
    for view in ("compact", "full"):
        probe = by_name[f"json/{view}/patch"]
        ticks = [seq for seq, ev in probe.events.items() if _one_field(ev)]
        assert ticks, f"no one-field change was seen on the {view} stream"
        for fmt in WireFormat:
            slim = by_name[f"{fmt.value}/{view}/patch"]
            classic = by_name[f"{fmt.value}/{view}/delta"]
            slim_max = max(slim.sizes[s] for s in ticks)
            classic_max = max(classic.sizes[s] for s in ticks)
            report.append(f"{fmt.value} {view}: delta {classic_max} B, patch {slim_max} B")
            assert slim_max <= ONE_FIELD_LIMIT, (slim.name, slim_max)
            assert slim_max < classic_max
    print("one-field change frame, uncompressed:", "; ".join(report))
