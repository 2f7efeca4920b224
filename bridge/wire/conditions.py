"""Wait conditions, a tagged union on ``kind`` (the reference names but does not ship them).

Conditions are pure data; ``bridge.core.conditions`` evaluates them over snapshots. Nesting
depth is capped by the evaluator (``MAX_CONDITION_DEPTH``) so a hostile client cannot make it
recurse without bound.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import NonNegInt, WireStruct
from bridge.wire.query import QueryState, SemanticQuery

MAX_CONDITION_DEPTH = 8
MAX_SUBCONDITIONS = 32


class _Condition(WireStruct, tag_field="kind", frozen=True):
    pass


class Present(_Condition, tag="present", frozen=True):
    """Met when the query matches at least one node."""

    query: SemanticQuery


class Absent(_Condition, tag="absent", frozen=True):
    """Met when the query matches no node."""

    query: SemanticQuery


class ValueEquals(_Condition, tag="value", frozen=True):
    """Met when exactly one node matches and its value (else text) equals ``equals``.

    In an action's ``verify.expected`` the query may be omitted: it then means the target.
    """

    equals: str
    query: SemanticQuery | None = None


class StateIs(_Condition, tag="state", frozen=True):
    """Met when exactly one node matches and every given state field has the given value."""

    query: SemanticQuery
    state: QueryState


class ScreenShown(_Condition, tag="screen", frozen=True):
    """Met when the screen marker ``__screen_<name>`` is displayed (product screen rules)."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]


class AppForeground(_Condition, tag="app", frozen=True):
    """Met when the foreground app id (package / bundle id) equals ``app_id``."""

    app_id: Annotated[str, msgspec.Meta(min_length=1, max_length=255)]


class Stable(_Condition, tag="stable", frozen=True):
    """Met when the screen's treeHash has not changed for ``for_ms`` milliseconds."""

    for_ms: NonNegInt


class ClipboardEquals(_Condition, tag="clipboard", frozen=True):
    """Met when the device clipboard equals ``equals`` (needs a clipboard read)."""

    equals: str


class AllOf(_Condition, tag="allOf", frozen=True):
    conditions: Annotated[tuple[Condition, ...], msgspec.Meta(min_length=1, max_length=32)]


class AnyOf(_Condition, tag="anyOf", frozen=True):
    conditions: Annotated[tuple[Condition, ...], msgspec.Meta(min_length=1, max_length=32)]


class Not(_Condition, tag="not", frozen=True):
    condition: Condition


Condition = (
    Present
    | Absent
    | ValueEquals
    | StateIs
    | ScreenShown
    | AppForeground
    | Stable
    | ClipboardEquals
    | AllOf
    | AnyOf
    | Not
)


def condition_depth(condition: Condition) -> int:
    """Nesting depth of a condition tree (a leaf is 1)."""
    match condition:
        case AllOf(conditions=subs) | AnyOf(conditions=subs):
            return 1 + max(condition_depth(c) for c in subs)
        case Not(condition=sub):
            return 1 + condition_depth(sub)
        case _:
            return 1
