"""Probes of what a real phone needs on this machine: the adb server (adbutils) for Android,
usbmux (pymobiledevice3, the ``ios`` extra) for iPhones.

Each probe answers a ``Probe`` and never raises: what went wrong is its ``problem``. They are
blocking or slow (adb may start its server), so the runner calls them in a worker thread or
under a deadline. pymobiledevice3 is reached only through ``bridge.devices.ios.pmd3``.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import socket
import subprocess
import sys
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
    unauthorized: tuple[str, ...] = field(default_factory=tuple)
    """adb: serials listed in state ``unauthorized`` (USB debugging not accepted yet)."""


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
        listed = list(client.list())  # type: ignore[attr-defined]
        serials = tuple(str(d.serial) for d in listed if getattr(d, "state", "device") == "device")
        unauthorized = tuple(
            str(d.serial) for d in listed if getattr(d, "state", "") == "unauthorized"
        )
    except Exception as exc:  # adbutils raises its own errors, OSError, or anything else
        return Probe("adb", False, problem=f"{type(exc).__name__}: {exc}"[:300])
    return Probe("adb", True, version=str(version), serials=serials, unauthorized=unauthorized)


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


# ---- the environment section (issue 34): facts only, read-only, never raising ---------------

TUNNELD_PORT = 49151
"""pymobiledevice3's tunneld (``pymobiledevice3 remote tunneld``) listens here by default."""


@dataclass(frozen=True)
class HostFacts:
    """This machine: its OS and Python, and the runtime a host agent needs (java, swift)."""

    system: str
    python: str
    runtime: str | None = None
    """``java -version`` / ``swift --version`` first line; None when not found."""
    runtime_tool: str | None = None


@dataclass(frozen=True)
class AndroidFacts:
    adb_client: str | None = None
    """``adb version`` first line (None: no adb on PATH)."""
    sdk: int | None = None
    release: str | None = None
    abi: str | None = None
    problem: str | None = None


@dataclass(frozen=True)
class IosFacts:
    xcode: str | None = None
    """``xcodebuild -version`` on one line (None: none here, e.g. Linux)."""
    pymobiledevice3: str | None = None
    developer_mode: bool | None = None
    tunnel: bool | None = None
    """Whether tunneld answers on 127.0.0.1 (iOS 17+ needs it); None: not looked."""
    problem: str | None = None


def _first_line(argv: list[str], timeout: float = 15.0) -> str | None:
    """The first non-empty line a version command prints (stdout or stderr); None when the
    tool is missing or fails."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in (done.stdout + "\n" + done.stderr).splitlines():
        if line.strip():
            return line.strip()[:200]
    return None


def host_facts(runtime: str | None) -> HostFacts:
    """This machine, and ``runtime`` (``java`` or ``swift``) when a host agent needs it."""
    found = None
    if runtime == "java":
        found = _first_line(["java", "-version"])
    elif runtime == "swift":
        path = os.environ.get("MOBRIDGE_SWIFT_BIN", "/opt/swift/usr/bin")
        swift = "swift" if shutil.which("swift") else os.path.join(path, "swift")
        found = (
            _first_line([swift, "--version"]) if os.path.exists(swift) or swift == "swift" else None
        )
    return HostFacts(
        system=f"{platform.system()} {platform.release()} ({platform.machine()})",
        python=sys.version.split()[0],
        runtime=found,
        runtime_tool=runtime,
    )


def android_facts(serial: str, listed: bool) -> AndroidFacts:
    """``adb version``, and the phone's API level, release and ABI (``getprop``, read-only)
    when it is listed in state ``device``."""
    client_version = _first_line(["adb", "version"])
    if not listed:
        return AndroidFacts(adb_client=client_version)
    try:
        from bridge.devices.android.adb import default_adb_client, run_shell

        device = default_adb_client().device(serial)

        def prop(name: str) -> str:
            return run_shell(device, f"getprop {name}", 10.0).decode("utf-8", "replace").strip()

        sdk = prop("ro.build.version.sdk")
        return AndroidFacts(
            adb_client=client_version,
            sdk=int(sdk) if sdk.isdigit() else None,
            release=prop("ro.build.version.release")[:32] or None,
            abi=prop("ro.product.cpu.abi")[:32] or None,
        )
    except Exception as exc:  # adbutils errors, a phone that went away
        problem = f"{type(exc).__name__}: {exc}"[:300]
        return AndroidFacts(adb_client=client_version, problem=problem)


def _tunneld_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", TUNNELD_PORT), timeout=1.0):
            return True
    except OSError:
        return False


async def ios_facts(udid: str) -> IosFacts:
    """Xcode (macOS only), pymobiledevice3's version, Developer Mode (lockdown, read-only)
    and whether tunneld answers."""
    xcode = None
    lines = _first_line(["xcodebuild", "-version"])
    if lines:
        xcode = lines
    try:
        version: str | None = importlib.metadata.version("pymobiledevice3")
    except importlib.metadata.PackageNotFoundError:
        version = None
    tunnel = _tunneld_answers()
    if version is None:
        return IosFacts(xcode=xcode, tunnel=tunnel)
    developer_mode: bool | None = None
    problem = None
    try:
        from bridge.devices.ios.pmd3 import load_pmd3

        lockdown = await load_pmd3().create_using_usbmux(serial=udid)
        status = getattr(lockdown, "developer_mode_status", None)
        developer_mode = bool(status) if status is not None else None
    except Exception as exc:  # not connected, not trusted, usbmuxd absent
        problem = f"{type(exc).__name__}: {exc}"[:300]
    return IosFacts(
        xcode=xcode,
        pymobiledevice3=version,
        developer_mode=developer_mode,
        tunnel=tunnel,
        problem=problem,
    )
