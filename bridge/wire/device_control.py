"""Client requests that act on the device itself rather than on a node, and their results.

``gesture`` (tap, double tap, long press, swipe at screen points), ``key`` (a named key),
``type`` (text into the focused input), ``orientation.set``, ``app.terminate``, ``app.clear``,
``app.install``, ``app.uninstall`` are actions: they run through the hub's action pipeline
(controller role, lease, the device's FIFO, cancel, observation, ``action`` events) and are
answered with the reference ActionResult. ``display.get`` and ``apps.list`` are reads (an
observer may send them).

Caps enforced by decoding (a value outside them is INVALID_PARAMS): 1 to 64 points per
gesture, coordinates 0 to 65,535 (the hub also refuses points outside the screen), gesture
durations at most 10,000 ms, typed text at most 16 KiB, package file names of the hub's
install directory only (never a path).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.action import MAX_TEXT_VALUE, SecretRef, Verify
from bridge.wire.agent_link import MAX_APPS, InstalledApp
from bridge.wire.base import DeviceId, NonNegInt, WireStruct
from bridge.wire.enums import GestureKind, KeyName, Orientation
from bridge.wire.request_parts import Confirm, Request

MAX_GESTURE_POINTS = 64
MAX_GESTURE_MS = 10_000
MAX_COORDINATE = 65_535
APP_ID_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$"
"""An Android package or an iOS bundle id (hyphens allowed, at least one dot)."""
PACKAGE_FILE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*(?!\n)$"
"""A bare file name (no directory, no ``..``, no leading dot)."""

Coordinate = Annotated[int, msgspec.Meta(ge=0, le=MAX_COORDINATE)]
AppId = Annotated[str, msgspec.Meta(pattern=APP_ID_PATTERN, max_length=255)]
GestureMs = Annotated[int, msgspec.Meta(ge=0, le=MAX_GESTURE_MS)]


class ScreenPoint(WireStruct, frozen=True):
    """A point in device pixels, ``(0, 0)`` the top left of the screen as captured now."""

    x: Coordinate
    y: Coordinate


class Gesture(Request, tag="gesture", frozen=True):
    """A gesture at screen coordinates, dispatched as a gesture with no semantic target.

    ``tap``, ``double_tap`` and ``long_press`` take one point, ``swipe`` 2 to 64 (its path, in
    order). ``duration_ms``: how long a long press is held (default 800) or a swipe takes
    (default 300); a tap has none. ``verify`` may name a condition the screen should meet
    (policies that need a target node are refused). ``confirm`` answers an objection."""

    device: DeviceId
    kind: GestureKind
    points: Annotated[
        tuple[ScreenPoint, ...], msgspec.Meta(min_length=1, max_length=MAX_GESTURE_POINTS)
    ]
    duration_ms: GestureMs | None = None
    verify: Verify | None = None
    confirm: Confirm | None = None


class KeyPress(Request, tag="key", frozen=True):
    """Press one named key (ENTER, DEL, VOLUME_UP, DPAD_DOWN, ...)."""

    device: DeviceId
    key: KeyName
    confirm: Confirm | None = None


class TypeText(Request, tag="type", frozen=True):
    """Type into the input that has the focus (no target): ``text``, or ``value_ref`` (a
    ``secret://`` reference the hub resolves at dispatch), exactly one of them. ``submit``
    presses ENTER afterwards."""

    device: DeviceId
    text: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_VALUE)] | None = None
    value_ref: SecretRef | None = None
    submit: bool = False
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.value_ref is None):
            raise ValueError("give exactly one of text and valueRef")


class OrientationSet(Request, tag="orientation.set", frozen=True):
    device: DeviceId
    orientation: Orientation


class AppTerminate(Request, tag="app.terminate", frozen=True):
    """Stop an app's process (a force-stop: DESTRUCTIVE, needs the user's confirmation)."""

    device: DeviceId
    app_id: AppId
    confirm: Confirm | None = None


class AppClear(Request, tag="app.clear", frozen=True):
    """Clear an app's stored data (Android ``pm clear``: DESTRUCTIVE, needs the user's
    confirmation); the app is stopped and left closed."""

    device: DeviceId
    app_id: AppId
    confirm: Confirm | None = None


class AppInstall(Request, tag="app.install", frozen=True):
    """Install ``package``, a file in the hub's install directory (named by the operator with
    ``--install-dir``; without one, installing is disabled). ``sha256``, when given, must be
    the file's digest. Or ``upload``: a package the client streamed (``app.upload``)."""

    device: DeviceId
    package: Annotated[str, msgspec.Meta(pattern=PACKAGE_FILE_PATTERN, max_length=128)] | None = (
        None
    )
    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}(?!\n)$")] | None = None
    confirm: Confirm | None = None
    upload: Annotated[str, msgspec.Meta(pattern=r"^u_[0-9a-zA-Z]{1,32}(?!\n)$")] | None = None
    """A complete ``app.upload`` of this session (``bridge.wire.device_media``), instead of
    ``package``: exactly one of the two."""

    def __post_init__(self) -> None:
        if (self.package is None) == (self.upload is None):
            raise ValueError("give exactly one of package and upload")


class AppUninstall(Request, tag="app.uninstall", frozen=True):
    device: DeviceId
    app_id: AppId
    confirm: Confirm | None = None


class AppsList(Request, tag="apps.list", frozen=True):
    device: DeviceId


class DisplayGet(Request, tag="display.get", frozen=True):
    device: DeviceId


DeviceControlRequest = (
    Gesture
    | KeyPress
    | TypeText
    | OrientationSet
    | AppTerminate
    | AppClear
    | AppInstall
    | AppUninstall
    | AppsList
    | DisplayGet
)
DEVICE_ACTIONS = (
    Gesture,
    KeyPress,
    TypeText,
    OrientationSet,
    AppTerminate,
    AppClear,
    AppInstall,
    AppUninstall,
)
"""The requests answered with an ActionResult."""


# ---- results ------------------------------------------------------------------------------


class AppsListResult(WireStruct, frozen=True):
    """The installed apps as the device reports them; ``foreground`` is the app of the
    newest capture."""

    device: DeviceId
    apps: Annotated[tuple[InstalledApp, ...], msgspec.Meta(max_length=MAX_APPS)]
    foreground: str | None = None


class DisplayResult(WireStruct, frozen=True):
    """The screen as the newest capture shows it: its size in device pixels (the union of its
    windows' bounds) and orientation, at ``generation``."""

    device: DeviceId
    width: NonNegInt
    height: NonNegInt
    orientation: Orientation
    generation: NonNegInt
