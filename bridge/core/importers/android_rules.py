"""Android-specific rules shared by the uiautomator, Appium, a11y-node, Maestro and Rico
importers.

Invariants (all documented heuristics, applied identically by every Android importer):
- ``editable`` is derived from the class name only when the format has no editable flag: the
  simple class name (after the last ``.`` or ``$``) contains ``EditText``, or ends with
  ``AutoCompleteTextView`` or ``SearchAutoComplete``; Rico's ``ancestors`` list counts too;
- ``actions`` are derived from flags when the format reports no action list: ``click`` from
  clickable, ``longClick`` from long-clickable, ``scrollForward`` + ``scrollBackward`` from
  scrollable, ``setText`` from editable; a reported list (``ACTION_*`` names) is mapped instead
  and names outside the raw vocabulary are dropped; the directional scrolls of API 23
  (``ACTION_SCROLL_DOWN``/``RIGHT`` and ``UP``/``LEFT``) map to ``scrollForward`` /
  ``scrollBackward``;
- a window root's type comes from its package: ``com.android.systemui`` and the pseudo-package
  ``gesture`` (gesture-navigation edge windows) are ``system``; a keyboard package (name
  contains ``inputmethod``, ``keyboard``, ``honeyboard``, ``swiftkey``, ``gboard``, ``wetype``,
  ``openwnn`` or ``.ime``, or is Baidu's ``com.baidu.input[_<vendor>]``) is ``input_method``;
  anything else — apps, their dialogs, the framework's own ``android`` dialogs — is
  ``application``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from functools import lru_cache

RAW_ACTIONS = (
    "click",
    "longClick",
    "setText",
    "scrollForward",
    "scrollBackward",
    "focus",
    "select",
    "expand",
    "collapse",
    "dismiss",
    "copy",
    "paste",
)
"""The raw action vocabulary of ``bridge.wire.raw.RawNode.actions``, in canonical order."""

_ACTION_ORDER = {name: i for i, name in enumerate(RAW_ACTIONS)}

ANDROID_ACTION_NAMES = {
    "ACTION_CLICK": "click",
    "ACTION_LONG_CLICK": "longClick",
    "ACTION_SET_TEXT": "setText",
    "ACTION_SCROLL_FORWARD": "scrollForward",
    "ACTION_SCROLL_BACKWARD": "scrollBackward",
    "ACTION_SCROLL_DOWN": "scrollForward",
    "ACTION_SCROLL_RIGHT": "scrollForward",
    "ACTION_SCROLL_UP": "scrollBackward",
    "ACTION_SCROLL_LEFT": "scrollBackward",
    "ACTION_FOCUS": "focus",
    "ACTION_SELECT": "select",
    "ACTION_EXPAND": "expand",
    "ACTION_COLLAPSE": "collapse",
    "ACTION_DISMISS": "dismiss",
    "ACTION_COPY": "copy",
    "ACTION_PASTE": "paste",
}

_EDITABLE_CLASS = re.compile(r"EditText|AutoCompleteTextView$|SearchAutoComplete$")
_IME_PACKAGE = re.compile(
    r"inputmethod|keyboard|honeyboard|swiftkey|gboard|wetype|openwnn|\.ime(\.|$)|"
    r"^com\.baidu\.input(_\w+)?$",
    re.I,
)
_SYSTEM_PACKAGES = frozenset({"com.android.systemui", "gesture"})


def simple_class_name(class_name: str) -> str:
    return re.split(r"[.$]", class_name)[-1]


CLASS_CACHE = 4096
"""Distinct class names whose editability is cached (bounded: names come from dumps)."""


@lru_cache(maxsize=CLASS_CACHE)
def editable_class_name(class_name: str) -> bool:
    """One class name's editability (cached: a dump repeats a handful of classes)."""
    return _EDITABLE_CLASS.search(simple_class_name(class_name)) is not None


def is_editable_class(class_name: str | None, ancestors: Iterable[str] = ()) -> bool:
    if class_name and editable_class_name(class_name):
        return True
    return any(editable_class_name(name) for name in ancestors)


def canonical_actions(names: Iterable[str]) -> tuple[str, ...]:
    """Vocabulary names only, without duplicates, in ``RAW_ACTIONS`` order."""
    return tuple(sorted({n for n in names if n in _ACTION_ORDER}, key=_ACTION_ORDER.__getitem__))


def actions_from_flags(
    *, clickable: bool, long_clickable: bool, scrollable: bool, editable: bool
) -> tuple[str, ...]:
    """The actions the four flags imply (a table of the 16 answers, built once from
    ``_actions_of_flags``: every node of a flag-only dump asks)."""
    found = _FLAG_ACTIONS.get((clickable, long_clickable, scrollable, editable))
    if found is not None:
        return found
    return _actions_of_flags(clickable, long_clickable, scrollable, editable)


def _actions_of_flags(
    clickable: bool, long_clickable: bool, scrollable: bool, editable: bool
) -> tuple[str, ...]:
    names: list[str] = []
    if clickable:
        names.append("click")
    if long_clickable:
        names.append("longClick")
    if editable:
        names.append("setText")
    if scrollable:
        names.extend(("scrollForward", "scrollBackward"))
    return canonical_actions(names)


_FLAG_ACTIONS: dict[tuple[bool, bool, bool, bool], tuple[str, ...]] = {
    (c, lc, s, e): _actions_of_flags(c, lc, s, e)
    for c, lc, s, e in itertools.product((False, True), repeat=4)
}


def actions_from_android_names(names: Iterable[str]) -> tuple[str, ...]:
    return canonical_actions(ANDROID_ACTION_NAMES.get(n.strip(), "") for n in names)


@lru_cache(maxsize=CLASS_CACHE)
def window_type_for_package(package: str | None) -> str:
    """The window type a package implies (cached: keyboard detection asks for every node's
    package, and a dump holds a handful)."""
    if package is None:
        return "application"
    if package in _SYSTEM_PACKAGES:
        return "system"
    if _IME_PACKAGE.search(package):
        return "input_method"
    return "application"
