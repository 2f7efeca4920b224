"""docs/farm.md's one-machine walkthrough runs as written (on free ports instead of 4222 and
8701-8703, which may be taken here): NATS, three hubs with their own simulated devices, and
``mobridge devices`` on hub A listing all three with their owners."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.docs.docblocks import blocks_of
from tests.farm.farmfixture import NATS_SERVER, ROOT, free_port, need_nats, wait_port

pytestmark = need_nats


def walkthrough() -> list[str]:
    blocks = [b for b in blocks_of(ROOT / "docs" / "farm.md") if "--farm-name A" in b.code]
    assert len(blocks) == 1
    return [command for command, _ in blocks[0].commands()]


def wait_listening(
    port: int, background: list[subprocess.Popen[bytes]], logs: list[Path], timeout: float = 90
) -> None:
    """Until something listens on ``port``; a background command that exits meanwhile fails
    the test at once with what it printed (a hub that could not start is not a slow one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        for proc, log in zip(background, logs, strict=True):
            if proc.poll() is not None:
                printed = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                raise AssertionError(f"{proc.args!r} exited {proc.returncode}:\n{printed}")
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def test_the_one_machine_walkthrough(tmp_path: Path) -> None:
    commands = walkthrough()
    ports = {"4222": str(free_port())} | {str(p): str(free_port()) for p in (8701, 8702, 8703)}

    def local(command: str) -> str:
        return re.sub(r"\b(4222|870[123])\b", lambda m: ports[m.group(1)], command)

    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if NATS_SERVER is not None:
        env["PATH"] += f"{os.pathsep}{Path(NATS_SERVER).parent}"
    background: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    try:
        for command in commands:
            command = local(command)
            if command.endswith("&"):
                log = tmp_path / f"background-{len(background)}.log"
                with open(log, "wb") as out:
                    started = subprocess.Popen(
                        shlex.split(command[:-1]),
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                background.append(started)
                logs.append(log)
                if command.startswith("nats-server"):
                    wait_port(int(ports["4222"]))
                continue
            if command.startswith("sleep"):
                for port in (ports["8701"], ports["8702"], ports["8703"]):
                    wait_listening(int(port), background, logs)
                time.sleep(float(command.split()[1]))
                continue
            assignments, _, rest = command.rpartition(".venv/bin/mobridge")
            run_env = dict(env)
            for pair in shlex.split(assignments):
                key, _, value = pair.partition("=")
                run_env[key] = value
            listed: dict[str, str | None] = {}
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                proc = subprocess.run(
                    [str(ROOT / ".venv/bin/mobridge"), *shlex.split(rest), "--json"],
                    cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=60,
                    check=False,
                )  # fmt: skip
                assert proc.returncode == 0, proc.stderr
                devices = json.loads(proc.stdout)["devices"]
                assert json.loads(proc.stdout)["farm"]["hub"] == "A"
                listed = {d["id"]: d.get("owner") for d in devices if d.get("online")}
                if len(listed) == 3:
                    break
                time.sleep(0.5)
            assert listed == {"sim-a": "A", "sim-b": "B", "sim-c": "C"}
    finally:
        for started in reversed(background):
            started.terminate()
            try:
                started.wait(timeout=10)
            except subprocess.TimeoutExpired:
                started.kill()
                started.wait()
