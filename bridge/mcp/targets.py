"""Plain targets: what a model writes (a handle, some words, a query object, a point) as the
hub's wire types (pure).

- ``"e7"`` (``e`` and digits) is a handle from an earlier answer;
- any other string is plain text: ``SemanticQuery(text=...)``, which the hub matches against
  the visible text, else the label, and an input's hint (``bridge.core.query``), so
  ``"Sign in"``, ``"Username"`` and an icon's label all work; normalized exact match;
- an object with only ``x`` and ``y`` is a point;
- any other object is a SemanticQuery, where ``text``, ``label`` and ``within.text`` may be
  plain strings (``{"role": "BUTTON", "text": "Continue"}``);
- a wait condition's ``query`` (at any depth) may be plain text or such an object.

Conversion is strict (msgspec with the wire types' own constraints): what does not fit raises
``msgspec.ValidationError`` with the path of the field, which the server turns into an
``INVALID_ARGUMENTS`` tool result. Nothing here reads a clock or a socket.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec

from bridge.wire.conditions import Condition
from bridge.wire.query import SemanticQuery, TextMatch

HANDLE_RE = re.compile(r"^e[0-9]{1,7}$")
MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class HandleTarget:
    handle: str


@dataclass(frozen=True, slots=True)
class QueryTarget:
    query: SemanticQuery
    plain: str | None = None
    """The words, when the target was plain text."""


@dataclass(frozen=True, slots=True)
class PointTarget:
    x: int
    y: int


Target = HandleTarget | QueryTarget | PointTarget


def _text_match(value: Any) -> Any:
    return {"value": value} if isinstance(value, str) else value


def _query_dict(value: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    for key in ("text", "label"):
        if key in out:
            out[key] = _text_match(out[key])
    within = out.get("within")
    if isinstance(within, dict) and "text" in within:
        out["within"] = {**within, "text": _text_match(within["text"])}
    elif isinstance(within, str):
        out["within"] = {"text": {"value": within}}
    return out


def query_of(value: str | dict[str, Any]) -> SemanticQuery:
    """Plain text or a query object as a SemanticQuery."""
    if isinstance(value, str):
        words = value.strip()
        if not words:
            raise msgspec.ValidationError("an empty text matches nothing - `$.query`")
        return SemanticQuery(text=msgspec.convert({"value": words}, TextMatch))
    return msgspec.convert(_query_dict(value), SemanticQuery, str_keys=True)


def target_of(value: str | dict[str, Any]) -> Target:
    if isinstance(value, str):
        if HANDLE_RE.match(value.strip()):
            return HandleTarget(value.strip())
        return QueryTarget(query_of(value), value.strip())
    if set(value) == {"x", "y"}:
        x, y = value["x"], value["y"]
        if not (isinstance(x, int) and isinstance(y, int)) or min(x, y) < 0:
            raise msgspec.ValidationError("a point is {x, y} in non-negative pixels - `$.target`")
        return PointTarget(x, y)
    return QueryTarget(query_of(value))


def _condition_dict(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or not isinstance(value, dict):
        return value
    out = dict(value)
    if isinstance(out.get("query"), str):
        out["query"] = msgspec.to_builtins(query_of(out["query"]))
    elif isinstance(out.get("query"), dict):
        out["query"] = _query_dict(out["query"])
    if isinstance(out.get("conditions"), list):
        out["conditions"] = [_condition_dict(c, depth + 1) for c in out["conditions"]]
    if "condition" in out:
        out["condition"] = _condition_dict(out["condition"], depth + 1)
    return out


def condition_of(value: dict[str, Any]) -> Condition:
    """A wait condition (queries inside may be plain text) as the wire's Condition."""
    converted: Condition = msgspec.convert(
        _condition_dict(value, 0),
        Condition,
        str_keys=True,
    )
    return converted
