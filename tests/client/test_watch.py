"""``Device.watch``: live snapshots over a real subscription, resyncs and resubscribes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import msgspec
import pytest

from bridge.client import ConnectionLost, DeltaMismatch, HubConnection, WatchUpdate, connect
from bridge.wire.client_protocol import HubToClient, SnapshotEvent, Subscribe, Unsubscribe
from bridge.wire.enums import Role
from bridge.wire.snapshot import ScreenSnapshot
from tests.client.fake_hub import CLOSE, DEVICE, TOKEN, FakeHub, node, screen
from tests.client.reference_diff import reference_delta

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
    fake = FakeHub()
    async with hub_of(fake) as hub, hub.device(DEVICE).watch() as watch:
        updates = await take(watch, 3)
    assert [u.snapshot for u in updates] == fake.screens
    assert [u.seq for u in updates] == [0, 1, 2]
    assert updates[0].resync and not updates[1].resync
    assert updates[1].changed == ("n2",)
    assert watch.tracker.deltas_applied == 2 and watch.tracker.desyncs == 0
    assert any(isinstance(m, Unsubscribe) for m in fake.received)


async def test_plain_async_for_works_and_full_mode_is_requested() -> None:
    fake = FakeHub()
    seen: list[int] = []
    async with hub_of(fake) as hub:
        watch = hub.device(DEVICE).watch(compact=False)
        async for update in watch:
            seen.append(update.seq)
            if len(seen) == 3:
                break
        await watch.aclose()
        with pytest.raises(StopAsyncIteration):
            await watch.__anext__()
    assert seen == [0, 1, 2]
    (subscribe,) = [m for m in fake.received if isinstance(m, Subscribe)]
    assert subscribe.compact is False


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
    screens = clock_screens(6)
    fake = FakeHub(screens)
    async with hub_of(fake) as hub, hub.device(DEVICE).watch() as watch:
        updates = await take(watch, 6)
    assert [u.snapshot for u in updates] == screens
    for update in updates[1:]:
        assert update.delta is not None
        assert (update.added, update.removed, update.changed) == ((), (), ("n2",))
        assert update.delta.order == {}
    assert msgspec.json.encode(updates[-1].snapshot) == msgspec.json.encode(screens[-1])
