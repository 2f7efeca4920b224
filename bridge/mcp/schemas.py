"""The typed arguments and structured results of every MCP tool, and their JSON Schemas.

One source of truth: each tool's ``inputSchema`` and ``outputSchema`` are generated from the
msgspec Structs below (``tool_schema``), arguments are decoded with the same Structs
(``decode_args``: strict, unknown fields refused, every size capped), and structured results
are encoded from them (``to_structured``). Wire types (SemanticQuery, NodeRef, Condition,
Verify, ActionResult, ScreenSnapshot, ...) are embedded unchanged, so what a model sends and
reads is exactly the hub protocol's vocabulary (protocol/README.md).

Invariants: a result never carries a typed value or a secret (the hub's ActionResult and
action events never do, and arguments are never echoed back); every list is bounded.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from bridge.wire.action import ActionResult, Verify
from bridge.wire.client_protocol import DeviceSummary, LeaseInfo, WaitResult
from bridge.wire.conditions import Condition
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot

T = TypeVar("T")

MAX_OUTLINE_LINES = 400
DEFAULT_OUTLINE_LINES = 200
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
HandleArg = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^e[0-9]{1,6}$",
        description="a short handle from the screen or find tool's output, like e7",
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


class NoArgs(McpStruct, frozen=True):
    pass


class ScreenArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    max_lines: Annotated[int, msgspec.Meta(ge=1, le=MAX_OUTLINE_LINES)] = DEFAULT_OUTLINE_LINES
    """Outline lines at most; the structured content always has every compact node."""


class FindArgs(McpStruct, frozen=True):
    query: SemanticQuery
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
    """Exactly one target: ``handle``, ``ref``, ``query`` or ``point``."""

    action: ActVerb
    device: DeviceArg | None = None
    handle: HandleArg | None = None
    ref: NodeRef | None = None
    query: SemanticQuery | None = None
    point: Point | None = None
    text: Annotated[str, msgspec.Meta(max_length=16_384)] | None = None
    value_ref: Annotated[str, msgspec.Meta(pattern=r"^secret://", max_length=256)] | None = None
    direction: Direction | None = None
    verify: Verify | None = None
    confirm: ConfirmAnswer | None = None
    idempotency_key: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | None = None
    allow_gesture_fallback: bool = False


class WaitArgs(McpStruct, frozen=True):
    condition: Condition
    device: DeviceArg | None = None
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=MAX_WAIT_MS)] | None = None


class ScreenshotArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    include_image: bool = True


class LeaseArgs(McpStruct, frozen=True):
    action: Literal["acquire", "release"]
    device: DeviceArg | None = None
    mode: Literal["exclusive", "shared"] = "exclusive"


class ConfirmArgs(McpStruct, frozen=True):
    """``answer`` may be omitted when the MCP client supports elicitation: the user is asked."""

    objection: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    answer: Literal["approve", "reject"] | None = None


# ---- results -------------------------------------------------------------------------------


class DevicesOutput(McpStruct, frozen=True):
    devices: tuple[DeviceSummary, ...]


class ScreenSize(McpStruct, frozen=True):
    width: int
    height: int


class ScreenOutput(McpStruct, frozen=True):
    device: str
    generation: int
    outline: str
    handles: dict[str, str]
    """handle -> node id, for every node the outline shows with a handle."""
    snapshot: ScreenSnapshot
    screens: tuple[str, ...] = ()
    size: ScreenSize | None = None
    lines_omitted: int = 0


class Match(McpStruct, frozen=True):
    handle: str
    node_id: str
    role: str
    name: str | None
    reason: str
    confidence: float
    ref: NodeRef


class FindOutput(McpStruct, frozen=True):
    device: str
    count: int
    generation: int
    snapshot_id: str
    matches: tuple[Match, ...]


class Refusal(McpStruct, frozen=True):
    """A hub refusal, as the structured side of an ``isError`` tool result."""

    error: str
    message: str
    recovery: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    """Handles of the competing nodes (AMBIGUOUS_MATCH)."""
    objection: str | None = None
    answerable: bool | None = None


class ActOutput(McpStruct, frozen=True):
    device: str
    action: str
    result: ActionResult
    target_handle: str | None = None


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


def tool_schema(kind: type[Any]) -> dict[str, Any]:
    """A self-contained JSON Schema (``type: object`` at the top, ``$defs`` beside it)."""
    schema = msgspec.json.schema(kind)
    defs: dict[str, Any] = schema.get("$defs", {})
    ref = schema.get("$ref", "")
    name = ref.rsplit("/", 1)[-1]
    top = dict(defs[name]) if name in defs else dict(schema)
    others = {k: v for k, v in defs.items() if k != name or _self_referencing(v, name)}
    if others:
        top["$defs"] = others
    return top


def _self_referencing(value: Any, name: str) -> bool:
    return f'"#/$defs/{name}"' in _ENCODER.encode(value).decode()


def decode_args(kind: type[T], arguments: dict[str, Any] | None) -> T:
    """The tool's arguments as ``kind`` (raises msgspec.ValidationError when they do not fit)."""
    return msgspec.convert(arguments or {}, kind, str_keys=True)


def to_structured(value: Any) -> dict[str, Any]:
    """The JSON object of a result Struct, exactly as its output schema describes it."""
    data: dict[str, Any] = msgspec.json.decode(_ENCODER.encode(value))
    return data
