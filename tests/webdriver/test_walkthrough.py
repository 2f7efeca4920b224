"""docs/webdriver.md's "bring your Appium suite" script runs as written against ``serve
--webdriver`` (the docs test marks it not run: it needs the endpoint)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.docs.docblocks import blocks_of
from tests.webdriver.wdfixture import TOKEN, wd_hub

ROOT = Path(__file__).resolve().parents[2]


def test_the_walkthrough_script_signs_in(tmp_path: Path) -> None:
    (script,) = [b for b in blocks_of(ROOT / "docs" / "webdriver.md") if b.tag == "python"]
    with wd_hub(tmp_path, "android") as wd:
        done = subprocess.run(
            [sys.executable, "-c", script.code],
            capture_output=True,
            text=True,
            timeout=120,
            env={**wd.hub.env(), "WEBDRIVER_URL": wd.url, "MOBRIDGE_TOKEN": TOKEN},
            cwd=ROOT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Home"
