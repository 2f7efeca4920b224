"""The typed arguments and structured results of every MCP tool.

Arguments are decoded with the Structs below (``decode_args``: strict, unknown fields
refused, every size capped); what the model sees of them is ``bridge.mcp.lean``'s shrunk
schema. Targets, queries and conditions arrive as plain JSON (``TargetArg``, ``dict``) and
are turned into the hub's wire types by ``bridge.mcp.targets`` (strictly, with the wire
types' own validation). Tools carry no output schema: a result is a short text for the
model, and a few small structured facts (``to_structured``) for programs.

Invariants: a result never carries a typed value or a secret (the hub's ActionResult and
action events never do, and arguments are never echoed back); every list is bounded.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from bridge.mcp.view import MAX_TOKENS, MIN_TOKENS
from bridge.wire.client_protocol import DeviceSummary, LeaseInfo, WaitResult

T = TypeVar("T")

MAX_WAIT_MS = 600_000
MAX_MATCHES_SHOWN = 50

DeviceArg = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=128,
        description="device id from the devices tool; may be omitted when the hub has one device",
    ),
]


class McpStruct(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    rename="camel",
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """Base of every tool argument and result type (camelCase, strict, defaults omitted)."""


# ---- arguments -----------------------------------------------------------------------------

TargetArg = str | dict[str, Any]
"""A handle (``e7``), plain text, a query object or a point ``{x, y}``
(``bridge.mcp.targets``)."""
TextArg = Annotated[str, msgspec.Meta(max_length=16_384)]
SecretArg = Annotated[str, msgspec.Meta(pattern=r"^secret://", max_length=256)]
Tokens = Annotated[int, msgspec.Meta(ge=MIN_TOKENS, le=MAX_TOKENS)]


class NoArgs(McpStruct, frozen=True):
    pass


class ScreenArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    goal: Annotated[str, msgspec.Meta(max_length=500)] | None = None
    max_tokens: Tokens | None = None
    since: Annotated[str, msgspec.Meta(pattern=r"^v[0-9]{1,9}$")] | None = None


class FindArgs(McpStruct, frozen=True):
    query: TargetArg
    device: DeviceArg | None = None


class Point(McpStruct, frozen=True):
    x: Annotated[int, msgspec.Meta(ge=0, le=100_000)]
    y: Annotated[int, msgspec.Meta(ge=0, le=100_000)]


class ActVerb(enum.Enum):
    """The act tool's verbs: the hub's node actions, plus SCROLL and SWIPE with a direction
    (sent as SCROLL_FORWARD / SCROLL_BACKWARD on the target)."""

    CLICK = "CLICK"
    LONG_CLICK = "LONG_CLICK"
    SET_TEXT = "SET_TEXT"
    CLEAR_TEXT = "CLEAR_TEXT"
    FOCUS = "FOCUS"
    SCROLL = "SCROLL"
    SWIPE = "SWIPE"
    SCROLL_FORWARD = "SCROLL_FORWARD"
    SCROLL_BACKWARD = "SCROLL_BACKWARD"
    SELECT = "SELECT"
    EXPAND = "EXPAND"
    COLLAPSE = "COLLAPSE"
    DISMISS = "DISMISS"
    COPY = "COPY"
    PASTE = "PASTE"


Direction = Literal["up", "down", "left", "right", "forward", "backward"]


class ConfirmAnswer(McpStruct, frozen=True):
    objection: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    answer: Literal["approve", "reject"]


class ActArgs(McpStruct, frozen=True):
    """``target``: a handle, plain text, a query object or a point (``bridge.mcp.targets``)."""

    target: TargetArg
    action: ActVerb = ActVerb.CLICK
    text: TextArg | None = None
    value_ref: SecretArg | None = None
    direction: Direction | None = None
    expect: dict[str, Any] | None = None
    confirm: ConfirmAnswer | None = None
    idempotency_key: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None
    allow_gesture_fallback: bool = False
    max_tokens: Tokens | None = None
    device: DeviceArg | None = None


class WaitArgs(McpStruct, frozen=True):
    condition: dict[str, Any]
    device: DeviceArg | None = None
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=MAX_WAIT_MS)] | None = None


class ScreenshotArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    include_image: bool = True


class LeaseArgs(McpStruct, frozen=True):
    action: Literal["acquire", "release"]
    device: DeviceArg | None = None
    mode: Literal["exclusive", "shared"] = "exclusive"
    alerts: Literal["accept", "dismiss"] | None = None


class ConfirmArgs(McpStruct, frozen=True):
    """``answer`` may be omitted when the MCP client supports elicitation: the user is asked."""

    objection: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    answer: Literal["approve", "reject"] | None = None


# ---- results -------------------------------------------------------------------------------


class DevicesOutput(McpStruct, frozen=True):
    devices: tuple[DeviceSummary, ...]


class Match(McpStruct, frozen=True):
    handle: str
    role: str
    name: str | None
    reason: str
    bounds: tuple[int, int, int, int] | None = None


class FindOutput(McpStruct, frozen=True):
    device: str
    count: int
    matches: tuple[Match, ...]


class ActOutput(McpStruct, frozen=True):
    """Action tools answer in text only (the summary line and the new screen)."""


class WaitOutput(McpStruct, frozen=True):
    device: str
    met: bool
    result: WaitResult


class ScreenshotOutput(McpStruct, frozen=True):
    """``uri`` reads the capture again as a resource; ``url`` is where the hub keeps it
    (HTTP GET with the hub token)."""

    device: str
    uri: str
    width: int
    height: int
    bytes: int
    url: str | None = None


class LeaseOutput(McpStruct, frozen=True):
    device: str
    lease: LeaseInfo | None


class ActivityArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 30


class ActivityEntry(McpStruct, frozen=True):
    """One thing that happened on a device, by any client of the hub (newest last)."""

    kind: Literal["action", "lease", "device"]
    client: str | None = None
    session: str | None = None
    verb: str | None = None
    action: str | None = None
    target: str | None = None
    outcome: str | None = None
    """An action's dispatch status or refusal code; a lease change; online/offline."""
    mine: bool = False


class ActivityOutput(McpStruct, frozen=True):
    device: str
    entries: tuple[ActivityEntry, ...]


# ---- helpers -------------------------------------------------------------------------------


_ENCODER = msgspec.json.Encoder()


def decode_args(kind: type[T], arguments: dict[str, Any] | None) -> T:
    """The tool's arguments as ``kind`` (raises msgspec.ValidationError when they do not fit)."""
    return msgspec.convert(arguments or {}, kind, str_keys=True)


def to_structured(value: Any) -> dict[str, Any]:
    """The JSON object of a result Struct, exactly as its output schema describes it."""
    data: dict[str, Any] = msgspec.json.decode(_ENCODER.encode(value))
    return data
