"""``run_android``: follow the devices adb reports and keep each one linked to the hub.

A daemon thread reads ``adb track-devices`` (adbutils ``track_devices``) into a memory
stream. A device in state ``device`` (matching ``AndroidConfig.serial`` when one is given)
gets a task: ``AgentRunner`` (agent mode) or ``AgentlessRunner``; the task is cancelled when
the device leaves that state (unplugged, offline, unauthorized) — its URL is detached, so
subscribers see the device go offline, and a new task starts when it comes back (same device
id, so they see it online again and resync). When the adb server goes away every device task
is cancelled and tracking restarts with back-off.

Invariants: at most one task per serial; every URL attached is detached when its task ends;
nothing but 127.0.0.1 is bound or connected to.
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

from bridge.devices.android.adb import ADB_ERRORS, AdbClientLike, blocking, pump
from bridge.devices.android.agent_mode import AgentRunner, SessionRecord
from bridge.devices.android.agentless import AgentlessConfig, AgentlessServer
from bridge.devices.android.apk import AgentApk, ApkProblem, load_agent_apk, packaged_apk_candidates
from bridge.devices.android.backoff import Backoff
from bridge.devices.android.config import AndroidConfig, Attach, Detach
from bridge.devices.android.media import AndroidMedia
from bridge.devices.android.staging import stager_for
from bridge.devices.web.android import AndroidWebSource

NO_APK = (
    "no agent APK: build it with scripts/build-android-agent (needs an Android SDK) and pass "
    "--android-agent-apk PATH, or run without an APK: --android-agentless"
)


class AndroidSetupError(Exception):
    """``--android`` cannot start (no usable agent APK)."""


async def resolve_apk(config: AndroidConfig) -> AgentApk:
    """The checked agent APK, or AndroidSetupError saying what to do."""
    if config.agent_apk is not None:
        candidates = [config.agent_apk]
    else:
        candidates = await anyio.to_thread.run_sync(packaged_apk_candidates)
    if not candidates:
        raise AndroidSetupError(NO_APK)
    loaded = await anyio.to_thread.run_sync(load_agent_apk, candidates[0], config.agent_sha256)
    if isinstance(loaded, ApkProblem):
        raise AndroidSetupError(loaded.reason)
    return loaded


def preflight(config: AndroidConfig) -> str | None:
    """Blocking check before the event loop starts (for the CLI): why ``run_android`` would
    refuse to start, or None. Agentless mode needs nothing."""
    if config.agentless:
        return None
    candidates = [config.agent_apk] if config.agent_apk is not None else packaged_apk_candidates()
    if not candidates:
        return NO_APK
    loaded = load_agent_apk(candidates[0], config.agent_sha256)
    return loaded.reason if isinstance(loaded, ApkProblem) else None


@dataclass
class AgentlessRunner:
    """Keeps an agentless server running for one device until cancelled."""

    client: AdbClientLike
    serial: str
    config: AndroidConfig
    attach: Attach
    detach: Detach
    clock: Callable[[], float] = time.monotonic
    sessions: list[SessionRecord] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    server: AgentlessServer | None = None

    async def run(self) -> None:
        log = structlog.get_logger("mobridge").bind(component="android", serial=self.serial)
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
            log.warning("android_agentless_restart", reason=record.reason, after_s=delay)
            await self.config.sleep(delay)

    async def _session(self, record: SessionRecord) -> str:
        token = secrets.token_urlsafe(24)
        device = await blocking(self.client.device, self.serial)
        server = AgentlessServer(
            device,
            self.serial,
            AgentlessConfig(token=token, poll_interval_s=self.config.poll_interval_s),
        )
        self.server = server
        try:
            await server.prepare()
        except ADB_ERRORS as exc:
            return f"adb: {exc}"
        try:
            async with anyio.create_task_group() as tg:
                port = await tg.start(server.serve)
                record.url = f"ws://127.0.0.1:{port}"
                self.attach(
                    record.url,
                    token,
                    stager_for(device),
                    AndroidMedia(device, time.monotonic),
                    AndroidWebSource(device),
                )
        finally:
            if record.url is not None:
                self.detach(record.url)
        return server.lost_reason or "the agentless server stopped"


@dataclass
class AndroidDriver:
    config: AndroidConfig
    attach: Attach
    detach: Detach
    apk: AgentApk | None = None
    runners: dict[str, AgentRunner | AgentlessRunner] = field(default_factory=dict)
    _scopes: dict[str, anyio.CancelScope] = field(default_factory=dict)
    _ended: dict[str, anyio.Event] = field(default_factory=dict)
    """Per serial, set when its last runner has ended, its teardown included (at most one
    entry per serial that was ever linked; removed once a runner ends with none after it)."""

    def __post_init__(self) -> None:
        self.log = structlog.get_logger("mobridge").bind(component="android")

    async def run(self) -> None:
        if not self.config.agentless and self.apk is None:
            self.apk = await resolve_apk(self.config)
            self.log.info("android_agent_apk", path=str(self.apk.path), version=self.apk.version)
        client = await blocking(self.config.adb_factory)
        backoff = Backoff(self.config.backoff_initial_s, self.config.backoff_cap_s)
        async with anyio.create_task_group() as tg:
            while True:
                events = pump(lambda emit: _track(client, emit), "mobridge-adb-track")
                async with events:
                    async for event in events:
                        if isinstance(event, BaseException):
                            self.log.warning("adb_tracking_failed", error=str(event))
                            break
                        backoff.reset()
                        self._on_event(tg, client, event)
                for serial in list(self._scopes):
                    self._stop(serial)
                await self.config.sleep(backoff.next_delay())

    def _on_event(self, tg: anyio.abc.TaskGroup, client: AdbClientLike, event: Any) -> None:
        serial = str(event.serial)
        if self.config.serial is not None and serial != self.config.serial:
            return
        usable = bool(event.present) and event.status == "device"
        self.log.info("android_device", serial=serial, status=event.status)
        if event.status == "unauthorized":
            self.log.warning(
                "android_unauthorized",
                serial=serial,
                hint="accept the 'Allow USB debugging?' prompt on the phone",
            )
        if usable and serial not in self._scopes:
            scope = anyio.CancelScope()
            self._scopes[serial] = scope
            runner: AgentRunner | AgentlessRunner
            if self.config.agentless or self.apk is None:
                runner = AgentlessRunner(client, serial, self.config, self.attach, self.detach)
            else:
                runner = AgentRunner(
                    client, serial, self.apk, self.config, self.attach, self.detach
                )
            self.runners[serial] = runner
            before = self._ended.get(serial)
            ended = self._ended[serial] = anyio.Event()
            tg.start_soon(self._device_task, serial, runner, scope, before, ended)
        elif not usable:
            self._stop(serial)

    def _stop(self, serial: str) -> None:
        scope = self._scopes.pop(serial, None)
        if scope is not None:
            scope.cancel()

    async def _device_task(
        self,
        serial: str,
        runner: AgentRunner | AgentlessRunner,
        scope: anyio.CancelScope,
        before: anyio.Event | None,
        ended: anyio.Event,
    ) -> None:
        """Run ``runner`` once the serial's runner ``before`` it has ended: a runner that is
        stopped (an adb server restart, an unplug) tears down in the background, detaching,
        removing its forward and force-stopping the agent; a new one started meanwhile had
        its fresh agent force-stopped under it (seen under load: an adb server restart
        relinked the phone, then lost it again to that stop, and restarted it a second
        later)."""
        try:
            with scope:
                if before is not None:
                    await before.wait()
                await runner.run()
        finally:
            if before is not None:  # stopped while waiting: this one still ends after it
                with anyio.CancelScope(shield=True):
                    await before.wait()  # bounded: a teardown gives up after 10 s
            ended.set()
            if self._ended.get(serial) is ended:
                del self._ended[serial]
        if self._scopes.get(serial) is scope:
            del self._scopes[serial]


def _track(client: AdbClientLike, emit: Callable[[Any], bool]) -> None:
    for event in client.track_devices():
        if not emit(event):
            return


async def run_android(config: AndroidConfig, attach: Attach, detach: Detach) -> None:
    """Drive Android devices until cancelled: ``attach(url, token, stage)`` each device's agent
    link as it comes up, ``detach(url)`` as it goes. Raises AndroidSetupError when agent
    mode has no usable APK (before touching any device)."""
    await AndroidDriver(config, attach, detach).run()
