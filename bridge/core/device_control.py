"""Rules for actions on the device itself (gestures at points, keys, typing, orientation, app
lifecycle): where the screen is, what a point lands on, how mutating each action is, and which
apps are never stopped or removed. Pure functions; the hub applies them under the device lock.

Rules:
- the screen is the union of the root nodes' bounds of the newest full snapshot (every window
  the capture shows); a point is on it when ``left <= x < right`` and ``top <= y < bottom``;
- a coordinate gesture has no semantic target, but it is classified by what it lands on, so a
  tap on a "Delete account" button at its coordinates needs the same confirmation as a CLICK
  on it: the node is the last node in document order (later windows and deeper nodes come
  later) whose bounds hold the point and that can be acted on (clickable, or offering any
  action). A swipe is classified by its first point. Nothing actionable there: SIDE_EFFECT;
- keys: ENTER and DPAD_CENTER activate the focused node (classified as a CLICK on it, else
  SIDE_EFFECT); every other key only navigates, edits or changes the volume (REVERSIBLE);
- typing into the focused input is REVERSIBLE (like SET_TEXT); with ``submit`` it is the
  ENTER press's class when that is higher;
- orientation changes are REVERSIBLE; installing is EXTERNAL_SIDE_EFFECT (it adds code to
  the device) and always needs the user's word; stopping an app's process or uninstalling it
  is DESTRUCTIVE (the reference classes force-stop so: its state is lost);
- ``critical_app`` names the apps no client may stop or uninstall (the system, its UI, the
  phone, the launcher and mobridge's own agent); the refusal cannot be answered.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.core.mutation import MutationVerdict, assess_action, most_mutating
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionVerb, GestureKind, KeyName, MutationClass
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

ACTIVATING_KEYS = frozenset({KeyName.ENTER, KeyName.DPAD_CENTER})

CRITICAL_APPS: frozenset[str] = frozenset(
    {
        "android",
        "com.android.systemui",
        "com.android.phone",
        "com.android.settings",
        "com.android.shell",
        "com.android.launcher3",
        "com.google.android.apps.nexuslauncher",
        "com.google.android.gms",
        "com.android.vending",
        "com.apple.springboard",
        "com.apple.Preferences",
        "com.apple.mobilephone",
        "com.apple.backboardd",
        "dev.mobridge.agent",
        "dev.mobridge.agent.test",
        "dev.mobridge.launcher",
    }
)
CRITICAL_PREFIXES: tuple[str, ...] = ("dev.mobridge.agent", "com.apple.springboard")


def screen_rect(snapshot: ScreenSnapshot) -> Bounds | None:
    """The union of the root nodes' bounds (None when no root has bounds)."""
    rect: Bounds | None = None
    for node in snapshot.nodes:
        if node.parent_id is not None or node.bounds is None:
            continue
        left, top, right, bottom = node.bounds
        if rect is None:
            rect = node.bounds
        else:
            rect = (
                min(rect[0], left),
                min(rect[1], top),
                max(rect[2], right),
                max(rect[3], bottom),
            )
    return rect


def on_screen(rect: Bounds, x: int, y: int) -> bool:
    left, top, right, bottom = rect
    return left <= x < right and top <= y < bottom


def off_screen(points: Sequence[tuple[int, int]], rect: Bounds) -> tuple[int, int] | None:
    """The first point that is not on the screen, or None."""
    for x, y in points:
        if not on_screen(rect, x, y):
            return (x, y)
    return None


def _actionable(node: SemanticNode) -> bool:
    return bool(node.actions) or node.effective_state.clickable


def node_at(snapshot: ScreenSnapshot, x: int, y: int) -> SemanticNode | None:
    """The actionable node a touch at (x, y) lands on (module rules), or None."""
    found: SemanticNode | None = None
    for node in snapshot.nodes:
        if node.bounds is not None and on_screen(node.bounds, x, y) and _actionable(node):
            found = node
    return found


def focused_node(snapshot: ScreenSnapshot) -> SemanticNode | None:
    """The node with the input focus (the last one, should a capture report several)."""
    found: SemanticNode | None = None
    for node in snapshot.nodes:
        if node.effective_state.focused:
            found = node
    return found


def _name(node: SemanticNode) -> str | None:
    return node.label or node.text


def assess_gesture(kind: GestureKind, node: SemanticNode | None) -> MutationVerdict:
    """A gesture at a point, by the node it lands on (module rules)."""
    if node is None:
        return MutationVerdict(MutationClass.SIDE_EFFECT, financial=False)
    verb = ActionVerb.LONG_CLICK if kind is GestureKind.LONG_PRESS else ActionVerb.CLICK
    verdict = assess_action(verb, node.role, _name(node), False)
    if kind is GestureKind.SWIPE:
        # A swipe can act too (swipe to delete, to pay): never below SIDE_EFFECT.
        return MutationVerdict(
            most_mutating(verdict.mutation_class, MutationClass.SIDE_EFFECT), verdict.financial
        )
    return verdict


def assess_key(key: KeyName, focused: SemanticNode | None) -> MutationVerdict:
    if key not in ACTIVATING_KEYS:
        return MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if focused is None:
        return MutationVerdict(MutationClass.SIDE_EFFECT, financial=False)
    verdict = assess_action(ActionVerb.CLICK, focused.role, _name(focused), False)
    return MutationVerdict(
        most_mutating(verdict.mutation_class, MutationClass.SIDE_EFFECT), verdict.financial
    )


def assess_typing(submit: bool, focused: SemanticNode | None) -> MutationVerdict:
    typing = MutationVerdict(MutationClass.REVERSIBLE, financial=False)
    if not submit:
        return typing
    return assess_key(KeyName.ENTER, focused)


def critical_app(app_id: str) -> str | None:
    """Why ``app_id`` may never be stopped or uninstalled through the hub, or None."""
    if app_id in CRITICAL_APPS or any(app_id.startswith(p) for p in CRITICAL_PREFIXES):
        return (
            f"{app_id} is on the hub's critical-app list (the system, its UI, the launcher or "
            "mobridge's own agent): it is never stopped or uninstalled"
        )
    return None
