"""Caller-supplied regular expressions, compiled with RE2 (linear time in the text's length).

Every pattern a client sends (REGEX text matches in queries and wait conditions) is compiled
here and nowhere else. RE2 never backtracks, so no pattern can stall the hub; it refuses the
features that would need backtracking (lookaround, backreferences, possessive quantifiers,
``\\Z``), and ``RegexRejected.reason`` names the feature so the caller can rewrite the pattern.

Bounds: a pattern is at most ``MAX_REGEX_LENGTH`` characters, its compiled program at most
``MAX_PROGRAM_MEMORY`` bytes, and a search reads at most ``REGEX_CANDIDATE_CAP`` characters of
one candidate text. Compiled patterns are cached by pattern (bounded LRU). RE2 itself is
imported at the first pattern (issue 41: a hub that is never sent one does not map it).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final

MAX_REGEX_LENGTH: Final = 256
MAX_PROGRAM_MEMORY: Final = 1 << 20
REGEX_CANDIDATE_CAP: Final = 16_384


@functools.cache
def _engine() -> tuple[Any, Any]:
    """The ``re2`` module and the options every pattern is compiled with (built once)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_PROGRAM_MEMORY
    return re2, options


_FEATURES: Final = (
    ("(?<=", "lookbehind `(?<=...)`"),
    ("(?<!", "negative lookbehind `(?<!...)`"),
    ("(?=", "lookahead `(?=...)`"),
    ("(?!", "negative lookahead `(?!...)`"),
    ("bad repetition operator: ++", "possessive quantifiers (`a++`)"),
    ("bad repetition operator: *+", "possessive quantifiers (`a*+`)"),
    ("bad repetition operator: ?+", "possessive quantifiers (`a?+`)"),
    ("invalid escape sequence: \\Z", "`\\Z` (use `\\z` or `$`)"),
    ("invalid repetition size", "repetition counts above 1000"),
)


@dataclass(frozen=True, slots=True)
class RegexRejected:
    pattern: str
    reason: str


@dataclass(frozen=True, slots=True)
class UserRegex:
    """A caller's pattern compiled by RE2; ``search`` reads at most ``REGEX_CANDIDATE_CAP``
    characters of the text."""

    pattern: str
    compiled: Any

    def search(self, text: str) -> bool:
        return self.compiled.search(text[:REGEX_CANDIDATE_CAP]) is not None


def _explain(message: str) -> str:
    if any(f"invalid escape sequence: \\{d}" in message for d in "123456789"):
        return _unsupported("backreferences (`\\1`...)")
    for needle, feature in _FEATURES:
        if needle in message:
            return _unsupported(feature)
    return f"not a valid RE2 pattern: {message}"


def _unsupported(feature: str) -> str:
    return f"{feature}: not supported (patterns run on RE2, a linear-time engine)"


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str) -> UserRegex | RegexRejected:
    """Compile a caller-supplied pattern; never raises."""
    if len(pattern) > MAX_REGEX_LENGTH:
        return RegexRejected(pattern, f"longer than {MAX_REGEX_LENGTH} characters")
    re2, options = _engine()
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else exc
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        return RegexRejected(pattern, _explain(message))
    except (TypeError, ValueError) as exc:  # e.g. surrogates that cannot be UTF-8
        return RegexRejected(pattern, f"not a valid RE2 pattern: {exc}")
    return UserRegex(pattern, compiled)
