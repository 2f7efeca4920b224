"""The client protocol: subscribers <-> hub, one tagged union per direction on ``type``.

Requests carry a client-chosen ``id`` (integer or short string); the hub answers each with
exactly one ``result`` or ``error`` (reference envelope) of that id, or a ``protocol_error``
when the frame could not be understood (then ``id`` is echoed when it could be read). Events
carry no id. JSON text frames by default (subprotocol ``mobridge.v1.json``); MessagePack binary
frames with ``mobridge.v1.msgpack``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from bridge.wire.acquire import AcquireResult, AcquireWaiter, DevicesAcquire
from bridge.wire.action import (
    ActionRequest,
    ActionResult,
    ActionTarget,
    Evidence,
    ObserveMode,
    SecretRef,
)
from bridge.wire.base import DeviceId, NodeId, NonNegInt, SnapshotId, WireStruct
from bridge.wire.conditions import Condition
from bridge.wire.device_capabilities import CAPABILITY_RESULTS, AlertChoice, CapabilityRequest
from bridge.wire.device_control import (
    AppClear,
    AppInstall,
    AppsList,
    AppsListResult,
    AppTerminate,
    AppUninstall,
    DisplayGet,
    DisplayResult,
    Gesture,
    KeyPress,
    OrientationSet,
    TypeText,
)
from bridge.wire.device_media import MEDIA_RESULT_TYPES, DeviceMediaRequest, LogsEvent
from bridge.wire.device_network import NETWORK_RESULTS, NetworkRequest
from bridge.wire.enums import (
    AppAction,
    ErrorCode,
    GlobalAction,
    MutationClass,
    Platform,
    ProtocolErrorCode,
    Source,
    VerificationResult,
)
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.journal import (
    JournalAt,
    JournalDiff,
    JournalDiffResult,
    JournalKind,
    JournalScreenResult,
    JournalTimeline,
    JournalWhen,
    JournalWhenResult,
)
from bridge.wire.node import SemanticNode
from bridge.wire.node_edit import MetaEdit, NodeEdit
from bridge.wire.noderef import NodeRef
from bridge.wire.pictures import PictureEvent
from bridge.wire.query import SemanticQuery
from bridge.wire.request_parts import Confirm as Confirm
from bridge.wire.request_parts import Name as Name
from bridge.wire.request_parts import Request
from bridge.wire.request_parts import RequestId as RequestId
from bridge.wire.snapshot import ScreenSnapshot

PROTOCOL_VERSION = "mobridge.v1"
SUBPROTOCOL_JSON = "mobridge.v1.json"
SUBPROTOCOL_MSGPACK = "mobridge.v1.msgpack"

LeaseMode = Literal["exclusive", "shared"]
SessionRole = Literal["observer", "controller"]
MAX_WAIT_MS = 600_000
MAX_HISTORY = 200
"""Recent events a hub keeps per device (and the most a ``history`` request may ask for)."""


# ---- client -> hub ------------------------------------------------------------------------


_Request = Request


class ClientInfo(WireStruct, frozen=True):
    name: Name
    kind: Name | None = None


class Hello(_Request, tag="hello", frozen=True):
    """First message. ``token`` may instead come in the ``Authorization: Bearer`` header."""

    client: ClientInfo
    protocol: str | None = None
    token: Annotated[str, msgspec.Meta(max_length=512)] | None = None


class DevicesList(_Request, tag="devices.list", frozen=True):
    pass


class Subscribe(_Request, tag="subscribe", frozen=True):
    """Join one of the device's streams. ``settled`` true joins its settled stream: the hub
    holds transitional frames back and sends one delta when the screen settles."""

    device: DeviceId
    compact: bool = True
    settled: bool = False
    patches: bool = False
    """Opt in to ``patch`` events (field-level, smaller) instead of ``delta`` events for this
    subscription's changes. Default false: the subscriber gets ``delta`` events as before."""
    pictures: bool = False
    """Settled streams only: also send a ``picture`` event (the screen's capture id) after
    each settled screen, so the subscriber never asks for screenshots itself."""


class Unsubscribe(_Request, tag="unsubscribe", frozen=True):
    subscription: Name


class SnapshotGet(_Request, tag="snapshot.get", frozen=True):
    """``at``: the screen as it was then, from the journal (a ``journal.at`` time); ``fresh`` and
    ``at`` together are refused (a past screen cannot be captured anew)."""

    device: DeviceId
    compact: bool = True
    fresh: bool = False
    """True: the hub asks the agent for a new capture and answers with the snapshot made of it
    (or of a newer one); false (default): the newest snapshot the hub holds, at once."""
    at: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None


class Find(_Request, tag="find", frozen=True):
    device: DeviceId
    query: SemanticQuery
    sources: Annotated[tuple[Source, ...], msgspec.Meta(min_length=1, max_length=3)] | None = None
    """Only nodes from these sources (absent: all). Asking for ``VISION`` turns the hub's
    vision on (refused with how to enable it when the ``vision`` extra is missing). Kept
    beside the query, not in it: the reference SemanticQuery allows no extra field."""


class Resolve(_Request, tag="resolve", frozen=True):
    device: DeviceId
    ref: NodeRef
    generation: int | None = None


class Act(_Request, tag="act", frozen=True):
    """A node action. The target is either ``request.target`` (a NodeRef) or ``query`` (a
    SemanticQuery the hub resolves on the newest snapshot when the action's turn comes:
    exactly one match, else NODE_NOT_FOUND or AMBIGUOUS_MATCH with the candidates); giving
    both, or neither, is INVALID_PARAMS. ``observe`` (default ``settle``): ``none`` answers at
    dispatch, without waiting for the screen (see ``ObserveMode``); it sits here, beside
    ``query`` and ``confirm``, because the reference ``actionRequest`` admits no other field."""

    device: DeviceId
    request: ActionRequest
    confirm: Confirm | None = None
    query: SemanticQuery | None = None
    observe: ObserveMode = "settle"


LaunchArguments = Annotated[
    dict[
        Annotated[str, msgspec.Meta(min_length=1, max_length=64)],
        Annotated[str, msgspec.Meta(max_length=1024)],
    ],
    msgspec.Meta(max_length=32),
]
"""At most 32 launch arguments, each a name of 1-64 characters and a text of at most 1024."""


class Global(_Request, tag="global", frozen=True):
    device: DeviceId
    action: GlobalAction


class App(_Request, tag="app", frozen=True):
    device: DeviceId
    action: AppAction
    app_id: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    uri: Annotated[str, msgspec.Meta(max_length=2048)] | None = None
    arguments: LaunchArguments | None = None
    """APP_OPEN only: launch arguments for the app (Maestro's ``launchApp: {arguments}``);
    refused (ACTION_UNSUPPORTED) by a device whose agent does not announce
    ``launch_arguments``."""


class Wait(_Request, tag="wait", frozen=True):
    device: DeviceId
    condition: Condition
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=MAX_WAIT_MS)] | None = None
    """Default: 10 s for a ``screen`` condition (screen transitions), else 5 s."""


class LeaseAcquire(_Request, tag="lease.acquire", frozen=True):
    """``alerts``: while this session holds the lease, answer every alert that shows
    (``accept`` / ``dismiss``); each answer is an ``action`` event."""

    device: DeviceId
    mode: LeaseMode = "exclusive"
    alerts: AlertChoice | None = None


class LeaseRelease(_Request, tag="lease.release", frozen=True):
    device: DeviceId


class Screenshot(_Request, tag="screenshot", frozen=True):
    """The picture of the device's current screen. Requests for one screen generation share
    one device screenshot (one capture id, one journal entry); ``fresh`` true asks the device
    for a new one even so (a few per session: past that it is refused RATE_LIMITED)."""

    device: DeviceId
    fresh: bool = False


class Cancel(_Request, tag="cancel", frozen=True):
    """Cancel the caller's own pending ``wait`` or ``screenshot`` request ``request``; that
    request is then answered with a ``protocol_error`` of code CANCELLED."""

    request: RequestId


class Ping(_Request, tag="ping", frozen=True):
    pass


class History(_Request, tag="history", frozen=True):
    """The device's most recent ``action``, ``lease`` and ``device`` events (oldest first), so
    a client that connects late sees what happened before it (a dashboard's timeline)."""

    device: DeviceId
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_HISTORY)] = 50


class Veto(_Request, tag="veto", frozen=True):
    """Stop an announced action (``intent`` event) before it is dispatched. Only a session
    whose declared kind outranks the acting one's (a person over a script or an agent) may
    veto, and only while the intent waits out the hub's veto window; the action is then
    refused POLICY_BLOCKED naming who vetoed it."""

    device: DeviceId
    intent: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


ClientToHub = (
    Hello
    | DevicesList
    | Subscribe
    | Unsubscribe
    | SnapshotGet
    | Find
    | Resolve
    | Act
    | Global
    | App
    | Wait
    | LeaseAcquire
    | LeaseRelease
    | Screenshot
    | Cancel
    | Ping
    | History
    | Gesture
    | KeyPress
    | TypeText
    | OrientationSet
    | AppTerminate
    | AppClear
    | AppInstall
    | AppUninstall
    | AppsList
    | DisplayGet
    | JournalAt
    | JournalDiff
    | JournalTimeline
    | JournalWhen
    | DevicesAcquire
    | Veto
    | DeviceMediaRequest
    | CapabilityRequest
    | NetworkRequest
)


# ---- results (the ``result`` field of a ``result`` message, by request type) ---------------


class HelloResult(WireStruct, frozen=True):
    protocol: str
    session: str
    role: SessionRole
    hub: str
    formats: tuple[str, ...] = ()
    previous_close: str | None = None
    """Why the hub closed this client's previous connection (same token and client name),
    told once on the next ``hello`` within ``RECENT_CLOSE_S`` (e.g. it stopped reading)."""


class LeaseInfo(WireStruct, frozen=True):
    mode: LeaseMode
    holders: tuple[str, ...]
    """Session ids holding the lease."""
    holder_names: tuple[str, ...] = ()
    idle_ms: NonNegInt = 0
    alerts: AlertChoice | None = None
    """Alerts are answered automatically this way (a holder's lease option)."""


DeviceHealth = Literal["online", "degraded", "offline"]
"""``online``: serving normally. ``degraded``: online, but something is wrong that clients
should know (trees truncated or malformed, the agent missed a command deadline); ``reason``
says what. ``offline``: not serving; ``reason`` says why."""


class DeviceSummary(WireStruct, frozen=True):
    id: DeviceId
    platform: Platform
    online: bool
    model: str | None = None
    agent: str | None = None
    capabilities: tuple[str, ...] = ()
    lease: LeaseInfo | None = None
    health: DeviceHealth = "online"
    reason: str | None = None
    """Why the device is degraded or offline; absent when healthy."""
    owner: str | None = None
    """In a farm: the name of the hub the device is attached to (absent outside a farm)."""
    agent_version: str | None = None
    """The version the agent announced in its hello (absent when it has not linked yet)."""
    os_version: str | None = None
    """The device's OS version as its agent announced it."""
    tags: tuple[str, ...] = ()
    """The operator's tags for the device (``serve --device-tag DEVICE=TAG``), for
    ``devices.acquire`` selectors."""


class FarmLinkStatus(WireStruct, frozen=True):
    """A farm hub's link to NATS: ``connected``; ``connecting`` (not yet joined);
    ``unauthorized`` (NATS refused the hub's credentials: an operator must fix them);
    ``reconnecting`` (NATS unreachable or the connection lost). ``reason`` says why when
    not connected; ``hubs`` counts the other hubs heard online."""

    hub: str
    state: Literal["connecting", "connected", "unauthorized", "reconnecting"]
    reason: str | None = None
    hubs: NonNegInt = 0


class DevicesListResult(WireStruct, frozen=True):
    devices: tuple[DeviceSummary, ...]
    farm: FarmLinkStatus | None = None
    """In a farm: this hub's link (other hubs' devices are as fresh as it)."""
    waiting: tuple[AcquireWaiter, ...] = ()
    """This hub's ``devices.acquire`` queue, first in line first."""


class SubscribeResult(WireStruct, frozen=True):
    subscription: str
    seq: NonNegInt
    generation: NonNegInt
    snapshot: ScreenSnapshot


class UnsubscribeResult(WireStruct, frozen=True):
    subscription: str


class SnapshotResult(WireStruct, frozen=True):
    generation: NonNegInt
    snapshot: ScreenSnapshot


class FindMatch(WireStruct, frozen=True):
    ref: NodeRef
    node: SemanticNode
    reason: str
    confidence: float


class FindResult(WireStruct, frozen=True):
    count: NonNegInt
    generation: NonNegInt
    snapshot_id: SnapshotId
    matches: tuple[FindMatch, ...]


class ResolveResult(WireStruct, frozen=True):
    status: Literal["RESOLVED"]
    node_id: NodeId
    snapshot_id: SnapshotId
    generation: NonNegInt
    node: SemanticNode
    locator: str
    """The locator type that found the node."""


class WaitResult(WireStruct, frozen=True):
    result: VerificationResult
    snapshot_id: SnapshotId | None
    elapsed_ms: NonNegInt
    evidence: tuple[Evidence, ...] = ()


class LeaseResult(WireStruct, frozen=True):
    device: DeviceId
    lease: LeaseInfo | None


class ScreenshotResult(WireStruct, frozen=True):
    capture: str
    url: str
    width: int
    height: int
    bytes: NonNegInt
    generation: NonNegInt | None = None
    """The screen generation the picture belongs to (absent: the screen changed while it
    was taken)."""
    shared: bool = False
    """True when an earlier request's device screenshot of this generation answered."""


class PongResult(WireStruct, frozen=True):
    pass


class VetoResult(WireStruct, frozen=True):
    intent: str
    vetoed: bool
    """False when the intent was no longer waiting (already dispatched, or unknown)."""


RESULT_TYPES: dict[str, type[Any]] = {
    # Results are untagged: a client knows which body to expect from its request's type.
    "hello": HelloResult,
    "devices.list": DevicesListResult,
    "subscribe": SubscribeResult,
    "unsubscribe": UnsubscribeResult,
    "snapshot.get": SnapshotResult,
    "find": FindResult,
    "resolve": ResolveResult,
    "act": ActionResult,
    "global": ActionResult,
    "app": ActionResult,
    "wait": WaitResult,
    "lease.acquire": LeaseResult,
    "lease.release": LeaseResult,
    "screenshot": ScreenshotResult,
    "cancel": PongResult,
    "ping": PongResult,
    "gesture": ActionResult,
    "key": ActionResult,
    "type": ActionResult,
    "orientation.set": ActionResult,
    "app.terminate": ActionResult,
    "app.clear": ActionResult,
    "app.install": ActionResult,
    "app.uninstall": ActionResult,
    "apps.list": AppsListResult,
    "display.get": DisplayResult,
    "veto": VetoResult,
    **MEDIA_RESULT_TYPES,
    **NETWORK_RESULTS,
    "network.set": ActionResult,
    "devices.acquire": AcquireResult,
    **CAPABILITY_RESULTS,
}


# ---- hub -> client ------------------------------------------------------------------------


class _HubMessage(WireStruct, tag_field="type", frozen=True):
    pass


class ResultMessage(_HubMessage, tag="result", frozen=True):
    """``result`` is the request type's result body (``RESULT_TYPES``)."""

    id: RequestId
    result: Any


class Objection(WireStruct, frozen=True):
    """Raised with USER_CONFIRMATION_REQUIRED / POLICY_BLOCKED refusals. Answer it by ``id``
    in ``act.confirm``; ``answerable`` false means no answer can lift it."""

    id: str
    answerable: bool
    reason: str


class ErrorMessage(_HubMessage, tag="error", frozen=True):
    """A domain refusal in the reference envelope; ``objection`` rides beside it."""

    id: RequestId
    error: ErrorEnvelope
    objection: Objection | None = None


class ProtocolError(_HubMessage, tag="protocol_error", frozen=True):
    """A frame the hub could not take: malformed, unknown type, unauthenticated, too large,
    rate limited... ``id`` is echoed when it could be read. The connection stays open unless
    ``fatal``."""

    code: ProtocolErrorCode
    message: str
    id: RequestId | None = None
    fatal: bool = False


class SnapshotEvent(_HubMessage, tag="snapshot", frozen=True):
    """Replaces the subscriber's state (initial state or resync)."""

    subscription: str
    seq: NonNegInt
    generation: NonNegInt
    snapshot: ScreenSnapshot


MAX_UNSEEN = 32


class Unseen(WireStruct, frozen=True):
    """What changed outside a compact view the budget cut: ``count`` nodes of the full
    snapshot were added, removed or changed there; ``nodes`` names the first of them (at most
    ``MAX_UNSEEN``, document order). They are in ``snapshot.get`` with ``compact`` false."""

    count: NonNegInt
    nodes: Annotated[tuple[NodeId, ...], msgspec.Meta(max_length=MAX_UNSEEN)] = ()


class DeltaEvent(_HubMessage, tag="delta", frozen=True):
    """Applies to the snapshot ``base``; ``seq`` is exactly one more than the previous event
    of this subscription. ``meta`` is the new snapshot with ``nodes`` empty; ``order`` maps a
    parent id (``""`` for the root list) to its complete new child list. ``unseen`` (compact
    streams only) says what changed where the cut compact view does not reach."""

    subscription: str
    device: DeviceId
    seq: NonNegInt
    generation: NonNegInt
    base: SnapshotId
    snapshot_id: SnapshotId
    meta: ScreenSnapshot
    remove: tuple[NodeId, ...]
    upsert: tuple[SemanticNode, ...]
    order: dict[str, tuple[NodeId, ...]]
    unseen: Unseen | None = None


class PatchEvent(_HubMessage, tag="patch", frozen=True):
    """The slim form of ``delta``, sent instead of it to a subscriber that subscribed with
    ``patches`` true. Same envelope and the same ``seq`` sequence as the stream's ``delta``
    events (``seq`` exactly one more than the previous event of this subscription; applies to
    ``base``; leads to ``snapshot_id``), without ``device`` (the subscription names the
    stream; the subscriber knows its device). Body, every part omitted when empty:

    - ``meta``: only the meta fields whose value changed (``MetaEdit``);
    - ``remove``: removed ids (whole subtrees included), as in ``delta``;
    - ``upsert``: whole nodes — new ones, or existing ones replaced whole;
    - ``edit``: for nodes kept, only their changed fields (``NodeEdit``);
    - ``order``: for every parent whose child list changed, the complete new list;
    - ``unseen``: as in ``delta`` (compact streams).

    Rebuilt snapshot = the base snapshot with ``remove``, ``upsert``, ``edit`` and ``order``
    applied (in that order), meta fields replaced, ``snapshotId`` set — exactly what the same
    change's ``delta`` leads to."""

    subscription: str
    seq: NonNegInt
    generation: NonNegInt
    base: SnapshotId
    snapshot_id: SnapshotId
    meta: MetaEdit | None = None
    remove: tuple[NodeId, ...] = ()
    upsert: tuple[SemanticNode, ...] = ()
    edit: tuple[NodeEdit, ...] = ()
    order: dict[str, tuple[NodeId, ...]] = msgspec.field(default_factory=dict)
    unseen: Unseen | None = None


class DeviceEvent(_HubMessage, tag="device", frozen=True):
    """A device's health changed (online, degraded with a reason, offline with a reason)."""

    device: DeviceId
    online: bool
    reason: str | None = None
    health: DeviceHealth = "online"


class LeaseEvent(_HubMessage, tag="lease", frozen=True):
    """``change``: acquired, joined, renewed, released, taken_over (idle), preempted (taken at
    once by a session whose declared kind outranks the holders'); ``session``/``client`` are
    who caused it; a lease released by a disconnect reads ``released``."""

    device: DeviceId
    change: str
    session: str
    client: str
    lease: LeaseInfo | None = None
    displaced: tuple[str, ...] = ()
    """``preempted``: the sessions whose lease was taken (each is sent this event too)."""
    reason: str | None = None
    """Why the lease changed hands (``preempted``: who outranks whom)."""


class ActionEvent(_HubMessage, tag="action", frozen=True):
    """Who did what: every act / global / app and device action (gesture, key, type,
    orientation.set, app.terminate / clear / install / uninstall), with its outcome — a result, or
    the code and message of the refusal. ``query`` is the semantic query an ``act`` named as
    its target. A device action's ``message`` says what it did (``tap at (540, 1200)``,
    ``APP_TERMINATE com.example``). Never carries a typed value or a secret."""

    device: DeviceId
    session: str
    client: str
    verb: str
    action: str
    target: ActionTarget | None = None
    result: ActionResult | None = None
    error: ErrorCode | None = None
    duration_ms: NonNegInt = 0
    query: SemanticQuery | None = None
    message: str | None = None
    intent: str | None = None
    """The ``intent`` event that announced this action before it was dispatched."""

    value_ref: SecretRef | None = None
    """The ``secret://NAME`` reference an ``act`` typed (the name only; never its value), so
    a recorder writes the name that was used."""


class IntentEvent(_HubMessage, tag="intent", frozen=True):
    """An action about to be dispatched, announced to every session watching the device
    before it happens (then its ``action`` event says how it went, with the same
    ``intent``). ``message`` reads like "agent-2 will CLICK button 'Pay'". ``vetoMs`` > 0:
    the hub waits that long before dispatching, and a person may ``veto`` it meanwhile."""

    device: DeviceId
    intent: str
    session: str
    client: str
    verb: str
    action: str
    message: str
    kind: str | None = None
    target: ActionTarget | None = None
    mutation_class: MutationClass | None = None
    veto_ms: NonNegInt = 0


HubToClient = (
    ResultMessage
    | ErrorMessage
    | ProtocolError
    | SnapshotEvent
    | DeltaEvent
    | PatchEvent
    | DeviceEvent
    | LeaseEvent
    | ActionEvent
    | IntentEvent
    | LogsEvent
    | PictureEvent
)


class HistoryEntry(WireStruct, frozen=True):
    """One past event; ``age_ms`` is how long ago the hub sent it (the hub's clock is not
    the client's, so the age is what travels)."""

    age_ms: NonNegInt
    event: ActionEvent | LeaseEvent | DeviceEvent


class HistoryResult(WireStruct, frozen=True):
    device: DeviceId
    entries: tuple[HistoryEntry, ...]


RESULT_TYPES["history"] = HistoryResult


class JournalEntry(WireStruct, frozen=True):
    """One moment of a device's recorded history: ``event`` for action, refusal, lease and
    device entries; ``generation`` for screen changes; ``screenshot`` (a URL) for screenshots."""

    at_ms: NonNegInt
    kind: JournalKind
    summary: str
    client: str | None = None
    generation: NonNegInt | None = None
    event: ActionEvent | LeaseEvent | DeviceEvent | None = None
    screenshot: str | None = None


class JournalTimelineResult(WireStruct, frozen=True):
    """Newest first; ``truncated``: the window held more than ``limit`` entries."""

    device: DeviceId
    since_ms: NonNegInt
    until_ms: NonNegInt
    entries: tuple[JournalEntry, ...]
    truncated: bool = False


RESULT_TYPES["journal.at"] = JournalScreenResult
RESULT_TYPES["journal.diff"] = JournalDiffResult
RESULT_TYPES["journal.timeline"] = JournalTimelineResult
RESULT_TYPES["journal.when"] = JournalWhenResult
