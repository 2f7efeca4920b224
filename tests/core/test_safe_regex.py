"""Caller regexes run on RE2 (bridge.core.safe_regex): catastrophic patterns stay linear,
unsupported features are refused by name."""

from __future__ import annotations

import time

import pytest

from bridge.core.query import QueryRejected, run_query
from bridge.core.safe_regex import (
    MAX_REGEX_LENGTH,
    RegexRejected,
    UserRegex,
    compile_regex,
)
from bridge.core.textmatch import compile_text_match
from bridge.wire.enums import MatchMode
from bridge.wire.query import SemanticQuery, TextMatch

# Classic catastrophic-backtracking shapes (nested quantifiers, overlapping alternations,
# quantified empties), each paired with a 10 kB text that makes a backtracking engine explode.
CATASTROPHIC = [
    r"(a+)+$",
    r"(a*)*$",
    r"(a|aa)+$",
    r"(a|a?)+$",
    r"(.*a){12}$",
    r"^(\w+\s?)*$",
    r"(x+x+)+y",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(\d+)*[a-z]$",
    r"^(a+|b+)*c$",
    r"(?:a|b|ab)*c",
    r"(.*?,){11}P",
    r"([^@]+)+@",
]
TEXTS = ["a" * 10_000 + "!", ("ab " * 3_400)[:10_000] + "#", "x" * 10_000, "1" * 10_000 + "!"]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_answer_within_a_second_on_10_kb(pattern: str) -> None:
    """A backtracking engine takes minutes on these; re2 takes well under a millisecond. The
    bound is a generous ceiling (a loaded machine may deschedule the test for a while)."""
    compiled = compile_regex(pattern)
    assert isinstance(compiled, UserRegex), compiled
    for text in TEXTS:
        start = time.perf_counter()
        compiled.search(text)
        elapsed_ms = (time.perf_counter() - start) * 1000
        assert elapsed_ms < 1000, f"{pattern!r} took {elapsed_ms:.1f} ms on {text[:8]!r}..."


@pytest.mark.parametrize(
    ("pattern", "feature"),
    [
        (r"(?:[A-Za-z ](?!@)?)*#", "lookahead"),  # the reproduction from issue 8
        (r"(?:a(?!b)?)*$", "lookahead"),
        (r"(?=a)a", "lookahead"),
        (r"(?<=a)b", "lookbehind"),
        (r"(?<!a)b", "lookbehind"),
        (r"(a)\1", "backreferences"),
        (r"(a)(b)\2", "backreferences"),
        (r"a++", "possessive"),
        (r"a\Z", r"\Z"),
        (r"a{5000}", "repetition counts"),
    ],
)
def test_unsupported_features_are_refused_by_name(pattern: str, feature: str) -> None:
    out = compile_regex(pattern)
    assert isinstance(out, RegexRejected)
    assert feature in out.reason and "RE2" in out.reason


def test_invalid_and_oversized_patterns_are_refused() -> None:
    assert isinstance(compile_regex("["), RegexRejected)
    assert isinstance(compile_regex("a" * (MAX_REGEX_LENGTH + 1)), RegexRejected)
    assert isinstance(compile_regex("\ud800"), RegexRejected)


def test_supported_syntax_matches_like_python() -> None:
    for pattern, text, hit in [
        (r"^Sign\s+in$", "Sign  in", True),
        (r"(?i)SIGN", "sign in", True),
        (r"\bWi-?Fi\b", "Wi-Fi settings", True),
        (r"\d{3}", "no digits", False),
        (r"\p{L}+", "日本", True),
    ]:
        compiled = compile_regex(pattern)
        assert isinstance(compiled, UserRegex)
        assert compiled.search(text) is hit


def test_query_refusal_names_the_feature() -> None:
    query = SemanticQuery(text=TextMatch(value=r"(?:[A-Za-z ](?!@)?)*#", match=MatchMode.REGEX))
    spec = query.text
    assert spec is not None
    assert isinstance(compile_text_match(spec), RegexRejected)
    from bridge.core.tree import NodeTree

    out = run_query(NodeTree(()), query, viewport=None)
    assert isinstance(out, QueryRejected)
    assert "lookahead" in out.reason


def test_a_backreference_refusal_reads_as_the_user_sees_it() -> None:
    from bridge.core.safe_regex import RegexRejected, compile_regex

    got = compile_regex(r"(a)\1")
    assert isinstance(got, RegexRejected)
    assert got.reason == (
        "backreferences (`\\1`...): not supported (patterns run on RE2, a linear-time engine)"
    )
