"""Soft keyboards: finding input-method regions in a raw tree and summing each up in one node.

Invariants:
- a node is in a keyboard region when its window's type is ``input_method``, when (Android,
  formats without windows) its package is an input-method package
  (``android_rules.window_type_for_package``), or when it is inside an iOS ``Window`` element
  of an ``input_method`` window or an iOS ``Keyboard`` element; on Android never when that
  package is the tree's own app (an app whose name merely contains "keyboard" is not
  collapsed);
- a region's root is a region node whose parent is outside every region (or a tree root);
  regions never nest;
- the summary is deterministic and carries what a client needs to know about the keyboard:
  that it is there (label ``Keyboard`` unless the root has a label of its own; its bounds),
  which input method it is (``value``: the package, when the dump says), and what hides it
  (``hint``: BACK on Android; on iOS the key that hides it, when it has one);
- ``hide_keys`` are the region's keys whose name says they hide the keyboard; the compact
  view keeps them (under the root) and drops every other node of the region. The full view
  keeps every node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.core.importers.android_rules import window_type_for_package
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree

KEYBOARD_LABEL = "Keyboard"
ANDROID_HIDE_HINT = "BACK hides the keyboard"
_HIDE_KEY_NAMES = frozenset({"hide keyboard", "dismiss keyboard", "close keyboard", "done"})
_IOS_KEYBOARD = ("XCUIElementTypeKeyboard", "UIAKeyboard")
_IOS_WINDOW = ("XCUIElementTypeWindow", "UIAWindow")


@dataclass(frozen=True, slots=True)
class KeyboardRegion:
    root: int
    """Index of the region's root in ``RawTree.nodes``."""
    package: str | None
    hide_keys: tuple[int, ...]
    hint: str | None


def find_keyboards(raw: RawTree) -> tuple[KeyboardRegion, ...]:
    """Every keyboard region of ``raw``, in document order (one pass, pre-order)."""
    return keyboard_regions(raw)[0]


def region_members(raw: RawTree, keyboards: Sequence[KeyboardRegion]) -> list[int]:
    """Per node of ``raw``: the index of the root of the keyboard region it is in, or -1."""
    return keyboard_regions(raw)[1] if keyboards else [-1] * len(raw.nodes)


def may_start_region(raw: RawTree, node: RawNode) -> bool:
    """Whether ``node`` could be (or could have been) a keyboard region's root: a superset
    of the test ``keyboard_regions`` applies, for callers deciding whether to look again."""
    if raw.platform is Platform.ANDROID:
        ime = any(w.id == node.window and w.type == "input_method" for w in raw.windows)
        return ime or window_type_for_package(node.package) == "input_method"
    kind = node.class_name or ""
    return kind in _IOS_KEYBOARD or kind in _IOS_WINDOW


def keyboard_regions(raw: RawTree) -> tuple[tuple[KeyboardRegion, ...], list[int]]:
    """The keyboard regions of ``raw`` and, per node, the index of its region's root (-1)."""
    ime_windows = {w.id: w.package for w in raw.windows if w.type == "input_method"}
    android = raw.platform is Platform.ANDROID
    region_of: list[int] = []  # per node: index of its region root, or -1
    roots: list[int] = []
    for i, node in enumerate(raw.nodes):
        above = region_of[node.parent] if node.parent >= 0 else -1
        if above >= 0:
            region_of.append(above)
            continue
        if android:
            package = ime_windows.get(node.window) or node.package
            starts = (
                node.window in ime_windows
                or window_type_for_package(node.package) == "input_method"
            ) and (package is None or package != raw.package)
        else:
            kind = node.class_name or ""
            starts = kind in _IOS_KEYBOARD or (kind in _IOS_WINDOW and node.window in ime_windows)
        region_of.append(i if starts else -1)
        if starts:
            roots.append(i)
    hide: dict[int, list[int]] = {r: [] for r in roots}
    for i, node in enumerate(raw.nodes):
        root = region_of[i]
        if root >= 0 and i != root and _is_hide_key(node.label or node.text):
            hide[root].append(i)
    regions = tuple(
        _region(raw, r, ime_windows.get(raw.nodes[r].window), hide[r], android) for r in roots
    )
    return regions, region_of


def _is_hide_key(name: str | None) -> bool:
    return name is not None and name.strip().lower() in _HIDE_KEY_NAMES


def _region(
    raw: RawTree, root: int, window_package: str | None, keys: Sequence[int], android: bool
) -> KeyboardRegion:
    node = raw.nodes[root]
    package = window_package or (node.package if android else None)
    if android:
        hint: str | None = ANDROID_HIDE_HINT
    elif keys:
        key = raw.nodes[keys[0]]
        hint = f"the '{(key.label or key.text or '').strip()}' key hides the keyboard"
    else:
        hint = None
    return KeyboardRegion(root=root, package=package, hide_keys=tuple(keys), hint=hint)
