"""Smoke test of the heartbeat benchmark: a tiny run (real nats-server, a real hub process,
16 simulated hubs) prints both modes and the projection. Asserts the structure and that the
change-only heartbeats move fewer bytes than full lists — never a timing."""

from __future__ import annotations

import re

from bridge.bench import farm_heartbeat
from tests.farm.farmfixture import need_nats


@need_nats
def test_heartbeat_bench_prints_both_modes_and_the_projection() -> None:
    text = "\n".join(farm_heartbeat.measure(16, 1.5))
    rows = {
        mode: re.search(
            rf"^{mode}\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d.]+)\s+(\d+)$", text, re.M
        )
        for mode in ("changes", "full")
    }
    assert all(rows.values()), text
    bytes_in = {m: int(r.group(1).replace(",", "")) for m, r in rows.items() if r}
    assert 0 < bytes_in["changes"] < bytes_in["full"], text
    assert rows["changes"] and rows["changes"].group(5) == "0", "no resync once joined"
    assert "projection, 256 hubs x 256 devices" in text
    assert re.search(r"^changes, idle hubs\s+1\d\d\s", text, re.M), text
