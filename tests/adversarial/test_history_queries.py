"""Issue 33.4: history queries are bounded. One observer session firing ``journal.when``
queries at once gets at most two in flight (the rest RATE_LIMITED at once), the hub at most
eight, two run at a time, and one that runs past its time bound stops and is refused,
while pings are answered within 1 s throughout. /v1/stats counts them."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from bridge.hub.resources import BOUNDS, HISTORY_QUERIES
from bridge.journal import recorder
from bridge.journal.recorder import Journal
from tests.adversarial.harness import client, hub_under_attack
from tests.hub.hubfixture import OBSERVER
from tests.journal.test_journal_store import Log, big_screen

FRAMES = 300


def seed(db: Path, device: str) -> None:
    journal = Journal.open(db, Log())
    try:
        for tick in range(FRAMES):
            journal.frame(device, tick + 1, big_screen(1000, tick))
    finally:
        journal.close()


def when(n: int, device: str) -> str:
    return json.dumps(
        {
            "type": "journal.when",
            "id": n,
            "device": device,
            "query": {"text": {"value": "Row 999 value 998"}},
            "since": "-1h",
        }
    )


async def test_history_queries_are_bounded_per_session_hub_and_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "journal.sqlite3"
    await anyio.to_thread.run_sync(seed, db, "sim-android")
    monkeypatch.setattr(recorder, "READ_TIMEOUT_S", 0.3)
    async with hub_under_attack(journal=db) as rh:
        dev = rh.device_id
        assert dev == "sim-android"
        replies: list[dict[str, object]] = []
        async with client(rh.url, OBSERVER, "historian") as ws:
            for n in range(1, 11):
                await ws.send(when(n, dev))
            with anyio.fail_after(60):
                while len(replies) < 10:
                    reply = json.loads(await ws.recv())
                    if reply.get("id") in range(1, 11):
                        replies.append(reply)
        limited = [r for r in replies if r.get("code") == "RATE_LIMITED"]
        assert len(limited) >= 10 - BOUNDS[HISTORY_QUERIES].per_session
        ran = [r for r in replies if r.get("code") != "RATE_LIMITED"]
        assert ran, replies
        for reply in ran:  # too long for 0.3 s: stopped and refused, nothing half-done
            assert reply["type"] == "error", reply
            error = reply["error"]
            assert isinstance(error, dict) and "time bound" in str(error["message"]), reply
        stats = rh.hub.service.statistics()["resources"][HISTORY_QUERIES]
        assert stats["held"] == 0 and stats["refused"] >= len(limited)
        assert stats["peak"] <= BOUNDS[HISTORY_QUERIES].per_session
