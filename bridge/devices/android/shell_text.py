"""Device shell commands built from argument lists, and text made safe for ``input text``.

Two layers interpret what the hub sends to the phone: the device shell (``sh -c`` of the
adb ``shell:`` service) and the ``input text`` command, which turns ``%s`` into a space.

Invariants:
- ``shell_command(argv)`` quotes every argument (``shlex.quote``), so the device shell
  splits it back into exactly ``argv``: no user text is ever pasted into a shell string;
- ``input_text_chunks(text)`` returns chunks that ``input text`` turns back into exactly
  ``text`` when typed one after another: spaces become ``%s``; a literal ``%s`` in the text is
  split across two chunks (``input`` has no escape for it); only printable ASCII is accepted,
  because ``input text`` maps characters through the virtual keyboard's key map, which has
  no keys for other characters;
- package names, deep-link URIs and key names are validated before any command is built.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

MAX_TEXT = 4096
CHUNK = 200
MAX_URI = 2048

_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_KEY = re.compile(r"[A-Z][A-Z0-9_]{0,47}")


@dataclass(frozen=True)
class Refused:
    """Why a value cannot be sent to the device."""

    reason: str


def shell_command(argv: Sequence[str]) -> str:
    if not argv:
        raise ValueError("empty command")
    return " ".join(shlex.quote(arg) for arg in argv)


def _split_literal_percent_s(text: str) -> list[str]:
    """Cut ``text`` after every ``%`` that is followed by ``s``."""
    pieces: list[str] = []
    start = 0
    for i in range(len(text) - 1):
        if text[i] == "%" and text[i + 1] == "s":
            pieces.append(text[start : i + 1])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def input_text_chunks(text: str) -> list[str] | Refused:
    """The ``input text`` arguments that type ``text`` (see the module invariants)."""
    if len(text) > MAX_TEXT:
        return Refused(f"text of {len(text)} characters is over the {MAX_TEXT} limit")
    bad = sorted({c for c in text if not (" " <= c <= "~")})
    if bad:
        shown = ", ".join(f"U+{ord(c):04X}" for c in bad[:5])
        return Refused(
            "agentless mode types printable ASCII only (adb 'input text' has no key for "
            f"{shown}); install the agent APK for other text"
        )
    chunks: list[str] = []
    for piece in _split_literal_percent_s(text):
        for start in range(0, len(piece), CHUNK):
            part = piece[start : start + CHUNK]
            if part:
                chunks.append(part.replace(" ", "%s"))
    return chunks


def decode_input_text(arg: str) -> str:
    """What ``input text ARG`` types: the platform's ``%s`` -> space rule (a reference for
    tests and for reading back what was sent)."""
    out: list[str] = []
    escape = False
    for c in arg:
        if escape and c == "s":
            out[-1] = " "
            escape = False
            continue
        escape = c == "%"
        out.append(c)
    return "".join(out)


def check_package(name: str | None) -> str | Refused:
    if name is None or not _PACKAGE.fullmatch(name) or len(name) > 255:
        return Refused(f"{name!r} is not an Android package name")
    return name


def check_uri(uri: str | None) -> str | Refused:
    """A deep link: a scheme, no whitespace or control characters, at most ``MAX_URI``."""
    if uri is None or not uri:
        return Refused("a deep link needs a URI")
    if len(uri) > MAX_URI:
        return Refused(f"URI of {len(uri)} characters is over the {MAX_URI} limit")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in uri):
        return Refused("the URI contains whitespace or control characters")
    scheme, sep, _ = uri.partition(":")
    if not sep or not _SCHEME.fullmatch(scheme):
        return Refused(f"{uri[:80]!r} has no URI scheme")
    if uri.startswith("-"):
        return Refused("the URI starts with '-'")
    return uri


def check_key(name: str) -> str | Refused:
    """A key name as ``KeyEvent`` spells it without the prefix (ENTER, DEL, TAB, ...)."""
    bare = name.removeprefix("KEYCODE_").upper()
    if not _KEY.fullmatch(bare):
        return Refused(f"{name!r} is not a key name")
    return "KEYCODE_" + bare
