"""The idle-hub row starts a real ``mobridge serve``, reads its RSS and the heavy libraries
it mapped, and stops it (the figure itself is ``scripts/bench``'s)."""

from __future__ import annotations

import re
import sys

import pytest

from bridge.bench.idle import idle_rss


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc (Linux only)")
def test_the_idle_row_measures_a_real_hub() -> None:
    line = idle_rss()
    found = re.search(r": ([\d.]+) MB \(goal <= 45 MB\); heavy libraries mapped: (.+)$", line)
    assert found is not None, line
    assert 10 < float(found.group(1)) < 1000
