"""``-ios predicate string``: the NSPredicate subset scripts use, over page-source elements
(sans-I/O).

Keys: ``name``, ``label``, ``value``, ``type``, ``enabled``, ``visible``, ``accessible``
(also ``wdName`` ... and ``elementType`` is refused, being a number). Operators: ``==``,
``=``, ``!=``, ``<>``, ``CONTAINS``, ``BEGINSWITH``, ``ENDSWITH``, ``LIKE`` (``*`` and ``?``),
``MATCHES`` (RE2, whole value), ``IN {...}``, ``<``/``>``/``<=``/``>=`` on numbers, each with
``[c]`` / ``[d]`` / ``[cd]``; ``AND`` / ``OR`` / ``NOT`` (``&&``, ``||``, ``!``) and
parentheses. Booleans compare as ``true``/``1``/``YES``. A missing attribute reads as empty.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from lxml import etree

from bridge.core.safe_regex import RegexRejected, compile_regex
from bridge.webdriver.tokens import Cursor, SelectorError, Token, tokenize

Element = etree._Element
Test = Callable[[Element], bool]

KEYS = {"name", "label", "value", "type", "enabled", "visible", "accessible", "selected",
        "identifier", "title", "placeholderValue"}  # fmt: skip
_BOOL_KEYS = {"enabled", "visible", "accessible", "selected"}
_WORD_OPS = {"CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "IN"}
MAX_DEPTH = 32


def parse(source: str) -> Test:
    """A test for elements, or ``SelectorError`` saying what could not be read."""
    cursor = Cursor(tokenize(source))
    test = _or(cursor, 0)
    if cursor.peek() is not None:
        raise SelectorError(f"unexpected {cursor.peek()!r}")
    return test


def _word(cursor: Cursor, *words: str) -> bool:
    token = cursor.peek()
    if token is not None and token[0] == "id" and token[1].upper() in words:
        cursor.pos += 1
        return True
    return False


def _or(cursor: Cursor, depth: int) -> Test:
    if depth > MAX_DEPTH:
        raise SelectorError("predicate nested too deep")
    parts = [_and(cursor, depth)]
    while _word(cursor, "OR") or cursor.accept("op", "||"):
        parts.append(_and(cursor, depth))
    return parts[0] if len(parts) == 1 else (lambda e: any(p(e) for p in parts))


def _and(cursor: Cursor, depth: int) -> Test:
    parts = [_not(cursor, depth)]
    while _word(cursor, "AND") or cursor.accept("op", "&&"):
        parts.append(_not(cursor, depth))
    return parts[0] if len(parts) == 1 else (lambda e: all(p(e) for p in parts))


def _not(cursor: Cursor, depth: int) -> Test:
    if _word(cursor, "NOT") or cursor.accept("op", "!"):
        inner = _not(cursor, depth + 1)
        return lambda e: not inner(e)
    if cursor.accept("op", "("):
        inner = _or(cursor, depth + 1)
        cursor.expect("op", ")")
        return inner
    return _comparison(cursor)


def _key(raw: str) -> str:
    key = raw[2].lower() + raw[3:] if raw.startswith("wd") and len(raw) > 2 else raw
    if key == "identifier":
        return "name"
    if key == "placeholderValue":
        return "value"
    if key not in KEYS:
        raise SelectorError(f"{raw}: not a key this endpoint reads ({', '.join(sorted(KEYS))})")
    return key


def _modifiers(cursor: Cursor) -> tuple[bool, bool]:
    if not cursor.accept("op", "["):
        return False, False
    flags = cursor.expect("id")[1].lower()
    cursor.expect("op", "]")
    if not set(flags) <= {"c", "d"}:
        raise SelectorError(f"[{flags}]: modifiers are c and d")
    return "c" in flags, "d" in flags


def _value(cursor: Cursor) -> str | list[str]:
    if cursor.accept("op", "{"):
        items: list[str] = []
        if cursor.accept("op", "}"):
            return items
        while True:
            item = _value(cursor)
            if isinstance(item, list):
                raise SelectorError("nested sets are not read")
            items.append(item)
            if cursor.accept("op", "}"):
                return items
            cursor.expect("op", ",")
    token: Token = cursor.take()
    if token[0] in ("str", "num"):
        return token[1]
    if token[0] == "id" and token[1].upper() in ("TRUE", "YES", "FALSE", "NO"):
        return "1" if token[1].upper() in ("TRUE", "YES") else "0"
    raise SelectorError(f"expected a value, got {token!r}")


def _fold(text: str, case: bool, diacritics: bool) -> str:
    if diacritics:
        text = "".join(
            c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)
        )
    return text.casefold() if case else text


def _like_regex(pattern: str) -> str:
    out = []
    for c in pattern:
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        else:
            out.append("\\" + c if not c.isalnum() else c)
    return "^" + "".join(out) + "$"


def _comparison(cursor: Cursor) -> Test:
    token = cursor.take()
    if token[0] != "id":
        raise SelectorError(f"expected a key, got {token!r}")
    key = _key(token[1])
    op_token = cursor.take()
    op = op_token[1].upper() if op_token[0] == "id" else op_token[1]
    if op_token[0] == "id" and op not in _WORD_OPS:
        raise SelectorError(f"{op_token[1]}: not an operator")
    case, diacritics = _modifiers(cursor)
    want = _value(cursor)
    boolean = key in _BOOL_KEYS

    def read(e: Element) -> str:
        raw = e.get(key) or ""
        if boolean:
            return "1" if raw == "true" else "0"
        return _fold(raw, case, diacritics)

    if op == "IN":
        if not isinstance(want, list):
            raise SelectorError("IN takes a set: {'a', 'b'}")
        options = {_fold(w, case, diacritics) for w in want}
        return lambda e: read(e) in options
    if isinstance(want, list):
        raise SelectorError(f"{op} takes one value")
    target = want if boolean else _fold(want, case, diacritics)
    if op in ("==", "="):
        return lambda e: read(e) == target
    if op in ("!=", "<>"):
        return lambda e: read(e) != target
    if op == "CONTAINS":
        return lambda e: target in read(e)
    if op == "BEGINSWITH":
        return lambda e: read(e).startswith(target)
    if op == "ENDSWITH":
        return lambda e: read(e).endswith(target)
    if op in ("LIKE", "MATCHES"):
        pattern = _like_regex(target) if op == "LIKE" else f"^(?:{target})$"
        compiled = compile_regex(pattern)
        if isinstance(compiled, RegexRejected):
            raise SelectorError(f"{op} {want!r}: {compiled.reason}")
        return lambda e: compiled.search(read(e))
    if op in ("<", ">", "<=", ">="):
        try:
            number = float(target)
        except ValueError:
            raise SelectorError(f"{op} compares numbers, got {want!r}") from None
        compare: dict[str, Callable[[float, float], bool]] = {
            "<": lambda a, b: a < b,
            ">": lambda a, b: a > b,
            "<=": lambda a, b: a <= b,
            ">=": lambda a, b: a >= b,
        }
        check = compare[op]

        def numeric(e: Element) -> bool:
            try:
                return check(float(read(e)), number)
            except ValueError:
                return False

        return numeric
    raise SelectorError(f"{op}: not an operator")
