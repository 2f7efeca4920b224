"""Arguments and results of the device tools (``bridge.mcp.device_tools``): touches and swipes
at screen coordinates, buttons and keys, typing into the focused input, the display, the
orientation and the installed apps. Same rules as ``bridge.mcp.schemas``: strict, camelCase,
every size capped, the hub's own wire types embedded unchanged."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

import msgspec

from bridge.mcp.schemas import ConfirmAnswer, DeviceArg, McpStruct
from bridge.wire.agent_link import InstalledApp
from bridge.wire.device_control import (
    APP_ID_PATTERN,
    MAX_COORDINATE,
    MAX_GESTURE_MS,
    MAX_GESTURE_POINTS,
    PACKAGE_FILE_PATTERN,
)
from bridge.wire.enums import GlobalAction, KeyName, Orientation

Coord = Annotated[int, msgspec.Meta(ge=0, le=MAX_COORDINATE)]
Millis = Annotated[int, msgspec.Meta(ge=0, le=MAX_GESTURE_MS)]
AppIdArg = Annotated[
    str,
    msgspec.Meta(
        pattern=APP_ID_PATTERN,
        max_length=255,
        description="Android package or iOS bundle id (see the apps tool)",
    ),
]


PressButton = enum.Enum(  # type: ignore[misc]  # members from GlobalAction and KeyName
    "PressButton",
    {name: name for name in [*GlobalAction.__members__, *KeyName.__members__]},
)
"""The press tool's buttons: the hub's global actions (BACK, HOME, RECENTS,
NOTIFICATION_SHADE, sent as ``global``) and every other named key (sent as ``key``), built
from ``GlobalAction`` and ``KeyName`` so a new key is a new button."""


class XY(McpStruct, frozen=True):
    x: Coord
    y: Coord


class TouchArgs(McpStruct, frozen=True):
    """A tap, double tap or long press at screen coordinates (device pixels)."""

    x: Coord
    y: Coord
    kind: Literal["tap", "double_tap", "long_press"] = "tap"
    device: DeviceArg | None = None
    duration_ms: Millis | None = None
    """long_press only: how long to hold (default 800)."""
    expect: dict[str, Any] | None = None
    confirm: ConfirmAnswer | None = None


class SwipeArgs(McpStruct, frozen=True):
    """Either ``direction`` (the finger's way, from ``x``/``y`` or the screen's centre, over
    ``distance`` pixels or 30% of the screen) or ``points`` (the path, 2 to 64 points)."""

    direction: Literal["up", "down", "left", "right"] | None = None
    x: Coord | None = None
    y: Coord | None = None
    distance: Annotated[int, msgspec.Meta(ge=1, le=MAX_COORDINATE)] | None = None
    points: (
        Annotated[tuple[XY, ...], msgspec.Meta(min_length=2, max_length=MAX_GESTURE_POINTS)] | None
    ) = None
    duration_ms: Millis | None = None
    device: DeviceArg | None = None
    expect: dict[str, Any] | None = None
    confirm: ConfirmAnswer | None = None


class PressArgs(McpStruct, frozen=True):
    button: PressButton
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class TypeArgs(McpStruct, frozen=True):
    """Text into the focused input: ``text``, or ``valueRef`` (``secret://name``)."""

    text: Annotated[str, msgspec.Meta(max_length=16_384)] | None = None
    value_ref: Annotated[str, msgspec.Meta(pattern=r"^secret://", max_length=256)] | None = None
    submit: bool = False
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class OrientationArgs(McpStruct, frozen=True):
    """Without ``orientation`` the tool reads the display (size, orientation)."""

    orientation: Orientation | None = None
    device: DeviceArg | None = None


class DeviceOnlyArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None


class AppArgs(McpStruct, frozen=True):
    """list reads the installed apps (a read: open to observers); open / bring_to_front /
    terminate / uninstall take ``appId``; open_url takes ``url``; install takes ``package``
    (a file name in the hub's install directory) or ``path`` (a file on the MCP server's
    machine, streamed to the hub)."""

    action: Literal[
        "list", "open", "close", "bring_to_front", "open_url", "terminate", "install", "uninstall"
    ]
    device: DeviceArg | None = None
    app_id: AppIdArg | None = None
    url: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)] | None = None
    package: Annotated[str, msgspec.Meta(pattern=PACKAGE_FILE_PATTERN, max_length=128)] | None = (
        None
    )
    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")] | None = None
    path: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    confirm: ConfirmAnswer | None = None


class DisplayOutput(McpStruct, frozen=True):
    device: str
    width: int
    height: int
    orientation: Orientation
    generation: int


class AppsOutput(McpStruct, frozen=True):
    device: str
    apps: tuple[InstalledApp, ...]
    foreground: str | None = None
