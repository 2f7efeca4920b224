"""What a snapshot says about its capture as a whole: context, package, window, orientation,
screen markers, and the raw tree's invariants. The caller passes ids, time and the device in
(``SnapshotContext``); nothing here reads a clock."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.core.screens import node_screen_id
from bridge.wire.base import PACKAGE_PATTERN
from bridge.wire.enums import Orientation
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawTree

_PACKAGE_RE = re.compile(PACKAGE_PATTERN)


@dataclass(frozen=True, slots=True)
class SnapshotContext:
    """What the caller knows and the core must not invent: ids, time, device."""

    device_id: str
    snapshot_id: str
    timestamp_ms: int


def validate_raw_tree(raw: RawTree) -> str | None:
    """A reason when the raw tree breaks its invariants (pre-order, parent indexes)."""
    if not raw.nodes:
        return "the tree has no nodes"
    for i, node in enumerate(raw.nodes):
        if node.parent >= i or node.parent < -1:
            return f"node {i} has parent {node.parent}; parents must be earlier nodes or -1"
    # Degenerate bounds (right < left: failed WDA snapshots) are real; tolerated, never rejected.
    return None


def package_name(raw: RawTree) -> tuple[str, str | None]:
    """(packageName valid for the reference pattern, appId as reported)."""
    app = raw.package
    if not app:
        for window in raw.windows:
            if window.type == "application" and window.package:
                app = window.package
                break
    if not app:
        app = next((n.package for n in raw.nodes if n.package), None)
    if not app:
        return "unknown.app", None
    if _PACKAGE_RE.match(app):
        return app, app
    parts = [re.sub(r"[^A-Za-z0-9_]", "_", p) or "x" for p in app.split(".")]
    parts = [p if p[0].isalpha() else "x" + p for p in parts]
    if len(parts) < 2:
        parts.insert(0, "app")
    return ".".join(parts), app


def orientation_of(raw: RawTree) -> Orientation:
    if raw.rotation in (90, 270):
        return Orientation.LANDSCAPE
    if raw.screen is not None and raw.screen.width > raw.screen.height:
        return Orientation.LANDSCAPE
    return Orientation.PORTRAIT


def main_window_id(raw: RawTree) -> int:
    apps = [w for w in raw.windows if w.type == "application"]
    for window in apps:
        if window.active or window.focused:
            return window.id
    if apps:
        return apps[0].id
    return raw.nodes[0].window if raw.nodes else 0


def screen_markers(nodes: Sequence[SemanticNode]) -> tuple[str, ...]:
    """Screen ids of every ``__screen_<id>`` marker in document order (duplicates once);
    the one definition of a marker lives in ``bridge.core.screens``."""
    return tuple(dict.fromkeys(sid for n in nodes if (sid := node_screen_id(n)) is not None))
