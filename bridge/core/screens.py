"""Screen identity from marker nodes, and the diagnosis of a failed screen assertion.

A *marker* is a node whose ``automation_id`` or ``resource_id`` is ``__screen_<screenId>``; an
Android resource id may carry a package (``com.app:id/__screen_home``). The screen id is the
text after the first prefix, verbatim (a doubled ``__screen___screen_x`` yields ``__screen_x``:
the generator bug the reference measured stays visible instead of being papered over).

"Screen X is displayed" (reference ``predicates``):

- Android: X's marker is in the tree. Android drops covered windows from the accessibility
  tree, so presence is the measured predicate.
- iOS: X's marker exists and is hittable, or no *other* screen's marker is hittable (an app
  overlay without a marker covers markers without being a screen). The snapshot carries no
  ``isHittable``; ``is_hittable`` approximates it: enabled, bounds present and not inverted
  and not the all-zero rectangle of an unlaid-out element, and the bounds' centre (the hit
  point) inside the viewport. Zero-area bounds are accepted because the measured marker is a
  0.5 pt leaf that XCUITest reports hittable. Occlusion (a sheet over the presenter) is not
  visible in a snapshot, so a covered presenter still counts as hittable here.

Several markers at once is legal (split panes, tab hosts); results keep document order and
list each screen once.

Diagnosis classes (``diagnose_screen``), checked in this order:

``children-unresolvable``
    the expected screen IS displayed but some of ``required_ids`` (the screen's own element
    identifiers) resolve to no node: an accessibility regression hides the children.
``marker-not-displayed``
    the expected marker exists but fails the platform predicate (iOS: not hittable while another
    screen's marker is): a transition still animating, or the screen is covered.
``marker-absent``
    no marker of any screen in the tree: a production build, stale generated code or a stale
    library pin. Only meaningful once the screen-transition timeout has expired (a suspending
    navigation legitimately shows no marker for a while); the caller decides when to ask.
``previous-screen-only``
    other screens' markers are present, the expected one is not: navigation did not happen
    (``navigated_elsewhere`` tells apart "still on the previous screens" from "on a screen that
    was not displayed before", which the reference drivers report under the same class).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from bridge.core.query import resource_id_matches, root_viewport
from bridge.core.tree import NodeTree
from bridge.wire.base import Bounds
from bridge.wire.enums import Platform
from bridge.wire.node import SemanticNode

MARKER_PREFIX: Final = "__screen_"
SCREEN_TRANSITION_TIMEOUT_MS: Final = 10_000
DEFAULT_WAIT_TIMEOUT_MS: Final = 5_000

DiagnosisClass = Literal[
    "marker-absent", "previous-screen-only", "marker-not-displayed", "children-unresolvable"
]


@dataclass(frozen=True, slots=True)
class ScreenMarker:
    screen_id: str
    node: SemanticNode


@dataclass(frozen=True, slots=True)
class ScreenDiagnosis:
    cause: DiagnosisClass
    expected: str
    present: tuple[str, ...]
    """Screens whose marker is in the tree, document order."""
    displayed: tuple[str, ...]
    missing_ids: tuple[str, ...] = ()
    """``children-unresolvable`` only: required ids that resolve to no node."""
    navigated_elsewhere: bool = False
    """``previous-screen-only`` only: some present screen is not among the previous ones."""

    @property
    def message(self) -> str:
        """One line, prefixed by the class, naming the likely cause."""
        match self.cause:
            case "children-unresolvable":
                return (
                    f"children-unresolvable: '{self.expected}' is displayed but its elements "
                    f"{list(self.missing_ids)} cannot be resolved (accessibility regression)"
                )
            case "marker-not-displayed":
                return (
                    f"marker-not-displayed: '{self.expected}' exists but is not displayed "
                    f"(transition still animating, or it is covered); displayed screens are "
                    f"{list(self.displayed)}"
                )
            case "marker-absent":
                return (
                    "marker-absent: no screen marker anywhere (a production build, stale "
                    "generated code or a stale library pin; markers are development-only)"
                )
            case "previous-screen-only":
                where = "a different screen" if self.navigated_elsewhere else "the previous"
                return (
                    f"previous-screen-only: '{self.expected}' is not displayed; {where} "
                    f"is showing: {list(self.present)}"
                )


def marker_screen_id(identifier: str | None) -> str | None:
    """The screen id a marker identifier names, or None when it is not a marker. (An
    identifier without the prefix anywhere is no marker: asked of every node's ids, that
    test alone answers almost every time.)"""
    if not identifier or MARKER_PREFIX not in identifier:
        return None
    short = identifier.rsplit(":id/", 1)[1] if ":id/" in identifier else identifier
    if not short.startswith(MARKER_PREFIX) or len(short) == len(MARKER_PREFIX):
        return None
    return short[len(MARKER_PREFIX) :]


def node_screen_id(node: SemanticNode) -> str | None:
    return marker_screen_id(node.automation_id) or marker_screen_id(node.resource_id)


def find_markers(tree: NodeTree) -> tuple[ScreenMarker, ...]:
    """Every marker node, document order (a screen may have several: responsive branches)."""
    return tuple(ScreenMarker(sid, n) for n in tree.nodes if (sid := node_screen_id(n)) is not None)


def _unique(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def present_screens(tree: NodeTree) -> tuple[str, ...]:
    """Screens whose marker is anywhere in the tree (document order, each once)."""
    return _unique(m.screen_id for m in find_markers(tree))


def is_hittable(node: SemanticNode, viewport: Bounds | None) -> bool:
    """Approximation of XCUIElement.isHittable from a snapshot node (see module docstring)."""
    b = node.bounds
    if b is None or not node.effective_state.enabled:
        return False
    left, top, right, bottom = b
    if right < left or bottom < top or b == (0, 0, 0, 0):
        return False
    if viewport is None:
        return True
    vl, vt, vr, vb = viewport
    cx2, cy2 = left + right, top + bottom  # the centre, doubled to stay in integers
    return 2 * vl <= cx2 < 2 * vr and 2 * vt <= cy2 < 2 * vb


def displayed_screens(
    tree: NodeTree, platform: Platform, *, viewport: Bounds | None = None
) -> tuple[str, ...]:
    """Screens displayed under ``platform``'s predicate (document order, each once).

    ``viewport`` (iOS only) defaults to the bounding box of the root nodes' bounds."""
    markers = find_markers(tree)
    if platform is Platform.ANDROID:
        return _unique(m.screen_id for m in markers)
    view = viewport if viewport is not None else root_viewport(tree)
    hittable = {m.screen_id for m in markers if is_hittable(m.node, view)}
    return _unique(
        m.screen_id for m in markers if m.screen_id in hittable or not (hittable - {m.screen_id})
    )


def diagnose_screen(
    expected: str,
    tree: NodeTree,
    platform: Platform,
    previous_screens: tuple[str, ...] = (),
    *,
    required_ids: tuple[str, ...] = (),
    viewport: Bounds | None = None,
) -> ScreenDiagnosis | None:
    """Why ``expected`` is not (fully) displayed, or None when it is (classes in the module
    docstring). ``required_ids`` are identifiers of the screen's own elements; each must
    resolve (``resource_id_matches``) when the marker is displayed."""
    present = present_screens(tree)
    displayed = displayed_screens(tree, platform, viewport=viewport)
    if expected in displayed:
        missing = tuple(
            rid for rid in required_ids if not any(resource_id_matches(rid, n) for n in tree.nodes)
        )
        if not missing:
            return None
        return ScreenDiagnosis(
            "children-unresolvable", expected, present, displayed, missing_ids=missing
        )
    if expected in present:
        return ScreenDiagnosis("marker-not-displayed", expected, present, displayed)
    if not present:
        return ScreenDiagnosis("marker-absent", expected, present, displayed)
    elsewhere = any(sid not in previous_screens for sid in present)
    return ScreenDiagnosis(
        "previous-screen-only", expected, present, displayed, navigated_elsewhere=elsewhere
    )
