"""One iPhone: launch the runner, wait until it listens, link it through usbmux, restart it.

One session: a fresh random token; the launch provider (lockdown over usbmux below iOS 17, the
RSD tunnel from tunneld on 17 and later — for launching only); ``TestConfig.create_for`` the
runner with ``MOBRIDGE_PORT/TOKEN/DEVICE_ID/BUNDLE_ID`` in its environment;
``XCUITestService.run`` as a task (it returns only when the runner's test ends); readiness by
opening the runner's port through usbmux every 100 ms; then ``attach`` with an opener that dials
``select_device(udid).connect(port)`` for every (re)connect of the hub. The session ends when the
runner task ends or fails; then it ``detach``-es, closes the provider, and ``run`` starts the next
session after a capped exponential back-off (reset after a healthy run).

Invariants: every session has its own token; the URL handed to ``attach`` is detached before the
next session; the opener raises only OSError (a device gone or refusing is a lost link, never a
crash of the hub's link task); the token is never logged.
"""

from __future__ import annotations

import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import structlog

from bridge.devices.ios.config import Attach, Detach, IosConfig
from bridge.devices.ios.device_layer import IphoneLayer
from bridge.devices.ios.iphone_media import IphoneMedia
from bridge.devices.ios.location import load_location_calls
from bridge.devices.ios.plan import (
    REMEDIES,
    TUNNEL_FROM,
    RestartDelays,
    major_version,
    runner_env,
)
from bridge.devices.ios.pmd3 import IosSetupError, Pmd3
from bridge.devices.ios.web_inspector import IosWebSource
from bridge.devices.ios.web_wir import WirInspector

READY_POLL_S = 0.1


@dataclass
class SessionRecord:
    url: str | None
    reason: str
    seconds: float


def remedy(pmd3: Pmd3, error: BaseException) -> str:
    """The error as a reason, with what to do about it when that is known."""
    for key, kind in pmd3.hint_errors:
        if isinstance(error, kind):
            return f"{type(error).__name__}: {error} — {REMEDIES[key]}"
    return f"{type(error).__name__}: {error}"


@dataclass
class IphoneRunner:
    """Keeps the runner of one iPhone launched and linked until cancelled."""

    pmd3: Pmd3
    udid: str
    config: IosConfig
    attach: Attach
    detach: Detach
    clock: Callable[[], float] = time.monotonic
    sessions: list[SessionRecord] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.log = structlog.get_logger("mobridge").bind(component="ios", udid=self.udid)

    @property
    def url(self) -> str:
        """The link's name: the runner's port, and the UDID so two iPhones never share one."""
        return f"ws://127.0.0.1:{self.config.port}/ios/{self.udid}"

    async def run(self) -> None:
        delays = RestartDelays(self.config.backoff_initial_s, self.config.backoff_cap_s)
        while True:
            started = self.clock()
            record = SessionRecord(None, "", 0.0)
            self.sessions.append(record)
            record.reason = await self._session(record)
            record.seconds = self.clock() - started
            if record.seconds >= self.config.healthy_after_s:
                delays.reset()
            delay = delays.next_delay()
            self.delays.append(delay)
            self.log.warning("ios_runner_restart", reason=record.reason, after_s=delay)
            await self.config.sleep(delay)

    async def open_socket(self) -> socket.socket:
        """A connected socket to the runner's port on this iPhone (usbmux)."""
        try:
            device = await self.pmd3.select_device(self.udid)
            if device is None:
                raise OSError(f"iPhone {self.udid} is not connected ({REMEDIES['offline']})")
            sock: socket.socket = await device.connect(self.config.port)
            return sock
        except OSError:
            raise
        except self.pmd3.errors as exc:
            raise OSError(f"usbmux connect to port {self.config.port}: {exc}") from exc

    async def _launch_provider(self) -> Any:
        lockdown = await self.pmd3.create_using_usbmux(serial=self.udid)
        version = str(lockdown.product_version)
        if major_version(version) < TUNNEL_FROM:
            return lockdown
        await lockdown.close()
        try:
            rsd = await self.pmd3.get_tunneld_device_by_udid(self.udid)
        except self.pmd3.tunneld_error as exc:
            raise IosSetupError(
                f"iOS {version}: no tunneld ({exc}) — {REMEDIES['tunnel']}"
            ) from exc
        if rsd is None:
            raise IosSetupError(
                f"iOS {version}: tunneld has no tunnel to {self.udid} — {REMEDIES['tunnel']}"
            )
        return rsd

    async def _session(self, record: SessionRecord) -> str:
        token = secrets.token_urlsafe(24)
        provider: Any = None
        inspector = self._web_inspector()
        try:
            try:
                provider = await self._launch_provider()
                cfg = await self.pmd3.test_config.create_for(
                    provider, self.config.runner_bundle_id, self.config.target_bundle_id
                )
            except IosSetupError as exc:
                return str(exc)
            except self.pmd3.errors as exc:
                return f"launching the runner: {remedy(self.pmd3, exc)}"
            cfg.runner_app_env = runner_env(
                self.config.port, token, self.udid, self.config.target_bundle_id
            )
            ended: list[str] = []
            async with anyio.create_task_group() as tg:

                async def runner() -> None:
                    try:
                        await self.pmd3.xcuitest_service(provider).run(cfg)
                        ended.append("the runner's test ended")
                    except self.pmd3.errors as exc:
                        ended.append(f"the runner stopped: {remedy(self.pmd3, exc)}")
                    tg.cancel_scope.cancel()

                tg.start_soon(runner)
                if not await self._wait_ready(ended):
                    tg.cancel_scope.cancel()
                    return (
                        ended[0]
                        if ended
                        else (
                            f"the runner did not listen on port {self.config.port} within "
                            f"{self.config.ready_timeout_s:g} s"
                        )
                    )
                record.url = self.url
                self.log.info("ios_runner_ready", url=record.url)
                self.config.layers[record.url] = IphoneLayer(
                    self._launch_provider, load_location_calls, (*self.pmd3.errors, IosSetupError)
                )
                web = IosWebSource(inspector) if inspector is not None else None
                self.attach(record.url, token, self.open_socket, IphoneMedia(self.udid), web=web)
            return ended[0] if ended else "stopped"
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                if record.url is not None:
                    self.detach(record.url)
                if inspector is not None:
                    await inspector.aclose()
                if provider is not None:
                    try:
                        await provider.close()
                    except self.pmd3.errors:
                        pass  # the device went away

    def _web_inspector(self) -> WirInspector | None:
        """The phone's Web Inspector for this session (the app under test's pages), opened on
        first use with a provider of its own (None: pymobiledevice3 without the service)."""
        service_class = self.pmd3.webinspector_service
        if service_class is None:
            return None

        async def open_service() -> tuple[Any, Any]:
            provider = await self._launch_provider()
            service = service_class(provider)
            try:
                await service.connect()
            except BaseException:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    try:
                        await provider.close()
                    except self.pmd3.errors:
                        pass
                raise
            return service, provider

        return WirInspector(
            open_service, self.config.target_bundle_id, off_errors=self.pmd3.webinspector_off
        )

    async def _wait_ready(self, ended: list[str]) -> bool:
        with anyio.move_on_after(self.config.ready_timeout_s):
            while not ended:
                try:
                    probe = await self.open_socket()
                except OSError:
                    await anyio.sleep(READY_POLL_S)
                    continue
                probe.close()
                return True
        return False
