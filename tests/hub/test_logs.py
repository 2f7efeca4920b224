"""The hub's own log lines: readable on a terminal, JSON when piped or asked (--log-json).

A real ``mobridge serve`` runs with its stdout and stderr on a pseudo-terminal, then piped;
each reads until the banner's last line and the ``hub_ready`` event.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

from tests.cli.hubproc import ROOT, clean_env, mobridge_command

ANSI = "\x1b["
COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def _serve_in_pty(tmp_path: Path, *extra: str) -> list[str]:
    """The lines ``mobridge serve`` writes to a terminal (stdout and stderr both) until it
    has printed ``devices:`` and logged ``hub_ready``."""
    main, side = pty.openpty()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    proc = subprocess.Popen(
        mobridge_command("serve", "--port", "0", "--token", "t", *extra),
        stdout=side,
        stderr=side,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    os.close(side)
    out = bytearray()
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            text = out.decode(errors="replace")
            if "devices:" in text and "hub_ready" in text and text.endswith("\n"):
                break
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    out += os.read(main, 65536)
                except OSError:
                    break
            elif proc.poll() is not None:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        os.close(main)
    return out.decode(errors="replace").replace("\r\n", "\n").splitlines()


def _plain(line: str) -> str:
    return COLOURS.sub("", line)


def test_a_terminal_gets_one_readable_line_per_event(tmp_path: Path) -> None:
    lines = _serve_in_pty(tmp_path)
    events = [_plain(line) for line in lines if "hub_ready" in line or "agent_linked" in line]
    assert len(events) == 2, lines
    for line in events:
        assert not line.lstrip().startswith("{"), line  # not JSON
        assert "[" in line and "info" in line  # the level, between brackets
    ready = next(line for line in events if "hub_ready" in line)
    assert "devices=['sim-android']" in ready and "component=hub" in ready
    assert any(line.startswith("mobridge hub listening on ws://127.0.0.1:") for line in lines)


def test_log_json_asks_for_json_even_on_a_terminal(tmp_path: Path) -> None:
    lines = _serve_in_pty(tmp_path, "--log-json")
    ready = [json.loads(line) for line in lines if '"hub_ready"' in line]
    assert ready and ready[0]["event"] == "hub_ready" and ready[0]["level"] == "info"
    assert not any(ANSI in line for line in lines if "hub_ready" in line)


def test_a_pipe_gets_json_lines(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    proc = subprocess.Popen(
        mobridge_command("serve", "--port", "0", "--token", "t"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        while not proc.stdout.readline().startswith("devices:"):
            assert proc.poll() is None, "the hub stopped"
        events = []
        while not any(e.get("event") == "hub_ready" for e in events):
            line = proc.stderr.readline()
            assert line, "stderr closed before hub_ready"
            events.append(json.loads(line))  # every log line is one JSON object
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert {"event", "level", "timestamp"} <= set(events[-1])
