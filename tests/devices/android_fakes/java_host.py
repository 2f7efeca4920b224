"""A fake phone whose agent is the real Java agent core: ``am instrument`` starts
``scripts/run-android-agent-host --port 0 --token T`` (host mode, scripted demo screens) with
the token the driver chose, and ``adb forward tcp:P localabstract:NAME`` becomes a loopback TCP
relay from P to that process. Everything else is the fake of adbutils.

What this cannot stand in for: UiAutomation, the abstract unix socket, ``am``'s own output
(the readiness lines are emitted by the fake once the Java process prints READY).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

from tests.devices.android_fakes.fake_adbutils import FakeDevice, FakeInstrumentation

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "run-android-agent-host"


class _Relay:
    """127.0.0.1:local -> 127.0.0.1:target, one thread pair per connection."""

    def __init__(self, local: int, target: int) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", local))
        self.listener.listen()
        self.target = target
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                conn.close()
                continue
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.listener.close()


class JavaHostDevice(FakeDevice):
    def __init__(self, serial: str) -> None:
        super().__init__(serial)
        self.processes: dict[str, subprocess.Popen[str]] = {}
        self.ports: dict[str, int] = {}
        self.relays: dict[str, _Relay] = {}
        self.on_instrument = self._start_java

    def _start_java(self, inst: FakeInstrumentation) -> None:
        proc = subprocess.Popen(
            [str(SCRIPT), "--port", "0", "--token", inst.token]
            + (["--layout", inst.args["layout"]] if "layout" in inst.args else []),
            stdout=subprocess.PIPE,
            stderr=sys.stderr,
            text=True,
            cwd=ROOT,
        )
        self.processes[inst.socket] = proc
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("READY ws://127.0.0.1:"):
            inst.emit("INSTRUMENTATION_RESULT: shortMsg=host agent did not start: " + line)
            inst.emit("INSTRUMENTATION_CODE: 0")
            inst.end()
            return
        self.ports[inst.socket] = int(line.rsplit(":", 1)[1])
        inst.ready()

        def watch() -> None:
            proc.wait()
            if not inst.ended:
                inst.crash()

        threading.Thread(target=watch, daemon=True).start()

    def kill_agent(self) -> None:
        for proc in self.processes.values():
            if proc.poll() is None:
                proc.kill()

    def forward(self, local: str, remote: str, norebind: bool = False) -> None:
        super().forward(local, remote, norebind)
        name = remote.removeprefix("localabstract:")
        self.relays[local] = _Relay(int(local.removeprefix("tcp:")), self.ports[name])

    def forward_remove(self, local: str, raise_non_found: bool = True) -> None:
        relay = self.relays.pop(local, None)
        if relay is not None:
            relay.close()
        super().forward_remove(local, raise_non_found)

    def shell(
        self,
        cmdargs: str,
        stream: bool = False,
        timeout: float | None = None,
        encoding: str | None = "utf-8",
    ) -> object:
        if cmdargs.startswith("am force-stop"):
            self.kill_agent()
        return super().shell(cmdargs, stream, timeout, encoding)

    def shutdown(self) -> None:
        self.kill_agent()
        for proc in self.processes.values():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
        for relay in self.relays.values():
            relay.close()
