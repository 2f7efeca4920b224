"""Copying an app package onto an Android device for ``app.install`` (the hub's ``Stager``).

Rules: the hub hands over a file of its install directory (already checked and hashed); it is
pushed to ``/data/local/tmp/mobridge-pkg-<random><suffix>`` — a path the shell user (``pm``)
can read and the agents accept (they install only from ``/data/local/tmp/``) — and the agent
deletes it after installing. The name is the hub's, never a client's.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from bridge.devices.android.adb import AdbDeviceLike, blocking

STAGED_DIR = "/data/local/tmp/"
Stager = Callable[[Path], Awaitable[str]]


def staged_name(path: Path) -> str:
    suffix = path.suffix if path.suffix in (".apk", ".apks", ".json") else ".apk"
    return f"{STAGED_DIR}mobridge-pkg-{secrets.token_hex(6)}{suffix}"


def stager_for(device: AdbDeviceLike) -> Stager:
    """A ``Stager`` that pushes a package to ``device`` over adb."""

    async def stage(path: Path) -> str:
        data = await anyio.to_thread.run_sync(path.read_bytes)
        remote = staged_name(path)
        await blocking(device.sync.push, data, remote, 0o644)
        return remote

    return stage
