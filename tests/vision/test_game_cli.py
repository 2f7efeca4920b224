"""The issue's commands as a person types them, against ``mobridge serve --vision`` on the
game scene: ``find --text PLAY`` finds one vision node, ``tap PLAY`` taps it, and the score
the canvas draws becomes "SCORE 130". Without the extra, ``serve --vision`` says in one line
how to enable it (exit 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.hubproc import ROOT, clean_env, mobridge_command, served_hub
from tests.skips import need_vision

DEV = "sim-android"


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return proc.stdout


@need_vision
def test_find_tap_and_wait_for_the_new_score(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--vision", "--sim-scene", "game") as hub:
        assert "CONDITION_MET" in ok(hub.run("wait", DEV, "--present", "PLAY", "--timeout", "20s"))
        found = json.loads(ok(hub.run("find", DEV, "--text", "PLAY")))
        assert found["count"] == 1
        node = found["matches"][0]["node"]
        assert (node["source"], node["role"]) == ("VISION", "BUTTON")
        assert found["matches"][0]["ref"]["source"] == "VISION"
        outline = ok(hub.run("screen", DEV, "--full"))
        assert 'BUTTON "PLAY" [vision ' in outline
        tapped = json.loads(ok(hub.run("tap", DEV, "PLAY")))
        assert tapped["dispatch"]["fallbackType"] == "VISION_COORDINATE"
        waited = ok(hub.run("wait", DEV, "--present", "SCORE 130", "--timeout", "20s"))
        assert "CONDITION_MET" in waited


def test_serve_vision_without_the_extra_says_how_to_enable_it(tmp_path: Path) -> None:
    hide = tmp_path / "hide"
    hide.mkdir()
    for module in ("tesserocr", "onnxruntime"):  # both engines of the extra
        (hide / f"{module}.py").write_text('raise ImportError("hidden by the test")\n')
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    proc = subprocess.run(
        mobridge_command("serve", "--port", "0", "--vision"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime, PYTHONPATH=str(hide)),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'mobridge[vision]'" in lines[0], lines
