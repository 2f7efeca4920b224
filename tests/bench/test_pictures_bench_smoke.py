"""Smoke test of the pictures benchmark: both rows print their figures (structure only, never a
timing), and the counts that are not timings hold: one source for every mirror viewer."""

from __future__ import annotations

import re

from bridge.bench import pictures


def test_rows_print_screenshots_per_change_and_one_mirror_source() -> None:
    text = "\n".join(pictures.run(quick=True))
    found = re.search(r"device screenshots per change ([\d.]+) \(goal 1\)", text)
    assert found is not None, text
    assert re.search(r"settle->picture p50 \d+ ms p99 \d+ ms \((\d+) pictures\)", text), text
    assert "sources started 1 (goal 1)" in text, text
    frames = re.search(r"frames per viewer min (\d+)", text)
    assert frames is not None and int(frames.group(1)) > 0, text
