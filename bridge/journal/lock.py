"""One hub per journal file: an exclusive ``flock`` on ``<journal>.lock``, held while the
journal is open, and the naming of a hub's default journal by what makes the hub itself.

Invariants:
- ``JournalLock.acquire`` either returns the held lock or raises ``JournalBusy`` naming the
  other holder (its pid, hub name and URL, as that hub wrote them into the lock file); it
  never waits. The kernel drops the lock when the holder exits however it exits (kill -9
  included), so a stale lock file never blocks a restart;
- a journal's histories, idempotency keys and screens are therefore one hub's own: two hubs
  cannot interleave frames in one file, replay each other's keys or rebuild each other's
  screens;
- ``identity`` is a file-name-safe key of at most ``MAX_IDENTITY`` characters: the hub's
  ``--name`` (else its port) and the device ids it is configured to serve, so a hub started
  again the same way finds its own history, and a different hub starts with an empty one.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MAX_IDENTITY = 96
MAX_HOLDER_BYTES = 4096
_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]+")


class JournalBusy(Exception):
    """Another live hub holds this journal; ``str(exc)`` is one line saying who and what to
    do instead."""


def identity(name: str | None, port: int, devices: Iterable[str]) -> str:
    """``name-NAME+dev1+dev2`` or ``port-PORT+dev1+...`` (sorted, unsafe characters as ``_``),
    shortened with a digest of the whole when longer than ``MAX_IDENTITY``."""
    head = f"name-{name}" if name else f"port-{port}"
    whole = "+".join([head, *sorted(set(devices))])
    safe = _UNSAFE.sub("_", whole).strip("._") or "hub"
    if len(safe) <= MAX_IDENTITY:
        return safe
    digest = hashlib.sha256(whole.encode()).hexdigest()[:12]
    return f"{safe[: MAX_IDENTITY - 13]}-{digest}"


def default_journal(state_dir: Path, key: str) -> Path:
    """The default journal of the hub whose ``identity`` is ``key``."""
    return state_dir / "mobridge" / "journals" / f"{key}.sqlite3"


@dataclass
class JournalLock:
    path: Path
    fd: int

    @classmethod
    def acquire(cls, journal: Path, holder: dict[str, object]) -> JournalLock:
        """Lock ``journal`` for this process (``holder``: what to tell another hub that tries
        it: name, url). Raises ``JournalBusy``; other ``OSError``s (an unwritable directory)
        propagate for the caller to treat as any journal failure."""
        path = journal.with_name(journal.name + ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            other = _read_holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise JournalBusy(
                f"the journal {journal} is in use by another hub ({other}); two hubs never "
                "share one: give this one its own (--journal PATH, or --name NAME for its "
                "own default), or run it with --no-journal"
            ) from None
        lock = cls(path, fd)
        lock.describe({"pid": os.getpid(), **holder})
        return lock

    def describe(self, holder: dict[str, object]) -> None:
        """Write who holds the lock (read by a hub that is refused)."""
        data = json.dumps(holder).encode()[:MAX_HOLDER_BYTES]
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)

    def release(self) -> None:
        if self.fd < 0:
            return
        fd, self.fd = self.fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _read_holder(fd: int) -> str:
    try:
        raw = os.pread(fd, MAX_HOLDER_BYTES, 0)
        holder = json.loads(raw.decode())
    except (OSError, ValueError):
        return "its pid unknown"
    if not isinstance(holder, dict):
        return "its pid unknown"
    parts = [f"pid {holder.get('pid', '?')}"]
    parts.extend(
        f"{key} {holder[key]}"
        for key in ("hub", "url")
        if isinstance(holder.get(key), str) and holder[key]
    )
    return ", ".join(parts)
