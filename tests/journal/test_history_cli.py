"""``mobridge history`` against a real ``mobridge serve`` subprocess: after a sequence of taps,
``--at T`` prints the outline ``mobridge screen`` printed live at T; the timeline, ``--diff``,
``--when`` and ``--flow`` read the same journal."""

from __future__ import annotations

import time
from pathlib import Path

import yaml

from bridge.journal.records import iso
from tests.cli.hubproc import served_hub

STABLE = '{"kind": "stable", "forMs": 400}'


def test_history_at_prints_the_screen_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite3"
    with served_hub(tmp_path, "--journal", str(db)) as hub:
        seen: list[tuple[str, list[str]]] = []

        def note() -> None:
            # settled: the simulated app animates its transitions (waited for, not slept)
            stable = hub.run("wait", "sim-android", "--condition", STABLE)
            assert stable.returncode == 0, stable.stderr
            status, out = hub.run_tty("screen", "sim-android")
            assert status == 0, out
            time.sleep(0.1)
            seen.append((iso(time.time_ns() // 1_000_000), out.strip().splitlines()))
            time.sleep(0.1)

        note()
        for target in ("Settings", "Wi-Fi", "Dark mode"):
            done = hub.run("tap", "sim-android", target)
            assert done.returncode == 0, done.stderr
            note()
        # The journal's writer commits in the background: poll until the last screen is there.
        deadline = time.monotonic() + 60
        while True:
            last = hub.run("history", "sim-android", "--at", seen[-1][0])
            if last.returncode == 0 and last.stdout.strip().splitlines()[1:] == seen[-1][1]:
                break
            assert time.monotonic() < deadline, last.stdout + last.stderr
            time.sleep(0.1)
        for at, live in seen:
            past = hub.run("history", "sim-android", "--at", at)
            assert past.returncode == 0, past.stderr
            lines = past.stdout.strip().splitlines()
            assert lines[0].startswith("as of ")
            assert lines[1:] == live, at
        assert seen[0][1] != seen[1][1] != seen[2][1] != seen[3][1]

        timeline = hub.run("history", "sim-android", "--since", seen[0][0])
        assert timeline.returncode == 0, timeline.stderr
        acts = [line for line in timeline.stdout.splitlines() if "  action  " in line]
        assert len(acts) == 3 and "Wi-Fi" in acts[1] and "[mobridge-cli]" in acts[0]
        mine = hub.run("history", "sim-android", "--kind", "action", "--client", "nobody")
        assert mine.returncode == 0 and "nothing recorded" in mine.stdout

        diff = hub.run("history", "sim-android", "--diff", seen[1][0], seen[3][0])
        assert diff.returncode == 0, diff.stderr
        assert diff.stdout.count("~ ") >= 2 and "checked" in diff.stdout

        when = hub.run("history", "sim-android", "--when", "Dark mode")
        assert when.returncode == 0, when.stderr
        assert when.stdout.startswith("first ") and "last " in when.stdout
        never = hub.run("history", "sim-android", "--when", "Nothing like this")
        assert never.returncode == 1 and "never" in never.stdout

        flow = tmp_path / "window.yaml"
        made = hub.run(
            "history",
            "sim-android",
            "--since",
            seen[0][0],
            "--until",
            seen[3][0],
            "--flow",
            str(flow),
        )
        assert made.returncode == 0, made.stderr
        header, body = list(yaml.safe_load_all(flow.read_text()))
        assert header["appId"] == "dev.mobridge.demo"
        steps = [s for s in body if isinstance(s, dict) and "tap" in s]
        targets = [s["tap"] if isinstance(s["tap"], str) else s["tap"]["text"] for s in steps]
        assert targets == ["Settings", "Wi-Fi", "Dark mode"], body

        relative = hub.run("history", "sim-android", "--at", "-1s")  # not taken for an option
        assert relative.returncode == 0 and relative.stdout.splitlines()[1:] == seen[-1][1]
        bad = hub.run("history", "sim-android", "--at", "last tuesday")
        assert bad.returncode == 2 and "not a time" in bad.stderr
