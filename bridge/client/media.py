"""``DeviceMediaCalls``: a device's media through the hub (mixed into ``Device``; the blocking
twin ``SyncDeviceMediaCalls`` into ``SyncDevice``).

- ``install_file(path)`` streams a local package to the hub in chunks (``app.upload``, its
  sha256 computed here and checked by the hub) and installs it (``app.install`` naming the
  upload: an action that needs the user's ``confirm`` like every install). ``sha256``, when
  given, is the digest the file must have: a file that differs is refused before a byte goes.
- ``logs(app=, level=, grep=)`` is an async context manager yielding ``LogsEvent``s as the
  device writes lines (``grep`` is an RE2 pattern); ``event.gap`` counts lines the hub
  dropped because this reader was slower than the device.
- ``record(seconds)`` records the screen for that long and returns the MP4's bytes and its
  description; ``start_recording`` / ``stop_recording`` / ``read_recording`` are the parts.
- ``crashes(app)`` lists the device's crash reports.

``anyio`` is imported where it is used: ``Device`` mixes this in, and a one-shot CLI command
(no event loop) must not pay for it.

Bad input raises ``ValueError`` with one line saying what to do (a missing file, a file over
the cap, a wrong digest, seconds outside 1 to 600).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from bridge.wire.action import ActionResult
from bridge.wire.device_control import AppInstall
from bridge.wire.device_media import (
    MAX_RECORD_SECONDS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_CHUNK,
    AppUpload,
    AppUploadResult,
    CrashesList,
    CrashesListResult,
    LogLevel,
    LogsEvent,
    LogsSubscribe,
    RecordingResult,
    RecordRead,
    RecordReadResult,
    RecordStart,
    RecordStop,
)
from bridge.wire.request_parts import Confirm

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from bridge.client.hub_calls import HubCalls

INSTALL_BUDGET_S = 130.0
STOP_BUDGET_S = 60.0
"""``record.stop`` waits for the recorder to finish the file (encoding the last frames)."""


def file_digest(path: Path) -> tuple[int, str]:
    """(size, sha256) of a local package, checked against the caps (``ValueError``)."""
    if not path.is_file():
        raise ValueError(f"{path}: no such file; give the path of the app package to install")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{path}: the file is empty; give an app package")
    if size > MAX_UPLOAD_BYTES:
        raise ValueError(
            f"{path}: {size} bytes, over the cap of {MAX_UPLOAD_BYTES}; install it with the "
            "platform's own tools"
        )
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return size, digest.hexdigest()


def upload_name(name: str) -> str:
    """``name`` as ``UPLOAD_NAME_PATTERN`` allows it (other characters become ``_``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._+-]", "_", name)[:128]
    return cleaned if cleaned[:1].isalnum() else f"p{cleaned}"[:128]


def check_seconds(seconds: int | None) -> None:
    if seconds is not None and not 1 <= seconds <= MAX_RECORD_SECONDS:
        raise ValueError(
            f"--seconds {seconds}: record 1 to {MAX_RECORD_SECONDS} seconds (or leave it out "
            "and stop the recording yourself)"
        )


class DeviceMediaCalls:
    _conn: HubCalls
    id: str

    # ---- apps ------------------------------------------------------------------------------

    async def upload_file(self, path: Path | str, *, sha256: str | None = None) -> str:
        """Stream ``path`` to the hub; the upload's id (module docstring)."""
        import anyio

        file = Path(path)
        size, digest = await anyio.to_thread.run_sync(file_digest, file)
        if sha256 is not None and sha256.lower() != digest:
            raise ValueError(
                f"{file}: its sha256 is {digest}, not the {sha256} given; check the file"
            )
        wanted = sha256.lower() if sha256 is not None else digest
        upload: str | None = None
        offset = 0
        f = await anyio.open_file(file, "rb")
        async with f:
            while offset < size:
                data = await f.read(MAX_UPLOAD_CHUNK)
                if not data:
                    raise ValueError(f"{file}: the file shrank while it was sent; send it again")
                message = AppUpload(
                    id=self._conn.next_id(),
                    device=self.id,
                    size=size,
                    sha256=wanted,
                    offset=offset,
                    data=data,
                    name=upload_name(file.name),
                    upload=upload,
                )
                got = await self._conn.call(message, AppUploadResult)
                upload, offset = got.upload, got.received
        assert upload is not None
        return upload

    async def install_file(
        self, path: Path | str, *, sha256: str | None = None, confirm: Confirm | None = None
    ) -> ActionResult:
        """Stream ``path`` to the hub and install it (an action; needs ``confirm``)."""
        upload = await self.upload_file(path, sha256=sha256)
        return await self.install_upload(upload, confirm=confirm)

    async def install_upload(self, upload: str, *, confirm: Confirm | None = None) -> ActionResult:
        """Install a complete upload of this session (after a confirmation, send it again)."""
        message = AppInstall(
            id=self._conn.next_id(), device=self.id, upload=upload, confirm=confirm
        )
        return await self._conn.call(
            message, ActionResult, INSTALL_BUDGET_S + self._conn.request_timeout
        )

    async def crashes(self, app: str | None = None) -> CrashesListResult:
        return await self._conn.call(
            CrashesList(id=self._conn.next_id(), device=self.id, app=app), CrashesListResult
        )

    # ---- logs ------------------------------------------------------------------------------

    @asynccontextmanager
    async def logs(
        self, *, app: str | None = None, level: LogLevel | None = None, grep: str | None = None
    ) -> AsyncIterator[AsyncIterator[LogsEvent]]:
        """Log events from now on, until the block ends (module docstring)."""
        import anyio

        message = LogsSubscribe(
            id=self._conn.next_id(), device=self.id, app=app, level=level, grep=grep
        )
        result, channel = await self._conn.subscribe_logs(message)

        async def events() -> AsyncIterator[LogsEvent]:
            async for event in channel.receive:
                yield event

        try:
            yield events()
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    await self._conn.unsubscribe_logs(result.subscription)
                except Exception:  # the connection may be gone: the hub ends it then
                    pass

    # ---- recording -------------------------------------------------------------------------

    async def start_recording(
        self, *, seconds: int | None = None, fps: int = 10, max_bytes: int | None = None
    ) -> RecordingResult:
        check_seconds(seconds)
        message = RecordStart(
            id=self._conn.next_id(), device=self.id, seconds=seconds, fps=fps, max_bytes=max_bytes
        )
        return await self._conn.call(message, RecordingResult)

    async def stop_recording(self, recording: str) -> RecordingResult:
        return await self._conn.call(
            RecordStop(id=self._conn.next_id(), recording=recording),
            RecordingResult,
            STOP_BUDGET_S + self._conn.request_timeout,
        )

    async def read_recording(self, recording: str) -> bytes:
        """The whole MP4 of a stopped recording (the hub forgets it once read)."""
        parts: list[bytes] = []
        offset = 0
        while True:
            got = await self._conn.call(
                RecordRead(id=self._conn.next_id(), recording=recording, offset=offset),
                RecordReadResult,
            )
            parts.append(got.data)
            offset += len(got.data)
            if got.eof or not got.data:
                return b"".join(parts)

    async def record(
        self, seconds: int, *, fps: int = 10, max_bytes: int | None = None
    ) -> tuple[RecordingResult, bytes]:
        """Record ``seconds`` of the screen: (what the hub made, the MP4's bytes)."""
        import anyio

        check_seconds(seconds)
        started = await self.start_recording(seconds=seconds, fps=fps, max_bytes=max_bytes)
        await anyio.sleep(seconds)
        stopped = await self.stop_recording(started.recording)
        return stopped, await self.read_recording(started.recording)


class SyncDeviceMediaCalls:
    """The blocking twin of ``DeviceMediaCalls`` (needs ``_portal`` and ``device``)."""

    _portal: BlockingPortal
    device: DeviceMediaCalls

    def install_file(
        self, path: Path | str, *, sha256: str | None = None, confirm: Confirm | None = None
    ) -> ActionResult:
        def run() -> ActionResult:
            return self._portal.call(
                lambda: self.device.install_file(path, sha256=sha256, confirm=confirm)
            )

        return run()

    def upload_file(self, path: Path | str, *, sha256: str | None = None) -> str:
        return self._portal.call(lambda: self.device.upload_file(path, sha256=sha256))

    def install_upload(self, upload: str, *, confirm: Confirm | None = None) -> ActionResult:
        return self._portal.call(lambda: self.device.install_upload(upload, confirm=confirm))

    def crashes(self, app: str | None = None) -> CrashesListResult:
        return self._portal.call(self.device.crashes, app)

    def record(
        self, seconds: int, *, fps: int = 10, max_bytes: int | None = None
    ) -> tuple[RecordingResult, bytes]:
        return self._portal.call(lambda: self.device.record(seconds, fps=fps, max_bytes=max_bytes))

    def start_recording(
        self, *, seconds: int | None = None, fps: int = 10, max_bytes: int | None = None
    ) -> RecordingResult:
        return self._portal.call(
            lambda: self.device.start_recording(seconds=seconds, fps=fps, max_bytes=max_bytes)
        )

    def stop_recording(self, recording: str) -> RecordingResult:
        return self._portal.call(self.device.stop_recording, recording)

    def read_recording(self, recording: str) -> bytes:
        return self._portal.call(self.device.read_recording, recording)

    def log_lines(
        self,
        seconds: float,
        *,
        app: str | None = None,
        level: LogLevel | None = None,
        grep: str | None = None,
    ) -> tuple[list[LogsEvent], int]:
        """The log events written during the next ``seconds`` (and the lines lost to gaps)."""

        async def collect() -> tuple[list[LogsEvent], int]:
            import anyio

            got: list[LogsEvent] = []
            async with self.device.logs(app=app, level=level, grep=grep) as events:
                with anyio.move_on_after(seconds):
                    # kept as they come (a list comprehension would lose all at the cancel)
                    async for event in events:
                        got.append(event)  # noqa: PERF401
            return got, sum(e.gap for e in got)

        return self._portal.call(collect)
