"""Journal queries (protocol §14): the screen at a past moment, the diff between two moments,
the first/last time a query matched, and (in ``client_protocol``) the timeline of a window.

Times are text: ISO-8601 (``2026-12-02T14:03:07Z``; no zone means UTC), a time relative to the
hub's clock (``-5m``, ``-30s``, ``-2h``, ``-1d``), ``now``, or epoch milliseconds. Results
carry epoch milliseconds (``atMs``). A hub without a journal refuses every one of them with
``WINDOW_UNAVAILABLE``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.wire.base import DeviceId, NonNegInt, WireStruct
from bridge.wire.diff import ScreenDiff
from bridge.wire.query import SemanticQuery
from bridge.wire.request_parts import Name, Request
from bridge.wire.snapshot import ScreenSnapshot

TimeText = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
JournalKind = Literal["screen", "action", "refusal", "lease", "device", "gap", "screenshot"]
MAX_TIMELINE = 1000


class JournalAt(Request, tag="journal.at", frozen=True):
    """The screen as it was at ``at`` (rebuilt from the nearest keyframe and its deltas)."""

    device: DeviceId
    at: TimeText
    compact: bool = False


class JournalDiff(Request, tag="journal.diff", frozen=True):
    """What changed on the screen from ``since`` to ``until``."""

    device: DeviceId
    since: TimeText
    until: TimeText


class JournalTimeline(Request, tag="journal.timeline", frozen=True):
    """What happened in a window, newest first: actions, refusals, screen changes, lease and
    device events, gaps, screenshots; ``kinds`` and ``client`` filter it."""

    device: DeviceId
    since: TimeText | None = None
    until: TimeText | None = None
    kinds: tuple[JournalKind, ...] = ()
    client: Name | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMELINE)] = 200


class JournalWhen(Request, tag="journal.when", frozen=True):
    """The first and last recorded moment ``query`` matched in the window (default: all)."""

    device: DeviceId
    query: SemanticQuery
    since: TimeText | None = None
    until: TimeText | None = None


JournalRequest = JournalAt | JournalDiff | JournalTimeline | JournalWhen


class JournalScreenResult(WireStruct, frozen=True):
    """``recorded_ms``: when the screen shown at ``at_ms`` was captured."""

    device: DeviceId
    at_ms: NonNegInt
    recorded_ms: NonNegInt
    generation: NonNegInt
    snapshot: ScreenSnapshot
    screenshot: str | None = None
    """The URL of the last screenshot taken at or before ``at_ms`` (None: none kept)."""
    screenshot_ms: NonNegInt | None = None
    """When that screenshot was taken: before ``recorded_ms``, it may show an earlier screen."""


class JournalDiffResult(WireStruct, frozen=True):
    device: DeviceId
    since_ms: NonNegInt
    until_ms: NonNegInt
    diff: ScreenDiff


class JournalWhenResult(WireStruct, frozen=True):
    """``first_ms`` / ``last_ms``: the frames where it matched (None: never); ``checked``
    frames were looked at; ``truncated``: the window had more than the hub looks at."""

    device: DeviceId
    first_ms: NonNegInt | None
    last_ms: NonNegInt | None
    matched: NonNegInt
    checked: NonNegInt
    truncated: bool = False
