"""Issue 33.8: a keyed action on a hanging journal disk. The writer thread is stuck in its
commit (as on a frozen disk), so the key cannot be recorded: the action is refused saying
the journal is unavailable and never reaches the device; once the disk answers again, a
retry with the same key runs it, once."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.journal import recorder
from bridge.journal.store import JournalStore
from tests.adversarial.harness import call, client, hub_under_attack


def click(n: int, device: str, ref: Any, key: str) -> dict[str, Any]:
    request = {"action": "CLICK", "target": ref, "idempotencyKey": key}
    return {"type": "act", "id": n, "device": device, "request": request}


async def test_a_keyed_action_is_refused_while_the_journal_disk_hangs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = threading.Event()
    thawed = threading.Event()
    real_commit = JournalStore.commit

    def commit(self: JournalStore) -> None:
        if frozen.is_set():
            thawed.wait(60)  # the disk does not answer
        real_commit(self)

    monkeypatch.setattr(JournalStore, "commit", commit)
    monkeypatch.setattr(recorder, "DURABLE_WAIT_S", 1.0)
    async with hub_under_attack(journal=tmp_path / "j.sqlite3", sim_scene="settings") as rh:
        dev = rh.device_id
        device = rh.hub.service.devices[dev]
        async with client(rh.url) as ws:
            found = await call(
                ws, {"type": "find", "id": 1, "device": dev, "query": {"label": {"value": "Wi-Fi"}}}
            )
            ref = found["result"]["matches"][0]["ref"]
            assert device.link is not None
            before = device.link.stats.commands
            frozen.set()
            try:
                reply = await call(ws, click(2, dev, ref, "K-frozen"), timeout_s=20)
                assert reply["type"] == "error", reply
                assert reply["error"]["message"].startswith("JOURNAL_UNAVAILABLE"), reply
                again = await call(ws, click(3, dev, ref, "K-frozen"), timeout_s=20)
                assert again["type"] == "error", again
                assert device.link.stats.commands == before  # nothing reached the device
            finally:
                thawed.set()
                frozen.clear()
            with anyio.fail_after(20):
                while True:
                    ran = await call(ws, click(4, dev, ref, "K-frozen"), timeout_s=20)
                    if ran["type"] == "result":
                        break
                    assert "JOURNAL_UNAVAILABLE" in json.dumps(ran), ran
            sent = device.link.stats.commands
            assert sent > before  # run, now that its key is kept
            replay = await call(ws, click(5, dev, ref, "K-frozen"), timeout_s=20)
            assert replay["result"] == ran["result"]
            assert device.link.stats.commands == sent  # the replay ran nothing
