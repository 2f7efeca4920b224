"""Install the agent APK on one device when it is missing or differs.

``installed_agent`` asks the package manager what is there (``pm list packages``,
``dumpsys package``, ``pm path`` + ``sha256sum`` of the installed ``base.apk``);
``ensure_agent`` installs when the package is missing, its versionCode/versionName differ
from the APK's, or its bytes differ (a rebuild with the same version).

Invariants:
- the APK bytes pushed are the bytes that were hashed (``AgentApk.data``), and the pushed
  file's sha256 is checked on the device before ``pm install``: a mismatch refuses the
  install (``InstallRefused``) and deletes the pushed file;
- only ``AGENT_PACKAGE`` is ever uninstalled, and only when ``pm install`` refuses an update
  (another signing key, or a version downgrade);
- the temporary file under ``/data/local/tmp`` is removed whatever happens.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import anyio

from bridge.devices.android.adb import ADB_ERRORS, AdbDeviceLike, blocking, shell
from bridge.devices.android.apk import AGENT_PACKAGE, AgentApk
from bridge.devices.android.shell_text import shell_command

INSTALL_TIMEOUT_S = 180.0
_REPLACE_REFUSALS = (
    "INSTALL_FAILED_UPDATE_INCOMPATIBLE",
    "INSTALL_FAILED_VERSION_DOWNGRADE",
    "INSTALL_FAILED_PERMISSION_MODEL_DOWNGRADE",
)
_SHA = re.compile(r"\b([0-9a-f]{64})\b")


class InstallFailed(Exception):
    pass


class InstallRefused(InstallFailed):
    """The bytes on the device are not the checked APK (sha256 differs)."""


@dataclass(frozen=True)
class InstalledAgent:
    version_code: int | None
    version_name: str | None
    sha256: str | None
    """Of the installed base.apk; None when the device cannot tell (no sha256sum)."""


def parse_dumpsys_version(text: str) -> tuple[int | None, str | None]:
    code = re.search(r"versionCode=(\d+)", text)
    name = re.search(r"versionName=(\S+)", text)
    version_name = name.group(1) if name else None
    return (int(code.group(1)) if code else None, None if version_name == "null" else version_name)


def parse_sha256(text: str) -> str | None:
    found = _SHA.search(text.lower())
    return found.group(1) if found else None


async def installed_agent(device: AdbDeviceLike) -> InstalledAgent | None:
    listed = await shell(device, shell_command(["pm", "list", "packages", AGENT_PACKAGE]))
    if f"package:{AGENT_PACKAGE}" not in {line.strip() for line in listed.splitlines()}:
        return None
    dump = await shell(device, shell_command(["dumpsys", "package", AGENT_PACKAGE]))
    code, name = parse_dumpsys_version(dump)
    paths = await shell(device, shell_command(["pm", "path", AGENT_PACKAGE]))
    base = next(
        (line.strip()[8:] for line in paths.splitlines() if line.strip().startswith("package:")),
        None,
    )
    digest = None
    if base:
        digest = parse_sha256(await shell(device, shell_command(["sha256sum", base])))
    return InstalledAgent(code, name, digest)


def is_current(installed: InstalledAgent | None, apk: AgentApk) -> bool:
    return (
        installed is not None
        and installed.version_code == apk.version_code
        and installed.version_name == apk.version_name
        and (installed.sha256 is None or installed.sha256 == apk.sha256)
    )


async def ensure_agent(device: AdbDeviceLike, apk: AgentApk) -> str:
    """Make the device run ``apk``'s agent. Returns ``"current"``, ``"installed"`` or
    ``"updated"``. Raises InstallFailed / InstallRefused, or an adb error."""
    before = await installed_agent(device)
    if is_current(before, apk):
        return "current"
    remote = f"/data/local/tmp/mobridge-agent-{secrets.token_hex(6)}.apk"
    try:
        await blocking(device.sync.push, apk.data, remote, 0o644)
        pushed = parse_sha256(await shell(device, shell_command(["sha256sum", remote])))
        if pushed != apk.sha256:
            raise InstallRefused(
                f"the APK pushed to {remote} has sha256 {pushed or 'unknown'}, "
                f"expected {apk.sha256}; not installing it"
            )
        out = await _pm_install(device, remote)
        if "Success" not in out and any(r in out for r in _REPLACE_REFUSALS):
            await shell(device, shell_command(["pm", "uninstall", AGENT_PACKAGE]), 60.0)
            out = await _pm_install(device, remote)
        if "Success" not in out:
            raise InstallFailed(f"pm install failed: {out.strip()[:500]}")
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(15):
            try:
                await shell(device, shell_command(["rm", "-f", remote]))
            except ADB_ERRORS:
                pass  # the device went away; the error that matters is already raised
    after = await installed_agent(device)
    if not is_current(after, apk):
        raise InstallFailed(
            f"after installing, the device reports {after} instead of {apk.version}"
        )
    return "installed" if before is None else "updated"


async def _pm_install(device: AdbDeviceLike, remote: str) -> str:
    return await shell(
        device, shell_command(["pm", "install", "-r", "-t", remote]), INSTALL_TIMEOUT_S
    )
