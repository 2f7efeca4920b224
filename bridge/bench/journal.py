"""The journal's cost: fan-out with the journal on beside off, and bytes per change.

1. **Fan-out, journal off and on, in one run.** The hub bench (``bridge.bench.hub``: a bench
   agent changing one text of a 1,000-node screen at 5/s, open loop; subscribers in separate
   worker processes) on a fresh hub without a journal and a fresh hub with one, alternated
   (off, on, off, on: the median of each mode's p99 is compared, so drift of the machine
   falls on both sides).
2. **A day in test size.** The journal itself (real SQLite file, real writer thread) fed a
   1,000-node screen changing one text per change at 5 changes/s of simulated time (the clock
   is passed in): bytes per change on disk and in the byte cap's measure, and the database
   size a day of it projects to; then the same with a byte cap far below that, to show the
   cap holds.
3. **The journal's CPU per change, by thread** (issue 41's row): a 1,000-node screen changing
   one text per change, handed to a real journal as the hub hands it (``Journal.frame`` with
   the previous snapshot's id and the changed node ids): the CPU time of the calling thread
   (the hub's event loop; goal <= 0.2 ms) and of the writer thread (``pthread_getcpuclockid``),
   and, measured alone on the same inputs, the writer's pure-Python share (``patch`` and the
   MessagePack encoding, which hold the GIL; zlib and SQLite release it).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bridge.bench.hub import FULL, QUICK, Row, Sizes, _hub_bench, _ms
from bridge.core.patch import patch
from bridge.journal.recorder import Journal
from bridge.journal.records import _encoder, encode_delta
from bridge.wire.enums import Orientation, Role
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

TREE = 1000
RATE_HZ = 5.0
DAY_S = 86_400


def run(quick: bool) -> list[str]:
    sizes = QUICK if quick else FULL
    lines = anyio.run(fan_out, sizes, 1 if quick else 2)
    lines += ["", *day_in_test_size(1500 if quick else 6000)]
    lines += ["", *by_thread(500 if quick else 3000)]
    return lines


async def fan_out(sizes: Sizes, rounds: int) -> list[str]:
    subs = tuple(n for n in sizes.subscribers if n in (1, 100))
    if len(subs) < 2:
        subs = sizes.subscribers[:2]
    rows: dict[str, list[Row]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory(prefix="mobridge-bench-journal-") as tmp:
        for r in range(rounds):
            for mode in ("off", "on"):
                journal = str(Path(tmp) / f"j{r}.sqlite3") if mode == "on" else None
                async with _hub_bench(sizes, journal=journal) as bench:
                    await bench.switch_tree(TREE)
                    for n in subs:
                        rows[mode].append(await bench.series(TREE, n))
                    await bench.pool.ensure(0)
    lines = [
        f"journal off vs on, {TREE}-node screen, {sizes.changes} changes at "
        f"{sizes.rate_hz:g}/s, a fresh hub per run, {rounds} run(s) each, alternated",
        f"  {'journal':<8} {'subs':>5} {'p50 ms':>8} {'p99 ms':>8} {'hub CPU/change ms':>18} "
        f"{'missed':>7}",
    ]
    lines.extend(
        f"  {mode:<8} {row.subscribers:>5} {_ms(row.p50_ns):>8} {_ms(row.p99_ns):>8} "
        f"{row.cpu_per_change_ns / 1e6:>18.2f} {row.missed:>7}"
        for mode, series in rows.items()
        for row in series
    )
    for n in subs:
        off = [r.p99_ns for r in rows["off"] if r.subscribers == n and r.p99_ns]
        on = [r.p99_ns for r in rows["on"] if r.subscribers == n and r.p99_ns]
        if off and on:
            ratio = statistics.median(on) / statistics.median(off)
            verdict = "within" if ratio <= 1.10 else "OVER"
            lines.append(
                f"  journal on / off at {n} subscriber(s): p99 {ratio:.2f}x "
                f"(target <= 1.10x: {verdict})"
            )
    return lines


def screen(tick: int, nodes: int = TREE) -> ScreenSnapshot:
    """A ``nodes``-node screen in which row ``tick % nodes`` shows ``tick`` (a clock, a
    counter): one text changes per change, as in the hub bench."""
    out = [SemanticNode(node_id="n0", role=Role.UNKNOWN, bounds=(0, 0, 1080, 2400))]
    for i in range(1, nodes):
        text = f"Item {i} · {tick}" if i == 1 + tick % (nodes - 1) else f"Item {i}"
        out.append(
            SemanticNode(
                node_id=f"n{i}",
                role=Role.TEXT if i % 4 else Role.BUTTON,
                parent_id="n0",
                text=text,
                resource_id=f"com.example:id/item{i}",
                bounds=(0, i * 48 % 2400, 1080, i * 48 % 2400 + 48),
            )
        )
    return ScreenSnapshot(
        schema_version=1,
        device_id="bench",
        snapshot_id=f"s_b{tick}",
        timestamp=tick,
        package_name="com.example",
        window_id=0,
        orientation=Orientation.PORTRAIT,
        screen_state_id="com.example:list",
        compact=False,
        nodes=tuple(out),
        tree_hash=f"{tick:08x}",
    )


def simulate(changes: int, path: Path, max_bytes: int = 1 << 30) -> dict[str, Any]:
    """Feed ``changes`` changes at 5/s of simulated time into a journal at ``path``; the
    figures of what it kept."""
    clock = [1_800_000_000_000]
    logged: list[str] = []
    journal = Journal.open(path, lambda event, **_: logged.append(event), max_bytes=max_bytes)
    journal.clock_ms = lambda: clock[0]
    screens = [screen(t) for t in range(min(changes, 400))]
    started = time.perf_counter()
    for t in range(changes):
        clock[0] += int(1000 / RATE_HZ)
        journal.frame("bench", t + 1, screens[t % len(screens)])
        if journal._queue.qsize() > 2000:
            time.sleep(0.05)  # a test-sized day, not a flood: let the writer keep up
    journal.close()
    spent = time.perf_counter() - started
    counted = journal.stats.kept_bytes
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    return {
        "changes": changes,
        "frames": journal.stats.frames,
        "keyframes": journal.stats.keyframes,
        "gaps": journal.stats.gaps,
        "file_bytes": size,
        "counted_bytes": counted,
        "dropped_frames": journal.stats.dropped_frames,
        "on": journal.on,
        "seconds": spent,
        "logged": logged,
    }


def day_in_test_size(changes: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="mobridge-bench-journal-") as tmp:
        free = simulate(changes, Path(tmp) / "free.sqlite3")
        per_change = free["file_bytes"] / max(1, free["frames"])
        per_day = per_change * RATE_HZ * DAY_S
        cap = max(200_000, int(free["file_bytes"] * 0.25))
        capped = simulate(changes, Path(tmp) / "capped.sqlite3", max_bytes=cap)
    return [
        f"journal, a day in test size: {changes:,} changes of a {TREE:,}-node screen at "
        f"{RATE_HZ:g}/s of simulated time ({changes / RATE_HZ / 60:.0f} min), one text per change",
        f"  frames {free['frames']:,} (keyframes {free['keyframes']}), gaps {free['gaps']}, "
        f"database {free['file_bytes'] / 1e6:.2f} MB on disk: {per_change:,.0f} bytes/change",
        f"  projected database size per day at {RATE_HZ:g} changes/s: {per_day / 1e9:.2f} GB "
        f"({per_day / 1e6:,.0f} MB; the default cap of 1 GB keeps "
        f"{min(1.0, 1e9 / per_day) * 24:.1f} h of it)",
        f"  writer throughput: {free['frames'] / free['seconds']:,.0f} frames/s",
        f"  with a cap of {cap / 1e6:.2f} MB: kept {capped['counted_bytes'] / 1e6:.2f} MB "
        f"(file {capped['file_bytes'] / 1e6:.2f} MB), dropped {capped['dropped_frames']:,} "
        f"frames, cap held: {'yes' if capped['counted_bytes'] <= cap else 'NO'}",
    ]


LOOP_GOAL_MS = 0.2


def by_thread(changes: int) -> list[str]:
    """Per change: CPU of the hub's side of ``Journal.frame`` and of the writer thread."""
    screens = [screen(t) for t in range(min(changes, 400))]
    hints: list[tuple[str, ...]] = []
    for t, now in enumerate(screens):
        before = screens[t - 1]
        hints.append(
            tuple(a.node_id for a, b in zip(before.nodes, now.nodes, strict=True) if a != b)
        )
    with tempfile.TemporaryDirectory(prefix="mobridge-bench-journal-") as tmp:
        journal = Journal.open(Path(tmp) / "threads.sqlite3", lambda event, **_: None)
        assert journal._thread is not None and journal._thread.ident is not None
        writer = time.pthread_getcpuclockid(journal._thread.ident)
        writer_start = time.clock_gettime(writer)
        loop: list[float] = []
        for t in range(changes):
            now, before = screens[t % len(screens)], screens[(t - 1) % len(screens)]
            base = before.snapshot_id if t else None
            hint = hints[t % len(screens)] if t else None
            started = time.thread_time()
            journal.frame("bench", t + 1, now, base, hint)
            loop.append(time.thread_time() - started)
            if t % 20 == 19:
                time.sleep(0.004)  # 5 changes/s in the hub; here only the writer's turn
        deadline = time.monotonic() + 60
        while journal.stats.frames < changes and time.monotonic() < deadline:
            time.sleep(0.02)
        writer_s = time.clock_gettime(writer) - writer_start
        frames = journal.stats.frames
        journal.close()
    python: list[float] = []
    for t in range(1, min(changes, 200)):
        now, before = screens[t % len(screens)], screens[(t - 1) % len(screens)]
        started = time.thread_time()
        body = patch(before, now, hints[t % len(screens)])
        _encoder.encode(body)
        python.append(time.thread_time() - started)
        encode_delta(body)
    loop_ms = statistics.mean(loop) * 1000
    return [
        f"journal CPU per change by thread, {TREE:,}-node screen, {changes:,} changes "
        f"({frames:,} written):",
        f"  on the hub's event-loop thread (Journal.frame): {loop_ms * 1000:.1f} µs "
        f"(goal <= {LOOP_GOAL_MS} ms: {'met' if loop_ms <= LOOP_GOAL_MS else 'NOT met'})",
        f"  writer thread: {writer_s / max(1, frames) * 1e6:.0f} µs, of which its Python "
        f"part holding the GIL (patch + MessagePack, measured alone): "
        f"{statistics.median(python) * 1e6:.0f} µs",
    ]
