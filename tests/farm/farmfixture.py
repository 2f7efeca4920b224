"""A real farm for tests: ``nats-server`` on 127.0.0.1 and hubs as ``mobridge serve --farm``
subprocesses, each with its own simulated device (``--sim-id``).

``NatsServer`` can be stopped and started again on the same port (the NATS restart test);
``FarmHub`` can be killed with SIGKILL and started again (the owner-death test). Without
``nats-server`` the tests skip locally with how to install it; under CI a skip fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.skips import SYSTEM_PACKAGES, reason

ROOT = Path(__file__).resolve().parents[2]
NATS_SERVER = shutil.which("nats-server") or (
    "/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None
)
NO_NATS = reason("no nats-server for the farm tests", SYSTEM_PACKAGES)
need_nats = pytest.mark.skipif(NATS_SERVER is None, reason=NO_NATS)

TOKEN = "farm-controller-token"
TOKEN_2 = "farm-second-controller"
HUB_TOKEN = "hub-only-controller-token"
"""``--token``: reaches only the hub's own devices (TOKEN has the farm scope)."""
OBSERVER = "farm-observer-token"
SECRET = "hunter2-farm-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@dataclass
class NatsServer:
    """``nats-server`` bound to 127.0.0.1 with a config file (``extra`` lines appended)."""

    workdir: Path
    extra: str = ""
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    config: Path | None = None
    """A whole config file to use instead (``farm init``'s); it must listen on ``port``."""

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert NATS_SERVER is not None
        conf = self.config or self.workdir / "nats.conf"
        if self.config is None:
            conf.write_text(
                f"listen: 127.0.0.1:{self.port}\nmax_payload: 8MB\n{self.extra}\n",
                encoding="utf-8",
            )
        log = open(self.workdir / "nats.log", "ab")  # closed right after the fork
        self.process = subprocess.Popen(
            [NATS_SERVER, "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        wait_port(self.port)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@contextlib.contextmanager
def nats_server(workdir: Path, extra: str = "") -> Iterator[NatsServer]:
    server = NatsServer(workdir, extra)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class FarmHub:
    """One ``mobridge serve --farm`` subprocess (its log in ``<workdir>/<name>.log``)."""

    name: str
    sim_id: str
    nats_url: str
    workdir: Path
    scene: str = "login"
    extra: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    """Variables added to the hub's environment (after every MOBRIDGE_ one is cleared)."""
    process: subprocess.Popen[str] | None = None
    port: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1"

    @property
    def log_path(self) -> Path:
        return self.workdir / f"{self.name}.log"

    def start(self) -> None:
        runtime = self.workdir / f"{self.name}-runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
        env.update(
            XDG_RUNTIME_DIR=str(runtime),
            PYTHONUNBUFFERED="1",
            MOBRIDGE_SECRET_DEMO_PASSWORD=SECRET,
        )
        env.update(self.env)
        command = [
            sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--no-dashboard",
            "--token", HUB_TOKEN, "--farm-controller-token", TOKEN,
            "--farm-observer-token", OBSERVER, "--log-json",
            "--sim-id", self.sim_id, "--sim-scene", self.scene,
            "--farm", self.nats_url, "--farm-name", self.name, *self.extra,
        ]  # fmt: skip
        log = open(self.log_path, "a")  # closed right after the fork
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log, text=True, cwd=ROOT, env=env
        )
        log.close()
        self.lines = []
        assert self.process.stdout is not None
        deadline = time.monotonic() + 30
        while True:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"hub {self.name} did not start: {self.lines}")
            line = self.process.stdout.readline().rstrip("\n")
            self.lines.append(line)
            if line.startswith("mobridge hub listening on ws://127.0.0.1:"):
                self.port = int(line.rsplit(":", 1)[1].split("/")[0])
            if line.startswith("devices:"):
                return

    def kill9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def farm(workdir: Path, nats: NatsServer, *names: str, **kw: object) -> Iterator[list[FarmHub]]:
    """Hubs named ``names`` (device ``sim-<name>``), started in order, stopped on exit."""
    hubs = [
        FarmHub(name, f"sim-{name.lower()}", nats.url, workdir, **kw)  # type: ignore[arg-type]
        for name in names
    ]
    try:
        for hub in hubs:
            hub.start()
        yield hubs
    finally:
        for hub in hubs:
            hub.stop()
