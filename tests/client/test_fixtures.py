"""The client reads every golden hub -> client message of protocol/fixtures as intended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import msgspec
import pytest

from bridge.client import HubError, ProtocolFailure, SnapshotTracker, WatchUpdate
from bridge.client.connection import HubConnection, _Pending
from bridge.client.errors import ConfirmationRequired
from bridge.wire.client_protocol import RESULT_TYPES, DeltaEvent, PatchEvent, SnapshotEvent
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat

FIXTURES = Path(__file__).resolve().parents[2] / "protocol" / "fixtures" / "hub-to-client"
LOADED = {p.name: p.read_bytes() for p in sorted(FIXTURES.glob("*.json"))}
RESULTS = [name for name in LOADED if name.startswith("result.")]
ERRORS = [name for name in LOADED if name.startswith(("error", "protocol_error"))]

pytestmark = pytest.mark.anyio


def request_type(name: str) -> str:
    """``result.lease.acquire--x.json`` -> ``lease.acquire``."""
    return name.removeprefix("result.").removesuffix(".json").split("--")[0]


def frames(raw: bytes) -> list[tuple[bytes, WireFormat]]:
    as_msgpack = msgspec.msgpack.encode(json.loads(raw))
    return [(raw, WireFormat.JSON), (as_msgpack, WireFormat.MSGPACK)]


def offline_connection(fmt: WireFormat) -> HubConnection:
    return HubConnection(cast(Any, None), fmt, "ws://127.0.0.1:1/v1", None, 1.0)


def test_the_fixtures_are_there() -> None:
    assert len(RESULTS) >= 10 and ERRORS, f"no fixtures under {FIXTURES}"


@pytest.mark.parametrize("name", RESULTS)
async def test_each_result_becomes_its_request_types_result(name: str) -> None:
    kind = request_type(name)
    rid = json.loads(LOADED[name])["id"]
    for frame, fmt in frames(LOADED[name]):
        conn = offline_connection(fmt)
        pending = _Pending(kind)
        conn._pending[rid] = pending
        conn._dispatch(frame)
        assert pending.done.is_set() and pending.error is None, pending.error
        assert isinstance(pending.result, RESULT_TYPES[kind])


@pytest.mark.parametrize("name", ERRORS)
async def test_each_refusal_fails_its_request_with_the_matching_exception(name: str) -> None:
    body = json.loads(LOADED[name])
    for frame, fmt in frames(LOADED[name]):
        conn = offline_connection(fmt)
        pending = _Pending("act")
        rid = body.get("id")
        conn._pending[rid if rid is not None else 1] = pending
        conn._dispatch(frame)
        if body["type"] == "error":
            assert isinstance(pending.error, HubError)
            assert pending.error.code.value == body["error"]["error"]
            if body["error"]["error"] == "USER_CONFIRMATION_REQUIRED":
                assert isinstance(pending.error, ConfirmationRequired)
                assert pending.error.objection is not None
                assert pending.error.objection.id == body["objection"]["id"]
        elif rid is not None or body.get("fatal"):
            assert isinstance(pending.error, ProtocolFailure)
            assert pending.error.code.value == body["code"]
        else:
            assert not pending.done.is_set()
            assert conn.last_protocol_error is not None


def test_the_golden_delta_applies_to_the_golden_snapshot() -> None:
    snapshot = HUB_TO_CLIENT.decode(LOADED["snapshot.json"])
    delta = HUB_TO_CLIENT.decode(LOADED["delta.json"])
    assert isinstance(snapshot, SnapshotEvent) and isinstance(delta, DeltaEvent)
    tracker = SnapshotTracker()
    tracker.on_snapshot(snapshot)
    update = tracker.on_delta(delta)
    assert isinstance(update, WatchUpdate), update
    assert update.snapshot.snapshot_id == delta.snapshot_id
    assert update.removed == ("n2",) and "n2" not in {n.node_id for n in update.snapshot.nodes}
    children = [n.node_id for n in update.snapshot.nodes if n.parent_id == "n1"]
    assert children == list(delta.order["n1"])


def test_the_golden_patches_apply_like_the_golden_delta() -> None:
    snapshot = HUB_TO_CLIENT.decode(LOADED["snapshot.json"])
    delta = HUB_TO_CLIENT.decode(LOADED["delta.json"])
    slim = HUB_TO_CLIENT.decode(LOADED["patch.json"])
    clear = HUB_TO_CLIENT.decode(LOADED["patch--clear.json"])
    assert isinstance(snapshot, SnapshotEvent) and isinstance(delta, DeltaEvent)
    assert isinstance(slim, PatchEvent) and isinstance(clear, PatchEvent)
    classic, tracker = SnapshotTracker(), SnapshotTracker()
    classic.on_snapshot(snapshot)
    tracker.on_snapshot(snapshot)
    by_delta = classic.on_delta(delta)
    update = tracker.on_delta(slim)
    assert isinstance(by_delta, WatchUpdate) and isinstance(update, WatchUpdate), update
    assert update.snapshot == by_delta.snapshot
    assert (update.added, update.removed) == (by_delta.added, by_delta.removed)
    assert set(update.changed) == set(by_delta.changed)
    cleared = tracker.on_delta(clear)
    assert isinstance(cleared, WatchUpdate), cleared
    assert cleared.changed == ("n4", "n9") and cleared.snapshot.app_id is None
    assert tracker.on_delta(clear) is not None and not tracker.in_sync  # replayed: a seq gap
