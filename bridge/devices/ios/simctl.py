"""The iOS Simulator's own tools for the device capabilities the agent cannot reach from inside
XCUITest: ``xcrun simctl privacy`` (permissions), ``simctl location`` (the simulated location)
and ``simctl pbcopy`` / ``pbpaste`` (the pasteboard).

``*_argv`` are pure (checked arguments -> argv); ``Simctl`` runs them as real subprocesses with
a deadline and answers an ``Outcome``-like ``(ok, text or reason)``. A permission name is
mobridge's (``PRIVACY_SERVICES`` maps it to simctl's service; ``notifications`` has none: the
answer says so). The pasteboard text travels on stdin / stdout, never in argv or a log.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio

PRIVACY_SERVICES: dict[str, str] = {
    "camera": "camera",
    "microphone": "microphone",
    "location": "location",
    "photos": "photos",
    "contacts": "contacts",
    "calendar": "calendar",
}
"""mobridge permission -> ``simctl privacy`` service (``notifications`` has none)."""
TIMEOUT_S = 30.0
MAX_PASTEBOARD = 1 << 20


class SimctlRefused(ValueError):
    """Arguments simctl cannot take (an unknown permission, an out-of-range location)."""


def privacy_argv(xcrun: str, udid: str, action: str, app_id: str, permission: str) -> list[str]:
    if action not in ("grant", "revoke", "reset"):
        raise SimctlRefused(f"unknown permission action {action!r}")
    service = PRIVACY_SERVICES.get(permission)
    if service is None:
        raise SimctlRefused(
            f"the Simulator has no privacy switch for {permission!r}; answer the app's alert "
            "instead (mobridge alert DEVICE accept)"
        )
    return [xcrun, "simctl", "privacy", udid, action, service, app_id]


def location_argv(
    xcrun: str, udid: str, latitude: float | None, longitude: float | None
) -> list[str]:
    if latitude is None or longitude is None:
        return [xcrun, "simctl", "location", udid, "clear"]
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise SimctlRefused(f"no such place: {latitude}, {longitude}")
    return [xcrun, "simctl", "location", udid, "set", f"{latitude:.6f},{longitude:.6f}"]


@dataclass(frozen=True)
class Simctl:
    """``xcrun simctl`` for one booted Simulator ``udid``."""

    xcrun: str
    udid: str

    async def privacy(self, action: str, app_id: str, permission: str) -> tuple[bool, str]:
        return await self._run(privacy_argv(self.xcrun, self.udid, action, app_id, permission))

    async def location(self, latitude: float | None, longitude: float | None) -> tuple[bool, str]:
        return await self._run(location_argv(self.xcrun, self.udid, latitude, longitude))

    async def pbcopy(self, text: str) -> tuple[bool, str]:
        return await self._run([self.xcrun, "simctl", "pbcopy", self.udid], text.encode())

    async def pbpaste(self) -> tuple[bool, str]:
        return await self._run([self.xcrun, "simctl", "pbpaste", self.udid])

    async def _run(self, argv: list[str], stdin: bytes | None = None) -> tuple[bool, str]:
        """(True, stdout) or (False, one line: why)."""
        try:
            with anyio.fail_after(TIMEOUT_S):
                done = await anyio.run_process(argv, input=stdin, check=False)
        except TimeoutError:
            return False, f"simctl {argv[2]} did not answer within {TIMEOUT_S:g} s"
        except OSError as exc:
            return False, f"xcrun could not run: {exc}"
        out = done.stdout[:MAX_PASTEBOARD].decode("utf-8", "replace")
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return False, f"simctl {argv[2]} failed ({done.returncode}): {err[-1] if err else ''}"
        return True, out
