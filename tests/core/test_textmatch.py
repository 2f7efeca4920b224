"""Text normalization and the five match modes (bridge.core.textmatch)."""

# ruff: noqa: RUF001 - fullwidth, Arabic and Hebrew letters are the point of these tests

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.safe_regex import REGEX_CANDIDATE_CAP, compile_regex
from bridge.core.textmatch import (
    CONFIDENCE_EXACT,
    CONFIDENCE_NORMALIZED,
    CONFIDENCE_REGEX,
    CONFIDENCE_SYNONYM,
    TextMatched,
    TextMatcher,
    compile_text_match,
    normalize_text,
    synonym_groups,
)
from bridge.wire.query import TextMatch
from tests.core.textmatch_helpers import CONTAINS, EXACT, NORM, REGEX, SYN, matched, tm

# --------------------------------------------------------------------------- normalize_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Sign   in ", "sign in"),
        ("Sign\u00a0in", "sign in"),  # NBSP
        ("Sign\u200bin", "signin"),  # zero-width space is removed, not a separator
        ("Sign\u200d \u200cin", "sign in"),  # joiners
        ("\ufeffOK", "ok"),  # BOM
        ("Ｓｉｇｎ　ｉｎ", "sign in"),  # fullwidth letters, ideographic space
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),  # casefold, not lower
        ("\u2067مرحبا\u2069", "مرحبا"),  # bidi isolates around Arabic
        ("\u200fשלום \u200e", "שלום"),  # RLM / LRM
        ("line\nbreak\ttab", "line break tab"),
        ("ﬁle", "file"),  # NFKC ligature
        ("e\u0301", "é"),  # composed
        ("", ""),
        ("\u200b\u00a0", ""),
    ],
)
def test_normalize_examples(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


@given(st.text())
def test_normalize_is_idempotent(s: str) -> None:
    once = normalize_text(s)
    assert normalize_text(once) == once


@given(st.text())
def test_normalize_has_collapsed_stripped_whitespace(s: str) -> None:
    out = normalize_text(s)
    assert out == out.strip()
    assert "  " not in out
    assert not any(ch.isspace() and ch != " " for ch in out)


@given(st.text(), st.text())
def test_normalize_ignores_surrounding_whitespace(s: str, pad: str) -> None:
    spaces = "".join(ch for ch in pad if ch.isspace())
    assert normalize_text(spaces + s + spaces) == normalize_text(s)


# --------------------------------------------------------------------------- EXACT / NORMALIZED


def test_exact_requires_identical_strings() -> None:
    assert matched("Sign in", EXACT, "Sign in") == TextMatched(EXACT, CONFIDENCE_EXACT)
    assert matched("Sign in", EXACT, "sign in") is None
    assert matched("Sign in", EXACT, "Sign in ") is None
    assert matched("Sign in", EXACT, None) is None


def test_normalized_exact_reports_what_held() -> None:
    assert matched("Sign in", NORM, "Sign in") == TextMatched(EXACT, CONFIDENCE_EXACT)
    assert matched("Sign in", NORM, " SIGN\u00a0IN ") == TextMatched(NORM, CONFIDENCE_NORMALIZED)
    assert matched("Sign in", NORM, "Sign in now") is None
    assert matched("Sign in", NORM, None) is None


def test_normalized_exact_is_the_default_mode() -> None:
    assert TextMatch(value="x").match is NORM


@given(st.text(max_size=30), st.text(max_size=30))
def test_normalized_exact_is_equality_of_normal_forms(a: str, b: str) -> None:
    hit = matched(a, NORM, b)
    assert (hit is not None) == (normalize_text(a) == normalize_text(b))


# --------------------------------------------------------------------------- CONTAINS


def test_contains_scales_confidence_by_coverage() -> None:
    short = matched("in", CONTAINS, "Sign in to continue")
    long = matched("sign in to", CONTAINS, "Sign in to continue")
    assert short is not None and long is not None
    assert short.mode is CONTAINS and long.mode is CONTAINS
    assert 0.5 <= short.confidence < long.confidence < 0.9
    assert matched("Sign in", CONTAINS, "sign in") == TextMatched(NORM, CONFIDENCE_NORMALIZED)
    assert matched("Sign in", CONTAINS, "Sign in") == TextMatched(EXACT, CONFIDENCE_EXACT)


def test_contains_is_normalized_and_never_matches_an_empty_needle() -> None:
    assert matched("SIGN\u00a0IN", CONTAINS, "Please sign in") is not None
    assert matched("  ", CONTAINS, "anything") is None
    assert matched("", CONTAINS, "anything") is None
    assert matched("xyz", CONTAINS, "Sign in") is None


@given(st.text(max_size=20), st.text(min_size=1, max_size=20), st.text(max_size=20))
def test_contains_finds_any_normalized_infix(a: str, b: str, c: str) -> None:
    hay = f"{a} {b} {c}"
    hit = matched(b, CONTAINS, hay)
    if normalize_text(b):
        assert hit is not None
        assert 0.5 <= hit.confidence <= 1.0
    else:
        assert hit is None or hit.mode is not CONTAINS


# --------------------------------------------------------------------------- SEMANTIC_SYNONYM


@pytest.mark.parametrize(
    ("value", "candidate"),
    [
        ("Sign in", "Log In"),
        ("sign in", "LOGIN"),
        ("Sign in", "Anmelden"),
        ("Sign in", "ログイン"),
        ("Sign in", "登录"),
        ("Log out", "Sign out"),
        ("OK", "Okay!"),
        ("ok", "Accept"),
        ("Cancel", "Dismiss"),
        ("Close", "Dismiss"),
        ("Continue", "Next >"),
        ("Continue", "Weiter"),
        ("Next", "次へ"),
        ("Search", "Find"),
        ("Settings", "Preferences"),
        ("Settings", "Einstellungen"),
        ("Delete", "Remove"),
        ("Delete", "削除"),
        ("Delete", "Löschen"),
        ("Submit", "Send"),
        ("Back", "Return"),
        ("Yes", "Confirm"),
        ("No", "Decline"),
        ("Schließen", "close"),
    ],
)
def test_synonyms_match(value: str, candidate: str) -> None:
    hit = matched(value, SYN, candidate)
    assert hit == TextMatched(SYN, CONFIDENCE_SYNONYM)


@pytest.mark.parametrize(
    ("value", "candidate"),
    [
        ("Cancel", "Close"),  # both ~ dismiss, yet not each other
        ("Sign in", "Sign out"),
        ("Sign in", "Sign up"),
        ("Yes", "No"),
        ("Sign in", "Sign in with Google"),
        ("Frobnicate", "Log in"),
    ],
)
def test_synonyms_do_not_overreach(value: str, candidate: str) -> None:
    assert matched(value, SYN, candidate) is None


def test_synonym_mode_still_matches_exact_and_normalized() -> None:
    assert matched("Frobnicate", SYN, "Frobnicate") == TextMatched(EXACT, CONFIDENCE_EXACT)
    assert matched("Frobnicate", SYN, " FROBNICATE") == TextMatched(NORM, CONFIDENCE_NORMALIZED)
    assert matched("Frobnicate!", SYN, "frobnicate") == TextMatched(SYN, CONFIDENCE_SYNONYM)


def test_synonyms_are_opt_in() -> None:
    assert matched("Sign in", NORM, "Log in") is None
    assert matched("Sign in", CONTAINS, "Log in") is None
    assert matched("Sign in", EXACT, "Log in") is None


def test_synonym_groups_are_symmetric_lookups() -> None:
    assert synonym_groups("Login") & synonym_groups("sign in")
    assert not synonym_groups("frobnicate")


# --------------------------------------------------------------------------- REGEX: behaviour


@pytest.mark.parametrize(
    ("pattern", "hit", "miss"),
    [
        (r"^Sign.*", "Sign in", "Please Sign in"),
        (r"\d{3}-\d{4}", "Call 555-1234 now", "555-12"),
        (r"(foo|bar)", "a bar b", "baz"),
        (r"(?i)^sign\s?in$", "SIGNIN", "sign in now"),
        (r"[a-z]+(-[a-z]+)*$", "x well-known-word", "Word-"),
        (r"\w+@\w+\.\w+", "mail a@b.io", "a@b"),
        (r"^\$\d+(\.\d{2})?$", "$12.50", "$12.5"),
        (r"注文|order", "ご注文", "購入"),
    ],
)
def test_ordinary_regexes_work(pattern: str, hit: str, miss: str) -> None:
    assert matched(pattern, REGEX, hit) == TextMatched(REGEX, CONFIDENCE_REGEX)
    assert matched(pattern, REGEX, miss) is None
    assert matched(pattern, REGEX, None) is None


def test_regex_searches_the_raw_candidate() -> None:
    assert matched("Sign in", REGEX, "SIGN IN") is None
    assert matched("Sign in", REGEX, "Sign in") is not None


def test_regex_reads_at_most_its_candidate_cap() -> None:
    pad = "x" * REGEX_CANDIDATE_CAP
    assert matched("needle", REGEX, pad[:-10] + "needle") is not None
    assert matched("needle", REGEX, pad + "needle") is None


def test_compile_once_per_pattern() -> None:
    assert compile_regex(r"^Sign.*") is compile_regex(r"^Sign.*")
    matcher = compile_text_match(tm(r"^Sign.*", REGEX))
    assert isinstance(matcher, TextMatcher)
    assert matcher.regex is compile_regex(r"^Sign.*")


def test_a_synonym_key_ignores_any_run_of_punctuation_symbols_and_spaces_at_its_ends() -> None:
    login = synonym_groups("sign in")
    assert login
    for dressed in ("[[Log in]]", "¡¡Log in!!", "→ Log in ←", "  «Log in»  ", "Log in…"):
        assert synonym_groups(dressed) == login, dressed
    assert not synonym_groups("Log-in-please")  # inner characters are kept
    assert synonym_groups("!!!") == frozenset()
