"""The raw tree: what an on-device agent captures, before any normalization.

One model for every source: the agents' pushes (Android and iOS flavours) and every foreign
dump format the importers read (uiautomator XML, Appium/WDA page source, Maestro, idb, Rico).

Invariants (checked by ``bridge.core.rawtree.validate_raw_tree``, not by decoding):
- ``nodes`` is in pre-order; ``parent`` is the index of an earlier node, or -1 for a root;
- ``handle`` is agent-local and valid only for the capture that produced it;
- flags are what the platform reported; nothing is inferred on the device.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import Bounds, WireStruct
from bridge.wire.enums import Platform, Source

MAX_RAW_NODES = 20_000
MAX_RAW_TEXT = 8192
MAX_CAPTURE_WARNINGS = 8
MAX_WARNING_TEXT = 300

RawText = Annotated[str, msgspec.Meta(max_length=MAX_RAW_TEXT)]
WarningText = Annotated[str, msgspec.Meta(max_length=MAX_WARNING_TEXT)]
CaptureWarnings = Annotated[tuple[WarningText, ...], msgspec.Meta(max_length=MAX_CAPTURE_WARNINGS)]


class RawNode(WireStruct, frozen=True):
    """One raw element. ``class_name`` is the platform class (``android.widget.Button``,
    ``XCUIElementTypeButton``); ``label`` is the content description / accessibility label;
    ``automation_id`` the resource-id / accessibility identifier."""

    handle: int
    parent: int
    window: int = 0
    class_name: RawText | None = None
    text: RawText | None = None
    label: RawText | None = None
    value: RawText | None = None
    hint: RawText | None = None
    automation_id: RawText | None = None
    package: RawText | None = None
    bounds: Bounds | None = None
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    scrollable: bool = False
    editable: bool = False
    password: bool = False
    visible: bool = True
    hittable: bool | None = None
    heading: bool = False
    actions: tuple[str, ...] = ()
    """Action names the platform offers (``click``, ``longClick``, ``setText``,
    ``scrollForward``, ``scrollBackward``, ``focus``, ``select``, ``expand``, ``collapse``,
    ``dismiss``, ``copy``, ``paste``); unknown names are ignored by the hub."""
    traits: tuple[str, ...] = ()
    """iOS accessibility traits, lower-case (``button``, ``header``, ``selected`` …)."""
    collection_rows: int | None = None
    collection_cols: int | None = None
    item_row: int | None = None
    item_col: int | None = None
    range_value: float | None = None
    source: Source | None = None
    """Hub-made nodes only (agents leave it out): ``VISION`` for text the hub read from the
    screenshot (``bridge.vision.overlay``); the normalized node carries it as its ``source``."""
    confidence: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)] | None = None
    """With ``source``: how sure the reading is (0..1)."""


class RawWindow(WireStruct, frozen=True):
    """A window of the capture. ``type``: application, input_method, system,
    accessibility_overlay, split_screen_divider, or unknown."""

    id: int
    type: str = "application"
    layer: int = 0
    package: str | None = None
    title: str | None = None
    active: bool = False
    focused: bool = False
    bounds: Bounds | None = None


class ScreenSize(WireStruct, frozen=True):
    width: int
    height: int


class RawTree(WireStruct, frozen=True):
    """A whole capture. ``capture`` increases by one per capture on one agent connection."""

    capture: int
    platform: Platform
    nodes: Annotated[tuple[RawNode, ...], msgspec.Meta(max_length=MAX_RAW_NODES)]
    windows: tuple[RawWindow, ...] = ()
    package: str | None = None
    focus: int | None = None
    """Handle of the input-focused node, if any."""
    rotation: int = 0
    """0, 90, 180, 270 degrees."""
    screen: ScreenSize | None = None
    secure: bool = False
    """True when a window forbids capture (FLAG_SECURE): screenshots are unavailable."""
    truncated: WarningText | None = None
    """Why the agent itself left nodes out while capturing (a depth or node limit); the hub
    then marks the snapshot truncated, as for its own caps."""
    warnings: CaptureWarnings = ()
    """Capture health the agent reports (e.g. its accessibility cache could not be cleared)."""
