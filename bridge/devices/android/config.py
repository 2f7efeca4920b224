"""How ``mobridge serve --android`` runs (``AndroidConfig``) and the hub's two callbacks.

``attach(url, token, stage)`` links an agent-link URL (the hub returns an event set after the
first attempt); ``stage`` copies an app package onto the device for ``app.install``
(``bridge.devices.android.staging``); ``detach(url)`` unlinks it and the device goes offline.
The driver only ever hands ``ws://127.0.0.1:PORT`` URLs to them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from bridge.devices.android.adb import AdbClientLike, default_adb_client


class Attach(Protocol):
    """The hub's ``attach``: link an agent-link URL with the device's package stager, its
    media (``bridge.devices.android.media.AndroidMedia``: logcat, screenrecord, crashes) and
    its WebView pages (``bridge.devices.web.android.AndroidWebSource``)."""

    def __call__(
        self,
        url: str,
        token: str | None,
        stage: Callable[[Path], Awaitable[str]] | None,
        media: Any = None,
        web: Any = None,
    ) -> anyio.Event: ...


Detach = Callable[[str], None]


@dataclass(frozen=True, kw_only=True)
class AndroidConfig:
    serial: str | None = None
    """Drive only this adb serial; None drives every device adb reports."""
    agent_apk: Path | None = None
    """The agent APK; None looks in the packaged and source-checkout locations."""
    agent_sha256: str | None = None
    """Expected sha256 of ``agent_apk``; None uses ``<apk>.sha256`` when it exists."""
    agentless: bool = False
    """No APK: uiautomator dump + adb input (slow)."""
    agent_layout: Literal["full", "compressed"] = "full"
    """Which views the agent captures: ``full`` (every view, the default) or ``compressed``
    (only views important for accessibility: smaller trees, as the UiAutomator2 server's
    default). Sent to the agent as ``am instrument -e layout compressed``."""
    ready_timeout_s: float = 30.0
    """How long the instrumentation may take to report readiness."""
    forward_check_s: float = 5.0
    """How often the adb forward of a running agent is checked."""
    backoff_initial_s: float = 1.0
    backoff_cap_s: float = 30.0
    healthy_after_s: float = 60.0
    """A run that lasted this long resets the back-off."""
    poll_interval_s: float = 1.0
    """Agentless: how often the screen is dumped to find changes."""
    adb_factory: Callable[[], AdbClientLike] = default_adb_client
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep
    """Back-off sleeps (tests record them)."""

    @staticmethod
    def from_cli(
        android: str | None, agent_apk: Path | None = None, agentless: bool = False
    ) -> AndroidConfig:
        """``--android [SERIAL]`` (const ``*`` = every device), ``--android-agent-apk``,
        ``--android-agentless``."""
        serial = None if android in (None, "", "*") else android
        return AndroidConfig(serial=serial, agent_apk=agent_apk, agentless=agentless)
