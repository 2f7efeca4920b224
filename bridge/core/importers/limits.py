"""Hard limits every importer enforces, and the one rule for over-long strings.

Invariants:
- input larger than ``MAX_INPUT_BYTES`` is refused before parsing;
- more than ``MAX_RAW_NODES`` nodes, or a tree deeper than ``MAX_TREE_DEPTH`` levels (roots are
  level 0), is refused — never truncated;
- JSON nested deeper than ``MAX_JSON_DEPTH`` containers is refused before decoding, so the
  recursive decoders never see it (the result does not depend on the caller's stack depth);
- every string stored in a raw node or window is at most ``MAX_RAW_TEXT`` code points:
  ``cap_text`` keeps the first ``MAX_RAW_TEXT - 1`` code points and appends U+2026 (…), so a
  truncated string is exactly ``MAX_RAW_TEXT`` long and visibly cut. No other normalization
  (no NFC, no trimming) happens here.
- coordinates must fit in a signed 32-bit integer.
"""

from __future__ import annotations

from bridge.wire.raw import MAX_RAW_NODES, MAX_RAW_TEXT

MAX_INPUT_BYTES = 32 * 1024 * 1024
MAX_TREE_DEPTH = 256
MAX_JSON_DEPTH = 2 * MAX_TREE_DEPTH + 16
MAX_COORDINATE = 2**31 - 1
MIN_COORDINATE = -(2**31)
ELLIPSIS = "\u2026"

__all__ = [
    "MAX_COORDINATE",
    "MAX_INPUT_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_RAW_NODES",
    "MAX_RAW_TEXT",
    "MAX_TREE_DEPTH",
    "MIN_COORDINATE",
    "cap_text",
    "opt_text",
]


def cap_text(text: str) -> str:
    """``text`` unchanged when it fits, else its first MAX_RAW_TEXT-1 code points plus '…'."""
    if len(text) <= MAX_RAW_TEXT:
        return text
    return text[: MAX_RAW_TEXT - 1] + ELLIPSIS


def opt_text(text: str | None) -> str | None:
    """The importers' rule for optional strings: absent or empty means None (every format
    writes ``""`` for "not set"); anything else is kept verbatim, then capped."""
    if not text:
        return None
    if len(text) <= MAX_RAW_TEXT:  # ``cap_text``'s first case, without its call
        return text
    return cap_text(text)
