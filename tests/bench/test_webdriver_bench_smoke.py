"""Smoke test of the WebDriver benchmark: one quick run against a real ``serve --webdriver``
process prints a row per command with numbers where numbers belong (no timing asserted)."""

from __future__ import annotations

import re

from bridge.bench import webdriver as webdriver_bench


def test_a_quick_run_prints_a_row_per_command() -> None:
    lines = webdriver_bench.run(True)
    assert lines[0].startswith("webdriver command overhead (median ms of 30 runs in 3 ")
    for name in (
        "find element (id)",
        "window rect (once per orientation) / display",
        "send keys / SET_TEXT",
    ):
        row = next(line for line in lines if line.startswith(name))
        assert re.search(r" +\d+\.\d\d +\d+\.\d\d +-?\d+\.\d\d$", row), row
    for name in ("find element (xpath", "element text", "page source"):
        row = next(line for line in lines if line.startswith(name))
        assert re.search(r" +\d+\.\d\d +- +-$", row), row
    assert lines[-1] == "goal: overhead <= 2 ms per command (issue 36)"
