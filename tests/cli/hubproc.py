"""A real ``mobridge serve`` subprocess (simulated device, generated token, free port) and a
runner for CLI commands against it, as a person would type them.

The hub runs with ``XDG_RUNTIME_DIR`` pointed at a private directory, so its token file is
the test's own; commands get ``MOBRIDGE_URL`` and no token unless a test passes one, so they
exercise token discovery.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"^mobridge hub listening on ws://127\.0\.0\.1:(\d+)/v1$")


def clean_env(runtime_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env["XDG_RUNTIME_DIR"] = str(runtime_dir)
    env["XDG_STATE_HOME"] = str(runtime_dir / "state")  # the hub's journal: this test's own
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def mobridge_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "bridge.cli", *args]


@dataclass
class ServedHub:
    process: subprocess.Popen[str]
    port: int
    runtime_dir: Path
    lines: list[str]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1"

    def env(self, **extra: str) -> dict[str, str]:
        return clean_env(self.runtime_dir, MOBRIDGE_URL=self.url, **extra)

    def run(
        self, *args: str, timeout: float = 60, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        """One CLI command, piped (not a terminal)."""
        return subprocess.run(
            mobridge_command(*args),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=self.env(**extra),
            timeout=timeout,
            check=False,
        )

    def run_tty(self, *args: str, timeout: float = 60) -> tuple[int, str]:
        """One CLI command with stdout on a pseudo-terminal, as in an interactive shell."""
        return run_in_pty(mobridge_command(*args), self.env(), timeout)


def run_in_pty(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    main, side = pty.openpty()
    proc = subprocess.Popen(
        command, stdout=side, stderr=subprocess.PIPE, cwd=ROOT, env=env, text=False
    )
    os.close(side)
    out = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(main)
    proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    if proc.stderr is not None:
        proc.stderr.close()
    return proc.returncode, out.decode().replace("\r\n", "\n")


@contextmanager
def served_hub(
    tmp_path: Path, *serve_args: str, hub_env: dict[str, str] | None = None
) -> Iterator[ServedHub]:
    """A real hub; ``hub_env`` adds variables to its environment (e.g. a
    ``MOBRIDGE_SECRET_<NAME>`` only the hub may read)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    process = subprocess.Popen(
        mobridge_command("serve", "--port", "0", *serve_args),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime, **(hub_env or {})),
    )
    lines: list[str] = []
    port = None
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    try:
        while port is None or not lines[-1].startswith("devices:"):
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError(f"the hub did not start: {lines}")
            line = process.stdout.readline().rstrip("\n")
            lines.append(line)
            if (found := LISTENING.match(line)) is not None:
                port = int(found.group(1))
        yield ServedHub(process, port, runtime, lines)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
