"""The regex safety check (bridge.core.regex_guard): ReDoS patterns refused, accepted ones fast."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.core.regex_guard import (
    MAX_REGEX_LENGTH,
    REGEX_CANDIDATE_CAP,
    RegexRejected,
    SafeRegex,
    check_regex,
    regex_candidate_cap,
    regex_degree,
)
from bridge.core.textmatch import (
    compile_text_match,
    match_text,
)
from tests.core.textmatch_helpers import REGEX, deadline, tm

# --------------------------------------------------------------------------- REGEX: safety

REDOS = [
    r"(a+)+$",
    r"(a|a)*$",
    r"(.*a){12}",
    r"(\w+\s?)*$",
    r"^(a|aa)+$",
    r"(a*)*b",
    r"(a+)*b",
    r"(x+x+)+y",
    r"((ab)*)+$",
    r"(\d+)*$",
    r"^(\w+\s?)*$",
    r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    r"(a|b|ab)*c",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r".*a.*b.*c.*d",
    r"a?" * 30 + "a" * 30,
    r"(\s*,?\s*)*x",
    r"((?=.*x)a)+",
]


@pytest.mark.parametrize("pattern", REDOS)
def test_redos_patterns_are_rejected_quickly(pattern: str) -> None:
    check_regex.cache_clear()
    started = time.perf_counter()
    out = check_regex(pattern)
    assert isinstance(out, RegexRejected), f"{pattern!r} accepted: {out}"
    assert out.reason
    assert time.perf_counter() - started < 0.25


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        (r"(?P<x>a)(?P=x)", "backreference"),
        (r"(a)\1", "backreference"),
        (r"(a)?(?(1)b|c)", "conditional"),
        ("a" * (MAX_REGEX_LENGTH + 1), "longer than"),
        (r"(", "invalid"),
        (r"a{2000}", "repeat count"),
        (r"(?:a{100}){100}", "needs more than"),
    ],
)
def test_unsupported_patterns_are_rejected_with_a_reason(pattern: str, fragment: str) -> None:
    out = check_regex(pattern)
    assert isinstance(out, RegexRejected)
    assert fragment in out.reason


def test_rejected_regex_surfaces_through_compile_and_match() -> None:
    spec = tm(r"(a+)+$", REGEX)
    assert isinstance(compile_text_match(spec), RegexRejected)
    assert isinstance(match_text(spec, "aaaa"), RegexRejected)


@pytest.mark.parametrize(
    ("pattern", "degree"),
    [
        (r"^Sign.*", 0),
        (r"\d{3}-\d{4}", 1),
        (r"(?i)sign\s?in", 1),
        (r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}", 1),
        (r"\w+@\w+\.\w+", 2),
        (r".*x", 2),
        (r".*a.*b!", 3),
        (r"a*a*x", 3),
    ],
)
def test_degree_estimates(pattern: str, degree: int) -> None:
    assert regex_degree(pattern) == degree


def test_candidate_cap_shrinks_with_degree_and_choices() -> None:
    assert regex_candidate_cap(0) == REGEX_CANDIDATE_CAP
    assert regex_candidate_cap(1) == REGEX_CANDIDATE_CAP
    assert regex_candidate_cap(2) == 512
    assert regex_candidate_cap(3) == 64
    assert regex_candidate_cap(2, 16) < regex_candidate_cap(2)


ADVERSARIAL_UNITS = ("a", "ab", " a", "a-", "1", "a1 ", "aab", "- ", "x", "\n")


def _adversarial(cap: int) -> list[str]:
    out: list[str] = []
    for unit in ADVERSARIAL_UNITS:
        body = (unit * (cap // len(unit) + 1))[: cap - 1]
        out.extend((body + "!", body))
    return out


ACCEPTED = [
    r"^Sign.*",
    r"\w+@\w+\.\w+",
    r".*a.*b!",
    r"a*a*x",
    r"[a-z]+(-[a-z]+)*!",
    r"\s*\w+!",
    r"(\d+,)*\d+!",
    r"\d*?\w$",
    r"(a|ab)*c",
    r"(\w|\d)*?(\w|_)+x",  # polynomial (degree 3): accepted over a 64-character cap
]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_accepted_patterns_stay_fast_on_adversarial_text(pattern: str) -> None:
    safe = check_regex(pattern)
    assert isinstance(safe, SafeRegex), safe
    for candidate in _adversarial(REGEX_CANDIDATE_CAP):
        started = time.perf_counter()
        with deadline(2.0):
            match_text(tm(pattern, REGEX), candidate)
        assert time.perf_counter() - started < 0.5, (pattern, candidate[:10])


_ATOMS = ["a", "b", ".", r"\w", r"\d", r"\s", "[ab]", "-", " ", r"\b", "[^b]", "(?=a)", "$"]
_QUANTS = ["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "{0,40}"]


@st.composite
def _patterns(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.booleans()) and draw(st.booleans()):
            inner = draw(_patterns(depth + 1))
            if draw(st.booleans()):
                inner += "|" + draw(_patterns(depth + 1))
            parts.append(f"({inner}){draw(st.sampled_from(_QUANTS))}")
        else:
            parts.append(draw(st.sampled_from(_ATOMS)) + draw(st.sampled_from(_QUANTS)))
    return "".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_patterns())
def test_every_accepted_generated_pattern_is_fast(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error:
        return
    safe = check_regex(pattern)
    if isinstance(safe, RegexRejected):
        return
    for candidate in _adversarial(safe.candidate_cap):
        started = time.perf_counter()
        with deadline(2.0):
            safe.compiled.search(candidate[: safe.candidate_cap])
        assert time.perf_counter() - started < 0.5, (pattern, candidate[:10])
