"""RelayFeed: the mirror follows the owner's bytes exactly; gaps and stale buffers resync."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from bridge.core.patch import patch
from bridge.farm.relay import MAX_BUFFERED, Accepted, RelayFeed
from bridge.farm.subjects import stream_token
from bridge.wire.client_protocol import DeltaEvent, SnapshotEvent, SubscribeResult
from bridge.wire.codec import WireFormat, encode
from bridge.wire.snapshot import ScreenSnapshot


@dataclass(eq=False)
class Member:
    format: WireFormat
    got: list[bytes] = field(default_factory=list)

    def push_event(self, stream: str | None, data: bytes) -> None:
        self.got.append(data)


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/scenes/login/snapshot.compact.json"
BASE = msgspec.json.decode(FIXTURE.read_bytes(), type=ScreenSnapshot)


def snap(n: int, text: str) -> ScreenSnapshot:
    """The login screen with its first text node saying ``text``, as snapshot ``n``."""
    nodes = list(BASE.nodes)
    i = next(k for k, node in enumerate(nodes) if node.text)
    nodes[i] = msgspec.structs.replace(nodes[i], text=text)
    return msgspec.structs.replace(BASE, snapshot_id=f"s_ab{n}", nodes=tuple(nodes))


def delta(seq: int, a: ScreenSnapshot, b: ScreenSnapshot, fmt: WireFormat) -> bytes:
    body = patch(a, b)
    return encode(
        DeltaEvent(
            subscription="d:compact",
            device="d",
            seq=seq,
            generation=seq + 10,
            base=body.base,
            snapshot_id=b.snapshot_id,
            meta=body.meta,
            remove=body.remove,
            upsert=body.upsert,
            order=body.order,
        ),
        fmt,
    )


def feed(fmt: WireFormat) -> RelayFeed:
    return RelayFeed("C", "d", "d:compact", True, False, fmt)


def test_buffered_events_up_to_the_joined_seq_are_dropped_and_the_rest_applied() -> None:
    for fmt in WireFormat:
        s = [snap(i, f"t{i}") for i in range(5)]
        f = feed(fmt)
        member = Member(fmt)
        f.begin_sync()
        early = delta(1, s[0], s[1], fmt)
        later = delta(2, s[1], s[2], fmt)
        assert f.accept(early) is Accepted.DROPPED and f.accept(later) is Accepted.DROPPED
        joined = SubscribeResult(subscription="d:compact", seq=1, generation=11, snapshot=s[1])
        assert f.synced(joined) is Accepted.PASSED
        assert (f.seq, f.snapshot) == (2, s[2])
        f.members.add(member)
        third = delta(3, s[2], s[3], fmt)
        assert f.accept(third) is Accepted.PASSED
        assert member.got == [third]  # the very bytes, passed on
        assert f.accept(third) is Accepted.DROPPED  # a duplicate
        assert f.snapshot == s[3]
        result = f.subscribe_result()
        assert result is not None and (result.seq, result.snapshot) == (3, s[3])


def test_a_gap_or_a_wrong_base_asks_for_a_resync_and_a_snapshot_event_replaces() -> None:
    fmt = WireFormat.JSON
    s = [snap(i, f"t{i}") for i in range(5)]
    f = feed(fmt)
    f.begin_sync()
    f.synced(SubscribeResult(subscription="d:compact", seq=4, generation=14, snapshot=s[0]))
    assert f.accept(delta(6, s[0], s[1], fmt)) is Accepted.GAP
    assert not f.in_sync and f.subscribe_result() is None
    f.begin_sync()
    f.synced(SubscribeResult(subscription="d:compact", seq=4, generation=14, snapshot=s[0]))
    assert f.accept(delta(5, s[2], s[3], fmt)) is Accepted.GAP  # base is not the mirror's
    f.begin_sync()
    f.synced(SubscribeResult(subscription="d:compact", seq=4, generation=14, snapshot=s[0]))
    member = Member(fmt)
    f.members.add(member)
    restart = encode(
        SnapshotEvent(subscription="d:compact", seq=0, generation=99, snapshot=s[4]), fmt
    )
    assert f.accept(restart) is Accepted.PASSED
    assert (f.seq, f.generation, f.snapshot) == (0, 99, s[4])
    assert f.resync_members() == 1 and len(member.got) == 2
    assert f.accept(b"\xff not an event") is Accepted.GAP


def test_an_overflowing_sync_buffer_reports_a_gap() -> None:
    fmt = WireFormat.MSGPACK
    s = [snap(i, f"t{i}") for i in range(2)]
    f = feed(fmt)
    f.begin_sync()
    for _ in range(MAX_BUFFERED + 1):
        f.accept(delta(1, s[0], s[1], fmt))
    joined = SubscribeResult(subscription="d:compact", seq=0, generation=10, snapshot=s[0])
    assert f.synced(joined) is Accepted.GAP


def test_stream_tokens_never_inject_subject_syntax() -> None:
    assert stream_token("sim-a:compact:settled") == "sim-a~compact~settled"
    for hostile in ("a.b:full", "x*:compact", "dev >:full", "xabc:full", "ünï:full"):
        token = stream_token(hostile)
        assert token.startswith("x") and all(c.isalnum() for c in token)
    assert stream_token("a.b:full") != stream_token("a_b:full")
