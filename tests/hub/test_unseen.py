"""A compact subscriber hears about changes its cut view cannot show.

On a 1,000-node screen the compact view is cut at its budget; a text changing in a list row
past the cut used to reach compact subscribers as a delta with nothing in it. Now the delta's
``unseen`` names that node (and how many changed there), while a change inside the view is
an ordinary upsert with no ``unseen``. The settled compact stream says the same.
"""

from __future__ import annotations

import msgspec

from bridge.bench.hub_screens import COUNT_INDEX, raw_tree, screen_nodes, with_count
from bridge.hub.device import DeviceRuntime
from bridge.hub.settled import SettledFeed
from bridge.net.client_server import Session
from bridge.wire.agent_link import TreePush
from bridge.wire.client_protocol import DeltaEvent
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode


class Clock:
    ms = 1_000


def _runtime(clock: Clock) -> DeviceRuntime:
    device = DeviceRuntime(
        "dev",
        Platform.ANDROID,
        run_prefix="t",
        clock_ms=lambda: clock.ms,
        takeover_after_ms=1000,
    )
    device.set_online(True, None)
    return device


def _deltas(session: Session) -> list[DeltaEvent]:
    out = []
    for _, data in session._events:
        event = HUB_TO_CLIENT.decode(data, WireFormat.JSON)
        if isinstance(event, DeltaEvent):
            out.append(event)
    return out


def _push(nodes: tuple[RawNode, ...], capture: int) -> TreePush:
    return TreePush(reason="event", stable=True, tree=raw_tree(nodes, capture))


def _member(device: DeviceRuntime, compact: bool) -> Session:
    session = Session(id=f"s{compact}", format=WireFormat.JSON)
    stream = device.streams[compact]
    stream.members.add(session)
    session.streams.add(stream.id)
    return session


def test_a_change_past_the_compact_cut_is_named_in_unseen() -> None:
    clock = Clock()
    device = _runtime(clock)
    nodes = screen_nodes(1000)
    device.ingest(_push(nodes, 1))
    assert device.current is not None
    cut = device.current.normalized.cut
    assert device.current.snapshot(True).truncated and cut
    compact, full = _member(device, True), _member(device, False)
    # a row title far down the list, past the budget
    deep = max(i for i, n in enumerate(nodes) if n.text and n.text.startswith("Order "))
    changed = list(nodes)
    changed[deep] = msgspec.structs.replace(nodes[deep], text="Order cancelled")
    clock.ms += 100
    device.ingest(_push(tuple(changed), 2))
    (delta,) = _deltas(compact)
    full_delta = _deltas(full)[0]
    touched = {n.node_id for n in full_delta.upsert}
    assert touched and not {n.node_id for n in delta.upsert} & touched
    assert delta.unseen is not None and delta.unseen.count == len(touched)
    assert set(delta.unseen.nodes) == touched and set(delta.unseen.nodes) <= cut
    assert full_delta.unseen is None, "the full view sees everything"
    # a change inside the compact view is an ordinary upsert, nothing unseen
    visible = with_count(tuple(changed), 5)
    clock.ms += 100
    device.ingest(_push(visible, 3))
    delta = _deltas(compact)[-1]
    assert [n.text for n in delta.upsert] == ["Count 5"] and delta.unseen is None
    assert visible[COUNT_INDEX].text == "Count 5"


def test_the_settled_compact_stream_says_the_same() -> None:
    clock = Clock()
    device = _runtime(clock)
    nodes = screen_nodes(1000)
    device.ingest(_push(nodes, 1))
    feed = SettledFeed(device, window_ms=100, max_hold_ms=1000)
    session = Session(id="settled", format=WireFormat.JSON)
    feed.join(session, compact=True)
    deep = max(i for i, n in enumerate(nodes) if n.text and n.text.startswith("Order "))
    changed = list(nodes)
    changed[deep] = msgspec.structs.replace(nodes[deep], text="Order cancelled")
    clock.ms += 50
    device.ingest(_push(tuple(changed), 2))
    clock.ms += 200
    assert feed.flush() == 1
    (delta,) = _deltas(session)
    assert delta.unseen is not None and delta.unseen.count == 2  # the row and its title
