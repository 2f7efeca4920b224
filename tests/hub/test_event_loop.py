"""The hub's event loop choice: uvloop runs a real hub end to end; asking for it where it is
not installed is refused with the install command, never a silent fallback to asyncio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bridge.hub import event_loop
from bridge.hub.event_loop import LoopUnavailable, backend_options
from tests.cli.hubproc import served_hub


def test_asyncio_needs_no_options_and_uvloop_asks_anyio_for_it() -> None:
    assert backend_options("asyncio") == {}
    assert backend_options("uvloop") == {"use_uvloop": True}


def test_missing_uvloop_is_refused_with_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_loop, "uvloop_installed", lambda: False)
    with pytest.raises(
        LoopUnavailable, match=r"uvloop is not installed; pip install 'mobridge\[fast\]'"
    ):
        backend_options("uvloop")
    with pytest.raises(LoopUnavailable, match="unknown event loop 'trio'"):
        backend_options("trio")


def test_a_hub_served_on_uvloop_acts_and_verifies(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--loop", "uvloop") as hub:
        assert "event loop: uvloop" in hub.lines
        tapped = hub.run("tap", "sim-android", "Login")
        assert tapped.returncode == 0, tapped.stderr
        waited = hub.run("wait", "sim-android", "--screen", "login")
        assert waited.returncode == 0 and "CONDITION_MET" in waited.stdout, waited.stderr


def test_serve_rejects_an_unknown_loop_in_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "serve", "--loop", "trio"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "invalid choice: 'trio'" in proc.stderr and "asyncio" in proc.stderr


def test_the_default_hub_says_it_runs_asyncio(tmp_path: Path) -> None:
    with served_hub(tmp_path) as hub:
        assert "event loop: asyncio" in hub.lines
