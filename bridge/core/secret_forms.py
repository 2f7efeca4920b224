"""Every form a typed secret can take in free text (log lines, crash reports), and a scrubber
that removes them.

A device's log does not print a typed secret the way it was typed: logcat and syslog lines
carry it escaped (``'Pa\\\\ss\\'w0rd'`` in a Python or Java ``repr``), JSON-encoded, shell-quoted,
percent-encoded, base64-encoded or cut at a line's end. Masking only the verbatim secret leaves
every one of those readable, and each decodes back to the secret. ``forms`` lists the encodings
a reader could reverse:

- raw; backslash escapes (C, Java, Python ``repr``/``ascii``, with either quote escaped);
  JSON (ASCII-only and not, and JSON inside JSON); shell quoting (inside ``'...'``, inside
  ``"..."``, and ``printf %q``-style backslashes); HTML entities;
- percent-encoding (``quote`` with and without ``/`` safe, ``quote_plus``; upper- and
  lower-case hex); hex of the UTF-8 bytes;
- base64 (standard and URL-safe) at each of the three byte offsets the secret can start at
  inside a larger encoded blob: only the characters whose six bits all come from the secret,
  which are the same whatever surrounds it.

``Scrubber`` replaces every occurrence of any form by ``MASK`` with one regular-expression
scan, then masks a line's **edges**: a line that ends with the first ``EDGE_MIN`` or more
characters of a form (a cut or truncated line) or starts with its last ``EDGE_MIN`` or more
(the rest of a cut) has that part masked too. So a reader of any number of lines sees at most
``EDGE_MIN - 1`` characters of a form at each cut, never a decodable secret; ``scrub_after``
also masks the part of a cut form that opens the next line of the same stream, however short.

Invariants: pure (no clock, no I/O); forms of secrets shorter than ``MIN_FORM`` characters
are only masked where a whole text equals the secret (``SecretMasker.mask_text`` does that),
because a short one would blank common words; the scrubber is rebuilt only when the set of
secrets changes (the caller passes the masker's ``version``).
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable
from typing import Final
from urllib.parse import quote, quote_plus

MIN_FORM: Final = 3
"""Shortest form masked wherever it appears."""
EDGE_MIN: Final = 4
"""Shortest part of a form masked at a line's start or end."""
_SHELL_SPECIAL: Final = frozenset(" \t\n'\"\\$`!&|;<>()[]{}*?#~")


def _backslash(secret: str, *, ascii_only: bool, quote_chars: str) -> str:
    out: list[str] = []
    for ch in secret:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch in quote_chars:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif ascii_only and code > 0x7E:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def _base64_cores(data: bytes) -> Iterable[str]:
    """The base64 characters that encode only ``data``'s bits, for each offset (0, 1, 2) at
    which ``data`` can start inside a longer encoded byte string."""
    for offset in range(3):
        padded = b"\0" * offset + data + b"\0\0"
        first_bit = 8 * offset
        last_bit = 8 * (offset + len(data))
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(padded).decode("ascii")
            chars = [
                text[c] for c in range(len(text)) if 6 * c >= first_bit and 6 * c + 6 <= last_bit
            ]
            yield "".join(chars)


def _lower_hex_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


def forms(secret: str) -> frozenset[str]:
    """Every encoded form of ``secret`` listed in the module docstring (those of at least
    ``MIN_FORM`` characters), the secret itself included."""
    if not secret:
        return frozenset()
    found: set[str] = {secret, repr(secret)[1:-1], ascii(secret)[1:-1]}
    for ascii_only in (False, True):
        for quotes in ("", "'", '"', "'\""):
            found.add(_backslash(secret, ascii_only=ascii_only, quote_chars=quotes))
    json_ascii = json.dumps(secret)[1:-1]
    json_utf8 = json.dumps(secret, ensure_ascii=False)[1:-1]
    found.update((json_ascii, json_utf8))
    found.add(json.dumps(json_ascii)[1:-1])
    found.add(json.dumps(json_utf8, ensure_ascii=False)[1:-1])
    found.add(secret.replace("'", "'\\''"))
    found.add(secret.replace("'", "'\"'\"'"))
    found.add(re.sub(r'(["\\$`])', r"\\\1", secret))
    found.add("".join("\\" + ch if ch in _SHELL_SPECIAL else ch for ch in secret))
    found.add(html.escape(secret))
    found.add(html.escape(secret, quote=False))
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret, safe="")):
        found.add(encoded)
        found.add(_lower_hex_escapes(encoded))
    raw = secret.encode("utf-8", "surrogatepass")
    found.add(raw.hex())
    found.add(raw.hex().upper())
    found.update(_base64_cores(raw))
    return frozenset(form for form in found if len(form) >= MIN_FORM)


class Scrubber:
    """Masks every form of a fixed set of secrets in free text (module docstring)."""

    def __init__(self, secrets: Iterable[str], mask: str) -> None:
        every: set[str] = set()
        for secret in secrets:
            if len(secret) >= MIN_FORM:
                every |= forms(secret)
        self._mask = mask
        ordered = sorted(every, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._heads: frozenset[str] = frozenset(
            form[:k] for form in every for k in range(EDGE_MIN, len(form))
        )
        self._tails: frozenset[str] = frozenset(
            form[-k:] for form in every for k in range(EDGE_MIN, len(form))
        )
        self._longest = max((len(form) for form in every), default=0)
        self._splits: dict[str, list[str]] = {}
        """For a form cut in two between lines: its part at the start of the second line ->
        the parts that would have ended the first."""
        for form in every:
            for k in range(1, len(form)):
                self._splits.setdefault(form[k:], []).append(form[:k])

    def __bool__(self) -> bool:
        return self._pattern is not None

    def scrub(self, text: str) -> str:
        """``text`` with every form, and every cut part of one at its edges, replaced by the
        mask; the same object when nothing was found."""
        if self._pattern is None or not text:
            return text
        out = self._pattern.sub(self._mask, text)
        out = self._scrub_edges(out)
        return text if out == text else out

    def scrub_after(self, previous: str, text: str) -> str:
        """``scrub(text)`` for a line that follows ``previous`` (its unmasked text) in one
        stream: a form cut between the two also has its part at ``text``'s start masked,
        however short, so the lines read together never spell the secret (``previous``
        already had its part masked when it was ``EDGE_MIN`` characters or more)."""
        if self._pattern is None or not text or not previous:
            return self.scrub(text)
        for k in range(min(self._longest - 1, len(text)), 0, -1):
            for before in self._splits.get(text[:k], ()):
                if previous.endswith(before):
                    return self._mask + self.scrub(text[k:])
        return self.scrub(text)

    def _scrub_edges(self, text: str) -> str:
        mask = self._mask
        top = min(self._longest, len(text))
        for k in range(top, EDGE_MIN - 1, -1):
            if text[-k:] in self._heads:
                text = text[:-k] + mask
                break
        top = min(self._longest, len(text))
        for k in range(top, EDGE_MIN - 1, -1):
            if text[:k] in self._tails:
                text = mask + text[k:]
                break
        return text
