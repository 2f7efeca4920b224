"""Pure parts of the iOS driver: restart delays, the runner's environment and readiness line,
xcodebuild's command line, UDID matching and the remedies named in errors.

Invariants: nothing here does I/O; the token appears only in the environment handed to the
runner, never in a reason or a log line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bridge.wire.agent_link import AGENT_PROTOCOL

READY_RE = re.compile(r"MOBRIDGE_READY port=(\d{1,5}) protocol=(\d+)(?: version=(\S+))?")
TUNNEL_FROM = 17

REMEDIES = {
    "tunnel": (
        "iOS 17 and later launch the runner through an RSD tunnel: start "
        "'sudo python3 -m pymobiledevice3 remote tunneld' and leave it running (the hub talks "
        "to the runner itself over usbmux and needs no tunnel for that)"
    ),
    "ddi": (
        "mount the Developer Disk Image: 'pymobiledevice3 mounter auto-mount' "
        "(on iOS 17 and later with the tunnel running)"
    ),
    "developer_mode": "turn on Settings > Privacy & Security > Developer Mode and restart",
    "not_installed": (
        "install the runner built by scripts/build-ios-agent "
        "('pymobiledevice3 apps install MobridgeRunner-Runner.app'), or pass --ios-runner"
    ),
    "locked": "unlock the iPhone",
    "trust": "unlock the iPhone and answer 'Trust This Computer?' with Trust",
    "offline": "reconnect the iPhone (USB), unlock it, and wait for the hub to relink",
}


@dataclass
class RestartDelays:
    """Exponential, capped restart delays; ``reset`` after a healthy run."""

    initial: float = 1.0
    cap: float = 30.0
    _next: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.cap:
            raise ValueError("restart delays need 0 < initial <= cap")
        self._next = self.initial

    def next_delay(self) -> float:
        delay = self._next
        self._next = min(self.cap, self._next * 2)
        return delay

    def reset(self) -> None:
        self._next = self.initial


def same_udid(a: str, b: str) -> bool:
    """usbmux may drop the dash of a UDID; compare without dashes, case-insensitively."""
    return a.replace("-", "").lower() == b.replace("-", "").lower()


def major_version(product_version: str) -> int:
    try:
        return int(product_version.split(".")[0])
    except ValueError:
        return 0


def runner_env(port: int, token: str, device_id: str, bundle_id: str | None) -> dict[str, str]:
    """What the runner reads (agents/ios RunnerEnvironment)."""
    env = {"MOBRIDGE_PORT": str(port), "MOBRIDGE_TOKEN": token, "MOBRIDGE_DEVICE_ID": device_id}
    if bundle_id:
        env["MOBRIDGE_BUNDLE_ID"] = bundle_id
    return env


def simulator_env(env: dict[str, str]) -> dict[str, str]:
    """xcodebuild passes ``TEST_RUNNER_<NAME>`` to the runner as ``<NAME>``."""
    return {f"TEST_RUNNER_{k}": v for k, v in env.items()}


def xcodebuild_argv(xcrun: str, xctestrun: Path, udid: str) -> list[str]:
    return [
        xcrun,
        "xcodebuild",
        "test-without-building",
        "-xctestrun",
        str(xctestrun),
        "-destination",
        f"id={udid}",
    ]


@dataclass(frozen=True)
class Ready:
    port: int
    version: str | None


@dataclass(frozen=True)
class WrongProtocol:
    spoken: int


def readiness(line: str) -> Ready | WrongProtocol | None:
    """The runner's readiness line (``MOBRIDGE_READY port=P protocol=N version=V``) anywhere in
    an output line; None for any other line."""
    found = READY_RE.search(line)
    if found is None:
        return None
    port, protocol = int(found.group(1)), int(found.group(2))
    if protocol != AGENT_PROTOCOL:
        return WrongProtocol(protocol)
    if not 0 < port < 65536:
        return None
    return Ready(port, found.group(3))
