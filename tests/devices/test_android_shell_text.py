"""Shell quoting and ``input text`` escaping: what the device runs is exactly what was meant."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.devices.android.shell_text import (
    CHUNK,
    Refused,
    check_key,
    check_package,
    check_uri,
    decode_input_text,
    input_text_chunks,
    shell_command,
)

PRINTABLE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=600)


def _typed(text: str) -> str:
    chunks = input_text_chunks(text)
    assert not isinstance(chunks, Refused)
    for chunk in chunks:
        assert " " not in chunk
        argv = shlex.split(shell_command(["input", "text", chunk]))
        assert argv == ["input", "text", chunk]
    return "".join(decode_input_text(c) for c in chunks)


@given(PRINTABLE)
def test_every_printable_ascii_text_types_back_exactly(text: str) -> None:
    assert _typed(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "hello world",
        "100%sure",
        "%s%s %s",
        "% s",
        "%%s",
        'it\'s; rm -rf / && echo $(id) `reboot` "q" \\ | > < * ? ~ #',
        "trailing %",
        " lead and trail ",
    ],
)
def test_tricky_texts(text: str) -> None:
    assert _typed(text) == text


def test_spaces_become_percent_s_and_literal_percent_s_is_split() -> None:
    assert input_text_chunks("a b") == ["a%sb"]
    assert input_text_chunks("x%sy") == ["x%", "sy"]
    chunks = input_text_chunks("a" * (CHUNK * 2 + 1))
    assert isinstance(chunks, list) and [len(c) for c in chunks] == [CHUNK, CHUNK, 1]


def test_shell_metacharacters_are_quoted() -> None:
    line = shell_command(["input", "text", "a;reboot"])
    assert line == "input text 'a;reboot'"
    assert shell_command(["input", "text", "it's"]) == "input text 'it'\"'\"'s'"


@pytest.mark.parametrize(
    "text", ["caf\u00e9", "\u4f60\u597d", "tab\there", "new\nline", "\U0001f600"]
)
def test_non_ascii_and_control_characters_are_refused(text: str) -> None:
    refused = input_text_chunks(text)
    assert isinstance(refused, Refused) and "ASCII" in refused.reason


def test_validation_of_packages_uris_and_keys() -> None:
    assert check_package("com.example.app") == "com.example.app"
    for bad in (None, "", "nodots", "com.example.app; reboot", "-p.x", "com..x"):
        assert isinstance(check_package(bad), Refused)
    assert check_uri("myapp://item/42?x=1") == "myapp://item/42?x=1"
    assert check_uri("https://example.com/a%20b") == "https://example.com/a%20b"
    for bad_uri in (None, "", "no scheme", "://x", "x y:z", "a:b\nc", "-x:y", "h" * 3000 + ":x"):
        assert isinstance(check_uri(bad_uri), Refused)
    assert check_key("enter") == "KEYCODE_ENTER"
    assert check_key("KEYCODE_DEL") == "KEYCODE_DEL"
    assert isinstance(check_key("ENTER; reboot"), Refused)
