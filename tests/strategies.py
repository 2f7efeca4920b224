"""Hypothesis strategies for every wire type, derived from ``msgspec.inspect.type_info``.

``strategy_for(tp)`` walks the type's msgspec description and builds a strategy that only
yields values the wire would accept on decode:

- Struct fields become keyword arguments (optional fields are sometimes left out so their
  default applies); tagged unions are unions of their member Structs (the tag is implicit);
- ``Annotated`` constraints are honoured: ``pattern`` (``st.from_regex``; a pattern anchored
  at its end must match in full, an unanchored prefix such as ``^secret://`` gets a tail),
  ``min_length`` / ``max_length``, ``ge`` / ``gt`` / ``le`` / ``lt``;
- enums, ``Literal``, fixed and variable tuples, dicts, ``X | None``; ``Any`` yields
  JSON-safe values (finite floats, str keys, lists rather than tuples) so it survives both
  codecs unchanged;
- recursive types (wait conditions) are cut off after ``RECURSION_BUDGET`` levels: past the
  budget a union drops the members that can recurse;
- ``__post_init__`` validity is respected by constructing through the class and discarding
  the draws it refuses (SemanticQuery needs one field; ActionRequest's value / valueRef are
  exclusive). Normalizations happen in the constructor (an all-default SemanticNode state
  becomes ``None``), so a drawn value is already in its canonical form.

Collections hold at most ``MAX_ITEMS`` items (``MAX_NESTED_ITEMS`` inside another
collection's items) and free text at most ``MAX_TEXT`` characters so property tests stay fast.
``FIELD_OVERRIDES`` holds the few rules a type cannot express (see each entry); they make the
strategies yield what the hub emits, not merely what decodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from bridge.wire.client_protocol import RESULT_TYPES, RequestId, ResultMessage
from bridge.wire.enums import ActionVerb
from bridge.wire.node import SemanticNode

MAX_ITEMS = 5
MAX_NESTED_ITEMS = 2
"""Collections inside another collection's items (a snapshot's nodes' actions) stay shorter."""
MAX_TEXT = 12
RECURSION_BUDGET = 2
INT_BOUND = 2**53
"""Integers stay within what every consumer (JavaScript included) reads exactly."""

FIELD_OVERRIDES: dict[tuple[type[Any], str], st.SearchStrategy[Any]] = {
    # The reference requires `actions` to be uniqueItems and SemanticNode refuses repeats;
    # drawing distinct verbs up front avoids discarding most multi-verb draws.
    (SemanticNode, "actions"): st.lists(
        st.sampled_from(list(ActionVerb)), unique=True, max_size=MAX_ITEMS
    ).map(tuple),
}

json_scalars: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(-INT_BOUND, INT_BOUND)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=MAX_TEXT)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON value that decodes back to itself from JSON and from MessagePack."""


_STRATEGIES: dict[Any, st.SearchStrategy[Any]] = {}


def strategy_for(tp: Any) -> st.SearchStrategy[Any]:
    """A strategy yielding valid, canonical values of the msgspec-describable type ``tp``."""
    if tp not in _STRATEGIES:
        _STRATEGIES[tp] = _Builder().build(mi.type_info(tp), RECURSION_BUDGET, nested=False)
    return _STRATEGIES[tp]


def as_builtins(value: Any) -> Any:
    """``msgspec.to_builtins`` with tuples turned into lists: exactly what a client decoding
    ``result: Any`` sees (msgspec's ``to_builtins`` leaves tuples as tuples)."""

    def lists(v: Any) -> Any:
        if isinstance(v, tuple | list):
            return [lists(x) for x in v]
        if isinstance(v, dict):
            return {k: lists(x) for k, x in v.items()}
        return v

    return lists(msgspec.to_builtins(value))


def result_message_for(request_type: str) -> st.SearchStrategy[ResultMessage]:
    """A ``result`` message whose body is a valid result of ``request_type``, as builtins."""
    return st.builds(
        lambda rid, body: ResultMessage(id=rid, result=as_builtins(body)),
        strategy_for(RequestId),
        strategy_for(RESULT_TYPES[request_type]),
    )


class _Invalid:
    """Marker for a draw the constructor refused (``__post_init__``)."""


_INVALID = _Invalid()


def _constructor(cls: type[Any]) -> Callable[[dict[str, Any]], Any]:
    def construct(kwargs: dict[str, Any]) -> Any:
        try:
            return cls(**kwargs)
        except (ValueError, TypeError):
            return _INVALID

    return construct


class _Builder:
    def __init__(self) -> None:
        self._structs: dict[tuple[type[Any], int, bool], st.SearchStrategy[Any]] = {}
        self._recursive: dict[type[Any], bool] = {}

    def build(self, info: mi.Type, budget: int, nested: bool) -> st.SearchStrategy[Any]:
        match info:
            case mi.AnyType():
                return json_values
            case mi.NoneType():
                return st.none()
            case mi.BoolType():
                return st.booleans()
            case mi.IntType():
                return self._ints(info)
            case mi.FloatType():
                return self._floats(info)
            case mi.StrType():
                return self._strs(info)
            case mi.BytesType():
                return st.binary(max_size=MAX_TEXT)
            case mi.EnumType():
                return st.sampled_from(list(info.cls))
            case mi.LiteralType():
                return st.sampled_from(info.values)
            case mi.TupleType():
                return st.tuples(*(self.build(t, budget, nested) for t in info.item_types))
            case mi.VarTupleType() | mi.ListType():
                items = self._lists(self.build(info.item_type, budget, True), info, nested)
                return items.map(tuple) if isinstance(info, mi.VarTupleType) else items
            case mi.DictType():
                lo, hi = _sizes(info.min_length, info.max_length, nested)
                return st.dictionaries(
                    self.build(info.key_type, budget, True),
                    self.build(info.value_type, budget, True),
                    min_size=lo,
                    max_size=hi,
                )
            case mi.UnionType():
                return self._union(info, budget, nested)
            case mi.StructType():
                return self._struct(info, budget, nested)
        raise NotImplementedError(f"no strategy for {info!r}")

    # ---- scalars ---------------------------------------------------------------------------

    @staticmethod
    def _ints(info: mi.IntType) -> st.SearchStrategy[int]:
        lo = info.ge if info.ge is not None else (info.gt + 1 if info.gt is not None else None)
        hi = info.le if info.le is not None else (info.lt - 1 if info.lt is not None else None)
        lo = -INT_BOUND if lo is None else lo
        hi = INT_BOUND if hi is None else hi
        ints = st.integers(lo, hi)
        if info.multiple_of:
            step = info.multiple_of
            ints = ints.map(lambda v: v - v % step).filter(lambda v: lo <= v <= hi)
        return ints

    @staticmethod
    def _floats(info: mi.FloatType) -> st.SearchStrategy[float]:
        lo = info.ge if info.ge is not None else info.gt
        hi = info.le if info.le is not None else info.lt
        return st.floats(
            min_value=lo,
            max_value=hi,
            exclude_min=info.gt is not None,
            exclude_max=info.lt is not None,
            allow_nan=False,
            allow_infinity=False,
        )

    @staticmethod
    def _strs(info: mi.StrType) -> st.SearchStrategy[str]:
        lo = info.min_length or 0
        hi = info.max_length if info.max_length is not None else max(lo, MAX_TEXT)
        if info.pattern is None:
            return st.text(min_size=lo, max_size=max(lo, min(hi, MAX_TEXT)))
        pattern = info.pattern
        if pattern.endswith("$"):
            strs = st.from_regex(pattern, fullmatch=True)
        else:  # a prefix pattern: the prefix, then a short printable tail
            head = st.from_regex(pattern, fullmatch=True)
            tail = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=16)
            strs = st.builds(str.__add__, head, tail)
        compiled = re.compile(pattern)
        return strs.filter(lambda s: lo <= len(s) <= hi and compiled.search(s) is not None)

    # ---- containers ------------------------------------------------------------------------

    @staticmethod
    def _lists(
        items: st.SearchStrategy[Any], info: mi.VarTupleType | mi.ListType, nested: bool
    ) -> st.SearchStrategy[list[Any]]:
        lo, hi = _sizes(info.min_length, info.max_length, nested)
        return st.lists(items, min_size=lo, max_size=hi)

    def _union(self, info: mi.UnionType, budget: int, nested: bool) -> st.SearchStrategy[Any]:
        members = [
            t
            for t in info.types
            if budget > 0 or not (isinstance(t, mi.StructType) and self._is_recursive(t))
        ]
        if not members:
            raise NotImplementedError(f"recursion budget leaves no member of {info!r}")
        return st.one_of(*(self.build(t, budget, nested) for t in members))

    def _struct(self, info: mi.StructType, budget: int, nested: bool) -> st.SearchStrategy[Any]:
        key = (info.cls, budget, nested)
        if key not in self._structs:
            inner = budget - 1 if self._is_recursive(info) else budget
            required: dict[str, st.SearchStrategy[Any]] = {}
            optional: dict[str, st.SearchStrategy[Any]] = {}
            for field in info.fields:
                override = FIELD_OVERRIDES.get((info.cls, field.name))
                values = override if override is not None else self.build(field.type, inner, nested)
                (required if field.required else optional)[field.name] = values
            self._structs[key] = (
                st.fixed_dictionaries(required, optional=optional)
                .map(_constructor(info.cls))
                .filter(lambda v: v is not _INVALID)
            )
        return self._structs[key]

    # ---- recursion -------------------------------------------------------------------------

    def _is_recursive(self, info: mi.StructType) -> bool:
        """True when ``info``'s class can contain itself (directly or through others)."""
        if info.cls not in self._recursive:
            self._recursive[info.cls] = info.cls in _reachable_structs(info)
        return self._recursive[info.cls]


def _sizes(min_length: int | None, max_length: int | None, nested: bool) -> tuple[int, int]:
    cap = MAX_NESTED_ITEMS if nested else MAX_ITEMS
    lo = min_length or 0
    hi = cap if max_length is None else min(max_length, cap)
    return lo, max(lo, hi)


def _children(info: mi.Type) -> list[mi.Type]:
    match info:
        case mi.StructType():
            return [f.type for f in info.fields]
        case mi.UnionType():
            return list(info.types)
        case mi.TupleType():
            return list(info.item_types)
        case mi.VarTupleType() | mi.ListType() | mi.SetType() | mi.FrozenSetType():
            return [info.item_type]
        case mi.DictType():
            return [info.key_type, info.value_type]
    return []


def _reachable_structs(start: mi.StructType) -> set[type[Any]]:
    """Struct classes reachable from ``start``'s fields (not counting ``start`` itself)."""
    seen_nodes: set[int] = set()
    found: set[type[Any]] = set()
    stack = _children(start)
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, mi.StructType):
            found.add(node.cls)
        stack.extend(_children(node))
    return found
