"""Smoke test of the hub benchmark: a tiny run (the hub and two subscriber workers in their own
processes, the bench agent here) prints every table, and every delta reaches every subscriber.

Asserts the structure (a row per subscriber count, numbers where numbers belong, nothing
missed, a target line per measure) and never a timing.
"""

from __future__ import annotations

import fcntl
import json
import os
import re

import pytest

from bridge.bench import hub as hub_bench

NUM = r"(-?\d+(?:\.\d+)?)"
TINY = hub_bench.Sizes(
    trees=(60,),
    subscribers=(1, 3),
    changes=5,
    warmup=2,
    rate_hz=20.0,
    workers=2,
    byte_samples=3,
    action_trees=(60,),
    actions=5,
    resolve_tree=60,
    resolves=5,
    offline=(200,),
    offline_runs=1,
    comparison_rounds=1,
    fanout_changes=10,
)


@pytest.fixture
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """One run per test session, shared by every worker through a file beside the workers'
    temporary folders (taken under a lock): in full runs the measurement was made up to four
    times (25 s each), though each worker kept it in a cache."""
    base = tmp_path_factory.getbasetemp()  # under xdist: this session's folder / the worker's
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "hub-bench-smoke"
    shared.mkdir(exist_ok=True)
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "lines.json"
        if not done.exists():
            measured = hub_bench.measure(TINY)
            done.write_text(json.dumps(measured))
        return list(json.loads(done.read_text()))


def _section(lines: list[str], title: str) -> list[str]:
    """The lines of the section whose first line starts with ``title``."""
    starts = [i for i, line in enumerate(lines) if line.startswith(title)]
    assert len(starts) == 1, (title, lines)
    body: list[str] = []
    for line in lines[starts[0] + 1 :]:
        if not line:
            break
        body.append(line)
    return body


def _rows(body: list[str]) -> list[str]:
    """A table's rows: the lines after its header, up to its note in brackets."""
    rows: list[str] = []
    for line in body[1:]:
        if line.strip().startswith("("):
            break
        rows.append(line)
    return rows


def test_the_fanout_table_runs_longer_series_and_gives_each_blocks_p99(lines: list[str]) -> None:
    """``fanout_changes`` (10) for the 60-node table and its floor, ``changes`` (5) for its
    whole-tree row; a p99 per block of 5 changes, the series' p99 between their extremes."""
    title = [line for line in lines if line.startswith("hub, 60-node tree")]
    assert title and title[0].startswith("hub, 60-node tree: 10 changes (5 for the * row)")
    assert any(line.startswith("fan-out floor") and " 10 changes " in line for line in lines)
    body = _section(lines, "hub, 60-node tree")
    p99 = {r.split()[0]: float(r.split()[2]) for r in _rows(body)}
    at = body.index("  p99 ms of each block of 5 changes in these series:")
    blocks = {b.split()[0]: [float(v) for v in b.split()[1:]] for b in body[at + 1 :]}
    assert sorted(blocks) == sorted(map(str, TINY.subscribers)), "one line per series, not *"
    for subs, values in blocks.items():
        assert len(values) == 2 and min(values) <= p99[subs] <= max(values), (subs, values)


def test_series_has_a_row_per_subscriber_count_and_loses_nothing(lines: list[str]) -> None:
    body = _section(lines, "hub, 60-node tree")
    rows = [r.split() for r in _rows(body)]
    assert [r[0] for r in rows] == [*map(str, TINY.subscribers), "1*"], "and whole trees"
    for r in rows:
        p50, p99, slowest = float(r[1]), float(r[2]), float(r[3])
        assert 0 < p50 <= p99 <= slowest
        assert float(r[4]) > 0, "the hub spent CPU on the changes"
        missed, resyncs = int(r[9]), int(r[10])
        assert missed == 0 and resyncs == 0, "every subscriber received every delta"
        kernel, subs_cpu = float(r[12]), float(r[13])
        assert 0 <= kernel <= 100 and subs_cpu > 0, "the hub's kernel share, the workers' CPU"
    assert rows[0][6] == "-" and re.fullmatch(NUM, rows[1][6]), "CPU per extra subscriber"


def test_bytes_table_covers_both_formats_and_views(lines: list[str]) -> None:
    body = _section(lines, "bytes per one-field change, 60-node tree")
    seen = set()
    for row in body:
        m = re.match(
            rf"^\s+(json|msgpack)\s+(compact|full)\s+{NUM}\s+{NUM}\s+([\d,]+)\s+{NUM}x", row
        )
        if m:
            delta, patch = float(m.group(3)), float(m.group(4))
            snapshot = int(m.group(5).replace(",", ""))
            assert 0 < delta < snapshot, "a one-field delta is smaller than the snapshot"
            assert 0 < patch < delta, "the slim patch frame is smaller than the delta frame"
            seen.add((m.group(1), m.group(2)))
    assert seen == {(f, v) for f in ("json", "msgpack") for v in ("compact", "full")}


def test_action_section_reports_total_agent_and_overhead(lines: list[str]) -> None:
    """Dispatch-only actions (issue 41's row), then verified ones, each with its figures."""
    body = _section(lines, "act round trip")
    values: dict[str, dict[str, float]] = {}
    kind = ""
    for row in body:
        if m := re.match(r"^\s+60\s+(dispatch-only|verified)$", row):
            kind = m.group(1)
        elif m := re.match(rf"^\s+60\s+(total|agent|hub overhead)\s+{NUM}\s+{NUM}$", row):
            values.setdefault(kind, {})[m.group(1)] = float(m.group(2))
    assert list(values) == ["dispatch-only", "verified"]
    for figures in values.values():
        assert set(figures) == {"total", "agent", "hub overhead"}
        assert figures["total"] > 0 and figures["agent"] > 0


def test_every_target_has_a_line_with_a_ratio_where_measured(lines: list[str]) -> None:
    body = _section(lines, "targets (issues 28 and 41)")
    measures = [r for r in body[1:] if r.strip()]
    assert len(measures) == 22 + 2 * len(TINY.action_trees)
    measured = [r for r in measures if re.search(rf"{NUM}x( !)?(   {NUM} \S+ \({NUM}x\))?$", r)]
    names = " ".join(measured)
    for what in ("overhead per action", "resolve a NodeRef", "delta for a one-field change"):
        assert what in names, what
    overheads = [r for r in measured if "overhead per action" in r]
    assert ["dispatch-only" in r for r in overheads] == [True, False]
    for overhead in overheads:
        assert re.search(rf"   {NUM} ms \({NUM}x\)$", overhead), "an action's floor: two pings"


def test_loop_section_runs_a_uvloop_hub_beside_an_asyncio_one(lines: list[str]) -> None:
    body = _section(lines, "event loop of the hub")
    rows = [r.split() for r in body[1:] if r.split()[1].isdigit()]
    assert [(r[0], int(r[1])) for r in rows] == [
        (loop, n) for loop in ("asyncio", "uvloop") for n in TINY.subscribers
    ]
    for r in rows:  # every subscriber got every delta
        assert re.fullmatch(NUM, r[2]) and re.fullmatch(NUM, r[3]), r
        assert r[-1] == "0", r
    ratios = [r for r in body if r.strip().startswith("uvloop / asyncio")]
    assert len(ratios) == len(TINY.subscribers)
    assert _section(lines, "uvloop hub: the targets")[0].split()[0] == "measure"


def test_a_full_collection_is_timed_with_the_most_subscribers_and_with_one(
    lines: list[str],
) -> None:
    (line,) = [x for x in lines if x.startswith("full garbage collection in the hub")]
    m = re.search(
        rf"{TINY.subscribers[-1]} subscribers {NUM} ms over ([\d,]+) tracked objects; "
        rf"1 subscriber {NUM} ms over ([\d,]+) \({NUM} objects per subscriber\)",
        line,
    )
    assert m is not None, line
    most, one = int(m.group(2).replace(",", "")), int(m.group(4).replace(",", ""))
    assert most > one > 0, "each connection adds tracked objects"


def test_whole_trees_are_compared_before_and_after_side_by_side(lines: list[str]) -> None:
    body = _section(lines, "whole trees, 1 subscriber, hub CPU per change")
    assert re.fullmatch(rf"\s+60 nodes:\s+{NUM} ->\s+{NUM} ms \({NUM}x\)", body[0]), body


def test_the_fanout_floor_feeds_the_same_subscribers_and_misses_nothing(lines: list[str]) -> None:
    """The floor (``bridge.bench.fanout_floor``) is measured in the same run with the same
    subscriber processes: a row per subscriber count, each delivery timed, nothing missed, and
    its figures beside the hub's in the targets."""
    body = _section(lines, "fan-out floor, 60-node deltas")
    rows = [r.split() for r in body[1:] if not r.strip().startswith("(")]
    assert [r[0] for r in rows] == [*map(str, TINY.subscribers)]
    for r in rows:
        assert int(r[1]) > 100, "a delta of the hub's size"
        p50, p99, last = float(r[2]), float(r[3]), float(r[4])
        assert 0 < p50 <= p99 <= last
        assert re.fullmatch(NUM, r[8]), "the floor's CPU per subscriber"
        assert int(r[10]) == 0, "every subscriber received every floor delta"
        assert float(r[11]) > 0 and float(r[12]) > 0, "the subscribers' CPU, fed by each"
    assert float(rows[0][8]) > 0, "one subscriber: the floor's CPU per change, all of it"
    per_sub = [line for line in lines if "hub CPU per delta per subscriber (60 nodes" in line]
    assert len(per_sub) == 1 and re.search(r"µs \(-?\d+\.\d\dx\)$", per_sub[0]), per_sub
