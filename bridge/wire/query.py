"""SemanticQuery and TextMatch (reference ``query``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import NonNegInt, WireStruct
from bridge.wire.enums import MatchMode, Role

MAX_QUERY_TEXT = 1024


class TextMatch(WireStruct, frozen=True):
    """``match`` defaults to NORMALIZED_EXACT; REGEX is length- and complexity-limited by the
    evaluator; SEMANTIC_SYNONYM is opt-in only."""

    value: Annotated[str, msgspec.Meta(max_length=MAX_QUERY_TEXT)]
    match: MatchMode = MatchMode.NORMALIZED_EXACT


class QueryState(WireStruct, frozen=True):
    enabled: bool | None = None
    clickable: bool | None = None
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None


class Within(WireStruct, frozen=True):
    """Restricts a query to descendants of a node matching every given field."""

    role: Role | None = None
    text: TextMatch | None = None
    resource_id: str | None = None


class SemanticQuery(WireStruct, frozen=True):
    """A declarative node query. At least one field must be set (reference minProperties 1)."""

    role: Role | None = None
    text: TextMatch | None = None
    label: TextMatch | None = None
    resource_id: str | None = None
    state: QueryState | None = None
    within: Within | None = None
    first_visible: bool | None = None
    nth: NonNegInt | None = None

    def __post_init__(self) -> None:
        if all(getattr(self, f) is None for f in self.__struct_fields__):
            raise ValueError("a query needs at least one field")
