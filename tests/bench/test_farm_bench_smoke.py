"""Smoke test of the farm benchmark: a tiny run (real nats-server, three hub processes,
subscriber processes) prints both setups side by side with every delta delivered. Asserts
the structure, never a timing."""

from __future__ import annotations

import re

from bridge.bench import farm as farm_bench
from tests.farm.farmfixture import need_nats

NUM = r"(\d+(?:\.\d+)?)"


@need_nats
def test_farm_bench_prints_both_setups_with_nothing_missed() -> None:
    lines = farm_bench.measure(farm_bench.Sizes(per_hub=3, changes=5, warmup=1))
    text = "\n".join(lines)
    rows = {
        "one hub (A, its own device)": 3,
        "three hubs (A owns the device)": 9,
        "of which on A (local)": 3,
        "of which on B, C (relayed)": 6,
    }
    for label, members in rows.items():
        found = re.search(
            rf"{re.escape(label)}\s+{members}\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}\s+0\s+0$",
            text,
            re.MULTILINE,
        )
        assert found, (label, text)
