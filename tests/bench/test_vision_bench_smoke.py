"""Smoke test of the vision benchmark: the OCR row and the game session row print their
figures (structure only, never a timing)."""

from __future__ import annotations

import re

from bridge.bench import vision
from tests.skips import need_vision


@need_vision
def test_rows_print_latency_and_the_session_cache_counts() -> None:
    lines = vision.run(quick=True)
    text = "\n".join(lines)
    assert re.search(r"wall p50 +[\d.]+ ms +p90 +[\d.]+ ms +cpu p50 +[\d.]+ ms +load average", text)
    found = re.search(r"cache hits (\d+) +misses (\d+) +hit rate ([\d.]+)", text)
    assert found is not None, text
    hits, misses = int(found.group(1)), int(found.group(2))
    assert misses >= 1 and hits >= 1  # the game seen again is answered from the cache
