"""Strict readers for the scalar values dumps carry as strings or JSON scalars.

Every reader takes ``where`` ("node 12 (line 40)") and raises ``DumpError`` naming the node,
the attribute and the offending value; none guesses. Rules:
- booleans: ``true``/``false`` in any letter case, or ``1``/``0`` (legacy WDA, idb); JSON
  booleans; absent means the caller's default;
- Android bounds: ``[l,t][r,b]`` with four (possibly negative) decimal integers; spaces around
  numbers are tolerated; zero-size, inverted and off-screen rectangles are kept as given;
- fractional coordinates (iOS points from JSON sources) become integers edge by edge with
  ``floor(v + 0.5)`` (round half up): the rectangle's left/top/right/bottom are each rounded,
  so width and height may differ by one from rounding the size;
- every coordinate must lie within a signed 32-bit integer.
"""

from __future__ import annotations

import math
import re

from bridge.core.importers.failure import DumpError, shown
from bridge.core.importers.limits import MAX_COORDINATE, MIN_COORDINATE
from bridge.wire.base import Bounds

_ANDROID_BOUNDS = re.compile(
    r"^\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*$"
)
_PLAIN_BOUNDS = re.compile(r"\[(-?[0-9]{1,9}),(-?[0-9]{1,9})\]\[(-?[0-9]{1,9}),(-?[0-9]{1,9})\]")
"""The spelling every dump uses (no spaces, ASCII digits): ``_ANDROID_BOUNDS`` reads it to the
same four values, and nine digits are always within the coordinate range, so this fast path
needs neither the general pattern nor the range check."""
_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


def read_bool(value: object, default: bool, where: str, name: str) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        if lowered == "":
            return default
    raise DumpError(f"{where} has {name} {shown(value)}, expected true or false")


def read_opt_bool(value: object, where: str, name: str) -> bool | None:
    if value is None or value == "":
        return None
    return read_bool(value, False, where, name)


def check_coordinate(value: int, where: str, name: str) -> int:
    if not MIN_COORDINATE <= value <= MAX_COORDINATE:
        raise DumpError(f"{where} has {name} {value}, outside the 32-bit coordinate range")
    return value


def android_bounds_or_none(text: str) -> Bounds | None:
    """``[l,t][r,b]`` as four integers when well-formed and in range, else None (the caller
    then calls ``read_android_bounds`` for the error): the importers' fast path, which builds
    no error text."""
    plain = _PLAIN_BOUNDS.fullmatch(text)
    if plain is not None:
        left, top, right, bottom = map(int, plain.groups())
        return (left, top, right, bottom)
    found = _ANDROID_BOUNDS.match(text)
    if found is None:
        return None
    left, top, right, bottom = map(int, found.groups())
    if min(left, top, right, bottom) < MIN_COORDINATE or max(left, top, right, bottom) > (
        MAX_COORDINATE
    ):
        return None
    return (left, top, right, bottom)


def read_android_bounds(text: str, where: str, name: str = "bounds") -> Bounds:
    """``[l,t][r,b]`` as four integers."""
    found = _ANDROID_BOUNDS.match(text)
    if found is None:
        raise DumpError(f"{where} has {name} {shown(text)} that are not four integers")
    left, top, right, bottom = (check_coordinate(int(g), where, name) for g in found.groups())
    return (left, top, right, bottom)


def read_number(value: object, where: str, name: str) -> float | int:
    """A JSON number or a decimal string; never a bool, NaN or infinity."""
    if isinstance(value, bool) or value is None:
        raise DumpError(f"{where} has {name} {shown(value)}, expected a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        number: float = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise DumpError(f"{where} has {name} {shown(value)}, expected a number") from None
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
    else:
        raise DumpError(f"{where} has {name} {shown(value)}, expected a number")
    if not math.isfinite(number):
        raise DumpError(f"{where} has {name} {shown(value)}, expected a finite number")
    return number


def to_int_edge(value: float | int, where: str, name: str) -> int:
    edge = value if isinstance(value, int) else math.floor(value + 0.5)
    return check_coordinate(edge, where, name)


def rect_bounds(
    x: float | int, y: float | int, width: float | int, height: float | int, where: str
) -> Bounds:
    """Bounds ``[x, y, x+width, y+height]`` rounded edge by edge (see module rules)."""
    return (
        to_int_edge(x, where, "x"),
        to_int_edge(y, where, "y"),
        to_int_edge(x + width, where, "x+width"),
        to_int_edge(y + height, where, "y+height"),
    )


def read_int(value: object, where: str, name: str) -> int:
    number = read_number(value, where, name)
    if isinstance(number, float):
        raise DumpError(f"{where} has {name} {shown(value)}, expected an integer")
    return number
