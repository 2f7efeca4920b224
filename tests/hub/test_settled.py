"""Settled subscriptions: one delta per settled screen, transitional frames held back.

End to end over real sockets (the simulated device slides each new screen in over several
frames, each pushed with ``stable: false``), plus the feed's timing rules on a hub device fed
by hand with a controlled clock.
"""

from __future__ import annotations

import anyio
import pytest

from bridge.client import Desync, WatchUpdate, apply_delta, build_query, connect
from bridge.hub.device import DeviceRuntime
from bridge.hub.settled import SettledFeed
from bridge.net.client_server import Session
from bridge.wire.agent_link import TreePush
from bridge.wire.client_protocol import DeltaEvent
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat
from bridge.wire.conditions import ScreenShown, Stable
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def _collect(watch: object, into: list[WatchUpdate], stop: anyio.Event) -> None:
    async for update in watch:  # type: ignore[attr-defined]
        into.append(update)
        if stop.is_set():
            return


async def test_a_screen_transition_is_one_settled_delta_and_several_raw_ones() -> None:
    async with running_hub(sim_scene="menu") as rh:
        async with (
            connect(rh.url, token=OBSERVER, name="settled") as a,
            connect(rh.url, token=OBSERVER, name="raw") as b,
            connect(rh.url, token=CONTROLLER, name="actor") as actor,
        ):
            settled: list[WatchUpdate] = []
            raw: list[WatchUpdate] = []
            async with (
                a.device(rh.device_id).watch(settled=True) as ws,
                b.device(rh.device_id).watch() as wr,
                anyio.create_task_group() as tg,
            ):
                assert ws.subscription == f"{rh.device_id}:compact:settled"
                stop = anyio.Event()
                tg.start_soon(_collect, ws, settled, stop)
                tg.start_soon(_collect, wr, raw, stop)
                dev = actor.device(rh.device_id)
                await dev.tap(build_query(text="Login"))
                assert (await dev.wait(ScreenShown(name="login"))).result.value == "CONDITION_MET"
                # the transition's last frames, then the settled delta: waited for, not slept
                assert (await dev.wait(Stable(for_ms=500))).result.value == "CONDITION_MET"
                final = await dev.snapshot()
                last = final.snapshot.snapshot_id
                with anyio.fail_after(30):  # both streams have reached the settled screen
                    while not (
                        any(u.delta is not None for u in settled)
                        and any(u.snapshot.snapshot_id == last for u in raw)
                    ):
                        await anyio.sleep(0.02)
                stop.set()
                tg.cancel_scope.cancel()
    deltas = [u for u in settled if u.delta is not None]
    assert len(deltas) == 1, [u.snapshot.snapshot_id for u in deltas]
    # the one settled delta lands exactly on the settled screen
    assert deltas[0].snapshot.snapshot_id == last
    assert deltas[0].snapshot.nodes == final.snapshot.nodes
    # the raw stream shows the transition's frames (several at rest; on a loaded machine the
    # hub's ingest may coalesce some, the newest winning, and a lagging member gets a resync
    # in place of the deltas it missed), none of which the settled stream sent
    moves = raw[1:]  # after the subscription's own first snapshot
    assert moves and moves[-1].snapshot.snapshot_id == last
    passing = {u.snapshot.snapshot_id for u in moves[:-1]}
    assert last not in passing and not passing & {u.snapshot.snapshot_id for u in settled}


async def test_a_second_member_starts_from_the_streams_base() -> None:
    async with running_hub(sim_scene="home") as rh:
        async with (
            connect(rh.url, token=OBSERVER, name="first") as a,
            connect(rh.url, token=OBSERVER, name="second") as b,
        ):
            async with a.device(rh.device_id).watch(settled=True) as w1:
                first = await w1.start()
                async with b.device(rh.device_id).watch(settled=True) as w2:
                    second = await w2.start()
                    assert second.seq == w1.tracker.seq
                    # both hold the same state, so one delta fits both
                    assert second.snapshot.snapshot_id in {
                        first.snapshot.snapshot_id,
                        w1.tracker.snapshot.snapshot_id if w1.tracker.snapshot else "",
                    }


# ---- the feed's timing rules, on a hub device fed by hand ------------------------------------


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


def _push(capture: int, label: str, stable: bool) -> TreePush:
    nodes = (
        RawNode(
            handle=0, parent=-1, class_name="android.widget.FrameLayout", bounds=(0, 0, 100, 200)
        ),
        RawNode(
            handle=1,
            parent=0,
            class_name="android.widget.TextView",
            text=label,
            bounds=(0, 0, 100, 20),
        ),
    )
    tree = RawTree(capture=capture, platform=Platform.ANDROID, nodes=nodes, package="com.x")
    return TreePush(reason="event", stable=stable, tree=tree)


def _member(device: DeviceRuntime, feed: SettledFeed) -> Session:
    session = Session(id="s1", format=WireFormat.JSON)
    feed.join(session, compact=False)
    return session


def _deltas(session: Session) -> list[DeltaEvent]:
    out = []
    for _, data in session._events:
        event = HUB_TO_CLIENT.decode(data, WireFormat.JSON)
        if isinstance(event, DeltaEvent):
            out.append(event)
    return out


def _runtime(clock: Clock) -> DeviceRuntime:
    device = DeviceRuntime(
        "d1", Platform.ANDROID, run_prefix="t", clock_ms=clock, takeover_after_ms=1000
    )
    device.ingest(_push(1, "frame 0", True))
    device.online = True
    return device


def test_frames_are_held_until_the_window_passes_and_then_sent_as_one_delta() -> None:
    clock = Clock()
    device = _runtime(clock)
    feed = SettledFeed(device, window_ms=300, max_hold_ms=2000)
    session = _member(device, feed)
    for i in range(1, 4):  # an animation: three transitional frames, then the settled one
        clock.ms += 40
        device.ingest(_push(i + 1, f"frame {i}", False))
        assert feed.flush() == 0
    clock.ms += 40
    device.ingest(_push(5, "done", True))
    clock.ms += 299
    assert feed.flush() == 0, "still inside the stability window"
    clock.ms += 1
    assert feed.flush() == 1
    deltas = _deltas(session)
    assert len(deltas) == 1
    base = feed.device.history[1].normalized.full
    after = apply_delta(base, deltas[0])
    assert not isinstance(after, Desync)
    assert [n.text for n in after.nodes if n.text] == ["done"]
    assert feed.flush() == 0, "nothing new: nothing sent"


def test_a_screen_that_never_settles_is_sent_after_the_hold_cap() -> None:
    clock = Clock()
    device = _runtime(clock)
    feed = SettledFeed(device, window_ms=300, max_hold_ms=2000)
    session = _member(device, feed)
    sent = 0
    for i in range(1, 80):  # a looping animation, a frame every 40 ms, never stable
        clock.ms += 40
        device.ingest(_push(i + 1, f"spin {i % 7}", False))
        sent += feed.flush()
    # 79 frames over 3.16 s: held back, then sent once per 2 s hold at most
    assert 1 <= sent <= 2
    assert len(_deltas(session)) == sent


def test_no_member_means_nothing_held() -> None:
    clock = Clock()
    device = _runtime(clock)
    feed = SettledFeed(device)
    device.ingest(_push(2, "next", True))
    assert feed.due_at() is None


def test_a_capture_wakes_the_feed_only_while_it_has_a_member() -> None:
    clock = Clock()
    device = _runtime(clock)
    feed = SettledFeed(device)
    feed.poke()
    assert not feed._wake.is_set(), "no member: a capture costs the feed no task switch"
    session = _member(device, feed)
    assert feed._wake.is_set(), "joining wakes the feed"
    feed._wake = anyio.Event()
    feed.poke()
    assert feed._wake.is_set()
    device.settled_streams[False].leave(session)
    feed._wake = anyio.Event()
    feed.poke()
    assert not feed._wake.is_set()
