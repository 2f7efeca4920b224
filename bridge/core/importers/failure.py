"""The failure value every importer returns instead of raising.

Invariants: an ``ImportFailure`` is returned for every input that cannot be imported whole —
there is no partial tree. ``reason`` is one line (no newline), starts with the source name and
names what is wrong (a position, a node number, an attribute and the offending value, cut to a
readable length). ``DumpError`` is internal: importers raise it deep inside a walk and the entry
point turns it into an ``ImportFailure``; it never escapes ``import_dump``.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_REASON = 300
"""Longest ``reason`` kept (characters); longer reasons are cut and end with an ellipsis."""

_SHOWN_VALUE = 40


@dataclass(frozen=True, slots=True)
class ImportFailure:
    """Why a dump could not be imported. ``format`` is the detected format, or None when the
    content matched no known format (or could not even be parsed)."""

    source_name: str
    format: str | None
    reason: str


class DumpError(Exception):
    """Raised inside an importer for input that cannot be imported; caught by the entry point."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def shown(value: object) -> str:
    """A short, single-line rendering of an offending value for a reason: quoted, cut at 40
    characters with an ellipsis."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > _SHOWN_VALUE:
        text = text[: _SHOWN_VALUE - 1] + "\u2026"
    return "'" + one_line(text) + "'"


def one_line(text: str) -> str:
    """Control characters (newlines included) become spaces, so a reason is one line."""
    return "".join(" " if (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0) else c for c in text)


def make_failure(source_name: str, fmt: str | None, message: str) -> ImportFailure:
    reason = one_line(f"{source_name}: {message}")
    if len(reason) > MAX_REASON:
        reason = reason[: MAX_REASON - 1] + "\u2026"
    return ImportFailure(source_name=source_name, format=fmt, reason=reason)
