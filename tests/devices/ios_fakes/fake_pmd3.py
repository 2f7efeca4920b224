"""A fake of exactly the pymobiledevice3 calls the iOS driver makes (``bridge.devices.ios.pmd3``),
for the iPhones that are not here:

- ``usbmux.list_devices()``, ``usbmux.select_device(udid)``, ``MuxDevice.connect(port)`` — the
  phone's TCP ports are the ports the runner process listens on here; ``connect`` opens a real
  loopback socket to it;
- ``lockdown.create_using_usbmux(serial=)`` (``product_version``, ``close()``),
  ``tunneld.api.get_tunneld_device_by_udid(udid)`` (an RSD provider on iOS 17+ when tunneld
  "runs", ``TunneldConnectionError``'s stand-in otherwise);
- ``TestConfig.create_for(provider, runner, target)`` (refuses an app that is not installed) and
  ``XCUITestService(provider).run(cfg)``: starts the runner — by default the real Swift agent in
  host mode with the port, token and device id of ``cfg.runner_app_env`` — and returns only when
  that process ends (raising the ``ConnectionTerminatedError`` stand-in, as the real one does
  when the runner dies).

Every call is recorded in ``calls`` as the driver made it. ``FakeIphone.unplug()`` makes the
phone vanish from usbmux, closes every socket opened to it and ends its runner.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from bridge.devices.ios.pmd3 import Pmd3
from tests.devices.ios_fakes.swift_host import ROOT, host_argv


class FakePmdError(Exception):
    """Stands in for pymobiledevice3's ``PyMobileDevice3Exception``."""


class FakeConnectionFailed(FakePmdError):
    pass


class FakeTunneldError(FakePmdError):
    pass


class FakeInvalidService(FakePmdError):
    pass


class FakeDeveloperModeOff(FakePmdError):
    pass


class FakeAppNotInstalled(FakePmdError):
    pass


class FakePairingError(FakePmdError):
    pass


class FakePasswordRequired(FakePairingError):
    pass


class FakeConnectionTerminated(FakePmdError):
    pass


RunnerArgv = Callable[[dict[str, str]], list[str]]


def swift_runner(env: dict[str, str]) -> list[str]:
    """The runner on the fake phone: the Swift agent in host mode with the driver's env."""
    return host_argv(0, env["MOBRIDGE_TOKEN"], "--device-id", env["MOBRIDGE_DEVICE_ID"])


@dataclass
class FakeIphone:
    udid: str
    product_version: str = "16.7"
    installed: set[str] = field(default_factory=lambda: {"dev.mobridge.runner.xctrunner"})
    connection_type: str = "USB"
    plugged: bool = True
    locked: bool = False
    ddi_mounted: bool = True
    runner_argv: RunnerArgv = swift_runner
    listening: dict[int, int] = field(default_factory=dict)
    """Device port -> the local port its process listens on."""
    sockets: list[socket.socket] = field(default_factory=list)
    runs: list[dict[str, str]] = field(default_factory=list)
    """The runner environment of every launch."""
    processes: list[subprocess.Popen[str]] = field(default_factory=list)

    def unplug(self) -> None:
        self.plugged = False
        for s in self.sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.sockets.clear()
        self.kill_runner()

    def replug(self) -> None:
        self.plugged = True

    def kill_runner(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.kill()
        self.listening.clear()

    def shutdown(self) -> None:
        self.unplug()
        for p in self.processes:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass


@dataclass
class FakeMuxDevice:
    devid: int
    serial: str
    connection_type: str
    owner: FakeUsbmux

    async def connect(self, port: int) -> socket.socket:
        return await self.owner.connect(self.serial, port)


@dataclass
class FakeProvider:
    """A lockdown client or an RSD provider."""

    kind: str
    phone: FakeIphone
    owner: FakeUsbmux
    closed: bool = False

    @property
    def product_version(self) -> str:
        return self.phone.product_version

    async def close(self) -> None:
        self.closed = True
        self.owner.calls.append(f"{self.kind}.close")


@dataclass
class FakeTestConfig:
    runner_app_info: dict[str, Any]
    target_app_info: dict[str, Any] | None = None
    runner_app_env: dict[str, str] | None = None


class FakeUsbmux:
    """The whole fake: phones, usbmuxd, tunneld, and the record of calls."""

    def __init__(self, *phones: FakeIphone) -> None:
        self.phones = list(phones)
        self.calls: list[str] = []
        self.usbmuxd_up = True
        self.tunneld_up = False
        self.tunnels: set[str] = set()
        owner = self

        class TestConfig:
            @staticmethod
            async def create_for(
                provider: FakeProvider, runner_bundle_id: str, target_bundle_id: str | None = None
            ) -> FakeTestConfig:
                owner.calls.append(f"TestConfig.create_for {provider.kind} {runner_bundle_id}")
                for app in (runner_bundle_id, target_bundle_id):
                    if app is not None and app not in provider.phone.installed:
                        raise FakeAppNotInstalled(f"{app} is not installed on the device")
                return FakeTestConfig({"CFBundleIdentifier": runner_bundle_id})

        class XCUITestService:
            def __init__(self, provider: FakeProvider) -> None:
                self.provider = provider

            async def run(self, cfg: FakeTestConfig) -> None:
                await owner.run(self.provider, cfg)

        self.TestConfig = TestConfig
        self.XCUITestService = XCUITestService

    def phone(self, udid: str) -> FakeIphone | None:
        return next(
            (p for p in self.phones if p.udid.replace("-", "") == udid.replace("-", "")), None
        )

    # ---- the pymobiledevice3 calls ----------------------------------------------------------

    async def list_devices(self) -> list[FakeMuxDevice]:
        self.calls.append("list_devices")
        if not self.usbmuxd_up:
            raise FakeConnectionFailed("cannot connect to usbmuxd")
        return [
            FakeMuxDevice(i + 1, p.udid, p.connection_type, self)
            for i, p in enumerate(self.phones)
            if p.plugged
        ]

    async def select_device(self, udid: str) -> FakeMuxDevice | None:
        self.calls.append(f"select_device {udid}")
        phone = self.phone(udid)
        if phone is None or not phone.plugged:
            return None
        return FakeMuxDevice(1, phone.udid, phone.connection_type, self)

    async def connect(self, udid: str, port: int) -> socket.socket:
        self.calls.append(f"connect {udid} {port}")
        phone = self.phone(udid)
        if phone is None or not phone.plugged:
            raise FakeConnectionFailed("device not connected")
        local = phone.listening.get(port)
        if local is None:
            raise FakeConnectionFailed(f"the device refused port {port}")
        sock = socket.create_connection(("127.0.0.1", local))
        phone.sockets.append(sock)
        return sock

    async def create_using_usbmux(self, serial: str | None = None) -> FakeProvider:
        self.calls.append(f"create_using_usbmux {serial}")
        phone = self.phone(serial or "")
        if phone is None or not phone.plugged:
            raise FakeConnectionFailed("device not connected")
        if phone.locked:
            raise FakePasswordRequired("the device is locked")
        return FakeProvider("lockdown", phone, self)

    async def get_tunneld_device_by_udid(self, udid: str) -> FakeProvider | None:
        self.calls.append(f"get_tunneld_device_by_udid {udid}")
        if not self.tunneld_up:
            raise FakeTunneldError("tunneld is not running on 127.0.0.1:49151")
        phone = self.phone(udid)
        if phone is None or udid not in self.tunnels:
            return None
        return FakeProvider("rsd", phone, self)

    async def run(self, provider: FakeProvider, cfg: FakeTestConfig) -> None:
        phone = provider.phone
        self.calls.append(f"XCUITestService.run {provider.kind}")
        if not phone.ddi_mounted:
            raise FakeInvalidService("com.apple.testmanagerd.lockdown.secure")
        env = dict(cfg.runner_app_env or {})
        phone.runs.append(env)
        argv = phone.runner_argv(env)
        proc = await anyio.to_thread.run_sync(
            lambda: subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=sys.stderr, text=True, cwd=ROOT
            )
        )
        phone.processes.append(proc)
        try:
            assert proc.stdout is not None
            line = await anyio.to_thread.run_sync(proc.stdout.readline)
            if not line.startswith("READY "):
                raise FakeConnectionTerminated(f"the runner did not start: {line!r}")
            phone.listening[int(env["MOBRIDGE_PORT"])] = int(line.rsplit(":", 1)[1])
            code = await anyio.to_thread.run_sync(proc.wait, abandon_on_cancel=True)
            raise FakeConnectionTerminated(f"the runner exited with {code}")
        finally:
            if proc.poll() is None:
                proc.terminate()

    # ---- the record the driver receives -----------------------------------------------------

    def pmd3(self) -> Pmd3:
        return Pmd3(
            list_devices=self.list_devices,
            select_device=self.select_device,
            create_using_usbmux=self.create_using_usbmux,
            get_tunneld_device_by_udid=self.get_tunneld_device_by_udid,
            test_config=self.TestConfig,
            xcuitest_service=self.XCUITestService,
            errors=(FakePmdError, OSError, TimeoutError),
            tunneld_error=FakeTunneldError,
            hint_errors=(
                ("ddi", FakeInvalidService),
                ("developer_mode", FakeDeveloperModeOff),
                ("not_installed", FakeAppNotInstalled),
                ("locked", FakePasswordRequired),
                ("trust", FakePairingError),
            ),
        )
