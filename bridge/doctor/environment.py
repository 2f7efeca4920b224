"""Probes of what a real phone needs on this machine: the adb server (adbutils) for Android,
usbmux (pymobiledevice3, the ``ios`` extra) for iPhones.

Each probe answers a ``Probe`` and never raises: what went wrong is its ``problem``. They are
blocking or slow (adb may start its server), so the runner calls them in a worker thread or
under a deadline. pymobiledevice3 is reached only through ``bridge.devices.ios.pmd3``.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field

ADB_HOST = "127.0.0.1"


@dataclass(frozen=True)
class Probe:
    """``tool`` reachable (``version`` when it says), the ``serials`` it lists, or why not."""

    tool: str
    reachable: bool
    version: str | None = None
    serials: tuple[str, ...] = field(default_factory=tuple)
    problem: str | None = None
    installed: bool = True


def probe_adb() -> Probe:
    """The local adb server: its version and the serials of devices in state ``device``. A
    server that is not running is reported, never started (adbutils would start one)."""
    port = int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))
    try:
        with socket.create_connection((ADB_HOST, port), timeout=2.0):
            pass
    except OSError as exc:
        return Probe(
            "adb",
            False,
            problem=f"no adb server on {ADB_HOST}:{port} ({exc.strerror or exc}); "
            "`adb start-server` or `mobridge serve --android` starts it",
        )
    try:
        from bridge.devices.android.adb import default_adb_client

        client = default_adb_client()
        version = client.server_version()  # type: ignore[attr-defined]
        serials = tuple(
            str(d.serial)
            for d in client.list()  # type: ignore[attr-defined]
            if getattr(d, "state", "device") == "device"
        )
    except Exception as exc:  # adbutils raises its own errors, OSError, or anything else
        return Probe("adb", False, problem=f"{type(exc).__name__}: {exc}"[:300])
    return Probe("adb", True, version=str(version), serials=serials)


async def probe_usbmux() -> Probe:
    """usbmux through pymobiledevice3: the UDIDs it lists (``installed`` false without the
    ``ios`` extra)."""
    from bridge.devices.ios.pmd3 import IosSetupError, load_pmd3

    try:
        pmd3 = load_pmd3()
    except IosSetupError:
        return Probe(
            "usbmux",
            False,
            installed=False,
            problem="pymobiledevice3 not installed: pip install 'mobridge[ios]'",
        )
    try:
        devices = await pmd3.list_devices()
    except Exception as exc:  # usbmuxd absent, permission refused, ...
        return Probe("usbmux", False, problem=f"{type(exc).__name__}: {exc}"[:300])
    return Probe("usbmux", True, serials=tuple(str(d.serial) for d in devices))
