"""The journal in a real hub (127.0.0.1, the simulated device): screens rebuilt as they were
seen live, the timeline, diffs, ``when``, secrets kept out, and no journal refused cleanly."""

from __future__ import annotations

import sqlite3
import time
import zlib
from pathlib import Path

import anyio
import pytest

from bridge.client import HubError, Stable, build_query, connect
from bridge.hub.app import Hub
from bridge.journal.records import iso
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.enums import ErrorCode
from bridge.wire.snapshot import ScreenSnapshot
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


async def flushed(hub: Hub) -> None:
    """Wait until the journal's writer has written everything queued so far."""
    journal = hub.journal
    assert journal is not None
    with anyio.fail_after(10):
        while journal._queue.qsize() or journal.stats.batches == 0:
            await anyio.sleep(0.02)
        await anyio.sleep(0.1)


def now_iso() -> str:
    return iso(time.time_ns() // 1_000_000)


async def test_screens_at_past_times_are_the_screens_seen_live(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite3"
    async with running_hub(journal=db, sim_options={"animations": False}) as rh:
        async with connect(rh.url, token=CONTROLLER, name="tester") as hub:
            dev = hub.device(rh.device_id)
            seen: list[tuple[str, ScreenSnapshot]] = []

            async def settle_and_note() -> None:
                assert (await dev.wait(Stable(for_ms=300))).result.value == "CONDITION_MET"
                live = (await dev.snapshot(compact=False)).snapshot
                await anyio.sleep(0.05)
                seen.append((now_iso(), live))
                await anyio.sleep(0.05)

            await settle_and_note()
            await dev.tap(build_query(text="Settings"))
            await settle_and_note()
            await dev.tap(build_query(text="Wi-Fi"))
            await settle_and_note()
            await dev.tap(build_query(text="Bluetooth"))
            await settle_and_note()
            await flushed(rh.hub)
            for at, live in seen:
                past = await dev.snapshot_at(at, compact=False)
                assert past.snapshot.nodes == live.nodes, at
                assert past.snapshot.snapshot_id == live.snapshot_id
            # Wi-Fi was on at the start, off after its tap; Bluetooth on only at the end.
            first = (await dev.screen_at(seen[1][0])).snapshot
            last = (await dev.screen_at(seen[3][0])).snapshot
            wifi = [n for n in first.nodes if n.label == "Wi-Fi" or n.text == "Wi-Fi"]
            assert wifi, "the settings screen has a Wi-Fi switch"
            diff = await dev.diff_between(seen[1][0], seen[3][0])
            assert len(diff.diff.changed) >= 2  # both switches
            assert not diff.diff.screen_changed or diff.diff.changed
            assert first.snapshot_id != last.snapshot_id

            timeline = await dev.timeline(seen[0][0], seen[3][0])
            kinds = [e.kind for e in timeline.entries]
            assert kinds.count("action") == 3 and "screen" in kinds
            actions = [e for e in timeline.entries if e.kind == "action"]
            assert all(isinstance(e.event, ActionEvent) for e in actions)
            assert actions[0].at_ms >= actions[-1].at_ms  # newest first
            assert all(e.client == "tester" for e in actions)
            only = await dev.timeline(kinds=("screen",))
            assert only.entries and {e.kind for e in only.entries} == {"screen"}
            nobody = await dev.timeline(client="someone-else")
            assert nobody.entries == ()

            when = await dev.when(build_query(text="Bluetooth"))
            assert when.first_ms is not None and when.last_ms is not None
            assert when.first_ms <= when.last_ms
            never = await dev.when(build_query(text="No such words anywhere"))
            assert never.first_ms is None and never.matched == 0 and never.checked > 0

            with pytest.raises(Exception, match="not a time"):
                await dev.snapshot_at("yesterday-ish")
            relative = await dev.snapshot_at("-0s", compact=False)
            assert relative.snapshot.nodes == seen[-1][1].nodes
        stats = rh.hub.statistics()["journal"]
        assert stats["on"] and stats["frames"] >= 3 and stats["keyframes"] >= 2


async def test_a_typed_password_never_reaches_the_journal(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite3"
    secret = "hunter2-Very-Secret"
    async with running_hub(journal=db, sim_scene="login") as rh:
        async with connect(rh.url, token=CONTROLLER, name="tester") as hub:
            dev = hub.device(rh.device_id)
            await dev.type_text(build_query(text="Password"), secret)
            await dev.type_text(build_query(text="Username"), "alice-visible")
            assert (await dev.wait(Stable(for_ms=200))).result.value == "CONDITION_MET"
            await flushed(rh.hub)
    conn = sqlite3.connect(db)
    blobs = [b for (b,) in conn.execute("SELECT body FROM frames")]
    blobs += [b for (b,) in conn.execute("SELECT body FROM events WHERE body IS NOT NULL")]
    conn.close()
    plain = b"".join(_plain(b) for b in blobs)
    assert b"alice-visible" in plain  # the journal does hold what the screen showed
    assert secret.encode() not in plain
    assert secret.encode() not in (
        db.with_name(db.name + "-wal").read_bytes()
        if db.with_name(db.name + "-wal").exists()
        else b""
    )


def _plain(body: bytes) -> bytes:
    try:
        return zlib.decompress(body)
    except zlib.error:
        return body


async def test_a_hub_without_a_journal_refuses_history_and_serves(tmp_path: Path) -> None:
    async with running_hub() as rh:
        async with connect(rh.url, token=CONTROLLER) as hub:
            dev = hub.device(rh.device_id)
            with pytest.raises(HubError) as refused:
                await dev.timeline()
            assert refused.value.envelope.error is ErrorCode.WINDOW_UNAVAILABLE
            assert "without a journal" in str(refused.value)
            assert (await dev.snapshot()).snapshot.nodes


async def test_a_hub_on_a_corrupt_journal_warns_once_and_serves(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite3"
    db.write_bytes(b"\x00garbage, not SQLite" * 500)
    async with running_hub(journal=db) as rh:
        async with connect(rh.url, token=CONTROLLER) as hub:
            dev = hub.device(rh.device_id)
            await dev.tap(build_query(text="Settings"))  # actions, keys, events: all as before
            assert (await dev.snapshot()).snapshot.nodes
            assert (await dev.history()).entries  # the in-memory recent events still work
            with pytest.raises(HubError) as refused:
                await dev.snapshot_at("-1s")
            assert "journal is off" in str(refused.value)
        stats = rh.hub.statistics()["journal"]
        assert stats["on"] is False and "DatabaseError" in stats["off_reason"]
