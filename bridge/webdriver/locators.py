"""Locator strategies over a ``PageSource`` (sans-I/O): which elements a ``using``/``value``
pair finds, in document order.

- ``accessibility id``: Android ``content-desc`` (the node's accessible name), iOS ``name``
  or ``label`` (WebDriverAgent's ``name`` is the identifier when there is one);
- ``id``: Android ``resource-id`` (a bare id gets the app's ``PACKAGE:id/`` prefix, as
  UiAutomator2 does, and ``android:id/`` too), iOS ``name``;
- ``name``: as ``accessibility id``; ``class name``: the element's class / XCUIElementType;
- ``xpath``: lxml over the page source (relative to the element for element searches);
- ``-android uiautomator`` (``bridge.webdriver.uiselector``), ``-ios predicate string``
  (``bridge.webdriver.ios_predicate``), ``-ios class chain`` (``bridge.webdriver.class_chain``);
- ``css selector`` only as Selenium rewrites ``id`` / ``name`` / ``class name`` for W3C
  (``[id="x"]``, ``[name="x"]``, ``.x``).

Errors: a strategy that is not read, or a value that does not parse, raises
``WebDriverError("invalid selector")``; an ``-android uiautomator`` scroll returns a
``ScrollIntoView`` for the session to perform.
"""

from __future__ import annotations

import re

from lxml import etree

from bridge.webdriver import class_chain, ios_predicate, uiselector
from bridge.webdriver.errors import WebDriverError
from bridge.webdriver.page_source import PageSource
from bridge.webdriver.tokens import SelectorError
from bridge.webdriver.uiselector import ScrollIntoView
from bridge.wire.enums import Platform

Element = etree._Element
MAX_XPATH = 4096
STRATEGIES = (
    "accessibility id",
    "id",
    "name",
    "class name",
    "xpath",
    "-android uiautomator",
    "-ios predicate string",
    "-ios class chain",
    "css selector",
)
_CSS_ATTR = re.compile(r'^\[(id|name)\s*=\s*"((?:[^"\\]|\\.)*)"\]$')
_CSS_CLASS = re.compile(r"^\.((?:[^\s\\]|\\.)+)$")


def _invalid(message: str) -> WebDriverError:
    return WebDriverError("invalid selector", message)


def _scope(source: PageSource, within: Element | None) -> list[Element]:
    if within is None:
        return source.elements[1:]
    return list(within.iterdescendants())


def find(
    source: PageSource, using: str, value: str, within: Element | None = None
) -> list[Element] | ScrollIntoView:
    """The elements ``using``/``value`` finds (under ``within`` when given)."""
    if not isinstance(value, str):
        raise WebDriverError("invalid argument", "the locator's value must be a string")
    android = source.platform is Platform.ANDROID
    if using == "css selector":
        using, value = _from_css(value)
    if using in ("accessibility id", "name"):
        if android:
            return [e for e in _scope(source, within) if e.get("content-desc") == value]
        return [e for e in _scope(source, within) if value in (e.get("name"), e.get("label"))]
    if using == "id":
        if not android:
            return [e for e in _scope(source, within) if e.get("name") == value]
        wanted = {value}
        if ":id/" not in value:
            wanted |= {f"{source.package}:id/{value}", f"android:id/{value}"}
        return [e for e in _scope(source, within) if e.get("resource-id") in wanted]
    if using == "class name":
        attr = "class" if android else "type"
        return [e for e in _scope(source, within) if e.get(attr) == value]
    if using == "xpath":
        return _xpath(source, value, within)
    try:
        if using == "-android uiautomator":
            if not android:
                raise _invalid("-android uiautomator works on Android devices only")
            return _uiautomator(source, value, within)
        if using == "-ios predicate string":
            if android:
                raise _invalid("-ios predicate string works on iOS devices only")
            test = ios_predicate.parse(value)
            return [e for e in _scope(source, within) if test(e)]
        if using == "-ios class chain":
            if android:
                raise _invalid("-ios class chain works on iOS devices only")
            chain = class_chain.parse(value)
            start = [within] if within is not None else list(source.root.iterchildren())
            return class_chain.select(chain, start)
    except SelectorError as exc:
        raise _invalid(f"{using} {value!r}: {exc}") from None
    raise _invalid(
        f"locator strategy {using!r} is not supported; use one of {', '.join(STRATEGIES)}"
    )


def _from_css(value: str) -> tuple[str, str]:
    found = _CSS_ATTR.match(value.strip())
    if found:
        unescaped = re.sub(r"\\(.)", r"\1", found.group(2))
        return ("id" if found.group(1) == "id" else "name"), unescaped
    klass = _CSS_CLASS.match(value.strip())
    if klass:
        return "class name", re.sub(r"\\(.)", r"\1", klass.group(1))
    raise _invalid(f'css selector {value!r}: only [id=".."], [name=".."] and .class are read')


def _xpath(source: PageSource, value: str, within: Element | None) -> list[Element]:
    if len(value) > MAX_XPATH:
        raise _invalid(f"xpath longer than {MAX_XPATH} characters")
    context = within if within is not None else source.root
    try:
        result = context.xpath(value)
    except (etree.XPathError, ValueError) as exc:
        raise _invalid(f"xpath {value!r}: {exc}") from None
    if not isinstance(result, list) or not all(isinstance(e, etree._Element) for e in result):
        raise _invalid(f"xpath {value!r} selects something that is not an element")
    allowed = [e for e in result if e is not source.root]
    return allowed


def _uiautomator(
    source: PageSource, value: str, within: Element | None
) -> list[Element] | ScrollIntoView:
    selectors = uiselector.parse(value)
    scope = _scope(source, within)
    found: list[Element] = []
    for selector in selectors:
        if isinstance(selector, ScrollIntoView):
            if len(selectors) != 1:
                raise SelectorError("a UiScrollable cannot be combined with other selectors")
            return selector
        found.extend(e for e in selector.select(scope) if e not in found)
    return found
