"""How hub answers become MCP answers: every refusal the model can act on is a tool result.

::

    hub ``error`` (reference envelope: NODE_NOT_FOUND, AMBIGUOUS_MATCH, STALE_NODE_REF,
      POLICY_BLOCKED, USER_CONFIRMATION_REQUIRED, DEVICE_OFFLINE, ...)
        -> ToolRefusal: a CallToolResult with isError, whose text names the code, the
           message and what to do next (``next:``), always naming MCP tools (``NEXT_STEPS``
           by code, never the hub's own verbs); AMBIGUOUS_MATCH lists one line per
           candidate with a handle to act on; an objection names its id for ``confirm``
    hub ``protocol_error`` (FORBIDDEN for an observer acting, UNKNOWN_DEVICE,
      INVALID_PARAMS, RATE_LIMITED, ...), arguments that do not fit, a missing device
      choice, an unknown handle, the hub unreachable or not answering in time
        -> ToolRefusal too (the model can correct itself, wait, or only read)
    the hub's CANCELLED (the MCP request was cancelled)
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
            lines.append("next: " + "; ".join(self.recovery))
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


NEXT_STEPS: dict[str, tuple[str, ...]] = {
    "NODE_NOT_FOUND": (
        "call screen with goal: '<the words you want>' to see what is there",
        "act SCROLL on the list if it may be off screen",
        "wait {kind: present, query} if the screen is still loading",
    ),
    "AMBIGUOUS_MATCH": (
        "act on one candidate by its handle",
        "or narrow the target: {text, within: '<text near it>'} or {role, text}",
    ),
    "STALE_NODE_REF": ("call screen, then act on a handle it shows or on the element's text",),
    "WEAK_REFERENCE_UNRESOLVABLE": (
        "act on the element's text or a query",
        "call screenshot and touch at x, y if it has no semantics",
    ),
    "POLICY_BLOCKED": (
        "call activity to see who holds the device and why",
        "call lease with action acquire later (an idle lease can be taken over)",
    ),
    "DEVICE_OFFLINE": ("call devices to see whether it is back, then retry",),
    "VISION_REQUIRED": (
        "call screenshot, locate the spot, then touch at x, y",
        "or act again with allowGestureFallback: true",
    ),
    "ACTION_UNSUPPORTED": ("use another tool: touch, press or type",),
    "SECURE_WINDOW": ("call screen (the outline still works) instead of screenshot",),
    "FORBIDDEN": (
        "this session can only read: use screen, find, wait and activity",
        "ask for a controller token to act",
    ),
    "UNKNOWN_DEVICE": ("call devices and pass one of its ids as device",),
    "RATE_LIMITED": ("wait a second, then retry",),
    "INVALID_PARAMS": ("check the arguments against the tool's inputSchema",),
}
DEFAULT_NEXT = ("call screen to see the screen now, then retry",)


def from_client_error(
    exc: ClientError, handles: HandleTable, device: str | None
) -> ToolRefusal | McpError:
    """The MCP answer for a failure of ``bridge.client`` (see the module table)."""
    match exc:
        case HubError():
            return hub_refusal(exc, handles, device)
        case ProtocolFailure() if exc.code is not ProtocolErrorCode.CANCELLED:
            code = exc.code.value
            return ToolRefusal(code, exc.message, NEXT_STEPS.get(code, DEFAULT_NEXT))
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
            node = names.get(ref.node_id)
            handle = handles.handle_for(
                device, ref.node_id, ref, None, node.role if node is not None else None
            )
            label = f' {node.role.value.lower()} "{node_name(node) or ""}"' if node else ""
            details.append(f"  candidate {handle}{label}")
        if len(refs) > MAX_CANDIDATES_SHOWN:
            details.append(f"  … {len(refs) - MAX_CANDIDATES_SHOWN} more candidates")
    code = envelope.error.value
    recovery = NEXT_STEPS.get(code, DEFAULT_NEXT)
    if exc.objection is not None:
        answerable = "answerable" if exc.objection.answerable else "not answerable"
        details.append(f"objection {exc.objection.id} ({answerable}): {exc.objection.reason}")
        if exc.objection.answerable:
            recovery = (
                f"ask the user, then call confirm with objection '{exc.objection.id}'",
                "or choose a different, non-destructive action",
            )
        else:
            recovery = ("do not retry as is: choose another action",)
    return ToolRefusal(code, envelope.message, recovery, tuple(details))
