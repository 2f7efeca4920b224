"""An idle hub's memory: ``mobridge serve`` (the simulated device, no subscriber, no
journal) in its own process; once it accepts connections and its RSS has stopped growing,
its RSS and which heavy native libraries it has mapped (``/proc/PID/maps``): PyAV's
``libav*``, Pillow's ``_imaging``, numpy, tesseract, and ``pydantic_core`` (what the MCP SDK
brings). Issue 41's row: goal <= 45 MB and none of them mapped (serving a tree uses none).
Linux only (``/proc``); elsewhere the row says so."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

HEAVY = {
    "PyAV (libav*)": ("/av/", "libavcodec", "libavformat"),
    "Pillow": ("PIL/_imaging",),
    "numpy": ("_multiarray_umath",),
    "tesseract": ("tesserocr", "libtesseract"),
    "pydantic_core (MCP SDK)": ("pydantic_core",),
}
GOAL_MB = 45


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _accepting(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def idle_rss() -> str:
    if not Path("/proc/self/maps").exists():
        return "idle hub RSS: skipped (no /proc on this system)"
    port = _free_port()
    cmd = [sys.executable, "-m", "bridge.cli", "serve", "--port", str(port)]
    cmd += ["--token", "bench-idle", "--no-journal"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _accepting(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                return f"idle hub RSS: the hub did not start ({' '.join(cmd)})"
            time.sleep(0.2)
        samples = [_rss_kb(proc.pid)]
        while len(samples) < 4 or samples[-1] > samples[-2]:  # until it stops growing
            time.sleep(0.5)
            samples.append(_rss_kb(proc.pid))
            if len(samples) > 40:
                break
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
        mapped = [name for name, marks in HEAVY.items() if any(m in maps for m in marks)]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    mb = samples[-1] / 1024
    return (
        f"idle hub RSS (serve, simulated device, no subscriber, no journal): {mb:.1f} MB "
        f"(goal <= {GOAL_MB} MB); heavy libraries mapped: {', '.join(mapped) or 'none'}"
    )


def run(quick: bool) -> list[str]:
    return [idle_rss()]
