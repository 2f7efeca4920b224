"""A Simulator's runner on this machine's loopback (``--ios-simulator UDID``).

Two ways, decided by the configuration:

- **started here** (``xctestrun`` given and xcrun found): each session picks a token (and a free
  port when none is configured), runs ``xcrun xcodebuild test-without-building -xctestrun F
  -destination id=UDID`` with ``TEST_RUNNER_MOBRIDGE_*`` in its environment (xcodebuild hands
  them to the runner without the prefix), reads its output for the runner's readiness line
  ``MOBRIDGE_READY port=P protocol=1``, attaches ``ws://127.0.0.1:P``, and ends when xcodebuild
  exits; then it detaches, and the next session starts after a capped back-off;
- **started by the user** (no xctestrun): attaches ``ws://127.0.0.1:PORT`` with the token the
  user gave the runner, once; the hub's link keeps reconnecting by itself.

Invariants: output lines are read bounded (``MAX_LINE``); xcodebuild is terminated when the
session ends for any reason; the token is never logged.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
import anyio.abc
import structlog

from bridge.devices.ios.config import Attach, Detach, IosConfig
from bridge.devices.ios.device_layer import SimulatorLayer
from bridge.devices.ios.plan import (
    Ready,
    RestartDelays,
    WrongProtocol,
    readiness,
    runner_env,
    simulator_env,
    xcodebuild_argv,
)
from bridge.devices.ios.pmd3 import IosSetupError
from bridge.devices.ios.sim_media import SimctlMedia
from bridge.devices.ios.simctl import Simctl

MAX_LINE = 64 * 1024
NO_TOKEN = (
    "--ios-simulator without --ios-xctestrun attaches to a runner you started: pass the "
    "MOBRIDGE_TOKEN you gave it with --agent-token"
)
NO_XCRUN = (
    "starting the Simulator's runner needs Xcode's xcrun (macOS); start it yourself with "
    "xcodebuild test-without-building (docs/ios.md) and pass --agent-token"
)


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SimulatorRunner:
    config: IosConfig
    attach: Attach
    detach: Detach
    clock: Callable[[], float] = time.monotonic
    reasons: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.config.simulator is None:
            raise ValueError("SimulatorRunner needs config.simulator")
        self.udid: str = self.config.simulator
        self.log = structlog.get_logger("mobridge").bind(component="ios-simulator", udid=self.udid)

    def xcrun(self) -> str | None:
        return self.config.xcrun or shutil.which("xcrun")

    def _media(self) -> SimctlMedia | None:
        """Logs, recording and crash reports through ``xcrun simctl`` (None: no xcrun)."""
        xcrun = self.xcrun()
        return SimctlMedia(xcrun, self.udid) if xcrun is not None else None

    async def run(self) -> None:
        if self.config.xctestrun is None:
            await self._attach_only()
            return
        xcrun = self.xcrun()
        if xcrun is None:
            raise IosSetupError(NO_XCRUN)
        delays = RestartDelays(self.config.backoff_initial_s, self.config.backoff_cap_s)
        while True:
            started = self.clock()
            reason = await self._session(xcrun)
            self.reasons.append(reason)
            if self.clock() - started >= self.config.healthy_after_s:
                delays.reset()
            delay = delays.next_delay()
            self.log.warning("ios_simulator_restart", reason=reason, after_s=delay)
            await self.config.sleep(delay)

    def _register_layer(self, url: str) -> None:
        """simctl beside the runner (permissions, location, pasteboard) when xcrun is here."""
        xcrun = self.xcrun()
        if xcrun is not None:
            self.config.layers[url] = SimulatorLayer(Simctl(xcrun, self.udid))

    async def _attach_only(self) -> None:
        if not self.config.agent_token:
            raise IosSetupError(NO_TOKEN)
        url = f"ws://127.0.0.1:{self.config.port}"
        self._register_layer(url)
        self.attach(url, self.config.agent_token, None, self._media())
        try:
            await anyio.sleep_forever()
        finally:
            self.detach(url)

    async def _session(self, xcrun: str) -> str:
        assert self.config.xctestrun is not None
        token = secrets.token_urlsafe(24)
        port = self.config.port or free_loopback_port()
        env = dict(os.environ)
        env.update(simulator_env(runner_env(port, token, self.udid, self.config.target_bundle_id)))
        argv = xcodebuild_argv(xcrun, self.config.xctestrun, self.udid)
        url: str | None = None
        try:
            process = await anyio.open_process(
                argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
        except OSError as exc:
            return f"cannot start xcodebuild: {exc}"
        try:
            assert process.stdout is not None
            pending = b""
            ready: Ready | None = None
            with anyio.move_on_after(self.config.ready_timeout_s):
                async for chunk in process.stdout:
                    pending += chunk
                    *done, pending = pending.split(b"\n")
                    pending = pending[-MAX_LINE:]
                    for raw in done:
                        verdict = readiness(raw.decode("utf-8", "replace"))
                        if isinstance(verdict, WrongProtocol):
                            return f"the runner speaks agent-link protocol {verdict.spoken}"
                        if isinstance(verdict, Ready):
                            ready = verdict
                            break
                    if ready is not None:
                        break
            if ready is None:
                code = process.returncode
                if code is not None:
                    return f"xcodebuild exited with {code} before the runner was ready"
                return f"no readiness line within {self.config.ready_timeout_s:g} s"
            url = f"ws://127.0.0.1:{ready.port}"
            self.log.info("ios_simulator_ready", url=url, version=ready.version)
            self._register_layer(url)
            self.attach(url, token, None, self._media())
            async for _ in process.stdout:
                pass  # keep draining xcodebuild's output until it exits
            await process.wait()
            return f"xcodebuild exited with {process.returncode}"
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                if url is not None:
                    self.detach(url)
                if process.returncode is None:
                    process.terminate()
                    with anyio.move_on_after(5):
                        await process.wait()
                    if process.returncode is None:
                        process.kill()
                await process.aclose()
