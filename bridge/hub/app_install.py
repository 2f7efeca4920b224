"""App packages a client streams to the hub in chunks (``app.upload``), for ``app.install``.

Rules:
- an upload belongs to the session that opened it; only that session may add to it or
  install it, and it is deleted when the session closes, when it is installed, or when its
  digest turns out wrong;
- chunks arrive in order: a chunk's ``offset`` must equal the bytes held, and no chunk may go
  past the ``size`` named by the first one (which is at most ``MAX_UPLOAD_BYTES``);
- the sha256 is computed as the chunks arrive and checked when the last byte lands; a
  mismatch is refused INVALID_PARAMS and the bytes are deleted at once;
- bounds: ``MAX_UPLOADS_PER_SESSION`` uploads per session (a new one pushes out the oldest
  complete one; unfinished ones are never pushed out), unfinished uploads counted in the
  hub's ledger (``resources.UPLOADS``: per session and per hub), and ``MAX_HELD_BYTES`` over
  the whole hub, so no client can fill the hub's disk. An unfinished upload reserves only
  what it holds plus the next ``AHEAD_BYTES`` of its declared size (``reserved``), so
  declaring 2 x 1 GiB and sending one byte holds 128 MiB of the cap, not all of it; a chunk
  whose reservation would pass the cap is refused RATE_LIMITED (send it again later); one
  session's reservations may take at most ``SESSION_SHARE`` of the cap;
- an upload nobody touched for ``IDLE_S`` (unfinished) or ``COMPLETE_IDLE_S`` (complete,
  waiting for its install) is discarded; the store looks for them whenever an upload is
  opened or a chunk arrives, so the hoarder's idle reservation is gone by the time another
  client needs the room;
- files live in one private temporary directory per hub process, named with its pid
  (``mobridge-uploads-<pid>-...``); a new store deletes the directories of processes that
  are gone (a hub killed with -9 leaves its directory behind);
- writing runs in a worker thread (a chunk is at most 512 KiB).

The caller (``HubService``) routes ``app.upload`` here, calls ``package`` when an
``app.install`` names an upload, ``done`` after the install and ``drop_session`` on close.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from bridge.core.resource_ledger import ResourceLedger
from bridge.hub.errors import BadRequest
from bridge.hub.packages import Package
from bridge.hub.resources import UPLOADS, new_ledger
from bridge.wire.device_media import AppUpload, AppUploadResult
from bridge.wire.enums import ProtocolErrorCode

MAX_UPLOADS_PER_SESSION = 4
MAX_HELD_BYTES = 2 << 30
"""Reservations of all open and complete uploads together (2 GiB)."""
AHEAD_BYTES = 64 << 20
"""What an unfinished upload reserves beyond the bytes it holds."""
SESSION_SHARE = 0.5
"""The part of ``MAX_HELD_BYTES`` one session's reservations may take."""
IDLE_S = 60.0
COMPLETE_IDLE_S = 600.0
DIR_PREFIX = "mobridge-uploads-"


def _bad(message: str) -> BadRequest:
    return BadRequest(ProtocolErrorCode.INVALID_PARAMS, message)


@dataclass
class Upload:
    id: str
    session: str
    device: str
    name: str
    size: int
    sha256: str
    path: Path
    received: int = 0
    digest: Any = field(default_factory=hashlib.sha256)
    complete: bool = False
    touched: float = 0.0

    @property
    def reserved(self) -> int:
        """Bytes of the hub's cap this upload holds (module rules)."""
        if self.complete:
            return self.received
        return self.received + min(self.size - self.received, AHEAD_BYTES)


class UploadStore:
    """The hub's streamed packages (module rules)."""

    def __init__(
        self,
        max_held_bytes: int = MAX_HELD_BYTES,
        *,
        ledger: ResourceLedger | None = None,
        clock: Callable[[], float] = time.monotonic,
        tmp: Path | None = None,
    ) -> None:
        self.max_held_bytes = max_held_bytes
        self._uploads: dict[str, Upload] = {}
        self._dir: Path | None = None
        self._ids = itertools.count(1)
        self.ledger = ledger if ledger is not None else new_ledger()
        self.clock = clock
        self.tmp = tmp if tmp is not None else Path(tempfile.gettempdir())
        self.expired = 0
        self.refused = 0
        self.swept = sweep_stale(self.tmp)
        """Directories of dead hub processes deleted at start."""

    def held_bytes(self) -> int:
        return sum(u.reserved for u in self._uploads.values())

    def statistics(self) -> dict[str, int]:
        return {
            "uploads": len(self._uploads),
            "unfinished": sum(1 for u in self._uploads.values() if not u.complete),
            "reserved_bytes": self.held_bytes(),
            "expired": self.expired,
            "refused": self.refused,
            "swept_directories": self.swept,
        }

    def _directory(self) -> Path:
        if self._dir is None or not self._dir.is_dir():
            self._dir = Path(tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-", dir=self.tmp))
        return self._dir

    def _expire(self) -> None:
        now = self.clock()
        for upload in list(self._uploads.values()):
            idle = COMPLETE_IDLE_S if upload.complete else IDLE_S
            if now - upload.touched >= idle:
                self.expired += 1
                self._delete(upload)

    def _refuse(self, message: str) -> BadRequest:
        self.refused += 1
        return BadRequest(ProtocolErrorCode.RATE_LIMITED, message)

    def _room(self, session_id: str, more: int) -> None:
        """Raise RATE_LIMITED when ``more`` reserved bytes for ``session_id`` would pass the
        hub's cap or the session's share of it."""
        held = self.held_bytes()
        if held + more > self.max_held_bytes:
            raise self._refuse(
                f"the hub holds {held} bytes of uploads; {more} more would pass its cap of "
                f"{self.max_held_bytes}: retry when other installs are done"
            )
        mine = sum(u.reserved for u in self._uploads.values() if u.session == session_id)
        share = int(self.max_held_bytes * SESSION_SHARE)
        if mine + more > share:
            raise self._refuse(
                f"this session's uploads hold {mine} bytes; {more} more would pass its share "
                f"of {share}: finish or install one first"
            )

    async def chunk(self, session_id: str, msg: AppUpload) -> AppUploadResult:
        """Take one chunk (module rules); the result says how much is held."""
        self._expire()
        upload = self._open(session_id, msg) if msg.upload is None else self._get(session_id, msg)
        upload.touched = self.clock()
        if msg.offset != upload.received:
            raise _bad(
                f"upload {upload.id}: chunk at offset {msg.offset}, but {upload.received} bytes "
                "are held; send the chunk that starts there"
            )
        if upload.received + len(msg.data) > upload.size:
            self._delete(upload)
            raise _bad(
                f"upload {upload.id}: more bytes than the size given ({upload.size}); the "
                "upload is discarded, send the file again"
            )
        if not msg.data and upload.received < upload.size:
            raise _bad(f"upload {upload.id}: an empty chunk; send the next bytes")
        after = upload.received + len(msg.data)
        grows = min(upload.size, after + AHEAD_BYTES) - min(
            upload.size, upload.received + AHEAD_BYTES
        )
        if grows > 0:
            self._room(session_id, grows)
        await anyio.to_thread.run_sync(_append, upload.path, msg.data)
        upload.digest.update(msg.data)
        upload.received += len(msg.data)
        if upload.received == upload.size:
            self.ledger.give(UPLOADS, session_id)
            got = upload.digest.hexdigest()
            if got != upload.sha256:
                self._delete(upload)
                raise _bad(
                    f"{upload.name}: its sha256 is {got}, not the {upload.sha256} given; the "
                    "upload is discarded (check the file and its digest, then send it again)"
                )
            upload.complete = True
        return AppUploadResult(upload=upload.id, received=upload.received, complete=upload.complete)

    def package(self, session_id: str, upload_id: str) -> tuple[Package, str]:
        """The complete upload ``upload_id`` of this session as a package, and its file name;
        a missing or unfinished one is INVALID_PARAMS."""
        upload = self._uploads.get(upload_id)
        if upload is None or upload.session != session_id:
            raise _bad(f"no upload {upload_id} of this session; stream the file with app.upload")
        if not upload.complete:
            raise _bad(
                f"upload {upload_id} holds {upload.received} of {upload.size} bytes; "
                "send the rest first"
            )
        upload.touched = self.clock()
        return Package(upload.path, upload.size, upload.sha256), upload.name

    def describe(self, upload_id: str) -> str:
        """How an install of this upload is named in events and objections: the file's name
        and digest, so a confirmation given for one upload holds for the same file sent
        again (the upload id differs, the content does not)."""
        upload = self._uploads.get(upload_id)
        if upload is None:
            return upload_id
        return f"{upload.name} sha256:{upload.sha256[:16]}"

    def done(self, upload_id: str) -> None:
        """Forget an upload (after its install, whatever the outcome)."""
        upload = self._uploads.get(upload_id)
        if upload is not None:
            self._delete(upload)

    def drop_session(self, session_id: str) -> None:
        for upload in [u for u in self._uploads.values() if u.session == session_id]:
            self._delete(upload)

    def close(self) -> None:
        self._uploads.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _open(self, session_id: str, msg: AppUpload) -> Upload:
        if msg.offset != 0:
            raise _bad("the first chunk of an upload starts at offset 0 (and names no upload)")
        mine = [u for u in self._uploads.values() if u.session == session_id]
        if len(mine) >= MAX_UPLOADS_PER_SESSION and any(u.complete for u in mine):
            # a complete upload left behind (say, by a confirmation answered with a new
            # upload) makes room: the oldest goes
            self._delete(next(u for u in mine if u.complete))
            mine = [u for u in self._uploads.values() if u.session == session_id]
        if len(mine) >= MAX_UPLOADS_PER_SESSION:
            raise _bad(
                f"this session already has {len(mine)} uploads open (at most "
                f"{MAX_UPLOADS_PER_SESSION}); install or finish one first"
            )
        self._room(session_id, min(msg.size, AHEAD_BYTES))
        reason = self.ledger.take(UPLOADS, session_id)
        if reason is not None:
            raise self._refuse(reason)
        upload_id = f"u_{next(self._ids)}{secrets.token_hex(4)}"
        suffix = "".join(Path(msg.name).suffixes[-1:])[:16]
        path = self._directory() / f"{upload_id}{suffix}"
        path.touch(mode=0o600)
        upload = Upload(upload_id, session_id, msg.device, msg.name, msg.size, msg.sha256, path)
        self._uploads[upload_id] = upload
        return upload

    def _get(self, session_id: str, msg: AppUpload) -> Upload:
        assert msg.upload is not None
        upload = self._uploads.get(msg.upload)
        if upload is None or upload.session != session_id:
            raise _bad(f"no upload {msg.upload} of this session; start again at offset 0")
        if upload.complete:
            raise _bad(f"upload {upload.id} is complete; install it")
        if (upload.size, upload.sha256, upload.device) != (msg.size, msg.sha256, msg.device):
            raise _bad(f"upload {upload.id}: size, sha256 and device must not change")
        return upload

    def _delete(self, upload: Upload) -> None:
        if self._uploads.pop(upload.id, None) is not None and not upload.complete:
            self.ledger.give(UPLOADS, upload.session)
        with contextlib.suppress(OSError):
            os.unlink(upload.path)


def sweep_stale(tmp: Path) -> int:
    """Delete the upload directories in ``tmp`` that belong to hub processes no longer
    running (this user's only); returns how many went."""
    gone = 0
    try:
        entries = list(os.scandir(tmp))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(DIR_PREFIX):
            continue
        pid_text = entry.name[len(DIR_PREFIX) :].split("-", 1)[0]
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        if pid_text.isdigit() and _alive(int(pid_text)):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        gone += 1
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)
