"""How hub answers become MCP answers: refusals are tool errors, protocol errors stay errors.

::

    hub ``error`` (reference envelope: NODE_NOT_FOUND, AMBIGUOUS_MATCH, STALE_NODE_REF,
      POLICY_BLOCKED, USER_CONFIRMATION_REQUIRED, DEVICE_OFFLINE, ...)
        -> ToolRefusal: a CallToolResult with isError, whose text names the code, the
           message and every recovery hint (AMBIGUOUS_MATCH: one line per candidate, with a
           handle the agent can act on; objections: the id to answer with ``confirm``)
    arguments that do not fit the tool's input schema, a missing device choice, an unknown
    handle, the hub unreachable or not answering in time
        -> ToolRefusal too (the model can correct itself or retry)
    hub ``protocol_error`` (INVALID_PARAMS, FORBIDDEN, UNKNOWN_DEVICE, RATE_LIMITED, ...)
        -> McpError: a JSON-RPC error, ``data.hubCode`` naming the hub's code

Invariant: nothing here copies an argument value into a message (a typed text or a secret
reference never reaches a result through a refusal).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.shared.exceptions import McpError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ErrorData

from bridge.client import (
    AmbiguousError,
    ClientError,
    ConnectionFailed,
    ConnectionLost,
    HubError,
    ProtocolFailure,
    RequestTimeout,
)
from bridge.mcp.handles import HandleTable
from bridge.mcp.outline import node_name
from bridge.wire.enums import ProtocolErrorCode

FORBIDDEN_ERROR = -32001
RATE_LIMITED_ERROR = -32002
CANCELLED_ERROR = -32800
MAX_CANDIDATES_SHOWN = 20

_JSONRPC_CODE = {
    ProtocolErrorCode.INVALID_PARAMS: INVALID_PARAMS,
    ProtocolErrorCode.UNKNOWN_DEVICE: INVALID_PARAMS,
    ProtocolErrorCode.UNKNOWN_SUBSCRIPTION: INVALID_PARAMS,
    ProtocolErrorCode.TOO_LARGE: INVALID_PARAMS,
    ProtocolErrorCode.MALFORMED: INVALID_PARAMS,
    ProtocolErrorCode.UNKNOWN_TYPE: INVALID_PARAMS,
    ProtocolErrorCode.FORBIDDEN: FORBIDDEN_ERROR,
    ProtocolErrorCode.UNAUTHENTICATED: FORBIDDEN_ERROR,
    ProtocolErrorCode.RATE_LIMITED: RATE_LIMITED_ERROR,
    ProtocolErrorCode.CANCELLED: CANCELLED_ERROR,
}


@dataclass
class ToolRefusal(Exception):
    """A tool result marked ``isError``: ``code`` and a text with the recovery hints."""

    code: str
    message: str
    recovery: tuple[str, ...] = ()
    details: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__init__(f"{self.code}: {self.message}")

    @property
    def text(self) -> str:
        lines = [f"{self.code}: {self.message}", *self.details]
        if self.recovery:
            lines.append("try: " + "; ".join(self.recovery))
        return "\n".join(lines)


def protocol_error(failure: ProtocolFailure) -> McpError:
    code = _JSONRPC_CODE.get(failure.code, INTERNAL_ERROR)
    return McpError(
        ErrorData(
            code=code,
            message=f"{failure.code.value}: {failure.message}",
            data={"hubCode": failure.code.value},
        )
    )


def from_client_error(
    exc: ClientError, handles: HandleTable, device: str | None
) -> ToolRefusal | McpError:
    """The MCP answer for a failure of ``bridge.client`` (see the module table)."""
    match exc:
        case HubError():
            return hub_refusal(exc, handles, device)
        case ProtocolFailure():
            return protocol_error(exc)
        case RequestTimeout():
            return ToolRefusal(
                "HUB_TIMEOUT",
                f"the hub did not answer in time ({exc})",
                ("retry", "call devices to see whether the device is still online"),
            )
        case ConnectionFailed() | ConnectionLost():
            return ToolRefusal(
                "HUB_UNREACHABLE",
                f"cannot reach the mobridge hub ({exc})",
                (
                    "start a hub: mobridge serve",
                    "or restart this server with --embedded (built-in hub and simulated phone)",
                    "retry the call",
                ),
            )
    return ToolRefusal("HUB_FAILURE", str(exc))


def hub_refusal(exc: HubError, handles: HandleTable, device: str | None) -> ToolRefusal:
    envelope = exc.envelope
    details: list[str] = []
    if isinstance(exc, AmbiguousError) and device is not None:
        names = {m.node.node_id: m.node for m in exc.matches}
        refs = exc.candidates
        for ref in refs[:MAX_CANDIDATES_SHOWN]:
            handle = handles.handle_for(device, ref.node_id, ref, None)
            node = names.get(ref.node_id)
            label = f' {node.role.value.lower()} "{node_name(node) or ""}"' if node else ""
            details.append(f"  candidate {handle}{label} ({ref.node_id})")
        if len(refs) > MAX_CANDIDATES_SHOWN:
            details.append(f"  … {len(refs) - MAX_CANDIDATES_SHOWN} more candidates")
    if exc.objection is not None:
        answerable = "answerable" if exc.objection.answerable else "not answerable"
        details.append(f"objection {exc.objection.id} ({answerable}): {exc.objection.reason}")
    recovery = tuple(envelope.recovery)
    if exc.objection is not None and exc.objection.answerable:
        recovery = (
            f"ask the user, then call confirm with objection '{exc.objection.id}'",
            *(r for r in recovery if "confirm" not in r),
        )
    if isinstance(exc, AmbiguousError):
        recovery = ("act on one candidate by its handle", *recovery)
    return ToolRefusal(envelope.error.value, envelope.message, recovery, tuple(details))
