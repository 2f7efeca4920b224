"""``-android uiautomator``: the UiSelector / UiScrollable subset scripts use, over the page
source (sans-I/O).

Read: ``new UiSelector()`` chained with ``text``, ``textContains``, ``textStartsWith``,
``textMatches``, ``resourceId``, ``resourceIdMatches``, ``description``,
``descriptionContains``, ``descriptionStartsWith``, ``descriptionMatches``, ``className``,
``classNameMatches``, ``packageName``, ``index``, ``instance``, the boolean states
(``clickable``, ``enabled``, ``checked``, ``checkable``, ``focusable``, ``focused``,
``scrollable``, ``selected``, ``longClickable``), ``childSelector`` and ``fromParent``; and
``new UiScrollable(SELECTOR).scrollIntoView(SELECTOR)`` / ``.scrollTextIntoView("text")``
(``setAsVerticalList`` and friends are accepted and ignored). Several selectors separated by
``;`` are a union. ``...Matches`` patterns run on RE2 (full match, as Java's ``matches``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from bridge.core.safe_regex import RegexRejected, compile_regex
from bridge.webdriver.tokens import Cursor, SelectorError, tokenize

Element = etree._Element
Test = Callable[[Element], bool]

_STATES = {
    "clickable": "clickable",
    "enabled": "enabled",
    "checked": "checked",
    "checkable": "checkable",
    "focusable": "focusable",
    "focused": "focused",
    "scrollable": "scrollable",
    "selected": "selected",
    "longClickable": "long-clickable",
}
_IGNORED = {
    "setAsVerticalList",
    "setAsHorizontalList",
    "setMaxSearchSwipes",
    "setSwipeDeadZonePercentage",
    "flingToBeginning",
    "flingToEnd",
    "scrollToBeginning",
    "scrollToEnd",
}


@dataclass
class UiSelector:
    tests: list[Test] = field(default_factory=list)
    instance: int | None = None
    children: list[UiSelector] = field(default_factory=list)
    siblings: list[UiSelector] = field(default_factory=list)

    def select(self, scope: list[Element]) -> list[Element]:
        found = [e for e in scope if all(t(e) for t in self.tests)]
        for child in self.children:
            found = _unique(
                d for e in found for d in child.select([x for x in e.iterdescendants()])
            )
        for sibling in self.siblings:
            found = _unique(
                s
                for e in found
                for s in sibling.select(
                    [x for x in (e.getparent() or e).iterchildren() if x is not e]
                )
            )
        if self.instance is not None:
            return found[self.instance : self.instance + 1]
        return found


@dataclass
class ScrollIntoView:
    """Scroll ``scrollable`` (forward) until ``target`` matches, then answer its matches."""

    scrollable: UiSelector
    target: UiSelector


Selector = UiSelector | ScrollIntoView


def _unique(items: object) -> list[Element]:
    seen: set[int] = set()
    out: list[Element] = []
    for e in items:  # type: ignore[attr-defined]
        if id(e) not in seen:
            seen.add(id(e))
            out.append(e)
    return out


def parse(source: str) -> list[Selector]:
    """The selectors of ``source`` (``;``-separated), or ``SelectorError``."""
    cursor = Cursor(tokenize(source))
    found: list[Selector] = []
    while cursor.peek() is not None:
        value = _expression(cursor)
        if not isinstance(value, UiSelector | ScrollIntoView):
            raise SelectorError("expected new UiSelector() or new UiScrollable(...)")
        found.append(value)
        if not cursor.accept("op", ";") and cursor.peek() is not None:
            raise SelectorError(f"unexpected {cursor.peek()!r}")
    if not found:
        raise SelectorError("empty selector")
    return found


def _expression(cursor: Cursor) -> object:
    token = cursor.take()
    if token == ("id", "new"):
        kind = cursor.expect("id")[1]
        args = _args(cursor)
        if kind == "UiSelector":
            value: object = UiSelector()
        elif kind == "UiScrollable":
            if len(args) != 1 or not isinstance(args[0], UiSelector):
                raise SelectorError("UiScrollable takes one UiSelector")
            value = _Scrollable(args[0])
        else:
            raise SelectorError(f"{kind}: only UiSelector and UiScrollable are read")
    elif token[0] in ("str", "num"):
        return _literal(token)
    elif token[0] == "id" and token[1] in ("true", "false"):
        return token[1] == "true"
    else:
        raise SelectorError(f"unexpected {token!r}")
    while cursor.accept("op", "."):
        method = cursor.expect("id")[1]
        value = _call(value, method, _args(cursor))
    return value


@dataclass
class _Scrollable:
    scrollable: UiSelector


def _literal(token: tuple[str, str]) -> object:
    if token[0] == "num":
        try:
            return int(token[1])
        except ValueError:
            return float(token[1])
    return token[1]


def _args(cursor: Cursor) -> list[object]:
    cursor.expect("op", "(")
    args: list[object] = []
    if cursor.accept("op", ")"):
        return args
    while True:
        args.append(_expression(cursor))
        if cursor.accept("op", ")"):
            return args
        cursor.expect("op", ",")


def _one(method: str, args: list[object], kind: type) -> object:
    if (
        len(args) != 1
        or not isinstance(args[0], kind)
        or isinstance(args[0], bool) != (kind is bool)
    ):
        raise SelectorError(f"{method} takes one {kind.__name__}")
    return args[0]


def _regex(method: str, pattern: str) -> Callable[[str], bool]:
    compiled = compile_regex(f"^(?:{pattern})$")
    if isinstance(compiled, RegexRejected):
        raise SelectorError(f"{method}({pattern!r}): {compiled.reason}")
    return compiled.search


def _attr_test(attr: str, check: Callable[[str], bool]) -> Test:
    def test(e: Element) -> bool:
        return check(e.get(attr) or "")

    return test


def _contains(want: str) -> Callable[[str], bool]:
    return lambda v: want in v


def _starts(want: str) -> Callable[[str], bool]:
    return lambda v: v.startswith(want)


def _flag(want: str) -> Callable[[str], bool]:
    return lambda v: (v or "false") == want


def _call(value: object, method: str, args: list[object]) -> object:
    if isinstance(value, _Scrollable):
        if method in _IGNORED:
            return value
        if method == "scrollIntoView":
            target = _one(method, args, UiSelector)
            assert isinstance(target, UiSelector)
            return ScrollIntoView(value.scrollable, target)
        if method == "scrollTextIntoView":
            text = str(_one(method, args, str))
            return ScrollIntoView(
                value.scrollable, UiSelector([_attr_test("text", lambda v: text in v)])
            )
        raise SelectorError(f"UiScrollable.{method} is not supported")
    if isinstance(value, ScrollIntoView) and method in _IGNORED:
        return value
    if not isinstance(value, UiSelector):
        raise SelectorError(f".{method} on something that is not a UiSelector")
    sel = value
    text_attrs = {"text": "text", "description": "content-desc", "resourceId": "resource-id",
                  "className": "class", "packageName": "package"}  # fmt: skip
    for prefix, attr in text_attrs.items():
        if method == prefix:
            want = str(_one(method, args, str))
            sel.tests.append(_attr_test(attr, want.__eq__))
            return sel
        if method == prefix + "Contains":
            want = str(_one(method, args, str))
            sel.tests.append(_attr_test(attr, _contains(want)))
            return sel
        if method == prefix + "StartsWith":
            want = str(_one(method, args, str))
            sel.tests.append(_attr_test(attr, _starts(want)))
            return sel
        if method == prefix + "Matches":
            sel.tests.append(_attr_test(attr, _regex(method, str(_one(method, args, str)))))
            return sel
    if method in _STATES:
        want_flag = "true" if _one(method, args, bool) else "false"
        attr = _STATES[method]
        sel.tests.append(_attr_test(attr, _flag(want_flag)))
        return sel
    if method == "index":
        number = str(_one(method, args, int))
        sel.tests.append(_attr_test("index", number.__eq__))
        return sel
    if method == "instance":
        sel.instance = int(_one(method, args, int))  # type: ignore[call-overload]
        return sel
    if method == "childSelector":
        child = _one(method, args, UiSelector)
        sel.children.append(child)  # type: ignore[arg-type]
        return sel
    if method == "fromParent":
        sibling = _one(method, args, UiSelector)
        sel.siblings.append(sibling)  # type: ignore[arg-type]
        return sel
    raise SelectorError(f"UiSelector.{method} is not supported")
