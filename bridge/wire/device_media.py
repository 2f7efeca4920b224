"""Client requests for a device's media: streamed app packages, device logs, screen recording.

- ``app.upload``: one chunk of an app package streamed from the client. The first chunk
  (``offset`` 0, no ``upload``) opens an upload and names its total ``size`` and ``sha256``;
  the hub answers with the upload's id, which every later chunk names. Chunks arrive in order
  (``offset`` equals what the hub holds). When the last byte arrives the hub checks the
  digest: a mismatch deletes the upload and is refused INVALID_PARAMS. A complete upload is
  installed with ``app.install`` naming ``upload`` (an action: lease, approval, audit).
- ``logs.subscribe``: the device's log lines from now on, filtered by ``app``, ``level`` (that
  level and above) and ``grep`` (an RE2 pattern, as every caller-supplied regex); they come as
  ``logs`` events on the subscription. A reader slower than the lines loses the oldest ones:
  the next event's ``gap`` counts them. ``logs.unsubscribe`` ends it (so does disconnecting).
  ``crashes.list`` lists the device's crash reports (newest first).
- ``record.start``: record the screen into an MP4 (H.264) held by the hub, for ``seconds``
  (it stops by itself then) or until ``record.stop``; ``record.read`` fetches the file in
  chunks once it is stopped. The hub caps the file's size (``maxBytes``, at most
  ``MAX_RECORDING_BYTES``); recording stops when the cap is reached (``truncated``).

Caps enforced by decoding (a value outside them is INVALID_PARAMS): chunks of at most
``MAX_UPLOAD_CHUNK`` bytes, packages of at most ``MAX_UPLOAD_BYTES``, recordings of 1 to
``MAX_RECORD_SECONDS`` seconds at 1 to ``MAX_RECORD_FPS`` frames per second, grep patterns of
at most 256 characters.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.wire.base import DeviceId, NonNegInt, WireStruct
from bridge.wire.request_parts import Request

MAX_UPLOAD_BYTES = 1 << 30
"""Largest package a client may stream (1 GiB, the hub's package cap)."""
MAX_UPLOAD_CHUNK = 512 * 1024
"""Largest chunk of one ``app.upload`` (its base64 fits a 1 MiB client frame)."""
MAX_RECORD_SECONDS = 600
MAX_RECORD_FPS = 30
MAX_RECORDING_BYTES = 256 << 20
"""Largest MP4 the hub holds for one recording (256 MiB)."""
MAX_READ_CHUNK = 512 * 1024
MAX_LOG_TEXT = 4096
"""A log line's text is cut to this many characters."""
MAX_LOG_BATCH = 512

UPLOAD_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}(?!\n)$"
"""A package's file name as the client sends it (other characters become ``_``). ``(?!\n)``:
Python's ``$`` also matches before a final newline, so ``x.apk\n`` would pass without it."""
UploadId = Annotated[str, msgspec.Meta(pattern=r"^u_[0-9a-zA-Z]{1,32}(?!\n)$", max_length=34)]
RecordingId = Annotated[str, msgspec.Meta(pattern=r"^r_[0-9a-zA-Z]{1,32}(?!\n)$", max_length=34)]
Sha256 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}(?!\n)$", max_length=64)]
LogLevel = Literal["verbose", "debug", "info", "warn", "error", "fatal"]
LOG_LEVELS: tuple[LogLevel, ...] = ("verbose", "debug", "info", "warn", "error", "fatal")
"""From least to most severe (``level`` filters keep that level and above)."""


class AppUpload(Request, tag="app.upload", frozen=True):
    """One chunk of a package (module docstring). ``name`` is the client's file name, kept
    for messages and for the device's installer (``.apk``, ``.ipa``, ``.app`` matter)."""

    device: DeviceId
    size: Annotated[int, msgspec.Meta(ge=1, le=MAX_UPLOAD_BYTES)]
    sha256: Sha256
    offset: NonNegInt
    data: Annotated[bytes, msgspec.Meta(max_length=MAX_UPLOAD_CHUNK)]
    name: Annotated[str, msgspec.Meta(pattern=UPLOAD_NAME_PATTERN, max_length=128)] = "package"
    upload: UploadId | None = None


class LogsSubscribe(Request, tag="logs.subscribe", frozen=True):
    """Stream the device's log lines from now on (module docstring)."""

    device: DeviceId
    app: Annotated[str, msgspec.Meta(min_length=1, max_length=255)] | None = None
    level: LogLevel | None = None
    grep: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None


class LogsUnsubscribe(Request, tag="logs.unsubscribe", frozen=True):
    subscription: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]


class CrashesList(Request, tag="crashes.list", frozen=True):
    device: DeviceId
    app: Annotated[str, msgspec.Meta(min_length=1, max_length=255)] | None = None


class RecordStart(Request, tag="record.start", frozen=True):
    """Record the screen. ``seconds``: stop by itself after that long (absent: at
    ``MAX_RECORD_SECONDS`` at the latest). ``fps``: frames per second for devices whose
    frames the hub encodes (default 10). ``maxBytes``: the file's cap."""

    device: DeviceId
    seconds: Annotated[int, msgspec.Meta(ge=1, le=MAX_RECORD_SECONDS)] | None = None
    fps: Annotated[int, msgspec.Meta(ge=1, le=MAX_RECORD_FPS)] = 10
    max_bytes: Annotated[int, msgspec.Meta(ge=1024, le=MAX_RECORDING_BYTES)] | None = None


class RecordStop(Request, tag="record.stop", frozen=True):
    """Stop a recording (one that stopped by itself is answered as it ended) and return what
    it holds; the file stays readable with ``record.read`` until read to its end or until the
    session closes."""

    recording: RecordingId


class RecordRead(Request, tag="record.read", frozen=True):
    recording: RecordingId
    offset: NonNegInt = 0
    length: Annotated[int, msgspec.Meta(ge=1, le=MAX_READ_CHUNK)] = MAX_READ_CHUNK


DeviceMediaRequest = (
    AppUpload
    | LogsSubscribe
    | LogsUnsubscribe
    | CrashesList
    | RecordStart
    | RecordStop
    | RecordRead
)


# ---- results and events -------------------------------------------------------------------


class AppUploadResult(WireStruct, frozen=True):
    """``received`` bytes held so far; ``complete``: all of them, digest checked."""

    upload: UploadId
    received: NonNegInt
    complete: bool = False


class LogLine(WireStruct, frozen=True):
    """One line of the device's log. ``seq`` rises by one per line the device wrote (a
    filter's skipped lines leave holes; ``gap`` counts only lines lost to a slow reader).
    ``atMs``: the device's wall clock in ms since the epoch, when it tells it."""

    seq: NonNegInt
    level: LogLevel
    text: Annotated[str, msgspec.Meta(max_length=MAX_LOG_TEXT)]
    tag: Annotated[str, msgspec.Meta(max_length=128)] | None = None
    app: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    pid: NonNegInt | None = None
    at_ms: NonNegInt | None = None


class LogsSubscribeResult(WireStruct, frozen=True):
    subscription: str
    device: DeviceId
    source: str
    """Where the lines come from (``agent``, ``logcat``, ``syslog``, ``simctl``)."""


class LogsUnsubscribeResult(WireStruct, frozen=True):
    subscription: str


class CrashReport(WireStruct, frozen=True):
    name: Annotated[str, msgspec.Meta(max_length=255)]
    app: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    at_ms: NonNegInt | None = None
    summary: Annotated[str, msgspec.Meta(max_length=MAX_LOG_TEXT)] = ""


class CrashesListResult(WireStruct, frozen=True):
    device: DeviceId
    crashes: Annotated[tuple[CrashReport, ...], msgspec.Meta(max_length=256)] = ()


class RecordingResult(WireStruct, frozen=True):
    """A recording's state. ``state``: recording or stopped; ``bytes``: the MP4's size so
    far; ``truncated``: it stopped at the size cap; ``reason``: why it stopped early."""

    recording: RecordingId
    device: DeviceId
    state: Literal["recording", "stopped"]
    bytes: NonNegInt = 0
    frames: NonNegInt = 0
    duration_ms: NonNegInt = 0
    width: NonNegInt = 0
    height: NonNegInt = 0
    source: str = ""
    truncated: bool = False
    reason: str | None = None


class RecordReadResult(WireStruct, frozen=True):
    recording: RecordingId
    offset: NonNegInt
    data: bytes
    total: NonNegInt
    eof: bool


class LogsEvent(WireStruct, tag_field="type", tag="logs", frozen=True):
    """New log lines of subscription ``subscription`` (oldest first). ``gap``: lines lost
    since the previous event because this reader fell behind (the hub dropped the oldest)."""

    subscription: str
    device: DeviceId
    lines: Annotated[tuple[LogLine, ...], msgspec.Meta(max_length=MAX_LOG_BATCH)]
    gap: NonNegInt = 0


MEDIA_RESULT_TYPES: dict[str, type[WireStruct]] = {
    "app.upload": AppUploadResult,
    "logs.subscribe": LogsSubscribeResult,
    "logs.unsubscribe": LogsUnsubscribeResult,
    "crashes.list": CrashesListResult,
    "record.start": RecordingResult,
    "record.stop": RecordingResult,
    "record.read": RecordReadResult,
}
