"""The text a ref's element showed, and which changes of it a ref survives.

A ref records what the user saw. Rules (docs/design.md, "Refs and the text an element shows"):
- an element's visible text is its ``text`` (what is drawn). An INPUT's typed value, a
  password and a slider's position are values, never visible text: typing into a field does
  not make a ref to it stale;
- the ref keeps it in ROLE_LABEL_ANCESTOR's ``ancestor`` as ``|shown:<text>`` when it differs
  from the ref's label (otherwise the label is that text). Texts longer than ``SHOWN_MAX``
  are cut the same way on both sides before comparing;
- when the element found now shows another text, resolution answers STALE_NODE_REF naming
  both texts, unless the change is tolerated: only numbers changed (counters "3 unread" ->
  "4 unread", clocks "10:42 AM" -> "12:05 PM", percentages "65%" -> "66%", amounts). The same
  tolerance applies to a change of the element's name (a button named by its counter);
- a ref that recorded no separate text (the label was the text, or there was none) checks the
  text shown now against its label; no text shown now is no change;
- under a generation check (the caller says which screen it saw) nothing is tolerated.
"""

from __future__ import annotations

import re

from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode

SHOWN_MAX = 120
_ELLIPSIS = "\u2026"
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*(?:\s?[ap]\.?m\.?(?![a-z]))?", re.IGNORECASE)
_VALUE_ROLES = frozenset({Role.INPUT, Role.SLIDER, Role.PROGRESS})


def visible_text(node: SemanticNode) -> str | None:
    """What the element draws as text, capped; None for values (inputs, sliders, passwords)."""
    if node.role in _VALUE_ROLES or node.effective_state.password:
        return None
    return cap(node.text) if node.text else None


def cap(text: str) -> str:
    """At most ``SHOWN_MAX`` characters, a cut one ending in an ellipsis."""
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 1] + _ELLIPSIS


def to_record(node: SemanticNode, label: str | None) -> str | None:
    """The text a ref to ``node`` records beside its label: None when the label says it."""
    shown = visible_text(node)
    if shown is None or (label is not None and cap(label) == shown):
        return None
    return shown


def numbers_only(before: str, after: str) -> bool:
    """The two texts differ only in their numbers (a counter, a clock, a percentage)."""
    return before != after and _NUMBER.sub("#", before) == _NUMBER.sub("#", after)


def text_change(
    recorded: str | None, label: str | None, node: SemanticNode, *, strict: bool
) -> str | None:
    """Why the element's text no longer is the one its ref recorded, or None when it is (or
    the change is tolerated). ``recorded`` is the ref's ``|shown:`` text, ``label`` its
    ROLE_LABEL_ANCESTOR label; ``strict`` (a generation check) tolerates nothing."""
    now = visible_text(node)
    if recorded is not None:
        before = recorded
    elif label is not None and now is not None:
        before = cap(label)
    else:
        return None
    if now == before:
        return None
    if not strict and now is not None and numbers_only(before, now):
        return None
    shown = f'"{now}"' if now is not None else "no text"
    return f'it now shows {shown} where the ref recorded "{before}"'
