"""Defensive JSON decoding (msgspec) with positions a person can find.

Invariants:
- input must be UTF-8 (a leading UTF-8 byte-order mark is accepted and skipped by the caller);
- nesting deeper than ``MAX_JSON_DEPTH`` containers is refused by a linear pre-scan before the
  recursive decoder runs, so acceptance never depends on the caller's stack depth;
- more than ``MAX_JSON_CONTAINERS`` objects and arrays, or more than ``MAX_JSON_QUOTES`` quote
  characters, are refused by the same pre-scan: a document of millions of tiny containers or
  strings would otherwise cost seconds of scanning, allocation and garbage collection before
  any node limit could be checked. The pre-scan itself is C-speed (``bytes.count``,
  ``bytes.translate``, one regex over the bounded number of strings);
- every failure is a ``DumpError`` naming line and column (1-based) of the problem.
"""

from __future__ import annotations

import itertools
import operator
import re
from typing import Any

import msgspec

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_JSON_DEPTH, MAX_RAW_NODES

MAX_JSON_CONTAINERS = 16 * MAX_RAW_NODES
"""Objects + arrays allowed in one document: generous for every format (a Rico node uses about
seven: itself, bounds, rel-bounds, ancestors, content-desc, children ...)."""
MAX_JSON_QUOTES = 200 * MAX_RAW_NODES
"""Quote characters allowed (two per string, keys included): a Rico or Maestro node has about
60."""

_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_OPEN_TO_TWO = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")

_decoder = msgspec.json.Decoder()


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset`` in UTF-8 ``data``."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def _brackets(data: bytes) -> bytes:
    return _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)


def json_depth(data: bytes) -> int:
    """Largest container nesting in ``data`` (strings ignored). Linear, C-speed iterators."""
    return _depth(_brackets(data))


def _depth(brackets: bytes) -> int:
    if not brackets:
        return 0
    # Opening brackets count 2, closing 0: depth after i+1 brackets = prefix sum - (i + 1).
    weights = brackets.translate(_OPEN_TO_TWO)
    depth: int = max(map(operator.sub, itertools.accumulate(weights), itertools.count(1)))
    return depth


def where(data: bytes, message: str) -> str:
    """Rewrite msgspec's ``(byte N)`` into ``at line L, column C``."""
    found = _BYTE_OFFSET.search(message)
    if found is None:
        return message
    line, column = line_column(data, int(found.group(1)))
    return _BYTE_OFFSET.sub(f"at line {line}, column {column}", message)


def decode_json(data: bytes) -> Any:
    """Untyped decode of ``data`` (dicts, lists, str, int, float, bool, None)."""
    quotes = data.count(b'"')
    if quotes > MAX_JSON_QUOTES:
        raise DumpError(f"JSON has {quotes} quote characters; the limit is {MAX_JSON_QUOTES}")
    brackets = _brackets(data)
    containers = brackets.count(b"[") + brackets.count(b"{")
    if containers > MAX_JSON_CONTAINERS:
        raise DumpError(
            f"JSON has {containers} objects and arrays; the limit is {MAX_JSON_CONTAINERS}"
        )
    depth = _depth(brackets)
    if depth > MAX_JSON_DEPTH:
        raise DumpError(f"JSON nested {depth} containers deep; the limit is {MAX_JSON_DEPTH}")
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError as error:
        message = str(error).removeprefix("JSON is malformed: ")
        raise DumpError(where(data, f"JSON not well-formed: {message}")) from None
    except RecursionError:  # pragma: no cover - the pre-scan refuses such input first
        raise DumpError("JSON nested too deeply to decode") from None
