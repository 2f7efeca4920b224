"""``Journal``: what the hub calls to record history, and the thread that writes it.

Invariants:
- the hub's event loop only enqueues (``frame``, ``event``, ``screenshot``: a ``put_nowait``
  on a bounded queue, never a disk write); one writer thread drains the queue in batches, one
  transaction per batch. A full queue drops the item and counts it (``gaps``); the next batch
  records a ``gap`` event, and the next frame is written against the last frame *written*, so
  the chain on disk stays whole;
- ``begin_key`` is durable before it returns True (the action may then run): after a crash a
  retry of that key finds ``running`` and is refused instead of run twice. ``end_key`` is
  durable before the result is returned to the caller;
- the first ``sqlite3.Error`` / ``OSError`` turns the journal off for this run with one
  warning line (``journal_off``); the hub keeps serving from memory; nothing raises into it;
- retention (age, bytes) runs in the writer thread after a batch that took the journal past
  its byte cap and every ``AGE_CHECK_S``; what it dropped is logged (``journal_retention``)
  and counted in ``statistics()``.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import msgspec

from bridge.core.idempotency import DEFAULT_WINDOW_MS
from bridge.core.patch import patch
from bridge.journal.lock import JournalLock, default_journal
from bridge.journal.records import (
    FRAME_DELTA,
    FRAME_PERIODIC,
    FRAME_SCREEN,
    KEYFRAME_EVERY,
    Outcome,
    encode_delta,
    encode_event,
    encode_outcome,
    encode_snapshot,
    event_kind,
    event_summary,
    screen_key,
)
from bridge.journal.store import Dropped, JournalReader, JournalStore, QueryTooLong
from bridge.wire.client_protocol import ActionEvent, DeviceEvent, LeaseEvent
from bridge.wire.snapshot import ScreenSnapshot

DEFAULT_MAX_AGE_S = 7 * 24 * 3600
DEFAULT_MAX_BYTES = 1 << 30
QUEUE_ITEMS = 4096
BATCH_ITEMS = 512
AGE_CHECK_S = 60.0
DURABLE_WAIT_S = 5.0
MAX_CAPTURE_FILE = 16 << 20
MAX_DEDUP_DEVICES = 1024
"""Devices whose last kept picture the journal remembers (for not keeping a repeat)."""
OUTCOME_WINDOW_MS = DEFAULT_WINDOW_MS
READ_THREADS = 2
"""History queries running at once for the whole hub (each a worker thread and a read
connection); more wait their turn (how many may wait: ``bridge.hub.resources``)."""
READ_TIMEOUT_S = 10.0
"""A history query's own time (after its turn came); past it, it stops and is refused."""
"""Keyed outcomes from earlier runs count as long as a key does in memory (10 minutes)."""

T = TypeVar("T")


def state_dir() -> Path:
    """``$XDG_STATE_HOME`` (default ``~/.local/state``)."""
    import os

    return Path(os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state"))


def default_path(key: str) -> Path:
    """``$XDG_STATE_HOME/mobridge/journals/<key>.sqlite3``: the default journal of the hub
    whose identity (``bridge.journal.lock.identity``: its name or port, and its devices) is
    ``key``. Each hub has its own; a hub started again the same way finds its history."""
    return default_journal(state_dir(), key)


class JournalUnavailable(Exception):
    """The journal is off (never opened, or failed); the message says why."""


@dataclass
class JournalStats:
    frames: int = 0
    keyframes: int = 0
    events: int = 0
    screenshots: int = 0
    batches: int = 0
    gaps: int = 0
    """Items dropped because the queue was full (a slow disk)."""
    dropped_frames: int = 0
    dropped_events: int = 0
    dropped_captures: int = 0
    dropped_bytes: int = 0
    retention_passes: int = 0
    last_batch_ms: float = 0.0
    restored_outcomes: int = 0
    kept_bytes: int = 0
    """What the journal holds, in the byte cap's measure (after the last batch)."""


@dataclass(frozen=True)
class Recorded:
    """A keyed action of an earlier run: ``outcome`` None means it never finished."""

    digest: str
    outcome: Outcome | None
    started_ms: int


@dataclass
class _Durable:
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[bool]

    def settle(self, ok: bool) -> None:
        def done() -> None:
            if not self.future.done():
                self.future.set_result(ok)

        try:
            self.loop.call_soon_threadsafe(done)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass


@dataclass
class _Item:
    op: str
    device: str
    at_ms: int
    args: tuple[Any, ...] = ()
    durable: _Durable | None = None


_STOP = _Item("stop", "", 0)


@dataclass
class _Chain:
    last: ScreenSnapshot
    deltas: int
    screen: str


@dataclass
class Journal:
    """Open with ``Journal.open``; the hub calls ``frame`` / ``event`` / ``screenshot`` /
    ``begin_key`` / ``end_key``, and the service answers queries through ``read``."""

    path: Path
    store: JournalStore | None
    log: Callable[..., None]
    max_age_ms: int = DEFAULT_MAX_AGE_S * 1000
    max_bytes: int = DEFAULT_MAX_BYTES
    keyframe_every: int = KEYFRAME_EVERY
    clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000
    stats: JournalStats = field(default_factory=JournalStats)
    restored: dict[tuple[str, str], Recorded] = field(default_factory=dict)
    off_reason: str | None = None
    _queue: queue.Queue[_Item] = field(default_factory=lambda: queue.Queue(QUEUE_ITEMS))
    _thread: threading.Thread | None = None
    _chains: dict[str, _Chain] = field(default_factory=dict)
    _unreported_gaps: dict[str, int] = field(default_factory=dict)
    _gap_lock: threading.Lock = field(default_factory=threading.Lock)
    _last_age_check: float = 0.0
    _lock: JournalLock | None = None
    _last_shot: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    """Per device: the digest and name of the last picture kept (a repeat is not kept)."""
    _readers: anyio.CapacityLimiter | None = None

    @classmethod
    def open(
        cls,
        path: Path,
        log: Callable[..., None],
        *,
        max_age_s: float = DEFAULT_MAX_AGE_S,
        max_bytes: int = DEFAULT_MAX_BYTES,
        holder: dict[str, object] | None = None,
    ) -> Journal:
        """Open the journal at ``path`` and start its writer thread. Raises
        ``bridge.journal.lock.JournalBusy`` when another live hub holds it (``holder`` is what
        that refusal tells the next one about this hub: name, url). A database that cannot
        be used otherwise (corrupt, read-only, unreachable) gives a journal that is off, with
        one warning line: the hub serves without it."""
        journal = cls(path, None, log, int(max_age_s * 1000), max_bytes)
        try:
            journal._lock = JournalLock.acquire(path, holder or {})
            journal.store = JournalStore(path)
            reader = JournalReader(path)
            try:
                since = journal.clock_ms() - OUTCOME_WINDOW_MS
                for device, key, digest, state, started, body in reader.outcomes(since):
                    outcome = None
                    if state == "done" and body is not None:
                        outcome = msgspec.msgpack.decode(body, type=Outcome)
                    journal.restored[(device, key)] = Recorded(digest, outcome, started)
            finally:
                reader.close()
        except (sqlite3.Error, OSError, msgspec.DecodeError) as exc:
            journal._turn_off(exc)
            return journal
        journal.stats.restored_outcomes = len(journal.restored)
        journal._thread = threading.Thread(
            target=journal._run, name="mobridge-journal", daemon=True
        )
        journal._thread.start()
        return journal

    @property
    def on(self) -> bool:
        return self.off_reason is None

    def _turn_off(self, exc: BaseException) -> None:
        if self.off_reason is not None:
            return
        self.off_reason = f"{type(exc).__name__}: {exc}"[:300]
        self.log(
            "journal_off",
            path=str(self.path),
            reason=self.off_reason,
            effect="the hub keeps serving without a journal (history and restart-safe "
            "idempotency are off until restart)",
        )
        store, self.store = self.store, None
        if store is not None:
            try:
                store.close()
            except sqlite3.Error:
                pass

    def describe(self, holder: dict[str, object]) -> None:
        """Tell a hub refused this journal who holds it (once the URL is known)."""
        if self._lock is not None:
            try:
                self._lock.describe({"pid": os.getpid(), **holder})
            except OSError:
                pass

    def close(self) -> None:
        """Flush what is queued, stop the writer thread and release the file's lock
        (blocking; call from a thread or at exit)."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            thread.join(timeout=10)
        self._thread = None
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    # ---- hooks (event loop; never block) ----------------------------------------------------

    def _put(self, item: _Item) -> bool:
        if not self.on:
            return False
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self.stats.gaps += 1
            with self._gap_lock:
                self._unreported_gaps[item.device] = self._unreported_gaps.get(item.device, 0) + 1
            return False
        return True

    def frame(
        self,
        device: str,
        generation: int,
        snapshot: ScreenSnapshot,
        base: str | None = None,
        changed: tuple[str, ...] | None = None,
    ) -> None:
        """A device's new generation (its full snapshot, as clients are served it).
        ``changed``: the nodes that differ from the snapshot ``base`` (the previous
        generation) when the hub knows them; the writer then builds the delta from those
        alone, if ``base`` is the last frame it wrote."""
        self._put(_Item("frame", device, self.clock_ms(), (generation, snapshot, base, changed)))

    def event(self, device: str, event: ActionEvent | LeaseEvent | DeviceEvent) -> None:
        """An action (with its result or refusal), lease or device (health) event."""
        self._put(_Item("event", device, self.clock_ms(), (event,)))

    def screenshot(self, device: str, png: bytes) -> str | None:
        """Keep a screenshot by reference; returns its file name (None: not kept). A picture
        whose bytes equal the device's last kept one is not written again: the new moment's
        ``screenshot`` event names the same file (pruning keeps a file while any event names
        it)."""
        if len(png) > MAX_CAPTURE_FILE:
            return None
        digest = hashlib.blake2b(png, digest_size=16).digest()
        last = self._last_shot.get(device)
        if last is not None and last[0] == digest:
            ok = self._put(_Item("capture", device, self.clock_ms(), (last[1], None)))
            return last[1] if ok else None
        name = f"{self.clock_ms()}-{secrets.token_hex(4)}.png"
        if not self._put(_Item("capture", device, self.clock_ms(), (name, png))):
            return None
        if device not in self._last_shot and len(self._last_shot) >= MAX_DEDUP_DEVICES:
            self._last_shot.pop(next(iter(self._last_shot)))
        self._last_shot[device] = (digest, name)
        return name

    async def _durable(self, item: _Item) -> bool:
        if not self.on:
            return False
        loop = asyncio.get_running_loop()
        item.durable = _Durable(loop, loop.create_future())
        if not self._put(item):
            return False
        try:
            return await asyncio.wait_for(asyncio.shield(item.durable.future), DURABLE_WAIT_S)
        except TimeoutError:
            return False

    async def begin_key(self, device: str, key: str, digest: str) -> bool:
        """Record that the keyed action starts; True once it is on disk."""
        return await self._durable(_Item("begin", device, self.clock_ms(), (key, digest)))

    async def end_key(self, device: str, key: str, outcome: Outcome) -> bool:
        """Record the keyed action's outcome; True once it is on disk."""
        self.restored.pop((device, key), None)
        return await self._durable(
            _Item("end", device, self.clock_ms(), (key, encode_outcome(outcome)))
        )

    def recorded(self, device: str, key: str) -> Recorded | None:
        """The outcome of ``key`` recorded by an earlier run of the hub within the keys'
        window (None: none)."""
        found = self.restored.get((device, key))
        if found is not None and self.clock_ms() - found.started_ms >= OUTCOME_WINDOW_MS:
            del self.restored[(device, key)]
            return None
        return found

    # ---- reads (worker threads) -------------------------------------------------------------

    async def read(self, query: Callable[[JournalReader], T], timeout_s: float | None = None) -> T:
        """Run ``query`` on a fresh read connection in a worker thread: at most
        ``READ_THREADS`` at once for the hub (others wait their turn), each stopped after
        ``timeout_s`` of its own time (``QueryTooLong``). Raises ``JournalUnavailable`` when
        the journal is off or the read fails."""
        if not self.on:
            raise JournalUnavailable(f"the journal is off ({self.off_reason})")
        if self._readers is None:
            self._readers = anyio.CapacityLimiter(READ_THREADS)
        if timeout_s is None:
            timeout_s = READ_TIMEOUT_S

        def run() -> T:
            assert timeout_s is not None
            reader = JournalReader(self.path, deadline=time.monotonic() + timeout_s)
            try:
                return query(reader)
            except sqlite3.OperationalError as exc:
                if reader.deadline is not None and time.monotonic() > reader.deadline:
                    raise QueryTooLong(
                        f"the history query ran past its bound of {timeout_s:g} s"
                    ) from exc
                raise
            finally:
                reader.close()

        try:
            return await anyio.to_thread.run_sync(run, limiter=self._readers)
        except (sqlite3.Error, OSError) as exc:
            raise JournalUnavailable(f"the journal cannot be read ({exc})") from exc

    def capture_file(self, name: str) -> Path | None:
        """The path of a kept screenshot (None: not a name the journal writes)."""
        if not name.endswith(".png") or "/" in name or name.startswith("."):
            return None
        file = self.path.with_name(self.path.name + ".captures") / name
        return file if file.is_file() else None

    def statistics(self) -> dict[str, Any]:
        store = self.store
        return {
            "path": str(self.path),
            "on": self.on,
            "off_reason": self.off_reason,
            "queue": self._queue.qsize(),
            "bytes": store.bytes if store is not None else None,
            "max_bytes": self.max_bytes,
            "max_age_s": self.max_age_ms // 1000,
            **vars(self.stats),
        }

    # ---- the writer thread ------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            batch = [first]
            while len(batch) < BATCH_ITEMS:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = any(item is _STOP for item in batch)
            self._write([item for item in batch if item is not _STOP])
            if stop:
                store, self.store = self.store, None
                if store is not None:
                    store.close()
                return

    def _write(self, batch: list[_Item]) -> None:
        store = self.store
        if store is None or not batch:
            for item in batch:
                if item.durable is not None:
                    item.durable.settle(False)
            return
        started = time.monotonic()
        try:
            store.begin()
            with self._gap_lock:
                gaps, self._unreported_gaps = self._unreported_gaps, {}
            for device, count in gaps.items():
                store.add_event(
                    device,
                    self.clock_ms(),
                    "gap",
                    None,
                    f"the journal dropped {count} record(s): the disk was too slow",
                    None,
                )
            for item in batch:
                self._apply(store, item)
                time.sleep(0)  # hand the GIL to the event loop between items (fan-out first)
            store.commit()
        except (sqlite3.Error, OSError) as exc:
            try:
                store.rollback()
            except sqlite3.Error:
                pass
            self._turn_off(exc)
            for item in batch:
                if item.durable is not None:
                    item.durable.settle(False)
            return
        self.stats.batches += 1
        self.stats.last_batch_ms = round((time.monotonic() - started) * 1000, 3)
        for item in batch:
            if item.durable is not None:
                item.durable.settle(True)
        self._retain(store)
        self.stats.kept_bytes = store.bytes

    def _apply(self, store: JournalStore, item: _Item) -> None:
        if item.op == "frame":
            generation, snapshot, base, changed = item.args
            self._frame(store, item.device, item.at_ms, generation, snapshot, base, changed)
        elif item.op == "event":
            (event,) = item.args
            who, summary = event_summary(event)
            store.add_event(
                item.device, item.at_ms, event_kind(event), who, summary, encode_event(event)
            )
            self.stats.events += 1
        elif item.op == "capture":
            name, png = item.args
            if png is not None:  # None: the same pixels as a file already kept
                store.add_capture(name, png)
            store.add_event(
                item.device, item.at_ms, "screenshot", None, "screenshot", name.encode()
            )
            self.stats.screenshots += 1
        elif item.op == "begin":
            key, digest = item.args
            store.begin_outcome(item.device, key, digest, item.at_ms)
        elif item.op == "end":
            key, body = item.args
            store.end_outcome(item.device, key, body)

    def _frame(
        self,
        store: JournalStore,
        device: str,
        at_ms: int,
        generation: int,
        snapshot: ScreenSnapshot,
        base: str | None,
        changed: tuple[str, ...] | None,
    ) -> None:
        chain = self._chains.get(device)
        screen = screen_key(snapshot)
        if chain is None or chain.screen != screen:
            kind, body = FRAME_SCREEN, encode_snapshot(snapshot)
        elif chain.deltas + 1 >= self.keyframe_every:
            kind, body = FRAME_PERIODIC, encode_snapshot(snapshot)
        else:
            hint = changed if base is not None and base == chain.last.snapshot_id else None
            kind, body = FRAME_DELTA, encode_delta(patch(chain.last, snapshot, hint))
        store.add_frame(device, at_ms, generation, kind, body)
        self.stats.frames += 1
        if kind == FRAME_DELTA:
            assert chain is not None
            chain.last, chain.deltas = snapshot, chain.deltas + 1
        else:
            self.stats.keyframes += 1
            self._chains[device] = _Chain(snapshot, 0, screen)

    def _retain(self, store: JournalStore) -> None:
        now = time.monotonic()
        if store.bytes <= self.max_bytes and now - self._last_age_check < AGE_CHECK_S:
            return
        self._last_age_check = now
        try:
            dropped = store.enforce(self.clock_ms(), self.max_age_ms, self.max_bytes)
        except (sqlite3.Error, OSError) as exc:
            self._turn_off(exc)
            return
        self.stats.retention_passes += 1
        if dropped:
            self._count(dropped)
            self.log(
                "journal_retention",
                frames=dropped.frames,
                events=dropped.events,
                screenshots=dropped.captures,
                outcomes=dropped.outcomes,
                bytes=dropped.bytes,
                kept_bytes=store.bytes,
                max_bytes=self.max_bytes,
                max_age_s=self.max_age_ms // 1000,
            )
            # Frames after the cut may have lost their keyframe: the next frame of every
            # device starts a fresh chain.
            self._chains.clear()

    def _count(self, dropped: Dropped) -> None:
        self.stats.dropped_frames += dropped.frames
        self.stats.dropped_events += dropped.events
        self.stats.dropped_captures += dropped.captures
        self.stats.dropped_bytes += dropped.bytes
