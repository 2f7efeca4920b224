"""Every failure the client raises, as one hierarchy.

::

    ClientError                      anything this client raises on purpose
    ├── HubError                     a domain refusal: ``error`` message with the reference
    │   │                            envelope (``.code``, ``.envelope``, ``.objection``)
    │   ├── NotFoundError            NODE_NOT_FOUND (also: a helper's query matched nothing)
    │   ├── AmbiguousError           AMBIGUOUS_MATCH (also: a helper's query matched several);
    │   │                            ``.candidates`` (NodeRefs, document order), ``.matches``
    │   ├── StaleRefError            STALE_NODE_REF
    │   ├── PolicyBlockedError       POLICY_BLOCKED
    │   ├── ConfirmationRequired     USER_CONFIRMATION_REQUIRED (answer ``.objection`` by id)
    │   ├── ActionUnsupported        ACTION_UNSUPPORTED (the device cannot do it at all)
    │   └── DeviceOffline            DEVICE_OFFLINE
    ├── ProtocolFailure              a ``protocol_error`` from the hub, or a hub message this
    │                                client could not read (``.code``, ``.message``)
    ├── ConnectionFailed             the websocket could not be opened (refused, bad handshake)
    ├── ConnectionLost               the connection closed while a request was pending
    ├── RequestTimeout               no answer within the request's deadline (a TimeoutError)
    └── DeltaMismatch                a delta did not apply (strict watches only)

Invariants: every ``error`` message maps to exactly one ``HubError`` subclass by its code
(``hub_error``); codes without a subclass give a plain ``HubError``. ``str(error)`` is one
line saying what happened and, where the caller can do something, what (``print(e)`` is
enough for a script); the client raises them without chained context, so an uncaught one is
a short traceback, not the socket library's.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.wire.client_protocol import FindMatch, Objection
from bridge.wire.enums import ErrorCode, ProtocolErrorCode
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.noderef import NodeRef


class ClientError(Exception):
    """Base of every exception the client raises on purpose."""


class HubError(ClientError):
    """The hub refused a request with the reference error envelope."""

    def __init__(self, envelope: ErrorEnvelope, objection: Objection | None = None) -> None:
        super().__init__(f"{envelope.error.value}: {envelope.message}")
        self.envelope = envelope
        self.objection = objection

    @property
    def code(self) -> ErrorCode:
        return self.envelope.error

    @property
    def recovery(self) -> tuple[str, ...]:
        return self.envelope.recovery


class NotFoundError(HubError):
    pass


class AmbiguousError(HubError):
    """Several nodes matched. ``matches`` is filled when the client's own ``find`` saw them
    (it carries nodes, so labels); a hub refusal has only the candidate refs."""

    def __init__(
        self,
        envelope: ErrorEnvelope,
        objection: Objection | None = None,
        matches: Sequence[FindMatch] = (),
    ) -> None:
        super().__init__(envelope, objection)
        self.matches = tuple(matches)

    @property
    def candidates(self) -> tuple[NodeRef, ...]:
        return self.envelope.candidates


class StaleRefError(HubError):
    pass


class PolicyBlockedError(HubError):
    pass


class ConfirmationRequired(HubError):
    pass


class DeviceOffline(HubError):
    pass


class ActionUnsupported(HubError):
    pass


TOKEN_HINT = (
    "pass connect(token=...) or set $MOBRIDGE_TOKEN to the token `mobridge serve` printed "
    "(a hub on this machine with a generated token needs neither)"
)
START_HINT = (
    "start one with `mobridge serve` (or scripts/run), or pass connect(url=...) / set $MOBRIDGE_URL"
)
_PROTOCOL_HINTS = {
    ProtocolErrorCode.UNAUTHENTICATED: TOKEN_HINT,
    ProtocolErrorCode.FORBIDDEN: "acting needs the controller token, not an observer token",
}


class ProtocolFailure(ClientError):
    def __init__(self, code: ProtocolErrorCode, message: str) -> None:
        hint = _PROTOCOL_HINTS.get(code)
        super().__init__(f"{code.value}: {message}" + (f"; {hint}" if hint else ""))
        self.code = code
        self.message = message


class ConnectionFailed(ClientError):
    """The websocket could not be opened; the message names the URL, why, and what to do."""


class ConnectionLost(ClientError):
    pass


class RequestTimeout(ClientError, TimeoutError):
    pass


class DeltaMismatch(ClientError):
    pass


_BY_CODE: dict[ErrorCode, type[HubError]] = {
    ErrorCode.NODE_NOT_FOUND: NotFoundError,
    ErrorCode.AMBIGUOUS_MATCH: AmbiguousError,
    ErrorCode.STALE_NODE_REF: StaleRefError,
    ErrorCode.POLICY_BLOCKED: PolicyBlockedError,
    ErrorCode.USER_CONFIRMATION_REQUIRED: ConfirmationRequired,
    ErrorCode.DEVICE_OFFLINE: DeviceOffline,
    ErrorCode.ACTION_UNSUPPORTED: ActionUnsupported,
}


def hub_error(envelope: ErrorEnvelope, objection: Objection | None = None) -> HubError:
    """The exception for a hub refusal, chosen by its code."""
    return _BY_CODE.get(envelope.error, HubError)(envelope, objection)


def not_found(message: str) -> NotFoundError:
    """A client-side NODE_NOT_FOUND (a helper's query matched nothing)."""
    envelope = ErrorEnvelope(
        error=ErrorCode.NODE_NOT_FOUND,
        message=message,
        recovery=("refine the query", "wait for the node to appear", "take a fresh snapshot"),
    )
    return NotFoundError(envelope)


def ambiguous(message: str, matches: Sequence[FindMatch]) -> AmbiguousError:
    """A client-side AMBIGUOUS_MATCH: the helper refuses to pick one of several matches."""
    envelope = ErrorEnvelope(
        error=ErrorCode.AMBIGUOUS_MATCH,
        message=message,
        recovery=("pick one candidate's ref", "narrow the query (role, within, resourceId)"),
        candidates=tuple(m.ref for m in matches),
    )
    return AmbiguousError(envelope, None, matches)
