"""``--ios-simulator UDID``: the runner started with ``xcrun xcodebuild test-without-building``
(a fake xcrun here, which checks the command line and starts the Swift agent in host mode the way
xcodebuild starts the runner: ``TEST_RUNNER_<NAME>`` passed on as ``<NAME>``), or a runner the
user started, attached on loopback."""

from __future__ import annotations

import os
import secrets
import signal
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from bridge.devices.ios import IosConfig, preflight
from bridge.devices.ios.plan import (
    Ready,
    WrongProtocol,
    readiness,
    runner_env,
    simulator_env,
    xcodebuild_argv,
)
from bridge.devices.ios.simulator import SimulatorRunner
from bridge.hub.app import Hub, HubConfig
from bridge.net.auth import Principal
from tests.devices.android_fakes.hub_double import eventually
from tests.devices.ios_fakes.swift_host import SCRIPT, require_swift, swift_agent

pytestmark = pytest.mark.anyio

SIM = "6B29FC40-CA47-1067-B31D-00DD010662DA"
TOKEN = "ios-sim-hub-token"

FAKE_XCRUN = """#!/bin/sh
# Fake xcrun: only `xcrun xcodebuild test-without-building -xctestrun F -destination id=U`.
echo "$@" >> "{log}"
[ "$1" = xcodebuild ] && [ "$2" = test-without-building ] && [ "$3" = -xctestrun ] || exit 64
[ -f "$4" ] && [ "$5" = -destination ] && [ "$6" = "id={udid}" ] || exit 65
echo "Testing started"
echo $$ > "{log}.pid"
exec "{script}" --port "$TEST_RUNNER_MOBRIDGE_PORT" --token "$TEST_RUNNER_MOBRIDGE_TOKEN" \\
    --device-id "$TEST_RUNNER_MOBRIDGE_DEVICE_ID"
"""


def fake_xcrun(tmp: Path) -> tuple[Path, Path]:
    log = tmp / "xcrun.log"
    xcrun = tmp / "xcrun"
    xcrun.write_text(FAKE_XCRUN.format(log=log, udid=SIM, script=SCRIPT))
    xcrun.chmod(xcrun.stat().st_mode | stat.S_IXUSR)
    return xcrun, log


def test_plan_pieces() -> None:
    env = runner_env(8300, "t0k", SIM, "com.example.Shop-Beta")
    assert simulator_env(env) == {
        "TEST_RUNNER_MOBRIDGE_PORT": "8300",
        "TEST_RUNNER_MOBRIDGE_TOKEN": "t0k",
        "TEST_RUNNER_MOBRIDGE_DEVICE_ID": SIM,
        "TEST_RUNNER_MOBRIDGE_BUNDLE_ID": "com.example.Shop-Beta",
    }
    assert xcodebuild_argv("/usr/bin/xcrun", Path("a.xctestrun"), SIM)[-2:] == [
        "-destination",
        f"id={SIM}",
    ]
    line = "2026-01-01 runner[12:34] MOBRIDGE_READY port=8300 protocol=1 version=0.1.0"
    assert readiness(line) == Ready(8300, "0.1.0")
    assert readiness("MOBRIDGE_READY port=8300 protocol=2") == WrongProtocol(2)
    assert readiness("Test Case started") is None
    assert readiness("MOBRIDGE_READY port=0 protocol=1") is None


async def test_started_with_xcodebuild_linked_and_restarted(tmp_path: Path) -> None:
    require_swift()
    xcrun, log = fake_xcrun(tmp_path)
    xctestrun = tmp_path / "MobridgeRunner.xctestrun"
    xctestrun.write_text("<plist/>")
    cfg = IosConfig(
        simulator=SIM, xctestrun=xctestrun, xcrun=str(xcrun), port=0, backoff_initial_s=0.1
    )
    assert preflight(cfg) is None
    hub = Hub(HubConfig(port=0, sim=False, tokens={TOKEN: Principal("controller", "c")}, ios=cfg))
    async with anyio.create_task_group() as tg:
        await tg.start(hub.run)
        devices = hub.service.devices
        await eventually(lambda: any(d.online for d in devices.values()), 90)
        assert list(devices) == [SIM]
        assert (await anyio.Path(log).read_text()).count("test-without-building") == 1
        # xcodebuild (here: the agent it ran) ends: the session restarts it.
        pid = int(await anyio.Path(f"{log}.pid").read_text())
        os.kill(pid, signal.SIGTERM)  # the process xcodebuild became (exec), by its id
        await eventually(lambda: not devices[SIM].online, 30)
        await eventually(lambda: devices[SIM].online, 90)
        assert (await anyio.Path(log).read_text()).count("test-without-building") == 2
        tg.cancel_scope.cancel()


async def test_attaches_to_a_runner_the_user_started() -> None:
    token = secrets.token_urlsafe(16)
    with swift_agent(token, 0, "--device-id", SIM) as (_proc, url):
        port = int(url.rsplit(":", 1)[1])
        cfg = IosConfig.from_cli(None, SIM, port=port, agent_token=token)
        assert cfg.xctestrun is None and preflight(cfg) is None
        hub = Hub(
            HubConfig(port=0, sim=False, tokens={TOKEN: Principal("controller", "c")}, ios=cfg)
        )
        async with anyio.create_task_group() as tg:
            await tg.start(hub.run)
            await eventually(lambda: SIM in hub.service.devices, 30)
            await eventually(lambda: hub.service.devices[SIM].online, 30)
            tg.cancel_scope.cancel()


def test_preflight_names_what_is_missing(tmp_path: Path) -> None:
    no_token = IosConfig.from_cli(None, SIM)
    assert "--agent-token" in (preflight(no_token) or "")
    missing = IosConfig.from_cli(None, SIM, xctestrun=tmp_path / "nope.xctestrun")
    assert "scripts/build-ios-agent" in (preflight(missing) or "")
    run = tmp_path / "a.xctestrun"
    run.write_text("x")
    nothing = IosConfig(simulator=SIM, xctestrun=run, xcrun=None)
    runner = SimulatorRunner(nothing, lambda *a: anyio.Event(), lambda url: None)
    if runner.xcrun() is None:  # no Xcode on this machine (the usual case off macOS)
        assert "xcrun" in (preflight(nothing) or "")


def test_serve_refuses_to_start_when_the_simulator_runner_cannot_be_reached() -> None:
    # A subprocess: the CLI configures the process's logging, which must not leak into others.
    argv = ["serve", "--no-sim", "--port", "0", "--ios-simulator", SIM]
    out = subprocess.run(
        [sys.executable, "-m", "bridge.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert "--agent-token" in out.stderr
