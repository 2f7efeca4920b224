"""``-ios class chain``: WebDriverAgent's class chain subset, over page-source elements
(sans-I/O).

A chain is segments joined by ``/``, read from the application element: ``TYPE`` (or ``*``)
is a child of the previous step, ``**/TYPE`` any descendant. Each segment takes filters in
order: ``[N]`` (1-based; ``[-1]`` the last) and ``[`PREDICATE`]`` (an iOS predicate string),
``[$PREDICATE$]`` (keeps elements with a descendant matching it). ``N`` picks among every
match of the step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from bridge.webdriver import ios_predicate
from bridge.webdriver.tokens import SelectorError

Element = etree._Element
MAX_SEGMENTS = 64


@dataclass
class Segment:
    kind: str
    deep: bool
    filters: list[Callable[[list[Element]], list[Element]]] = field(default_factory=list)


def parse(source: str) -> list[Segment]:
    if len(source) > 4096:
        raise SelectorError("class chain longer than 4096 characters")
    segments: list[Segment] = []
    deep = False
    for raw in _split(source):
        if raw == "**":
            deep = True
            continue
        segments.append(_segment(raw, deep))
        deep = False
        if len(segments) > MAX_SEGMENTS:
            raise SelectorError(f"more than {MAX_SEGMENTS} segments")
    if deep or not segments:
        raise SelectorError("a class chain ends with a type or *")
    return segments


def _split(source: str) -> list[str]:
    """Split on ``/`` outside backticks and ``$`` predicates."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for c in source:
        if quote is not None:
            current.append(c)
            if c == quote:
                quote = None
            continue
        if c in "`$":
            quote = c
            current.append(c)
        elif c == "/":
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(c)
    if quote is not None:
        raise SelectorError("unterminated predicate in class chain")
    parts.append("".join(current).strip())
    if any(not p for p in parts):
        raise SelectorError("empty segment in class chain")
    return parts


def _segment(raw: str, deep: bool) -> Segment:
    bracket = raw.find("[")
    kind = raw if bracket < 0 else raw[:bracket]
    if kind != "*" and not kind.replace("_", "").isalnum():
        raise SelectorError(f"{kind!r}: a segment starts with a type or *")
    segment = Segment(kind, deep)
    rest = "" if bracket < 0 else raw[bracket:]
    while rest:
        if not rest.startswith("["):
            raise SelectorError(f"unexpected {rest[:20]!r} in class chain")
        if rest.startswith("[`") or rest.startswith("[$"):
            mark = rest[1]
            end = rest.find(mark + "]", 2)
            if end < 0:
                raise SelectorError("unterminated predicate in class chain")
            test = ios_predicate.parse(rest[2:end])
            segment.filters.append(_matching(test) if mark == "`" else _having(test))
            rest = rest[end + 2 :]
            continue
        end = rest.find("]")
        number = rest[1:end] if end > 0 else ""
        if not number.lstrip("-").isdigit() or int(number) == 0:
            raise SelectorError(f"[{number}]: an index is a non-zero integer")
        index = int(number)
        segment.filters.append(_nth(index))
        rest = rest[end + 1 :]
    return segment


Filter = Callable[[list[Element]], list[Element]]


def _matching(test: Callable[[Element], bool]) -> Filter:
    return lambda els: [e for e in els if test(e)]


def _having(test: Callable[[Element], bool]) -> Filter:
    return lambda els: [e for e in els if any(test(d) for d in e.iterdescendants())]


def _nth(index: int) -> Filter:
    """1-based; negative counts from the end."""

    def pick(els: list[Element]) -> list[Element]:
        if 0 < index <= len(els):
            return [els[index - 1]]
        if index < 0 and -index <= len(els):
            return [els[index]]
        return []

    return pick


def select(segments: list[Segment], start: list[Element]) -> list[Element]:
    """The elements the chain reaches from ``start`` (the application element(s))."""
    current = start
    for segment in segments:
        found: list[Element] = []
        seen: set[int] = set()
        for element in current:
            pool = element.iterdescendants() if segment.deep else element.iterchildren()
            for candidate in pool:
                if id(candidate) in seen:
                    continue
                if segment.kind == "*" or candidate.tag == segment.kind:
                    seen.add(id(candidate))
                    found.append(candidate)
        for step in segment.filters:
            found = step(found)
        current = found
    return current
