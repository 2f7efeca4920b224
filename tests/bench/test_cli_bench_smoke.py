"""Smoke test of the CLI start-up benchmark: one round against a real hub process prints a
row per command with numbers where numbers belong (never a timing assertion)."""

from __future__ import annotations

import re

from bridge.bench import cli as cli_bench

NUM = r"\d+\.\d"


def test_one_round_prints_a_row_per_command() -> None:
    lines = cli_bench.table(1, warm_up=False)
    assert lines[0].startswith("cli: a fresh process per command, 1 rounds")
    names = ["python -c (bare)", "mobridge --help", "mobridge devices", "mobridge screen"]
    for name in [*names, "mobridge tap --at"]:
        row = next(line for line in lines if line.strip().startswith(name))
        assert re.search(rf"first byte p50 +{NUM} +p90 +{NUM} +whole run p50 +{NUM}", row), row
        assert re.search(rf"x bare +{NUM}", row), row
        if name != "python -c (bare)":  # each against its target, as a share of it
            assert re.search(r"first byte +\d+\.\d\dx target \((ok|OVER)\)", row), row
    screen = next(line for line in lines if line.strip().startswith("mobridge screen"))
    assert re.search(r"whole +\d+\.\d\dx target \((ok|OVER)\)", screen), screen
