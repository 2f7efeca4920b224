"""Smoke test of the journal benchmark: a tiny day in test size (a real journal file and its
writer thread) prints bytes per change, the projected size per day, and the byte cap holding;
a tiny off/on fan-out run prints a row per mode and the ratio line. Structure only, never a
timing."""

from __future__ import annotations

import re

import anyio

from bridge.bench import hub as hub_bench
from bridge.bench.journal import by_thread, day_in_test_size, fan_out

TINY = hub_bench.Sizes(
    trees=(60,), subscribers=(1, 3), changes=4, warmup=2, rate_hz=20.0, workers=1
)


def test_a_day_in_test_size_reports_bytes_per_change_and_the_cap_holding() -> None:
    lines = day_in_test_size(150)
    text = "\n".join(lines)
    per_change = re.search(r"([\d,]+) bytes/change", text)
    assert per_change is not None and int(per_change.group(1).replace(",", "")) > 0
    assert re.search(r"projected database size per day at 5 changes/s: [\d.]+ GB", text)
    assert "gaps 0" in text and "cap held: yes" in text


def test_fan_out_off_and_on_side_by_side() -> None:
    lines = anyio.run(fan_out, TINY, 1)
    rows = [line for line in lines if re.match(r"\s+(off|on)\s+\d+\s", line)]
    assert len(rows) == 4 and sum(" off " in r for r in rows) == 2
    assert sum("journal on / off at" in line for line in lines) == 2
    for row in rows:
        assert row.split()[-1] == "0"  # nothing missed


def test_the_journals_cpu_is_split_by_thread_and_every_frame_is_written() -> None:
    lines = by_thread(60)
    text = "\n".join(lines)
    assert "60 changes (60 written)" in text
    loop = re.search(r"event-loop thread \(Journal.frame\): ([\d.]+) µs", text)
    writer = re.search(r"writer thread: (\d+) µs, of which .*: (\d+) µs", text)
    assert loop is not None and writer is not None, text
    assert int(writer.group(1)) > 0 and int(writer.group(2)) > 0
