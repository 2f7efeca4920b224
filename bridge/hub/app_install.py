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
  complete one; unfinished ones are never pushed out) and ``MAX_HELD_BYTES`` of
  declared sizes over the whole hub (a new upload that would pass it is refused), so no
  client can fill the hub's disk; files live in one private temporary directory;
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from bridge.hub.errors import BadRequest
from bridge.hub.packages import Package
from bridge.wire.device_media import AppUpload, AppUploadResult
from bridge.wire.enums import ProtocolErrorCode

MAX_UPLOADS_PER_SESSION = 4
MAX_HELD_BYTES = 2 << 30
"""Declared sizes of all open and complete uploads together (2 GiB)."""


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


class UploadStore:
    """The hub's streamed packages (module rules)."""

    def __init__(self, max_held_bytes: int = MAX_HELD_BYTES) -> None:
        self.max_held_bytes = max_held_bytes
        self._uploads: dict[str, Upload] = {}
        self._dir: Path | None = None
        self._ids = itertools.count(1)

    def held_bytes(self) -> int:
        return sum(u.size for u in self._uploads.values())

    def _directory(self) -> Path:
        if self._dir is None or not self._dir.is_dir():
            self._dir = Path(tempfile.mkdtemp(prefix="mobridge-uploads-"))
        return self._dir

    async def chunk(self, session_id: str, msg: AppUpload) -> AppUploadResult:
        """Take one chunk (module rules); the result says how much is held."""
        upload = self._open(session_id, msg) if msg.upload is None else self._get(session_id, msg)
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
        await anyio.to_thread.run_sync(_append, upload.path, msg.data)
        upload.digest.update(msg.data)
        upload.received += len(msg.data)
        if upload.received == upload.size:
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
        if self.held_bytes() + msg.size > self.max_held_bytes:
            raise _bad(
                f"the hub holds {self.held_bytes()} bytes of uploads; {msg.size} more would pass "
                f"its cap of {self.max_held_bytes}: retry when other installs are done"
            )
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
        self._uploads.pop(upload.id, None)
        with contextlib.suppress(OSError):
            os.unlink(upload.path)


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)
