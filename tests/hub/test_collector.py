"""``bridge.hub.collector``: a served hub's startup objects are frozen out of the garbage
collector once it listens, so a full collection no longer walks them; ``/v1/stats`` says how
many were frozen. A process that builds and drops hubs (this test suite) never freezes."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.cli.hubproc import ROOT, served_hub

FREEZE_AND_COUNT = """
import gc, json, time
import bridge.hub.app  # what a hub's process has loaded before it listens
from bridge.hub.collector import freeze_startup
gc.collect()
before = len(gc.get_objects())
start = time.perf_counter()
gc.collect()
unfrozen_ms = (time.perf_counter() - start) * 1000
frozen = freeze_startup()
start = time.perf_counter()
gc.collect()
frozen_ms = (time.perf_counter() - start) * 1000
print(json.dumps({"before": before, "frozen": frozen, "left": len(gc.get_objects()),
                  "unfrozen_ms": unfrozen_ms, "frozen_ms": frozen_ms}))
"""


def test_freezing_moves_the_startup_objects_out_of_every_full_collection() -> None:
    out = subprocess.run(
        [sys.executable, "-c", FREEZE_AND_COUNT],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["before"] > 10_000 and got["frozen"] > 0.9 * got["before"], got
    assert got["left"] < got["before"] / 10, "a full collection still walks the startup objects"


def test_a_served_hub_says_it_froze_its_startup_objects(tmp_path: Path) -> None:
    with served_hub(tmp_path) as hub:
        token = (hub.runtime_dir / "mobridge" / f"hub-{hub.port}.token").read_text().strip()
        request = urllib.request.Request(
            f"http://127.0.0.1:{hub.port}/v1/stats",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            stats = json.load(response)
    collector = stats["collector"]
    assert collector["frozen"] > 10_000, collector
    assert len(collector["collections"]) == 3 and all(
        isinstance(n, int) for n in collector["collections"]
    )


def test_this_process_never_froze_what_its_hubs_leave() -> None:
    """The suite builds and drops hubs in one process: nothing here may freeze them."""
    assert gc.get_freeze_count() == 0
