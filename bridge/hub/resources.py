"""The hub's bounds on what clients start (``bridge.core.resource_ledger``), in one table.

``BOUNDS`` names every kind and its per-session and per-hub bound; ``hold`` is how a handler
takes one for the length of a request (released however the request ends: answer, refusal,
cancellation, the session closing). Resources that outlive their request (a finished
recording waiting to be read, an upload between chunks) are counted by their owner with
``take`` / ``give`` and released in ``HubService.session_closed``. ``/v1/stats`` shows the
ledger under ``resources`` and each session's share under ``sessions.<id>.resources``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bridge.core.resource_ledger import Bound, ResourceLedger
from bridge.hub.errors import BadRequest
from bridge.wire.enums import ProtocolErrorCode

RECORDINGS = "recordings"
LOG_STREAMS = "log_streams"
UPLOADS = "uploads"
HISTORY_QUERIES = "history_queries"
VISION_READS = "vision_reads"
SUBSCRIPTIONS = "subscriptions"

BOUNDS: dict[str, Bound] = {
    RECORDINGS: Bound(per_session=2, per_hub=4),
    LOG_STREAMS: Bound(per_session=8, per_hub=256),
    UPLOADS: Bound(per_session=4, per_hub=16),
    HISTORY_QUERIES: Bound(per_session=2, per_hub=8),
    VISION_READS: Bound(per_session=1, per_hub=256),
    SUBSCRIPTIONS: Bound(per_session=1024, per_hub=16384),
}
"""Running recordings (each an H.264 encoder); log streams; uploads in progress; journal
queries in flight (two run at once, ``bridge.journal.recorder.READ_THREADS``); vision reads
(one per device at a time, counted under the device's id; the OCR itself runs one at a time
for the hub); stream memberships (four streams per device, relays included)."""


def new_ledger() -> ResourceLedger:
    return ResourceLedger(BOUNDS)


def take(ledger: ResourceLedger, kind: str, session: str) -> None:
    """Count one ``kind`` for ``session`` or raise RATE_LIMITED saying which bound it met."""
    reason = ledger.take(kind, session)
    if reason is not None:
        raise BadRequest(ProtocolErrorCode.RATE_LIMITED, reason)


@contextmanager
def hold(ledger: ResourceLedger, kind: str, session: str) -> Iterator[None]:
    """``take`` for the body's length; given back however the body ends."""
    take(ledger, kind, session)
    try:
        yield
    finally:
        ledger.give(kind, session)
