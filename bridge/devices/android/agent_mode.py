"""Agent mode for one device: install, start the instrumentation, forward, attach, restart.

One session: make sure the agent APK is installed (``install.ensure_agent``, once per device
appearance, again when the instrumentation turns out to be missing), force-stop a leftover
agent, pick a random abstract socket name and a random token, start
``am instrument -w -r -e token T -e socket NAME -e device SERIAL <pkg>/.BridgeInstrumentation``
with its output read line by line in a daemon thread, wait up to ``ready_timeout_s`` for the
readiness status, ``adb forward tcp:PORT localabstract:NAME`` (PORT free on 127.0.0.1) and
``attach("ws://127.0.0.1:PORT", T)``. The session ends when the instrumentation ends
(finished, crashed, killed), its output stream closes, the forward disappears, or an adb call
fails; then it ``detach``-es, removes the forward, force-stops the agent, and ``run`` starts
the next session after a capped exponential back-off (reset after a healthy run).

Invariants: every session has its own socket name, token and port; the URL handed to
``attach`` is always detached before the next session; the token is never logged.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import structlog

from bridge.devices.android.adb import (
    ADB_ERRORS,
    AdbClientLike,
    AdbDeviceLike,
    ShellStreamLike,
    blocking,
    free_loopback_port,
    pump,
    shell,
)
from bridge.devices.android.apk import AGENT_PACKAGE, INSTRUMENTATION, AgentApk
from bridge.devices.android.backoff import Backoff
from bridge.devices.android.config import AndroidConfig, Attach, Detach
from bridge.devices.android.install import InstallFailed, ensure_agent
from bridge.devices.android.instrument import (
    Ended,
    Ready,
    StartFailed,
    StatusLineParser,
    StatusReport,
    readiness,
)
from bridge.devices.android.media import AndroidMedia
from bridge.devices.android.shell_text import shell_command
from bridge.devices.android.staging import stager_for
from bridge.devices.web.android import AndroidWebSource
from bridge.wire.agent_link import AGENT_PROTOCOL

MAX_LINE = 64 * 1024
_MISSING_MARKERS = ("Unable to find instrumentation", "INSTRUMENTATION_FAILED", "does not exist")


def instrument_command(token: str, socket_name: str, serial: str, layout: str = "full") -> str:
    """The ``am instrument`` line; ``-e layout`` only when not the agent's default (full)."""
    extra = [] if layout == "full" else ["-e", "layout", layout]
    return shell_command(
        [
            "am",
            "instrument",
            "-w",
            "-r",
            "-e",
            "token",
            token,
            "-e",
            "socket",
            socket_name,
            "-e",
            "device",
            serial,
            *extra,
            INSTRUMENTATION,
        ]
    )


def line_reader(stream: ShellStreamLike) -> Callable[[Callable[[Any], bool]], None]:
    """A ``pump`` producer: the stream's output split into lines (``\\r`` stripped)."""

    def produce(emit: Callable[[Any], bool]) -> None:
        pending = b""
        while True:
            chunk = stream.recv(4096)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not emit(line.decode("utf-8", "replace").rstrip("\r")):
                    return
            if len(pending) > MAX_LINE:
                pending = b""
        if pending:
            emit(pending.decode("utf-8", "replace").rstrip("\r"))

    return produce


@dataclass
class SessionRecord:
    url: str | None
    reason: str
    seconds: float


@dataclass
class AgentRunner:
    """Keeps the agent running on one device until cancelled."""

    client: AdbClientLike
    serial: str
    apk: AgentApk
    config: AndroidConfig
    attach: Attach
    detach: Detach
    clock: Callable[[], float] = time.monotonic
    sessions: list[SessionRecord] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    _installed: bool = False

    def __post_init__(self) -> None:
        self.log = structlog.get_logger("mobridge").bind(component="android", serial=self.serial)

    async def run(self) -> None:
        backoff = Backoff(self.config.backoff_initial_s, self.config.backoff_cap_s)
        while True:
            started = self.clock()
            record = SessionRecord(None, "", 0.0)
            self.sessions.append(record)
            record.reason = await self._session(record)
            record.seconds = self.clock() - started
            if record.seconds >= self.config.healthy_after_s:
                backoff.reset()
            delay = backoff.next_delay()
            self.delays.append(delay)
            self.log.warning("android_agent_restart", reason=record.reason, after_s=delay)
            await self.config.sleep(delay)

    async def _session(self, record: SessionRecord) -> str:
        device: AdbDeviceLike = await blocking(self.client.device, self.serial)
        if not self._installed:
            try:
                outcome = await ensure_agent(device, self.apk)
            except InstallFailed as exc:
                return f"install: {exc}"
            except ADB_ERRORS as exc:
                return f"adb during install: {exc}"
            self._installed = True
            self.log.info("android_agent_installed", outcome=outcome, version=self.apk.version)
        socket_name = f"mobridge-{secrets.token_hex(8)}"
        token = secrets.token_urlsafe(24)
        stream: ShellStreamLike | None = None
        port: int | None = None
        try:
            await shell(device, shell_command(["am", "force-stop", AGENT_PACKAGE]))
            command = instrument_command(token, socket_name, self.serial, self.config.agent_layout)
            stream = await blocking(lambda: device.shell(command, stream=True))
            assert stream is not None
            lines = pump(line_reader(stream), f"mobridge-am-{self.serial}")
            async with lines:
                parser = StatusLineParser()
                started = await self._await_ready(lines, parser, socket_name)
                if not isinstance(started, Ready):
                    return self._start_failed(started.reason)
                port = free_loopback_port()
                await blocking(device.forward, f"tcp:{port}", f"localabstract:{socket_name}")
                if not await _forwarded(device, port, socket_name):
                    # adbutils does not read adb's second status: a refused bind shows here.
                    return f"adb did not create the forward tcp:{port} (port taken?)"
                record.url = f"ws://127.0.0.1:{port}"
                self.log.info("android_agent_ready", url=record.url, version=started.version)
                self.attach(
                    record.url,
                    token,
                    stager_for(device),
                    AndroidMedia(device, time.monotonic),
                    AndroidWebSource(device),
                )
                return await self._watch(device, lines, parser, port, socket_name)
        except ADB_ERRORS as exc:
            return f"adb: {exc}"
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                await self._cleanup(device, record.url, stream, port)

    async def _await_ready(
        self,
        lines: anyio.abc.ObjectReceiveStream[Any],
        parser: StatusLineParser,
        socket_name: str,
    ) -> Ready | StartFailed:
        with anyio.move_on_after(self.config.ready_timeout_s):
            async for item in lines:
                for event in _events(parser, item):
                    if isinstance(event, StatusReport):
                        verdict = readiness(event, socket_name, AGENT_PROTOCOL)
                        if verdict is not None:
                            return verdict
                    else:
                        return self._ended(event)
            return self._ended(parser.eof())
        return StartFailed(f"no readiness status within {self.config.ready_timeout_s:g} s")

    def _ended(self, ended: Ended) -> StartFailed:
        return StartFailed(f"instrumentation ended: {ended.describe()}")

    def _start_failed(self, reason: str) -> str:
        if any(marker in reason for marker in _MISSING_MARKERS):
            self._installed = False  # the agent is not there after all: check again next time
        return reason

    async def _watch(
        self,
        device: AdbDeviceLike,
        lines: anyio.abc.ObjectReceiveStream[Any],
        parser: StatusLineParser,
        port: int,
        socket_name: str,
    ) -> str:
        reason: list[str] = []
        async with anyio.create_task_group() as tg:

            async def output() -> None:
                async for item in lines:
                    for event in _events(parser, item):
                        if isinstance(event, Ended):
                            reason.append(self._ended(event).reason)
                            tg.cancel_scope.cancel()
                            return
                        verdict = readiness(event, socket_name, AGENT_PROTOCOL)
                        if isinstance(verdict, StartFailed):
                            reason.append(verdict.reason)
                            tg.cancel_scope.cancel()
                            return
                reason.append(self._ended(parser.eof()).reason)
                tg.cancel_scope.cancel()

            async def forward() -> None:
                while True:
                    await anyio.sleep(self.config.forward_check_s)
                    try:
                        present = await _forwarded(device, port, socket_name)
                    except ADB_ERRORS as exc:
                        reason.append(f"adb while checking the forward: {exc}")
                        break
                    if not present:
                        reason.append(f"the adb forward tcp:{port} disappeared")
                        break
                tg.cancel_scope.cancel()

            tg.start_soon(output)
            tg.start_soon(forward)
        return reason[0] if reason else "stopped"

    async def _cleanup(
        self,
        device: AdbDeviceLike,
        url: str | None,
        stream: ShellStreamLike | None,
        port: int | None,
    ) -> None:
        if url is not None:
            self.detach(url)
        try:
            if stream is not None:
                await blocking(stream.close)
            if port is not None:
                await blocking(device.forward_remove, f"tcp:{port}", False)
            await shell(device, shell_command(["am", "force-stop", AGENT_PACKAGE]))
        except ADB_ERRORS:
            pass  # the device went away; adb dropped its forwards with it


async def _forwarded(device: AdbDeviceLike, port: int, socket_name: str) -> bool:
    wanted = (f"tcp:{port}", f"localabstract:{socket_name}")
    items = await blocking(device.forward_list)
    return any((item.local, item.remote) == wanted for item in items)


def _events(parser: StatusLineParser, item: Any) -> list[StatusReport | Ended]:
    if isinstance(item, BaseException):
        return [Ended(None, {}, f"reading the instrumentation output failed: {item}")]
    return list(parser.feed(str(item)))
