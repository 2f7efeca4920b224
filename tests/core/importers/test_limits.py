from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bridge.core.importers.limits import MAX_RAW_TEXT, cap_text, opt_text


def test_cap_text_rule() -> None:
    assert cap_text("abc") == "abc"
    exact = "x" * MAX_RAW_TEXT
    assert cap_text(exact) == exact
    cut = cap_text("y" * (MAX_RAW_TEXT + 5))
    assert cut == "y" * (MAX_RAW_TEXT - 1) + "\u2026"
    assert len(cut) == MAX_RAW_TEXT


def test_opt_text_empty_is_none_everything_else_verbatim() -> None:
    assert opt_text(None) is None
    assert opt_text("") is None
    assert opt_text(" ") == " "
    assert opt_text("e\u0301") == "e\u0301"  # no NFC here


@given(st.text(max_size=MAX_RAW_TEXT + 50))
def test_cap_text_keeps_a_prefix_within_the_limit(text: str) -> None:
    capped = cap_text(text)
    assert len(capped) <= MAX_RAW_TEXT
    if len(text) <= MAX_RAW_TEXT:
        assert capped == text
    else:
        assert text.startswith(capped[:-1]) and capped.endswith("\u2026")
