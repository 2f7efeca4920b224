"""Client requests for the device capabilities every peer has (issue 21): system alerts,
app permissions, the simulated location, multi-touch (pinch, two-finger tap), the clipboard
and hiding the keyboard — with their results and the parts the agent link shares.

Actions (answered with the reference ActionResult; they run through the hub's device-action
pipeline: controller role, lease, the device's FIFO, cancel, observation, ``action`` events):
``alert.respond``, ``permission``, ``location.set``, ``pinch``, ``two_finger_tap``,
``clipboard.set``, ``keyboard.hide``. Reads (an observer may send them; no lease):
``alert.list`` and ``clipboard.get``.

Caps enforced by decoding (a value outside them is INVALID_PARAMS): a latitude in
[-90, 90] and a longitude in [-180, 180]; a pinch scale in [``MIN_SCALE``, ``MAX_SCALE``];
a button text of at most 128 characters; clipboard text of at most 16 KiB; a permission one
of ``Permission``. A ``secret://`` clipboard value is resolved by the hub at dispatch and
never appears in an event, a log or a result.
"""

from __future__ import annotations

import enum
from typing import Annotated

import msgspec

from bridge.wire.action import MAX_TEXT_VALUE, ActionResult, SecretRef
from bridge.wire.agent_link import MAX_ALERTS, AlertInfo
from bridge.wire.base import DeviceId, WireStruct
from bridge.wire.device_control import AppId, ScreenPoint
from bridge.wire.query import SemanticQuery
from bridge.wire.request_parts import Confirm, Request

MIN_SCALE = 0.1
MAX_SCALE = 10.0
ButtonText = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Latitude = Annotated[float, msgspec.Meta(ge=-90.0, le=90.0)]
Longitude = Annotated[float, msgspec.Meta(ge=-180.0, le=180.0)]
Scale = Annotated[float, msgspec.Meta(ge=MIN_SCALE, le=MAX_SCALE)]


class AlertChoice(enum.Enum):
    """How to answer an alert: ``accept`` presses its affirmative button (OK, Allow),
    ``dismiss`` its negative one (Cancel, Don't Allow)."""

    ACCEPT = "accept"
    DISMISS = "dismiss"


class PermissionAction(enum.Enum):
    GRANT = "grant"
    REVOKE = "revoke"
    RESET = "reset"
    """Back to "not asked yet": the app asks again with its system alert."""


class Permission(enum.Enum):
    """The permissions mobridge can name on both platforms (Android runtime permission;
    ``xcrun simctl privacy`` service)."""

    CAMERA = "camera"
    MICROPHONE = "microphone"
    LOCATION = "location"
    PHOTOS = "photos"
    CONTACTS = "contacts"
    CALENDAR = "calendar"
    NOTIFICATIONS = "notifications"


# ---- requests -----------------------------------------------------------------------------


class AlertList(Request, tag="alert.list", frozen=True):
    """The alerts on screen now (a read)."""

    device: DeviceId


class AlertRespond(Request, tag="alert.respond", frozen=True):
    """Answer the alert on screen: ``choice`` (accept / dismiss) or ``button`` (its text,
    exact, case-insensitive), exactly one of them. No alert is ACTION_REJECTED."""

    device: DeviceId
    choice: AlertChoice | None = None
    button: ButtonText | None = None
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if (self.choice is None) == (self.button is None):
            raise ValueError("give exactly one of choice and button")


class PermissionSet(Request, tag="permission", frozen=True):
    """Grant, revoke or reset ``permission`` of ``app_id`` (Android ``pm grant``/``revoke``,
    iOS Simulator ``simctl privacy``). A grant needs the user's confirmation; an iPhone
    cannot do any of them (ACTION_UNSUPPORTED: answer the app's alert instead)."""

    device: DeviceId
    action: PermissionAction
    app_id: AppId
    permission: Permission
    confirm: Confirm | None = None


class LocationSet(Request, tag="location.set", frozen=True):
    """Simulate the device's location at ``latitude``, ``longitude`` (degrees, WGS 84), or
    stop simulating it (``clear``): exactly one of the pair and ``clear``."""

    device: DeviceId
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    clear: bool = False

    def __post_init__(self) -> None:
        pair = (self.latitude is None, self.longitude is None)
        if pair == (True, True) and not self.clear:
            raise ValueError("give latitude and longitude, or clear")
        if pair[0] != pair[1]:
            raise ValueError("give both latitude and longitude")
        if self.clear and pair != (True, True):
            raise ValueError("clear takes no latitude or longitude")


class Pinch(Request, tag="pinch", frozen=True):
    """Two fingers pinch on an element (``query``: exactly one match) or at a point (``at``),
    at most one of them (neither: the screen's centre). ``scale`` above 1 spreads the fingers
    apart (zoom in), below 1 brings them together (zoom out)."""

    device: DeviceId
    scale: Scale
    query: SemanticQuery | None = None
    at: ScreenPoint | None = None
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if self.query is not None and self.at is not None:
            raise ValueError("give at most one of query and at")


class TwoFingerTap(Request, tag="two_finger_tap", frozen=True):
    """Tap with two fingers at once on an element (``query``) or a point (``at``)."""

    device: DeviceId
    query: SemanticQuery | None = None
    at: ScreenPoint | None = None
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if self.query is not None and self.at is not None:
            raise ValueError("give at most one of query and at")


class ClipboardGet(Request, tag="clipboard.get", frozen=True):
    """The device's clipboard text (a read; a secret the hub typed reads back masked)."""

    device: DeviceId


class ClipboardSet(Request, tag="clipboard.set", frozen=True):
    """Put ``text``, or the secret ``value_ref`` names (resolved by the hub at dispatch),
    on the device's clipboard: exactly one of them."""

    device: DeviceId
    text: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_VALUE)] | None = None
    value_ref: SecretRef | None = None
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.value_ref is None):
            raise ValueError("give exactly one of text and valueRef")


class KeyboardHide(Request, tag="keyboard.hide", frozen=True):
    """Hide the on-screen keyboard (the focused input keeps its text)."""

    device: DeviceId


CapabilityRequest = (
    AlertList
    | AlertRespond
    | PermissionSet
    | LocationSet
    | Pinch
    | TwoFingerTap
    | ClipboardGet
    | ClipboardSet
    | KeyboardHide
)
CapabilityAction = (
    AlertRespond | PermissionSet | LocationSet | Pinch | TwoFingerTap | ClipboardSet | KeyboardHide
)
CAPABILITY_ACTIONS = (
    AlertRespond,
    PermissionSet,
    LocationSet,
    Pinch,
    TwoFingerTap,
    ClipboardSet,
    KeyboardHide,
)
"""The requests answered with an ActionResult."""


# ---- results ------------------------------------------------------------------------------


class AlertListResult(WireStruct, frozen=True):
    device: DeviceId
    alerts: Annotated[tuple[AlertInfo, ...], msgspec.Meta(max_length=MAX_ALERTS)] = ()


class ClipboardResult(WireStruct, frozen=True):
    device: DeviceId
    text: str


CAPABILITY_RESULTS: dict[str, type[WireStruct]] = {
    "alert.list": AlertListResult,
    "alert.respond": ActionResult,
    "permission": ActionResult,
    "location.set": ActionResult,
    "pinch": ActionResult,
    "two_finger_tap": ActionResult,
    "clipboard.get": ClipboardResult,
    "clipboard.set": ActionResult,
    "keyboard.hide": ActionResult,
}
"""The result body of each request type (merged into ``client_protocol.RESULT_TYPES``)."""
