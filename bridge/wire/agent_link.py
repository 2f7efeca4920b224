"""The agent link: hub <-> on-device agent, one tagged union per direction on ``type``.

JSON objects in websocket text frames; agents written in Java and Swift produce them with
their platform's JSON only. The hub is the websocket client; the agent serves. Version
``AGENT_PROTOCOL`` travels in both ``hello`` messages; a mismatch closes the link.

Flow: hub connects with ``Authorization: Bearer <token>`` -> hub sends ``hello`` -> agent
answers ``hello`` then pushes a ``tree`` whenever the screen changes (debounced); the hub sends
commands with an ``id`` and the agent answers each with exactly one ``reply`` of that id.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import NonNegInt, WireStruct
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    AppAction,
    GlobalAction,
    Orientation,
    Platform,
)
from bridge.wire.raw import (
    MAX_RAW_NODES,
    CaptureWarnings,
    RawNode,
    RawTree,
    RawWindow,
    ScreenSize,
    WarningText,
)

AGENT_PROTOCOL = 1
TREE_DELTA = "tree_delta"
"""The capability an agent announces when it can send ``tree_delta`` pushes."""
MAX_APPS = 4096
"""Most installed apps one ``apps`` reply may list."""
MAX_ALERTS = 8
"""Most alerts one ``alert`` reply may list (a screen shows one or two)."""
MAX_ALERT_BUTTONS = 8
AppIdText = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]

CommandId = Annotated[int, msgspec.Meta(ge=0)]


# ---- hub -> agent -------------------------------------------------------------------------


class _HubToAgent(WireStruct, tag_field="type", frozen=True):
    pass


class AgentHubHello(_HubToAgent, tag="hello", frozen=True):
    protocol: int
    hub: str
    token: str | None = None


class CaptureCommand(_HubToAgent, tag="capture", frozen=True):
    """Ask for a fresh capture now; the reply carries ``tree``."""

    id: CommandId


class NodeIdentity(WireStruct, frozen=True):
    """What the hub believes the handle points at; the agent refuses (``IDENTITY_MISMATCH``)
    when the live node differs, so a stale handle never acts on another element."""

    class_name: str | None = None
    automation_id: str | None = None
    text: str | None = None
    label: str | None = None


class NodeActionCommand(_HubToAgent, tag="node_action", frozen=True):
    """Perform ``action`` on the node ``handle`` of capture ``capture``. The agent tries the
    node's accessibility action, then (``allow_ancestor``) a clickable ancestor whose bounds
    contain it, then (``allow_gesture``) a gesture at the centre of its visible bounds, and
    reports the method used."""

    id: CommandId
    capture: int
    handle: int
    action: ActionVerb
    identity: NodeIdentity
    text: str | None = None
    allow_ancestor: bool = True
    allow_gesture: bool = False


class Point(WireStruct, frozen=True):
    x: int
    y: int


class GestureCommand(_HubToAgent, tag="gesture", frozen=True):
    """``kind``: tap, double_tap, long_press (one point) or swipe (two or more points, the
    path in order); ``duration_ms`` is how long a long press is held or a swipe takes (0: the
    agent's default)."""

    id: CommandId
    kind: str
    points: Annotated[tuple[Point, ...], msgspec.Meta(min_length=1, max_length=64)]
    duration_ms: NonNegInt = 0


class GlobalCommand(_HubToAgent, tag="global", frozen=True):
    id: CommandId
    action: GlobalAction


class KeyCommand(_HubToAgent, tag="key", frozen=True):
    """A key press by name: the hub sends a ``KeyName`` (ENTER, DEL, TAB, VOLUME_UP, ...);
    an agent answers UNSUPPORTED for a key its platform cannot press."""

    id: CommandId
    key: str


class TextCommand(_HubToAgent, tag="text", frozen=True):
    """Type text into the focused input (key events)."""

    id: CommandId
    text: str


class AppCommand(_HubToAgent, tag="app", frozen=True):
    id: CommandId
    action: AppAction
    app_id: str | None = None
    uri: str | None = None
    arguments: dict[str, str] | None = None
    """APP_OPEN's launch arguments; sent only to an agent announcing ``launch_arguments``
    (omitted when None, so other agents' strict readers never see the field)."""


class ScreenshotCommand(_HubToAgent, tag="screenshot", frozen=True):
    id: CommandId


class AppsCommand(_HubToAgent, tag="apps", frozen=True):
    """List the installed apps; the reply carries ``apps``."""

    id: CommandId


class TerminateCommand(_HubToAgent, tag="terminate", frozen=True):
    """Stop the app's process (Android ``am force-stop``, iOS ``terminate``)."""

    id: CommandId
    app_id: AppIdText


class ClearCommand(_HubToAgent, tag="clear", frozen=True):
    """Clear the app's stored data (Android ``pm clear``); an agent that cannot (an iPhone)
    replies UNSUPPORTED with its reason."""

    id: CommandId
    app_id: AppIdText


class InstallCommand(_HubToAgent, tag="install", frozen=True):
    """Install the package the hub's device layer staged at ``path`` on the device (never a
    client's path); the reply carries the installed ``appId`` when the agent can tell."""

    id: CommandId
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)]
    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")] | None = None


class UninstallCommand(_HubToAgent, tag="uninstall", frozen=True):
    id: CommandId
    app_id: AppIdText


class OrientationCommand(_HubToAgent, tag="orientation", frozen=True):
    """Rotate the screen to ``orientation`` (and keep it there)."""

    id: CommandId
    orientation: Orientation


class ClipboardCommand(_HubToAgent, tag="clipboard", frozen=True):
    """Read the clipboard, or set it when ``set`` is given."""

    id: CommandId
    set: str | None = None


class AlertCommand(_HubToAgent, tag="alert", frozen=True):
    """The alerts on screen (``list``: the reply carries ``alerts``), or answer the top one:
    ``accept`` / ``dismiss`` / ``press`` (the button whose text is ``button``, case-insensitive).
    No alert on screen is NOT_FOUND; no such button is NOT_FOUND naming the buttons."""

    id: CommandId
    action: Annotated[str, msgspec.Meta(pattern=r"^(list|accept|dismiss|press)$")]
    button: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None


class PermissionCommand(_HubToAgent, tag="permission", frozen=True):
    """``grant`` / ``revoke`` / ``reset`` an app's ``permission`` (a mobridge permission name:
    camera, microphone, location, photos, contacts, calendar, notifications)."""

    id: CommandId
    action: Annotated[str, msgspec.Meta(pattern=r"^(grant|revoke|reset)$")]
    app_id: AppIdText
    permission: Annotated[str, msgspec.Meta(min_length=1, max_length=32)]


class LocationCommand(_HubToAgent, tag="location", frozen=True):
    """Simulate the location at ``latitude``, ``longitude`` (degrees); both absent: stop."""

    id: CommandId
    latitude: Annotated[float, msgspec.Meta(ge=-90.0, le=90.0)] | None = None
    longitude: Annotated[float, msgspec.Meta(ge=-180.0, le=180.0)] | None = None


class NetworkCommand(_HubToAgent, tag="network", frozen=True):
    """Switch airplane mode, Wi-Fi, mobile data (each given: on/off); none given: only read.
    The reply's ``text`` is the state after it (``bridge.wire.device_network.state_text``)."""

    id: CommandId
    airplane: bool | None = None
    wifi: bool | None = None
    data: bool | None = None


class MultiTouchCommand(_HubToAgent, tag="multi_touch", frozen=True):
    """Two fingers around ``center``: ``pinch`` moves them from ``span`` pixels apart to
    ``span * scale`` over ``duration_ms``; ``two_finger_tap`` touches both at once."""

    id: CommandId
    kind: Annotated[str, msgspec.Meta(pattern=r"^(pinch|two_finger_tap)$")]
    center: Point
    scale: Annotated[float, msgspec.Meta(ge=0.1, le=10.0)] = 1.0
    span: Annotated[int, msgspec.Meta(ge=1, le=65_535)] = 400
    duration_ms: NonNegInt = 0


class KeyboardCommand(_HubToAgent, tag="keyboard", frozen=True):
    """``hide`` the on-screen keyboard (the focused input keeps its text)."""

    id: CommandId
    action: Annotated[str, msgspec.Meta(pattern=r"^hide$")] = "hide"


class AgentPing(_HubToAgent, tag="ping", frozen=True):
    id: CommandId


class OptionsCommand(_HubToAgent, tag="options", frozen=True):
    """Link options the hub asks for; sent only to an agent that announced the matching
    capability. ``tree_delta``: the agent may send ``tree_delta`` pushes from now on."""

    id: CommandId
    tree_delta: bool = False


HubToAgent = (
    AgentHubHello
    | CaptureCommand
    | NodeActionCommand
    | GestureCommand
    | GlobalCommand
    | KeyCommand
    | TextCommand
    | AppCommand
    | ScreenshotCommand
    | ClipboardCommand
    | AgentPing
    | OptionsCommand
    | AppsCommand
    | TerminateCommand
    | ClearCommand
    | InstallCommand
    | UninstallCommand
    | OrientationCommand
    | AlertCommand
    | PermissionCommand
    | LocationCommand
    | NetworkCommand
    | MultiTouchCommand
    | KeyboardCommand
)


# ---- agent -> hub -------------------------------------------------------------------------


class _AgentToHub(WireStruct, tag_field="type", frozen=True):
    pass


class AgentInfo(WireStruct, frozen=True):
    name: str
    version: str


class DeviceInfo(WireStruct, frozen=True):
    id: str
    model: str | None = None
    os_version: str | None = None
    width: int | None = None
    height: int | None = None


class AgentHello(_AgentToHub, tag="hello", frozen=True):
    protocol: int
    platform: Platform
    agent: AgentInfo
    device: DeviceInfo
    capabilities: tuple[str, ...] = ()


class TreePush(_AgentToHub, tag="tree", frozen=True):
    """A capture pushed because the screen changed. ``reason``: initial, event, timer.
    ``stable`` is true when the agent saw no event for its quiet period before capturing."""

    reason: str
    stable: bool
    tree: RawTree
    quiet_ms: NonNegInt = 0


class RawMeta(WireStruct, frozen=True):
    """A capture's tree-level fields (``RawTree`` without ``capture``, ``platform``, ``nodes``)."""

    windows: tuple[RawWindow, ...] = ()
    package: str | None = None
    focus: int | None = None
    rotation: int = 0
    screen: ScreenSize | None = None
    secure: bool = False
    truncated: WarningText | None = None
    warnings: CaptureWarnings = ()


class TreeDelta(_AgentToHub, tag="tree_delta", frozen=True):
    """A capture sent as its difference from the previous tree the agent sent on this link
    (``base``: a push, a delta's result or a capture reply). Keyed by handles, which the agent
    keeps for the same element across captures: ``remove`` lists every removed node (whole
    subtrees), ``upsert`` every new or changed node in full, its ``parent`` being the parent's
    handle (-1 for a root), ``order`` the complete new child list of every parent whose list
    changed (key: the parent's handle in decimal, ``""`` for the roots), ``meta`` the new
    tree-level fields when any of them changed (absent: unchanged). Only sent after the hub
    enabled it (``options``)."""

    reason: str
    stable: bool
    base: int
    capture: int
    remove: Annotated[tuple[int, ...], msgspec.Meta(max_length=MAX_RAW_NODES)] = ()
    upsert: Annotated[tuple[RawNode, ...], msgspec.Meta(max_length=MAX_RAW_NODES)] = ()
    order: dict[str, tuple[int, ...]] = msgspec.field(default_factory=dict)
    meta: RawMeta | None = None
    quiet_ms: NonNegInt = 0


class InstalledApp(WireStruct, frozen=True):
    """One installed app: its id (Android package, iOS bundle id), its display name when the
    platform tells it, and whether it is part of the system image."""

    app_id: AppIdText
    name: Annotated[str, msgspec.Meta(max_length=256)] | None = None
    system: bool = False


class AlertInfo(WireStruct, frozen=True):
    """One alert on screen: its title, message and buttons in screen order. ``system`` is
    true for an alert the system shows (a permission request) rather than the app."""

    title: Annotated[str, msgspec.Meta(max_length=1024)]
    buttons: Annotated[
        tuple[Annotated[str, msgspec.Meta(min_length=1, max_length=128)], ...],
        msgspec.Meta(max_length=MAX_ALERT_BUTTONS),
    ] = ()
    message: Annotated[str, msgspec.Meta(max_length=1024)] | None = None
    system: bool = False


class Reply(_AgentToHub, tag="reply", frozen=True):
    """The one answer to command ``id``. ``ok`` false carries ``code`` (NOT_FOUND,
    IDENTITY_MISMATCH, UNSUPPORTED, FAILED, SECURE, BAD_COMMAND, NOT_VISIBLE) and
    ``message``. ``apps`` answers ``apps``; ``app_id`` names what ``install`` installed;
    ``alerts`` answers ``alert`` ``list``."""

    id: CommandId
    ok: bool
    method: ActionMethod | None = None
    code: str | None = None
    message: str | None = None
    tree: RawTree | None = None
    text: str | None = None
    png_base64: str | None = None
    apps: Annotated[tuple[InstalledApp, ...], msgspec.Meta(max_length=MAX_APPS)] | None = None
    app_id: AppIdText | None = None
    alerts: Annotated[tuple[AlertInfo, ...], msgspec.Meta(max_length=MAX_ALERTS)] | None = None


class AgentStatus(_AgentToHub, tag="status", frozen=True):
    """Health report. ``state``: ready, degraded (e.g. UiAutomation lost), or stopping."""

    state: str
    reason: str | None = None


AgentToHub = AgentHello | TreePush | TreeDelta | Reply | AgentStatus
