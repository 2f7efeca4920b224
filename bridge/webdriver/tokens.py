"""A small tokenizer shared by the UiSelector and iOS predicate parsers (sans-I/O).

Tokens: ``("str", text)`` for quoted strings ('...' or "..." with backslash escapes),
``("num", text)``, ``("id", word)``, ``("op", symbol)``. Input is at most ``MAX_SOURCE``
characters and ``MAX_TOKENS`` tokens; anything else raises ``SelectorError``.
"""

from __future__ import annotations

MAX_SOURCE = 4096
MAX_TOKENS = 1024
_OPS = ("==", "!=", "<>", "<=", ">=", "&&", "||", "=", "<", ">", "!", "(", ")", ".", ",", ";",
        "{", "}", "[", "]")  # fmt: skip

Token = tuple[str, str]


class SelectorError(ValueError):
    """The selector cannot be read; the message says where."""


def tokenize(source: str) -> list[Token]:
    if len(source) > MAX_SOURCE:
        raise SelectorError(f"selector longer than {MAX_SOURCE} characters")
    tokens: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
            continue
        if c in "'\"":
            i, text = _string(source, i)
            tokens.append(("str", text))
        elif c.isdigit() or (c == "-" and i + 1 < n and source[i + 1].isdigit()):
            j = i + 1
            while j < n and (source[j].isdigit() or source[j] == "."):
                j += 1
            tokens.append(("num", source[i:j]))
            i = j
        elif c.isalpha() or c in "_$@":
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] in "_$"):
                j += 1
            tokens.append(("id", source[i:j]))
            i = j
        else:
            for op in _OPS:
                if source.startswith(op, i):
                    tokens.append(("op", op))
                    i += len(op)
                    break
            else:
                raise SelectorError(f"unexpected {c!r} at {i}")
        if len(tokens) > MAX_TOKENS:
            raise SelectorError(f"more than {MAX_TOKENS} tokens")
    return tokens


def _string(source: str, start: int) -> tuple[int, str]:
    quote = source[start]
    out: list[str] = []
    i = start + 1
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            out.append(source[i + 1])
            i += 2
            continue
        if c == quote:
            return i + 1, "".join(out)
        out.append(c)
        i += 1
    raise SelectorError(f"unterminated string starting at {start}")


class Cursor:
    """Reads a token list; ``expect`` raises ``SelectorError`` naming what was wanted."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise SelectorError("the selector ends too early")
        self.pos += 1
        return token

    def accept(self, kind: str, text: str | None = None) -> bool:
        token = self.peek()
        if token is not None and token[0] == kind and (text is None or token[1] == text):
            self.pos += 1
            return True
        return False

    def expect(self, kind: str, text: str | None = None) -> Token:
        token = self.peek()
        if token is None or token[0] != kind or (text is not None and token[1] != text):
            wanted = text or kind
            raise SelectorError(f"expected {wanted!r} at token {self.pos}, got {token!r}")
        self.pos += 1
        return token
