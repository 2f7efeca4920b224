"""Domain refusals raised inside the hub and turned into ``error`` messages at one place.

Tree:
    Refusal                      (carries a reference ErrorEnvelope, optional Objection)
    BadRequest                   (-> protocol_error INVALID_PARAMS / UNKNOWN_DEVICE / FORBIDDEN)
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.wire.client_protocol import Objection
from bridge.wire.enums import ErrorCode, ProtocolErrorCode
from bridge.wire.errors import ErrorEnvelope


class Refusal(Exception):
    """``announced`` is set once an ``action`` event reported this refusal, so the action
    entry point reports every refusal exactly once."""

    def __init__(self, envelope: ErrorEnvelope, objection: Objection | None = None) -> None:
        super().__init__(envelope.message)
        self.envelope = envelope
        self.objection = objection
        self.announced = False


class BadRequest(Exception):
    def __init__(self, code: ProtocolErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def refusal(code: ErrorCode, message: str, recovery: Sequence[str]) -> Refusal:
    return Refusal(ErrorEnvelope(error=code, message=message, recovery=tuple(recovery)))


def offline(device: str, reason: str | None) -> Refusal:
    return refusal(
        ErrorCode.DEVICE_OFFLINE,
        f"device {device} is offline" + (f": {reason}" if reason else ""),
        (
            "wait for the device event online=true and retry",
            "list devices (devices.list) to see which are online",
        ),
    )
