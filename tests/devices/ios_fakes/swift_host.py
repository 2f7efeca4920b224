"""The real Swift agent in host mode (scripts/run-ios-agent-host), started as a subprocess.

``require_swift()`` skips a test when no Swift toolchain is installed, naming how to get one
(under CI the suite's conftest turns that skip into a failure). The first start builds the
agent (once)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.skips import reason

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "run-ios-agent-host"
SWIFT_BIN = Path(os.environ.get("MOBRIDGE_SWIFT_BIN", "/opt/swift/usr/bin"))
NO_SWIFT = reason(
    "no Swift toolchain for the iOS agent core",
    "install Swift 6 for Linux (swift.org) at /opt/swift, or put swift on PATH",
)


def have_swift() -> bool:
    return shutil.which("swift") is not None or (SWIFT_BIN / "swift").exists()


def require_swift() -> None:
    if not have_swift():
        pytest.skip(NO_SWIFT)


def host_argv(port: int, token: str, *extra: str) -> list[str]:
    return [str(SCRIPT), "--port", str(port), "--token", token, *extra]


@contextmanager
def swift_agent(
    token: str, port: int = 0, *extra: str
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The running agent and its ``ws://127.0.0.1:P`` URL; terminated on exit."""
    require_swift()
    proc = subprocess.Popen(
        host_argv(port, token, *extra),
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # builds on first use, then prints READY ws://...
        assert line.startswith("READY "), line
        ready = proc.stdout.readline()
        assert ready.startswith("MOBRIDGE_READY port="), ready
        yield proc, line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
