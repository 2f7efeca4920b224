"""The reference error envelope: every domain error carries an ordered ``recovery`` list."""

from __future__ import annotations

from bridge.wire.base import WireStruct
from bridge.wire.enums import ErrorCode
from bridge.wire.noderef import NodeRef


class ErrorEnvelope(WireStruct, frozen=True):
    """``candidates`` is set for AMBIGUOUS_MATCH: every competing NodeRef, in document order."""

    error: ErrorCode
    message: str
    recovery: tuple[str, ...]
    candidates: tuple[NodeRef, ...] = ()
