"""Finding the hub on this machine: its URL and the token it generated.

``mobridge serve`` without ``--token`` generates a controller token and prints it; it also
writes it to ``<runtime dir>/mobridge/hub-<port>.token`` (mode 0600 in a 0700 directory;
the runtime dir is ``$XDG_RUNTIME_DIR``, else ``~/.cache``) and removes the file when it
stops. ``connect`` given no token (and no ``$MOBRIDGE_TOKEN``) reads that file for the port
of a loopback URL, so a script or `mobridge devices` in a second terminal works with nothing
to copy. A token given on the command line or in the environment is never written.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_TOKEN_FILE = 4096
DEFAULT_URL = "ws://127.0.0.1:8765/v1"


def hub_url(url: str | None = None) -> str:
    """``url``, else ``$MOBRIDGE_URL``, else the default ``ws://127.0.0.1:8765/v1``."""
    return url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL


def hub_token(url: str) -> str | None:
    """``$MOBRIDGE_TOKEN``, else the token a hub on this machine generated for ``url``."""
    return os.environ.get("MOBRIDGE_TOKEN") or read_token(url)


def token_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path.home() / ".cache"
    return base / "mobridge"


def token_path(port: int) -> Path:
    return token_dir() / f"hub-{port}.token"


def write_token(port: int, token: str) -> Path | None:
    """Write ``token`` for ``port`` readable by this user only; None when it cannot be."""
    path = token_path(port)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(token + "\n")
    except OSError:
        return None
    return path


def remove_token(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def read_token(url: str) -> str | None:
    """The token a local hub left for ``url``'s port, when ``url`` is on loopback."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.hostname not in LOOPBACK_HOSTS or port is None:
        return None
    try:
        text = token_path(port).read_text()[:MAX_TOKEN_FILE].strip()
    except OSError:
        return None
    return text or None
