"""A stream whose members mix classic and patch subscribers: one seq for all, each form built
and encoded once per format — every member of one form and format holds the very same bytes
object — and a member that left gets nothing (hub devices fed by hand, no sockets)."""

from __future__ import annotations

import msgspec

from bridge.bench.hub_screens import raw_tree, screen_nodes
from bridge.hub.device import DeviceRuntime
from bridge.net.client_server import Session
from bridge.wire.agent_link import TreePush
from bridge.wire.client_protocol import DeltaEvent, PatchEvent
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat
from bridge.wire.enums import Platform


def _runtime() -> DeviceRuntime:
    device = DeviceRuntime(
        "dev", Platform.ANDROID, run_prefix="t", clock_ms=lambda: 1_000, takeover_after_ms=1000
    )
    device.set_online(True, None)
    return device


def test_mixed_members_get_one_encoding_per_form_and_format() -> None:
    device = _runtime()
    nodes = screen_nodes(60)
    device.ingest(TreePush(reason="event", stable=True, tree=raw_tree(nodes, 1)))
    stream = device.streams[True]
    members: dict[tuple[WireFormat, bool], list[Session]] = {}
    for fmt in WireFormat:
        for patches in (False, True):
            for i in range(3):
                session = Session(id=f"{fmt.value}-{patches}-{i}", format=fmt)
                stream.join(session, patches)
                members.setdefault((fmt, patches), []).append(session)
    gone = Session(id="gone", format=WireFormat.JSON)
    stream.join(gone, True)
    stream.leave(gone)
    changed = list(nodes)
    k = next(i for i, n in enumerate(nodes) if n.text)
    changed[k] = msgspec.structs.replace(nodes[k], text="changed once")
    device.ingest(TreePush(reason="event", stable=True, tree=raw_tree(tuple(changed), 2)))
    assert not gone._events and gone not in stream.patchers
    seqs = set()
    for (fmt, patches), sessions in members.items():
        payloads = [s._events[-1][1] for s in sessions]
        assert all(p is payloads[0] for p in payloads), "one encoding shared by the form"
        event = HUB_TO_CLIENT.decode(payloads[0], fmt)
        assert isinstance(event, PatchEvent if patches else DeltaEvent)
        seqs.add(event.seq)
    assert seqs == {stream.seq}, "one seq for both forms"
    classic = members[(WireFormat.JSON, False)][0]._events[-1][1]
    slim = members[(WireFormat.JSON, True)][0]._events[-1][1]
    assert len(slim) < len(classic)
