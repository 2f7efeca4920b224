"""The core bench's issue-41 rows run and report what they claim to (small trees, so the
smoke test is quick; the figures themselves are ``scripts/bench``'s)."""

from __future__ import annotations

import re

from bridge.bench.core import big_tree_rows, cpu_ms


def test_the_big_tree_row_reports_cpu_delta_bytes_and_the_tree_delta_path() -> None:
    first, second, third = big_tree_rows(400, 3)
    assert first.startswith("400-node tree")
    found = re.search(r"delta ([\d,]+) B JSON", first)
    assert found is not None, first
    assert 0 < int(found.group(1).replace(",", "")) <= 1024  # one text changed: a small delta
    assert "msgspec decode alone" in first
    assert re.search(r"tree_delta .*: +\d+\.\d+ ms CPU", second), second
    assert re.search(r"frame decoder .*: +\d+\.\d+ ms CPU", third), third


def test_cpu_ms_counts_process_time_not_waiting() -> None:
    import time

    assert cpu_ms(lambda: time.sleep(0.02), 3) < 15  # sleeping costs no CPU
