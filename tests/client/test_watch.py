"""``Device.watch``: live snapshots over a real subscription, resyncs and resubscribes.

Following a screen (every delta applied, plain ``async for``, a ticking clock) runs against the
real hub with the simulated device. The client-only FakeHub stays for what a real hub does not
do on demand: a lost ``seq``, a delta on the wrong base, a hub that stops sending resyncs, a
consumer that lags behind its buffer, a connection closed in the middle of a watch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import msgspec
import pytest

from bridge.client import (
    ConnectionLost,
    DeltaMismatch,
    HubConnection,
    WatchUpdate,
    build_query,
    connect,
)
from bridge.wire.client_protocol import HubToClient, SnapshotEvent, Unsubscribe
from bridge.wire.enums import Role
from bridge.wire.snapshot import ScreenSnapshot
from tests.client.fake_hub import CLOSE, DEVICE, TOKEN, FakeHub, node, screen
from tests.client.reference_diff import reference_delta
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def hub_of(fake: FakeHub) -> AsyncIterator[HubConnection]:
    async with fake.serving() as url, connect(url, token=TOKEN) as hub:
        yield hub


async def take(watch: AsyncIterator[WatchUpdate], n: int) -> list[WatchUpdate]:
    with anyio.fail_after(5):
        return [await watch.__anext__() for _ in range(n)]


def clock_screens(n: int) -> list[ScreenSnapshot]:
    """The home screen with a ticking clock: n snapshots differing in one text."""
    return [
        screen(
            f"s_{i}",
            [
                node("n1", Role.SCREEN, resource_id="__screen_home"),
                node("n2", Role.TEXT, "n1", text=f"12:{i:02d}"),
            ],
            "home",
        )
        for i in range(1, n + 1)
    ]


async def test_watch_applies_every_delta_to_reach_each_screen() -> None:
    async with (
        running_hub(sim_scene="menu") as rh,
        connect(rh.url, token=CONTROLLER) as hub,
        hub.device(rh.device_id).watch() as watch,
    ):
        device = hub.device(rh.device_id)
        (first,) = await take(watch, 1)
        assert first.resync and first.snapshot.snapshot_id
        await device.tap(build_query(text="Login"))
        updates = []
        with anyio.fail_after(20):
            async for update in watch:
                updates.append(update)
                if any(n.text == "Sign in" for n in update.snapshot.nodes):
                    break
        assert [u.seq for u in updates] == sorted(u.seq for u in updates)
        assert not any(u.resync for u in updates)
        assert all(u.delta is not None for u in updates)
        assert watch.tracker.deltas_applied == len(updates) and watch.tracker.desyncs == 0
        # what the deltas built is what the hub holds
        await device.wait_for_screen("login")
        now = (await device.snapshot()).snapshot
        with anyio.fail_after(20):
            while updates[-1].snapshot.snapshot_id != now.snapshot_id:
                updates.append(await watch.__anext__())
        assert msgspec.json.encode(updates[-1].snapshot) == msgspec.json.encode(now)


async def test_plain_async_for_works_and_full_mode_is_requested() -> None:
    seen: list[WatchUpdate] = []
    async with (
        running_hub(sim_scene="ambiguous") as rh,
        connect(rh.url, token=CONTROLLER) as hub,
    ):
        device = hub.device(rh.device_id)
        first_continue = (await device.find(text="Continue")).matches[0].ref
        watch = device.watch(compact=False)
        async for update in watch:
            seen.append(update)
            if len(seen) == 1:
                await device.tap(first_continue)
            elif any(n.text == "Chose Basic plan" for n in update.snapshot.nodes):
                break
        await watch.aclose()
        with pytest.raises(StopAsyncIteration):
            await watch.__anext__()
        full = (await device.snapshot(compact=False)).snapshot
        compact = (await device.snapshot()).snapshot
    assert [u.seq for u in seen] == sorted(u.seq for u in seen) and seen[0].resync
    # full mode: the hub's full snapshot, which keeps nodes the compact one drops
    assert len(seen[-1].snapshot.nodes) == len(full.nodes) > len(compact.nodes)


def gap_then_resync(fake: FakeHub, subscription: str) -> list[HubToClient]:
    a, b, c = fake.screens
    return [
        reference_delta(a, b, seq=1, subscription=subscription),
        reference_delta(b, c, seq=3, subscription=subscription),  # seq 2 lost
        reference_delta(b, c, seq=4, subscription=subscription),  # still out of sync: ignored
        SnapshotEvent(subscription=subscription, seq=5, generation=2, snapshot=c),
        reference_delta(c, a, seq=6, subscription=subscription),
    ]


async def test_a_seq_gap_is_never_applied_and_the_resync_snapshot_replaces_state() -> None:
    fake = FakeHub()
    fake.subscription_events = lambda sub: gap_then_resync(fake, sub)
    async with hub_of(fake) as hub, hub.device(DEVICE).watch() as watch:
        updates = await take(watch, 4)
    a, b, c = fake.screens
    assert [(u.seq, u.resync) for u in updates] == [(0, True), (1, False), (5, True), (6, False)]
    assert [u.snapshot for u in updates] == [a, b, c, a]
    assert (watch.tracker.desyncs, watch.tracker.resyncs, watch.resubscribes) == (1, 1, 0)


async def test_a_wrong_base_is_a_desync_too() -> None:
    fake = FakeHub()
    a, b, c = fake.screens

    def events(sub: str) -> list[HubToClient]:
        wrong = reference_delta(b, c, seq=1, subscription=sub)  # base s_2, current s_1
        return [wrong, SnapshotEvent(subscription=sub, seq=2, generation=1, snapshot=c)]

    fake.subscription_events = events
    async with hub_of(fake) as hub, hub.device(DEVICE).watch() as watch:
        updates = await take(watch, 2)
    assert [u.snapshot for u in updates] == [a, c] and watch.tracker.desyncs == 1


async def test_a_strict_watch_raises_on_a_gap() -> None:
    fake = FakeHub()
    fake.subscription_events = lambda sub: gap_then_resync(fake, sub)
    async with hub_of(fake) as hub, hub.device(DEVICE).watch(strict=True) as watch:
        await take(watch, 2)
        with pytest.raises(DeltaMismatch, match="seq 3 after seq 1"):
            await take(watch, 1)


async def test_without_a_resync_the_watch_resubscribes_after_its_timeout() -> None:
    fake = FakeHub()
    a, b, c = fake.screens

    def events(sub: str) -> list[HubToClient]:
        if sub == "sub-1":
            return [reference_delta(b, c, seq=2, subscription=sub)]  # a gap, never repaired
        return [reference_delta(a, b, seq=1, subscription=sub)]

    fake.subscription_events = events
    async with hub_of(fake) as hub, hub.device(DEVICE).watch(resync_timeout=0.2) as watch:
        updates = await take(watch, 3)
        assert watch.subscription == "sub-2"
    assert [(u.seq, u.resync) for u in updates] == [(0, True), (0, True), (1, False)]
    assert updates[2].snapshot == b
    assert watch.resubscribes == 1
    unsubscribed = [m.subscription for m in fake.received if isinstance(m, Unsubscribe)]
    assert unsubscribed[0] == "sub-1"


async def test_a_lagging_consumer_overflows_its_buffer_and_resubscribes() -> None:
    fake = FakeHub(clock_screens(12))
    fake.event_gap = 0
    async with hub_of(fake) as hub:
        hub.channel_size = 3
        async with hub.device(DEVICE).watch() as watch:
            first = await take(watch, 1)
            with anyio.fail_after(30):  # the hub sends 11 deltas; 3 fit, 8 are dropped
                while hub.statistics().events_dropped < 8:
                    await anyio.sleep(0.01)
            fresh = await take(watch, 1)
        assert hub.statistics().events_dropped == 8
    assert first[0].seq == 0 and fresh[0].resync and watch.resubscribes == 1


async def test_a_lost_connection_ends_the_watch_with_connection_lost() -> None:
    fake = FakeHub()
    fake.subscription_events = lambda sub: []
    fake.script("ping", CLOSE)
    async with hub_of(fake) as hub, hub.device(DEVICE).watch() as watch:
        await take(watch, 1)
        with pytest.raises(ConnectionLost):
            await hub.ping()
        with pytest.raises(ConnectionLost):
            await take(watch, 1)


async def test_the_ticking_clock_streams_one_field_deltas() -> None:
    async with (
        running_hub(sim_scene="home") as rh,
        connect(rh.url, token=CONTROLLER) as hub,
        hub.device(rh.device_id).watch() as watch,
    ):
        with anyio.fail_after(30):
            updates = [await watch.__anext__() for _ in range(4)]
    clock = [n for n in updates[-1].snapshot.nodes if n.text and ":" in n.text]
    assert clock, updates[-1].snapshot
    for update in updates[1:]:
        assert update.delta is not None
        assert (update.added, update.removed) == ((), ())
        assert len(update.changed) == 1  # the clock's text, nothing else
