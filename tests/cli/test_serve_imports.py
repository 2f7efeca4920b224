"""What ``mobridge serve`` imports to start and serve a tree: none of the heavy optional
libraries (PyAV, Pillow, OCR engines, numpy, the MCP SDK). Each is imported only by the
feature that needs it (a recording, a screenshot drawn by the simulated device, vision, MCP),
so an idle hub stays light (issue 41: PyAV alone made an idle hub 25 MB heavier).

The hub runs in a real subprocess; a SIGUSR1 handler installed before ``serve`` starts writes
``sys.modules`` to a file, which the test waits for (no fixed sleep). The list is checked
exactly, not only for the heavy names: the first-party packages serving a tree imports are
``BRIDGE_PACKAGES``, and the third-party ones are those of ``RUNTIME`` plus what importing
those alone brings in this environment (structlog maps greenlet when it is installed),
computed in a fresh interpreter. A new import at ``serve`` start fails here until
it is added to a list on purpose.
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
    "rich",
    "re2",
)

BRIDGE_PACKAGES = frozenset(
    {
        "bridge",
        "bridge.cli",
        "bridge.client",  # bridge.client.local_hub: the runtime-dir token file
        "bridge.core",
        "bridge.dashboard",  # the package's __init__ only (static files served from disk)
        "bridge.devices",  # the simulated device and the web page source
        "bridge.hub",
        "bridge.journal",
        "bridge.net",
        "bridge.vision",  # overlay and regions: pure Python, no pixels
        "bridge.wire",
    }
)
"""The first-party packages (two levels) ``serve`` imports to start and serve a tree; mcp,
flows, farm, webdriver, bench and the OCR engines stay out."""

RUNTIME = ("msgspec", "anyio.to_thread", "websockets.asyncio.server", "bridge.hub.logs")
"""The base install's libraries the hub serves with, structlog as ``bridge.hub.logs``
imports it (without rich); RE2 comes with the first caller regex
(``bridge.core.safe_regex``)."""

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


def _third_party(modules: list[str]) -> set[str]:
    """Top-level names that are neither the standard library, private (``_x``) nor ours."""
    return {
        top
        for top in _top_level(modules)
        if top not in sys.stdlib_module_names and not top.startswith("_") and top != "bridge"
    }


def _runtime_closure() -> set[str]:
    """What importing ``RUNTIME`` alone brings, in a fresh interpreter of this environment."""
    code = f"import sys\nimport {', '.join(RUNTIME)}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return _third_party(out.stdout.split())


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
    packages = {".".join(m.split(".")[:2]) for m in modules if m.split(".")[0] == "bridge"}
    assert packages == BRIDGE_PACKAGES, (
        f"new: {sorted(packages - BRIDGE_PACKAGES)}, gone: {sorted(BRIDGE_PACKAGES - packages)}"
    )
    expected = _runtime_closure()
    third = _third_party(modules)
    assert third == expected, f"new: {sorted(third - expected)}, gone: {sorted(expected - third)}"


def test_the_check_itself_sees_a_heavy_import() -> None:
    """The set arithmetic above is not vacuous: a module list with PyAV fails it."""
    assert _top_level(["av.video.frame", "bridge.mcp.server"]) & set(HEAVY) == {"av"}
    assert _third_party(["os.path", "_io", "bridge.hub", "av.video"]) == {"av"}
    assert not set(HEAVY) & _runtime_closure()
