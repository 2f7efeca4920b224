"""How ``mobridge serve --ios`` / ``--ios-simulator`` runs (``IosConfig``) and the hub's callbacks.

``attach(url, token, open_socket)`` links an agent-link URL; ``open_socket`` (None for a
Simulator, which listens on this machine's loopback) returns a connected socket to the runner's
port through usbmux, and the URL then only names the link (its host and path go in the upgrade
request). ``detach(url)`` unlinks it and the device goes offline. Only ``ws://127.0.0.1:…`` URLs
are ever handed out.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio

from bridge.devices.ios.pmd3 import Pmd3, load_pmd3

SocketOpener = Callable[[], Awaitable[socket.socket]]


class Attach(Protocol):
    """The hub's ``attach``: link an agent-link URL (``opener``: an iPhone's socket) with the
    device's media (``sim_media.SimctlMedia`` for a Simulator; None: screenshots only) and
    its web pages (``web_inspector.IosWebSource`` for an iPhone: a
    ``bridge.devices.web.source.WebSource``; None: none read)."""

    def __call__(
        self,
        url: str,
        token: str | None,
        opener: SocketOpener | None,
        media: Any = None,
        web: Any = None,
    ) -> anyio.Event: ...


Detach = Callable[[str], None]

DEFAULT_PORT = 8200
"""The runner's port on a device (each iPhone has its own port space)."""
RUNNER_BUNDLE_ID = "dev.mobridge.runner.xctrunner"
"""The runner app built by scripts/build-ios-agent (agents/ios/xcode/project.yml)."""


@dataclass(frozen=True, kw_only=True)
class IosConfig:
    udid: str | None = None
    """Drive only this iPhone (UDID, dashes optional); None drives every one usbmux lists."""
    simulator: str | None = None
    """A Simulator UDID: attach to its runner on loopback instead of iPhones over usbmux."""
    port: int = DEFAULT_PORT
    """The runner's port (on the device; on this machine for a Simulator, 0 = pick one)."""
    runner_bundle_id: str = RUNNER_BUNDLE_ID
    target_bundle_id: str | None = None
    """The app under test: the runner captures it while it is in front (else SpringBoard)."""
    xctestrun: Path | None = None
    """Simulator: start ``xcodebuild test-without-building`` with this file (needs xcrun)."""
    agent_token: str | None = None
    """Simulator runner started by the user: the MOBRIDGE_TOKEN it was given."""
    ready_timeout_s: float = 120.0
    """How long a launched runner may take to accept connections (a cold start takes tens of
    seconds)."""
    poll_interval_s: float = 2.0
    """How often usbmux is asked which iPhones are connected."""
    backoff_initial_s: float = 1.0
    backoff_cap_s: float = 30.0
    healthy_after_s: float = 60.0
    """A run that lasted this long resets the back-off."""
    pmd3_factory: Callable[[], Pmd3] = load_pmd3
    layers: dict[str, Any] = field(default_factory=dict)
    """Runner URL -> the device layer the driver registers before attaching it (the hub reads
    it as ``bridge.hub.device_layer.DeviceLayer``: simctl on a Simulator, location on an
    iPhone)."""
    """The pymobiledevice3 calls (tests pass a fake)."""
    xcrun: str | None = None
    """Path of xcrun; None looks it up on PATH when a Simulator runner must be started."""
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep

    @staticmethod
    def from_cli(
        ios: str | None,
        simulator: str | None = None,
        *,
        port: int | None = None,
        runner_bundle_id: str | None = None,
        target_bundle_id: str | None = None,
        xctestrun: Path | None = None,
        agent_token: str | None = None,
    ) -> IosConfig:
        """``--ios [UDID]`` (const ``*`` = every iPhone) or ``--ios-simulator UDID``."""
        return IosConfig(
            udid=None if ios in (None, "", "*") else ios,
            simulator=simulator,
            port=port if port is not None else (0 if simulator and xctestrun else DEFAULT_PORT),
            runner_bundle_id=runner_bundle_id or RUNNER_BUNDLE_ID,
            target_bundle_id=target_bundle_id,
            xctestrun=xctestrun,
            agent_token=agent_token,
        )
