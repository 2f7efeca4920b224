"""What ``mobridge serve`` imports to start and serve a tree: none of the heavy optional
libraries (PyAV, Pillow, OCR engines, numpy, the MCP SDK). Each is imported only by the
feature that needs it (a recording, a screenshot drawn by the simulated device, vision, MCP),
so an idle hub stays light (issue 41: PyAV alone made an idle hub 25 MB heavier).

The hub runs in a real subprocess; a SIGUSR1 handler installed before ``serve`` starts writes
``sys.modules`` to a file, which the test waits for (no fixed sleep).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.hubproc import LISTENING, ROOT, clean_env, mobridge_command

HEAVY = (
    "av",
    "PIL",
    "tesserocr",
    "numpy",
    "rapidocr",
    "rapidocr_onnxruntime",
    "onnxruntime",
    "mcp",
)

DRIVER = """
import signal, sys
out = sys.argv[1]

def dump(signum, frame):
    with open(out + ".tmp", "w") as f:
        f.write("\\n".join(sorted(sys.modules)))
    import os
    os.replace(out + ".tmp", out)

signal.signal(signal.SIGUSR1, dump)
from bridge.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _top_level(modules: list[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


def test_serve_start_and_a_served_tree_import_no_heavy_library(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    dump = tmp_path / "modules.txt"
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(dump), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    assert process.stdout is not None
    port = None
    lines: list[str] = []
    try:
        while not (lines and lines[-1].startswith("devices:")):
            line = process.stdout.readline()
            assert line, f"the hub did not start: {lines}"
            lines.append(line.rstrip("\n"))
            if (found := LISTENING.match(lines[-1])) is not None:
                port = int(found.group(1))
        assert port is not None
        # Serve a tree to a client: the whole common path, not only start-up.
        screen = subprocess.run(
            mobridge_command("screen", "sim-android"),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=clean_env(runtime, MOBRIDGE_URL=f"ws://127.0.0.1:{port}/v1"),
            timeout=60,
            check=False,
        )
        assert screen.returncode == 0, screen.stderr
        assert "Login" in screen.stdout
        process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 60
        while not dump.exists():
            assert time.monotonic() < deadline, "the hub never wrote its module list"
            assert process.poll() is None, "the hub exited"
            time.sleep(0.05)  # polling for the file the hub writes, not a fixed wait
        modules = dump.read_text().split("\n")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert "bridge.hub.app" in modules  # the list is the hub's own
    loaded = _top_level(modules)
    heavy = sorted(loaded.intersection(HEAVY))
    assert heavy == [], f"serve imported {heavy}; import them where they are used"


def test_the_check_itself_sees_a_heavy_import() -> None:
    """The set arithmetic above is not vacuous: a module list with PyAV fails it."""
    assert _top_level(["av.video.frame", "bridge.mcp.server"]) & set(HEAVY) == {"av"}
