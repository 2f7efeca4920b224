"""CLI start-up benchmark: how long a person waits for the ``mobridge`` command.

A hub in another process (``mobridge serve --port 0``, the simulated device, animations on as
a person gets them); each command is a fresh process, as typed in a shell. Measured, in one
run and interleaved so the machine's load hits every kind alike: the time to the first byte
on stdout for ``python -c`` (a bare interpreter: the floor), ``mobridge --help``,
``mobridge devices`` and ``mobridge screen DEVICE``, and the whole run of ``screen`` and of
``tap DEVICE --at X,Y`` (a point with nothing under it: no screen change to wait for). Medians
and p90 in ms, the ratio of each to the bare interpreter, and each against its target:
the first byte within ``FIRST_BYTE_TARGET_MS`` (``--help`` and the client commands) and a
whole ``screen`` within ``SCREEN_TARGET_MS`` (p50, against this local hub).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/v1")
TOKEN = "bench-cli-token"
FIRST_BYTE_TARGET_MS = 150.0
SCREEN_TARGET_MS = 250.0


def _mobridge() -> list[str]:
    script = Path(sys.executable).with_name("mobridge")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bridge.cli"]


def _first_byte(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(ms to the first byte on stdout, ms to the process's end)."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    at_first = time.perf_counter()
    proc.stdout.read()
    proc.wait()
    ended = time.perf_counter()
    if not first or proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode} with no output")
    return (at_first - started) * 1000, (ended - started) * 1000


def _byte_compile() -> None:
    """Write bridge's bytecode first, as an install does: where the environment says not to
    write it (``PYTHONDONTWRITEBYTECODE``, as on CI), every command would compile each module
    it imports again, and the table would measure the compiler, not the command."""
    import compileall

    import bridge

    compileall.compile_dir(Path(bridge.__file__).parent, quiet=1, workers=0)


def run(quick: bool) -> list[str]:
    return table(5 if quick else 21)


def table(rounds: int, warm_up: bool = True) -> list[str]:
    """The section's lines after ``rounds`` interleaved rounds (after one warm-up round
    unless ``warm_up`` is false: the smoke test checks the table, not the figures)."""
    _byte_compile()
    runtime = tempfile.mkdtemp(prefix="mobridge-bench-cli-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env["XDG_RUNTIME_DIR"] = runtime
    hub = subprocess.Popen(
        [*_mobridge(), "serve", "--port", "0", "--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert hub.stdout is not None
        port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = hub.stdout.readline()
            if not line:
                raise RuntimeError("the hub did not start")
            found = LISTENING.search(line)
            port = int(found.group(1)) if found else port
            if line.startswith("devices:"):
                break
        env.update(MOBRIDGE_URL=f"ws://127.0.0.1:{port}/v1", MOBRIDGE_TOKEN=TOKEN)
        mob = _mobridge()
        kinds = {
            "python -c (bare)": [sys.executable, "-c", "print(1)"],
            "mobridge --help": [*mob, "--help"],
            "mobridge devices": [*mob, "devices"],
            "mobridge screen": [*mob, "screen", "sim-android"],
            "mobridge tap --at": [*mob, "tap", "sim-android", "--at", "5,2390"],
        }
        first: dict[str, list[float]] = {name: [] for name in kinds}
        whole: dict[str, list[float]] = {name: [] for name in kinds}
        for command in kinds.values() if warm_up else ():  # page cache, .pyc
            _first_byte(command, env)
        for _ in range(rounds):
            for name, command in kinds.items():
                a, b = _first_byte(command, env)
                first[name].append(a)
                whole[name].append(b)
    finally:
        hub.terminate()
        hub.wait(timeout=10)
    base = statistics.median(first["python -c (bare)"])
    lines = [
        f"cli: a fresh process per command, {rounds} rounds interleaved (ms); targets: first "
        f"byte <= {FIRST_BYTE_TARGET_MS:.0f}, screen whole run p50 <= {SCREEN_TARGET_MS:.0f}"
    ]
    for name in kinds:
        p50, p50_end = statistics.median(first[name]), statistics.median(whole[name])
        p90 = sorted(first[name])[int(0.9 * (len(first[name]) - 1))]
        verdict = ""
        if name.startswith("mobridge"):
            verdict = _verdict("first byte", p50, FIRST_BYTE_TARGET_MS)
        if name == "mobridge screen":
            verdict += ", " + _verdict("whole", p50_end, SCREEN_TARGET_MS)
        lines.append(
            f"  {name:<20} first byte p50 {p50:7.1f}  p90 {p90:7.1f}   whole run p50 "
            f"{p50_end:7.1f}   x bare {p50 / base:5.2f}" + (f"   {verdict}" if verdict else "")
        )
    return lines


def _verdict(what: str, ms: float, target: float) -> str:
    """``first byte 0.71x target (ok)``: a figure as a share of its target."""
    return f"{what} {ms / target:4.2f}x target ({'ok' if ms <= target else 'OVER'})"
