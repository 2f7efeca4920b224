"""Defensive JSON decoding (msgspec) with positions a person can find.

Invariants:
- input must be UTF-8 (a leading UTF-8 byte-order mark is accepted and skipped by the caller);
- nesting deeper than ``MAX_JSON_DEPTH`` containers is refused by a linear pre-scan before the
  recursive decoder runs, so acceptance never depends on the caller's stack depth;
- every failure is a ``DumpError`` naming line and column (1-based) of the problem.
"""

from __future__ import annotations

import itertools
import operator
import re
from typing import Any

import msgspec

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_JSON_DEPTH

_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]++")
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


def json_depth(data: bytes) -> int:
    """Largest container nesting in ``data`` (strings ignored). Linear, C-speed iterators."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", data))
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
    depth = json_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise DumpError(f"JSON nested {depth} containers deep; the limit is {MAX_JSON_DEPTH}")
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError as error:
        message = str(error).removeprefix("JSON is malformed: ")
        raise DumpError(where(data, f"JSON not well-formed: {message}")) from None
    except RecursionError:  # pragma: no cover - the pre-scan refuses such input first
        raise DumpError("JSON nested too deeply to decode") from None
