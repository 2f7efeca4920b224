"""The journal database: schema, batched writes, retention and reads (``sqlite3``, WAL).

Schema (``SCHEMA_VERSION`` 1, in the ``meta`` table):

- ``frames(id, device, at_ms, generation, keyframe, body)``: one row per new generation of
  a device; ``keyframe`` is ``records.FRAME_*``; ``body`` a compressed full snapshot
  (keyframes) or delta; indexed by ``(device, at_ms)``;
- ``events(id, device, at_ms, kind, client, summary, body)``: actions, refusals, lease and
  device (health) events (``body``: the event, MessagePack), gaps, and screenshots (``body``:
  the file name in the capture folder ``<db>.captures/``); indexed by ``(device, at_ms)``;
- ``outcomes(device, key, digest, started_ms, state, body)``: keyed actions: ``running``
  from before the action is dispatched, then ``done`` with its ``records.Outcome``.

One ``JournalStore`` is used by one thread (the writer); readers open their own connection
(``reader``), which WAL lets run beside the writer. Every method may raise
``sqlite3.Error`` / ``OSError``: the writer turns the first one into "journal off".
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.journal.records import FRAME_DELTA, FRAME_SCREEN, Frame

SCHEMA_VERSION = "1"
ROW_OVERHEAD = 48
"""Bytes counted per row beside its body (keys, index entries) for the byte cap."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS frames(
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, at_ms INTEGER NOT NULL,
    generation INTEGER NOT NULL, keyframe INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS frames_at ON frames(device, at_ms);
CREATE TABLE IF NOT EXISTS events(
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, at_ms INTEGER NOT NULL, kind TEXT NOT NULL,
    client TEXT, summary TEXT NOT NULL, body BLOB);
CREATE INDEX IF NOT EXISTS events_at ON events(device, at_ms);
CREATE TABLE IF NOT EXISTS outcomes(
    device TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, started_ms INTEGER NOT NULL,
    state TEXT NOT NULL, body BLOB, PRIMARY KEY(device, key));
"""


@dataclass
class Dropped:
    """What one retention pass removed."""

    frames: int = 0
    events: int = 0
    outcomes: int = 0
    captures: int = 0
    bytes: int = 0

    def __bool__(self) -> bool:
        return bool(self.frames or self.events or self.outcomes or self.captures)


PROGRESS_STEPS = 20_000
"""SQLite virtual-machine steps between two looks at a reader's deadline."""


class QueryTooLong(Exception):
    """A read ran past its deadline (``JournalReader``); nothing it found is returned."""


def _connect(path: Path, timeout_s: float) -> sqlite3.Connection:
    conn = sqlite3.connect(
        str(path), timeout=timeout_s, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
    return conn


class JournalStore:
    def __init__(self, path: Path) -> None:
        """Open (creating) the database at ``path`` and its capture folder. Raises on a
        locked, corrupt, read-only or unreachable database."""
        self.path = path
        self.captures = path.with_name(path.name + ".captures")
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = _connect(path, 2.0)
        try:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"the database cannot use WAL (mode {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
            conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,)
            )
            found = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
            if found != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(
                    f"journal schema {found}, this hub writes {SCHEMA_VERSION}"
                )
            conn.execute("PRAGMA quick_check(1)").fetchone()
        except BaseException:
            conn.close()
            raise
        self.conn = conn
        self.captures.mkdir(exist_ok=True)
        self.bytes = self._count_bytes()
        """Bytes the journal holds (bodies, per-row overhead, capture files): the byte cap's
        measure, kept up to date by every write and retention pass."""

    def _count_bytes(self) -> int:
        total = 0
        for table in ("frames", "events"):
            row = self.conn.execute(
                f"SELECT COALESCE(SUM(LENGTH(body)), 0), COUNT(*) FROM {table}"
            ).fetchone()
            total += int(row[0]) + ROW_OVERHEAD * int(row[1])
        for file in self.captures.iterdir():
            total += file.stat().st_size
        return total

    def close(self) -> None:
        self.conn.close()

    # ---- writes (the writer thread) ---------------------------------------------------------

    def begin(self) -> None:
        self.conn.execute("BEGIN")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def add_frame(
        self, device: str, at_ms: int, generation: int, keyframe: int, body: bytes
    ) -> None:
        self.conn.execute(
            "INSERT INTO frames(device, at_ms, generation, keyframe, body) VALUES (?,?,?,?,?)",
            (device, at_ms, generation, keyframe, body),
        )
        self.bytes += len(body) + ROW_OVERHEAD

    def add_event(
        self,
        device: str,
        at_ms: int,
        kind: str,
        client: str | None,
        summary: str,
        body: bytes | None,
    ) -> None:
        self.conn.execute(
            "INSERT INTO events(device, at_ms, kind, client, summary, body) VALUES (?,?,?,?,?,?)",
            (device, at_ms, kind, client, summary, body),
        )
        self.bytes += len(body or b"") + ROW_OVERHEAD

    def add_capture(self, name: str, png: bytes) -> None:
        """Write a screenshot file (atomically: a partial file is never left under its name)."""
        tmp = self.captures / (name + ".part")
        tmp.write_bytes(png)
        tmp.replace(self.captures / name)
        self.bytes += len(png)

    def begin_outcome(self, device: str, key: str, digest: str, at_ms: int) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO outcomes(device, key, digest, started_ms, state, body) "
            "VALUES (?,?,?,?, 'running', NULL)",
            (device, key, digest, at_ms),
        )

    def end_outcome(self, device: str, key: str, body: bytes) -> None:
        self.conn.execute(
            "UPDATE outcomes SET state = 'done', body = ? WHERE device = ? AND key = ?",
            (body, device, key),
        )

    # ---- retention --------------------------------------------------------------------------

    def enforce(self, now_ms: int, max_age_ms: int, max_bytes: int) -> Dropped:
        """Drop what is older than ``max_age_ms`` and then the oldest rows until the journal
        holds at most 90% of ``max_bytes`` (hysteresis, so the cap is not re-hit at once);
        then drop deltas whose keyframe went (they could not be rebuilt)."""
        dropped = Dropped()
        cutoff = now_ms - max_age_ms
        self.begin()
        try:
            self._drop_before(cutoff, dropped)
            if self.bytes > max_bytes:
                target = int(max_bytes * 0.9)
                excess = self.bytes - target
                # The time that removes about ``excess`` bytes: walk frames and events by time.
                rows = self.conn.execute(
                    "SELECT at_ms, LENGTH(body) FROM (SELECT at_ms, body FROM frames UNION ALL "
                    "SELECT at_ms, body FROM events) ORDER BY at_ms"
                )
                acc, until = 0, None
                try:
                    for at_ms, size in rows:
                        acc += int(size or 0) + ROW_OVERHEAD
                        if acc >= excess:
                            until = int(at_ms) + 1
                            break
                finally:
                    rows.close()  # an open statement would lock the tables for the deletes
                self._drop_before(until if until is not None else now_ms + 1, dropped)
            for (device,) in self.conn.execute("SELECT DISTINCT device FROM frames").fetchall():
                first_key = self.conn.execute(
                    "SELECT MIN(id) FROM frames WHERE device = ? AND keyframe != ?",
                    (device, FRAME_DELTA),
                ).fetchone()[0]
                where = "device = ?" + (" AND id < ?" if first_key is not None else "")
                args: tuple[Any, ...] = (device, first_key) if first_key is not None else (device,)
                size = self.conn.execute(
                    f"SELECT COALESCE(SUM(LENGTH(body)), 0), COUNT(*) FROM frames WHERE {where}",
                    args,
                ).fetchone()
                if size[1]:
                    self.conn.execute(f"DELETE FROM frames WHERE {where}", args)
                    dropped.frames += int(size[1])
                    freed = int(size[0]) + ROW_OVERHEAD * int(size[1])
                    dropped.bytes += freed
                    self.bytes -= freed
            self.commit()
        except BaseException:
            self.rollback()
            raise
        if dropped:
            self.conn.execute("PRAGMA incremental_vacuum").fetchall()
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return dropped

    def _drop_before(self, cutoff_ms: int, dropped: Dropped) -> None:
        for table in ("frames", "events"):
            if table == "events":
                for (name,) in self.conn.execute(
                    "SELECT body FROM events WHERE kind = 'screenshot' AND at_ms < ?",
                    (cutoff_ms,),
                ).fetchall():
                    still = self.conn.execute(
                        "SELECT 1 FROM events WHERE kind = 'screenshot' AND body = ? "
                        "AND at_ms >= ? LIMIT 1",
                        (name, cutoff_ms),
                    ).fetchone()
                    if still is not None:  # a later moment shows the same picture
                        continue
                    file = self.captures / bytes(name).decode()
                    try:
                        size = file.stat().st_size
                        file.unlink()
                    except OSError:
                        continue
                    dropped.captures += 1
                    dropped.bytes += size
                    self.bytes -= size
            size = self.conn.execute(
                f"SELECT COALESCE(SUM(LENGTH(body)), 0), COUNT(*) FROM {table} WHERE at_ms < ?",
                (cutoff_ms,),
            ).fetchone()
            if not size[1]:
                continue
            self.conn.execute(f"DELETE FROM {table} WHERE at_ms < ?", (cutoff_ms,))
            freed = int(size[0]) + ROW_OVERHEAD * int(size[1])
            self.bytes -= freed
            dropped.bytes += freed
            if table == "frames":
                dropped.frames += int(size[1])
            else:
                dropped.events += int(size[1])
        cur = self.conn.execute("DELETE FROM outcomes WHERE started_ms < ?", (cutoff_ms,))
        dropped.outcomes += max(0, cur.rowcount)

    def file_bytes(self) -> int:
        """The database file's size with its WAL (what the disk holds)."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += Path(str(self.path) + suffix).stat().st_size
            except OSError:
                pass
        return total


class JournalReader:
    """A read-only connection for queries (one per worker thread call; WAL lets it read while
    the writer writes)."""

    def __init__(self, path: Path, deadline: float | None = None) -> None:
        """``deadline``: a ``time.monotonic()`` past which the query stops: SQLite is
        interrupted (its progress handler) and ``check`` raises ``QueryTooLong``."""
        self.conn = _connect(path, 2.0)
        self.conn.execute("PRAGMA query_only = ON")
        self.deadline = deadline
        if deadline is not None:
            self.conn.set_progress_handler(self._past_deadline, PROGRESS_STEPS)

    def _past_deadline(self) -> int:
        return 1 if self.deadline is not None and time.monotonic() > self.deadline else 0

    def check(self) -> None:
        """Raise ``QueryTooLong`` once the deadline passed (loops over rows call it)."""
        if self._past_deadline():
            raise QueryTooLong("the history query ran past its time bound")

    def close(self) -> None:
        self.conn.close()

    def chain_at(self, device: str, at_ms: int) -> list[Frame]:
        """The frames that rebuild the screen shown at ``at_ms``: the last frame at or before
        it, back to (and including) its keyframe; empty when nothing was recorded by then."""
        last = self.conn.execute(
            "SELECT id FROM frames WHERE device = ? AND at_ms <= ? ORDER BY at_ms DESC, id DESC "
            "LIMIT 1",
            (device, at_ms),
        ).fetchone()
        if last is None:
            return []
        key = self.conn.execute(
            "SELECT MAX(id) FROM frames WHERE device = ? AND id <= ? AND keyframe != ?",
            (device, last[0], FRAME_DELTA),
        ).fetchone()[0]
        start = key if key is not None else last[0]
        return self.frames_between_ids(device, start, last[0])

    def frames_between_ids(self, device: str, first: int, last: int) -> list[Frame]:
        rows = self.conn.execute(
            "SELECT id, at_ms, generation, keyframe, body FROM frames "
            "WHERE device = ? AND id >= ? AND id <= ? ORDER BY id",
            (device, first, last),
        )
        return [Frame(int(r[0]), int(r[1]), int(r[2]), int(r[3]), bytes(r[4])) for r in rows]

    def frames_after(self, device: str, after_id: int, until_ms: int, limit: int) -> list[Frame]:
        rows = self.conn.execute(
            "SELECT id, at_ms, generation, keyframe, body FROM frames "
            "WHERE device = ? AND id > ? AND at_ms <= ? ORDER BY id LIMIT ?",
            (device, after_id, until_ms, limit),
        )
        return [Frame(int(r[0]), int(r[1]), int(r[2]), int(r[3]), bytes(r[4])) for r in rows]

    def screen_changes(
        self, device: str, since_ms: int, until_ms: int, limit: int
    ) -> list[tuple[int, int, bytes]]:
        """(at_ms, generation, keyframe body) of the screen changes in the window."""
        rows = self.conn.execute(
            "SELECT at_ms, generation, body FROM frames WHERE device = ? AND keyframe = ? "
            "AND at_ms >= ? AND at_ms <= ? ORDER BY at_ms DESC LIMIT ?",
            (device, FRAME_SCREEN, since_ms, until_ms, limit),
        )
        return [(int(r[0]), int(r[1]), bytes(r[2])) for r in rows]

    def events(
        self,
        device: str,
        since_ms: int,
        until_ms: int,
        kinds: tuple[str, ...],
        client: str | None,
        limit: int,
    ) -> list[tuple[int, str, str | None, str, bytes | None]]:
        """(at_ms, kind, client, summary, body) of the window's events, newest first."""
        sql = "SELECT at_ms, kind, client, summary, body FROM events WHERE device = ? "
        sql += "AND at_ms >= ? AND at_ms <= ?"
        args: list[Any] = [device, since_ms, until_ms]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        if client is not None:
            sql += " AND client = ?"
            args.append(client)
        sql += " ORDER BY at_ms DESC, id DESC LIMIT ?"
        args.append(limit)
        return [
            (int(r[0]), str(r[1]), r[2], str(r[3]), bytes(r[4]) if r[4] is not None else None)
            for r in self.conn.execute(sql, args)
        ]

    def screenshot_near(self, device: str, at_ms: int) -> tuple[int, str] | None:
        """(at_ms, file name) of the last screenshot at or before ``at_ms``."""
        row = self.conn.execute(
            "SELECT at_ms, body FROM events WHERE device = ? AND kind = 'screenshot' "
            "AND at_ms <= ? ORDER BY at_ms DESC LIMIT 1",
            (device, at_ms),
        ).fetchone()
        return (int(row[0]), bytes(row[1]).decode()) if row is not None else None

    def outcomes(self, since_ms: int) -> list[tuple[str, str, str, str, int, bytes | None]]:
        """(device, key, digest, state, started_ms, body) of the keyed actions started since
        ``since_ms``."""
        rows = self.conn.execute(
            "SELECT device, key, digest, state, started_ms, body FROM outcomes "
            "WHERE started_ms >= ?",
            (since_ms,),
        )
        return [
            (str(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), bytes(r[5]) if r[5] else None)
            for r in rows
        ]
