"""Flows through the web content inside the demo app's WebView (a real Chromium page), as
``mobridge test`` runs them: one signs in through the web form, one scrolls the help frame's
questions until the last shows; the page's elements are ordinary targets."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.skips import need_web_chromium

pytestmark = need_web_chromium


def test_a_flow_signs_in_through_the_web_form(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    run = subprocess.run(
        mobridge_command("test", "tests/flows/web", "--report", str(tmp_path / "report")),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed, 0 failed" in run.stdout
    assert "PASS  tests/flows/web/web_login.yaml" in run.stdout
    assert "PASS  tests/flows/web/web_help_scroll.yaml" in run.stdout
