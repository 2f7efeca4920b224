"""The doctor's environment and private-API sections (issue 34), from probed facts (sans-I/O).

Environment: what a person holding a phone must have right on this machine and on the phone —
Xcode/XCTest, the iOS version, pymobiledevice3, Developer Mode and the tunnel (iOS 17+) for an
iPhone; adb, USB authorization, the API level and ABI for an Android phone; this machine and
the runtime of a host agent (java, swift); nothing phone-related for the simulated device.
What could not be looked at is ``n/a`` ("not measured", with the reason), never ``ok``.

Private API: each private entry point the agent's device layer uses, and whether it reported
falling back to the public path. The agents probe them when they start (read-only lookups, no
input), so the fallbacks show before the doctor acts; the warnings reach the doctor as the
capture warnings of ``/v1/stats``.

Every ``fail`` names one next step: the command to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.doctor.environment import AndroidFacts, HostFacts, IosFacts, Probe
from bridge.doctor.report import Check, Scalar
from bridge.doctor.rules import ANDROID_PHONE, HOST_AGENT, IPHONE, SIMULATED

MIN_ANDROID_SDK = 26
MIN_IOS = (16, 0)
TUNNEL_IOS = (17, 0)
"""From iOS 17 the developer services are reached through a tunnel (tunneld)."""


def _env(name: str, verdict: str, value: str, **extra: object) -> Check:
    measured = extra.pop("measured", {})
    return Check(
        name=name,
        verdict=verdict,  # type: ignore[arg-type]
        value=value,
        measured=measured,  # type: ignore[arg-type]
        fix=extra.get("fix"),  # type: ignore[arg-type]
        next=extra.get("next"),  # type: ignore[arg-type]
        section="environment",
    )


def _not_measured(name: str, why: str) -> Check:
    return _env(name, "n/a", "not measured", fix=why)


def _version(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    parts = []
    for p in text.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


def host_checks(kind: str, facts: HostFacts) -> list[Check]:
    """This machine, then (a host agent) the runtime that runs it, or (the simulated device)
    why no phone tool matters."""
    out = [
        _env(
            "host",
            "ok",
            f"{facts.system}, Python {facts.python}",
            measured={"system": facts.system, "python": facts.python},
        )
    ]
    if kind == SIMULATED:
        out.append(
            _not_measured(
                "phone-tools",
                "the simulated device needs no adb, Xcode, pymobiledevice3 or USB authorization",
            )
        )
    elif kind == HOST_AGENT:
        tool = facts.runtime_tool or "runtime"
        if facts.runtime:
            out.append(
                _env(
                    "agent-runtime",
                    "ok",
                    f"{tool}: {facts.runtime}",
                    measured={tool: facts.runtime},
                )
            )
        else:
            out.append(
                _not_measured(
                    "agent-runtime",
                    f"{tool} is not on this PATH (the agent may run elsewhere); "
                    "scripts/run-android-agent-host or scripts/run-ios-agent-host starts one here",
                )
            )
    return out


def android_checks(device: str, probe: Probe | None, facts: AndroidFacts | None) -> list[Check]:
    """adb (client and server), USB authorization, the API level and the ABI."""
    if probe is None or facts is None:
        why = "the hub runs on another machine: run the doctor there"
        return [_not_measured(n, why) for n in ("adb", "usb-authorization", "api-level", "abi")]
    out: list[Check] = []
    client = facts.adb_client or "adb not on PATH (adbutils' own is used)"
    if probe.reachable:
        out.append(
            _env(
                "adb",
                "ok",
                f"{client}; server version {probe.version or '?'}",
                measured={"client": facts.adb_client, "server": probe.version},
            )
        )
    else:
        out.append(
            _env(
                "adb",
                "fail",
                f"{client}; no server: {probe.problem}",
                fix="start the adb server (install Android platform-tools if adb is missing)",
                next="adb start-server",
            )
        )
    if device in probe.unauthorized:
        out.append(
            _env(
                "usb-authorization",
                "fail",
                f"{device} is listed as unauthorized: USB debugging was not accepted",
                measured={"state": "unauthorized"},
                fix="unlock the phone and accept 'Allow USB debugging?' (tick 'Always allow')",
                next="adb devices",
            )
        )
    elif device in probe.serials:
        out.append(
            _env("usb-authorization", "ok", f"{device} is authorized", measured={"state": "device"})
        )
    elif probe.reachable:
        out.append(
            _env(
                "usb-authorization",
                "fail",
                f"adb does not list {device}",
                measured={"listed": False},
                fix="plug the phone in, enable USB debugging in Developer options, accept the "
                "prompt; the hub's id must be adb's serial",
                next="adb devices -l",
            )
        )
    else:
        out.append(_not_measured("usb-authorization", "no adb server to ask"))
    if facts.sdk is None:
        why = facts.problem or "the phone is not listed as authorized, so it was not asked"
        out.append(_not_measured("api-level", why))
        out.append(_not_measured("abi", why))
        return out
    release = f" (Android {facts.release})" if facts.release else ""
    if facts.sdk < MIN_ANDROID_SDK:
        out.append(
            _env(
                "api-level",
                "fail",
                f"API {facts.sdk}{release}: the agent needs API {MIN_ANDROID_SDK}+",
                measured={"sdk": facts.sdk},
                fix="use a phone with Android 8.0 or newer",
                next="adb devices -l",
            )
        )
    else:
        out.append(
            _env("api-level", "ok", f"API {facts.sdk}{release}", measured={"sdk": facts.sdk})
        )
    out.append(_env("abi", "ok", facts.abi or "?", measured={"abi": facts.abi}))
    return out


def ios_checks(os_version: str | None, facts: IosFacts | None, remote: bool) -> list[Check]:
    """Xcode/XCTest, the iOS version, pymobiledevice3, Developer Mode, the tunnel."""
    out: list[Check] = []
    if facts is None or remote:
        why = "the hub runs on another machine: run the doctor there"
        return [
            _not_measured(n, why)
            for n in ("xcode", "ios", "pymobiledevice3", "developer-mode", "tunnel")
        ]
    if facts.xcode:
        out.append(_env("xcode", "ok", facts.xcode, measured={"xcode": facts.xcode}))
    else:
        out.append(
            _not_measured(
                "xcode",
                "no xcodebuild here: the runner (XCTest) is built on a Mac "
                "(scripts/build-ios-agent); this machine only runs the hub",
            )
        )
    version = _version(os_version)
    if version is None:
        out.append(_not_measured("ios", "the agent did not report the iOS version"))
    elif version < MIN_IOS:
        out.append(
            _env(
                "ios",
                "fail",
                f"iOS {os_version}: the runner needs iOS 16+",
                measured={"ios": os_version},
                fix="update the iPhone",
                next="mobridge devices",
            )
        )
    else:
        out.append(_env("ios", "ok", f"iOS {os_version}", measured={"ios": os_version}))
    if facts.pymobiledevice3 is None:
        out.append(
            _env(
                "pymobiledevice3",
                "fail",
                "not installed",
                fix="install the ios extra",
                next="pip install 'mobridge[ios]'",
            )
        )
    else:
        out.append(
            _env(
                "pymobiledevice3",
                "ok",
                facts.pymobiledevice3,
                measured={"version": facts.pymobiledevice3},
            )
        )
    if facts.developer_mode is None:
        out.append(
            _not_measured(
                "developer-mode", facts.problem or "lockdown did not say (iOS 15 or older?)"
            )
        )
    elif facts.developer_mode:
        out.append(_env("developer-mode", "ok", "enabled", measured={"enabled": True}))
    else:
        out.append(
            _env(
                "developer-mode",
                "fail",
                "disabled",
                measured={"enabled": False},
                fix="Settings > Privacy & Security > Developer Mode, then restart the phone",
                next="pymobiledevice3 amfi enable-developer-mode",
            )
        )
    if version is not None and version < TUNNEL_IOS:
        out.append(_not_measured("tunnel", f"iOS {os_version} needs no tunnel (iOS 17+ does)"))
    elif facts.tunnel is None:
        out.append(_not_measured("tunnel", "not looked at"))
    elif facts.tunnel:
        out.append(_env("tunnel", "ok", "tunneld answers on 127.0.0.1", measured={"up": True}))
    else:
        out.append(
            _env(
                "tunnel",
                "fail",
                "tunneld does not answer on 127.0.0.1 (iOS 17+ reaches the runner through it)",
                measured={"up": False},
                fix="start tunneld (root) and keep it running",
                next="sudo pymobiledevice3 remote tunneld",
            )
        )
    return out


# ---- private API -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivateApi:
    name: str
    entry: str
    """The private entry point, as the agent's fallback warning names it."""
    fallback: str


IOS_PRIVATE = (
    PrivateApi(
        "snapshot-depth",
        "XCAXClient_iOS.defaultParameters",
        "snapshots are cut after they are taken (a screen too deep for XCTest fails)",
    ),
    PrivateApi(
        "idle-wait",
        "waitForQuiescenceIncludingAnimationsIdle",
        "XCTest's own idle wait, unbounded under animation",
    ),
    PrivateApi(
        "apps-in-front",
        "XCAXClient_iOS.activeApplications",
        "only known bundle ids are checked (another app reads as SpringBoard)",
    ),
    PrivateApi("keyboard-focus", "hasKeyboardFocus", "hasFocus (never true on an iPhone)"),
)


def private_api_checks(platform: str, kind: str, warnings: Sequence[str] | None) -> list[Check]:
    """One check per private entry point the platform's agent uses: ``warn`` when the agent
    reported falling back (its warning), ``ok`` when it did not, ``n/a`` when the warnings
    could not be read or the device has no device layer of its own (simulated)."""
    if kind == SIMULATED:
        return [
            Check(
                name="private-api",
                verdict="n/a",
                value="not measured",
                fix="the simulated device uses no private API",
                section="private-api",
            )
        ]
    if platform.upper() != "IOS":
        return [
            Check(
                name="private-api",
                verdict="ok",
                value="none used: the Android agent's cache clear is setServiceInfo / "
                "clearCache, both public",
                section="private-api",
            )
        ]
    out: list[Check] = []
    for api in IOS_PRIVATE:
        name = f"private-api.{api.name}"
        if warnings is None:
            out.append(
                Check(
                    name=name,
                    verdict="n/a",
                    value="not measured",
                    fix="the hub's statistics (capture warnings) were not readable",
                    section="private-api",
                )
            )
            continue
        said = next((w for w in warnings if api.entry in w), None)
        if said is None:
            out.append(
                Check(
                    name=name,
                    verdict="ok",
                    value=f"{api.entry} present (the agent reported no fallback)",
                    section="private-api",
                )
            )
        else:
            out.append(
                Check(
                    name=name,
                    verdict="warn",
                    value=f"{api.entry} missing: {api.fallback}",
                    measured={"warning": said[:300]},
                    fix="a newer Xcode may have moved it; send this report",
                    section="private-api",
                )
            )
    return out


def private_warning(text: str) -> bool:
    """Whether a capture warning is one ``private_api_checks`` reports (not repeated)."""
    return any(api.entry in text for api in IOS_PRIVATE)


__all__ = [
    "ANDROID_PHONE",
    "IPHONE",
    "Scalar",
    "android_checks",
    "host_checks",
    "ios_checks",
    "private_api_checks",
    "private_warning",
]
