"""App packages for ``app.install``: the operator's install directory, never a client's path.

Rules (product brief, "installing an app is privileged"):
- installing is off unless the hub was started with an install directory (``--install-dir``);
- a client names a package by its bare file name (``PACKAGE_FILE_PATTERN``: no directory, no
  ``..``); the hub resolves it inside the directory, refuses anything that is not a regular
  file there (a symlink pointing elsewhere included) or larger than ``MAX_PACKAGE_BYTES``,
  and checks the sha256 the client gave, if any. Hashing runs in a worker thread;
- the device's own layer copies the file to the device (``Stager``: the simulated device
  reads it where it is; an agent attached only by URL has none, and installing there is
  refused ACTION_UNSUPPORTED); the agent is then told the staged path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from bridge.hub.errors import BadRequest, refusal
from bridge.wire.enums import ErrorCode, ProtocolErrorCode

MAX_PACKAGE_BYTES = 1 << 30
"""Largest package the hub installs (1 GiB)."""
Stager = Callable[[Path], Awaitable[str]]
"""Copies a package to the device and returns its path there (the device layer's job)."""


@dataclass(frozen=True)
class Package:
    path: Path
    size: int
    sha256: str


def _resolve(directory: Path, name: str, expected: str | None) -> Package:
    base = directory.resolve()
    candidate = (base / name).resolve()
    if candidate.parent != base or not candidate.is_file():
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"no package {name!r} in the hub's install directory",
        )
    size = candidate.stat().st_size
    if size > MAX_PACKAGE_BYTES:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"package {name!r} has {size} bytes, over the cap of {MAX_PACKAGE_BYTES}",
        )
    digest = hashlib.sha256()
    with candidate.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    got = digest.hexdigest()
    if expected is not None and expected != got:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"package {name!r} does not have the sha256 given (it has {got})",
        )
    return Package(candidate, size, got)


async def find_package(directory: Path | None, name: str, expected: str | None) -> Package:
    """The package ``name`` of the install directory, checked (module rules)."""
    if directory is None:
        raise refusal(
            ErrorCode.POLICY_BLOCKED,
            "installing apps is disabled on this hub",
            ("ask the hub's operator to start it with --install-dir DIR holding the package",),
        )
    return await anyio.to_thread.run_sync(_resolve, directory, name, expected)
