"""The journal on its own (a real SQLite file, the real writer thread): chains rebuild the
screens fed in, retention holds the byte and age caps and says what it dropped, and a
corrupt, read-only or full database turns the journal off with one warning, never an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgspec

from bridge.journal.recorder import Journal
from bridge.journal.records import FRAME_DELTA, Broken, parse_time, rebuild
from bridge.journal.store import JournalReader
from bridge.wire.enums import Orientation, Role
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        self.lines.append((event, fields))

    def named(self, event: str) -> list[dict[str, Any]]:
        return [f for e, f in self.lines if e == event]


def big_screen(n: int = 1000, tick: int = 0, package: str = "a.b") -> ScreenSnapshot:
    """A 1,000-node screen; ``tick`` changes one row's text (a clock, a counter)."""
    nodes = [SemanticNode(node_id="n0", role=Role.UNKNOWN, bounds=(0, 0, 1080, 2400))]
    for i in range(1, n):
        text = f"Row {i} value {tick}" if i == 1 + tick % (n - 1) else f"Row {i}"
        nodes.append(
            SemanticNode(
                node_id=f"n{i}",
                role=Role.TEXT if i % 3 else Role.BUTTON,
                parent_id="n0" if i < 20 else f"n{i % 19 + 1}",
                text=text,
                resource_id=f"{package}:id/row{i}",
                bounds=(0, i * 10 % 2400, 1080, i * 10 % 2400 + 10),
            )
        )
    return ScreenSnapshot(
        schema_version=1,
        device_id="d",
        snapshot_id=f"s_{package.replace('.', '')}{tick}",
        timestamp=tick,
        package_name=package,
        window_id=0,
        orientation=Orientation.PORTRAIT,
        screen_state_id=f"{package}:screen",
        compact=False,
        nodes=_preorder(nodes),
        tree_hash=f"{tick:04x}",
    )


def _preorder(nodes: list[SemanticNode]) -> tuple[SemanticNode, ...]:
    kids: dict[str | None, list[SemanticNode]] = {}
    for node in nodes:
        kids.setdefault(node.parent_id, []).append(node)
    out: list[SemanticNode] = []
    stack = list(reversed(kids[None]))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(kids.get(node.node_id, [])))
    return tuple(out)


class Clock:
    def __init__(self, start: int = 1_800_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now


def opened(path: Path, log: Log, clock: Clock, **kw: Any) -> Journal:
    journal = Journal.open(path, log, **kw)
    journal.clock_ms = clock
    return journal


def test_every_recorded_moment_rebuilds_the_screen_fed_in(tmp_path: Path) -> None:
    log, clock = Log(), Clock()
    journal = opened(tmp_path / "j.sqlite3", log, clock)
    journal.keyframe_every = 8
    fed: list[tuple[int, ScreenSnapshot]] = []
    for tick in range(40):
        package = "a.b" if tick < 25 else "c.d"  # a screen change: a keyframe
        screen = big_screen(200, tick, package)
        clock.now += 200
        journal.frame("d", tick + 1, screen)
        fed.append((clock.now, screen))
    journal.close()
    assert journal.on and not log.named("journal_off")
    assert journal.stats.frames == 40
    # keyframes: the first, every 8th delta, the screen change
    assert 6 <= journal.stats.keyframes <= 8
    reader = JournalReader(tmp_path / "j.sqlite3")
    try:
        for at, screen in fed:
            chain = reader.chain_at("d", at + 100)
            assert chain[0].keyframe != FRAME_DELTA and len(chain) <= 8
            assert rebuild(chain) == screen
        assert reader.chain_at("d", fed[0][0] - 1) == []
        assert reader.chain_at("other", fed[-1][0]) == []
    finally:
        reader.close()


def test_retention_holds_the_byte_cap_and_says_what_it_dropped(tmp_path: Path) -> None:
    log, clock = Log(), Clock()
    cap = 400_000
    journal = opened(tmp_path / "j.sqlite3", log, clock, max_bytes=cap)
    journal.keyframe_every = 16
    last = None
    for tick in range(600):
        clock.now += 200
        last = big_screen(1000, tick)
        journal.frame("d", tick + 1, last)
        assert journal.store is None or journal.store.bytes <= cap + 200_000  # one batch over
    journal.close()
    assert journal.on
    dropped = log.named("journal_retention")
    assert dropped and sum(d["frames"] for d in dropped) == journal.stats.dropped_frames > 0
    assert all(d["kept_bytes"] <= cap for d in dropped)
    conn = sqlite3.connect(tmp_path / "j.sqlite3")
    held = conn.execute("SELECT SUM(LENGTH(body)), COUNT(*) FROM frames").fetchone()
    first = conn.execute("SELECT keyframe FROM frames ORDER BY id LIMIT 1").fetchone()[0]
    conn.close()
    assert held[0] + 48 * held[1] <= cap
    assert first != FRAME_DELTA  # what is left starts with a keyframe: it rebuilds
    reader = JournalReader(tmp_path / "j.sqlite3")
    try:
        assert rebuild(reader.chain_at("d", clock.now)) == last
    finally:
        reader.close()


def test_retention_drops_what_is_older_than_the_age_cap(tmp_path: Path) -> None:
    log, clock = Log(), Clock()
    journal = opened(tmp_path / "j.sqlite3", log, clock, max_age_s=3600)
    journal.frame("d", 1, big_screen(50, 0))
    clock.now += 2 * 3600 * 1000
    journal._last_age_check = -1e9  # the next batch runs the age check
    journal.frame("d", 2, big_screen(50, 1, "x.y"))
    journal.close()
    assert sum(d["frames"] for d in log.named("journal_retention")) == 1
    reader = JournalReader(tmp_path / "j.sqlite3")
    try:
        assert [f.generation for f in reader.chain_at("d", clock.now)] == [2]
    finally:
        reader.close()


def test_a_corrupt_database_is_one_warning_and_no_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"this is not a database, it is a text file that lost its way" * 100)
    log = Log()
    journal = Journal.open(path, log)
    assert not journal.on and len(log.lines) == 1 and log.lines[0][0] == "journal_off"
    journal.frame("d", 1, big_screen(10))  # ignored, never raises
    assert journal.recorded("d", "k") is None


def test_a_read_only_place_is_one_warning_and_no_journal() -> None:
    log = Log()
    journal = Journal.open(Path("/proc/mobridge-journal/j.sqlite3"), log)
    assert not journal.on and [e for e, _ in log.lines] == ["journal_off"]


def test_a_full_disk_turns_the_journal_off_once_and_keeps_nothing_half_done(
    tmp_path: Path,
) -> None:
    log, clock = Log(), Clock()
    journal = opened(tmp_path / "j.sqlite3", log, clock)
    assert journal.store is not None
    # SQLite's own "database or disk is full": the file may not grow past a few pages.
    pages = journal.store.conn.execute("PRAGMA page_count").fetchone()[0]
    journal.store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    for tick in range(50):
        clock.now += 100
        journal.frame("d", tick + 1, big_screen(1000, tick))
    journal.close()
    assert not journal.on and "full" in (journal.off_reason or "")
    assert [e for e, _ in log.lines] == ["journal_off"]


def test_times_parse_iso_relative_and_epoch() -> None:
    now = 1_800_000_000_000
    assert parse_time("now", now) == now
    assert parse_time("-5m", now) == now - 300_000
    assert parse_time("-1.5s", now) == now - 1500
    assert parse_time("-2h", now) == now - 7_200_000
    assert parse_time("1970-01-01T00:00:01Z", now) == 1000
    assert parse_time("1970-01-01T01:00:01+01:00", now) == 1000
    assert parse_time("1970-01-01T00:00:01", now) == 1000  # no zone: UTC
    assert parse_time("1800000000123", now) == 1800000000123
    assert isinstance(parse_time("yesterday", now), str)
    assert isinstance(parse_time("-5 parsecs", now), str)


def test_a_broken_chain_is_said_not_guessed() -> None:
    from bridge.core.patch import patch
    from bridge.journal.records import Frame, encode_delta

    a, b = big_screen(30, 0), big_screen(30, 1)
    delta = Frame(1, 0, 1, FRAME_DELTA, encode_delta(patch(a, b)))
    assert isinstance(rebuild([delta]), Broken)
    _ = msgspec
