"""One journal per hub (issue 40, issue 33 item 5): two hubs on one machine, each with its
default journal, keep their histories apart; two hubs pointed at one journal file are refused
clearly; a hub started again the same way finds its own history; ``history --diff`` names a
removed node by its role and text.

Real ``mobridge serve`` subprocesses sharing one ``XDG_STATE_HOME`` (as one user's hubs do);
every wait polls for what it expects (the journal's writer commits in the background).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.cli.hubproc import ROOT, ServedHub, clean_env, mobridge_command, served_hub


def until(check: Callable[[], subprocess.CompletedProcess[str] | None], what: str):  # type: ignore[no-untyped-def]
    """Poll ``check`` until it returns a result (60 s ceiling: a loaded machine)."""
    deadline = time.monotonic() + 60
    while True:
        got = check()
        if got is not None:
            return got
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def timeline_with(hub: ServedHub, needle: str) -> subprocess.CompletedProcess[str]:
    def check() -> subprocess.CompletedProcess[str] | None:
        got = hub.run("history", "sim-android", "--since", "-10m")
        assert got.returncode == 0, got.stderr
        return got if needle in got.stdout else None

    result: subprocess.CompletedProcess[str] = until(check, f"{needle!r} in the history")
    return result


def test_two_hubs_keep_their_histories_apart(tmp_path: Path) -> None:
    with served_hub(tmp_path) as first:
        tapped = first.run("tap", "sim-android", "Settings")
        assert tapped.returncode == 0, tapped.stderr
        mine = timeline_with(first, "Settings")
        assert f"hub 'port-{first.port}'" in mine.stderr and first.url in mine.stderr
        with served_hub(tmp_path) as second:
            assert second.runtime_dir == first.runtime_dir  # one user, one state directory
            fresh = second.run("history", "sim-android", "--since", "-10m", "--kind", "action")
            assert fresh.returncode == 0, fresh.stderr
            assert "nothing recorded" in fresh.stdout and "Settings" not in fresh.stdout
            assert f"hub 'port-{second.port}'" in fresh.stderr
            # The other way round: the second hub's tap is not in the first's history.
            assert second.run("tap", "sim-android", "Login").returncode == 0
            timeline_with(second, "Login")
            again = first.run("history", "sim-android", "--since", "-10m", "--kind", "action")
            assert "Login" not in again.stdout and "Settings" in again.stdout
    journals = sorted(p.name for p in (first.runtime_dir / "state/mobridge/journals").glob("*3"))
    assert journals == sorted(
        [f"port-{first.port}+sim-android.sqlite3", f"port-{second.port}+sim-android.sqlite3"]
    )


def serve_once(runtime: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A ``serve`` expected to refuse at start (a live one would time out here)."""
    return subprocess.run(
        mobridge_command("serve", "--port", "0", *args),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
        timeout=60,
        check=False,
    )


def test_two_hubs_on_one_journal_file_the_second_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    with served_hub(tmp_path, "--journal", str(db)) as first:
        refused = serve_once(first.runtime_dir, "--journal", str(db))
        assert refused.returncode == 2, refused.stdout + refused.stderr
        line = refused.stderr.strip()
        assert line.count("\n") == 0 and "Traceback" not in line
        assert f"the journal {db} is in use by another hub" in line
        assert f"pid {first.process.pid}" in line and first.url in line
        assert "--journal PATH" in line and "--no-journal" in line
        # The same name twice is the same default journal: refused the same way.
        with served_hub(tmp_path, "--name", "lab") as named:
            assert named.run("devices").returncode == 0
            twin = serve_once(first.runtime_dir, "--name", "lab")
            assert twin.returncode == 2 and "in use by another hub" in twin.stderr
            assert "hub lab" in twin.stderr
        # The first hub was never disturbed.
        assert first.run("tap", "sim-android", "Settings").returncode == 0
    # Its lock went with it: the file opens again.
    with served_hub(tmp_path, "--journal", str(db)) as again:
        timeline_with(again, "Settings")


def test_a_hub_started_again_the_same_way_finds_its_history(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--name", "bench-phone") as hub:
        assert hub.run("tap", "sim-android", "Settings").returncode == 0
        timeline_with(hub, "Settings")
    with served_hub(tmp_path, "--name", "bench-phone") as hub:
        got = timeline_with(hub, "Settings")
        assert "hub 'bench-phone'" in got.stderr
    with served_hub(tmp_path, "--name", "other-phone") as hub:
        other = hub.run("history", "sim-android", "--since", "-10m", "--kind", "action")
        assert "nothing recorded" in other.stdout


def test_a_diff_names_removed_nodes_by_role_and_text(tmp_path: Path) -> None:
    with served_hub(tmp_path) as hub:
        menu = hub.run("wait", "sim-android", "--present", "Settings")
        assert menu.returncode == 0, menu.stderr
        start = str(time.time_ns() // 1_000_000)
        assert hub.run("tap", "sim-android", "Settings").returncode == 0
        assert hub.run("wait", "sim-android", "--present", "Wi-Fi").returncode == 0

        def check() -> subprocess.CompletedProcess[str] | None:
            got = hub.run("history", "sim-android", "--diff", start, "now")
            assert got.returncode == 0, got.stderr
            return got if "- " in got.stdout else None

        diff = until(check, "a removed node in the diff")
        removed = [line for line in diff.stdout.splitlines() if line.startswith("- ")]
        assert any('BUTTON "Settings"' in line for line in removed), diff.stdout
        assert all(len(line.split()) > 2 for line in removed), removed
