"""The entry point: detection from content, failures for malformed input, and invariants
that hold for any input (hypothesis)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.core.importers import FORMATS, ImportFailure, detect_format, import_dump
from bridge.core.importers.limits import MAX_INPUT_BYTES, MAX_RAW_NODES
from bridge.wire.raw import RawTree
from tests.core.importers.structure import assert_well_formed

NODE = b'<node class="android.widget.TextView" bounds="[0,0][10,10]" text="t"/>'


def _failure(data: object, source: str = "dumps/x.xml") -> ImportFailure:
    result = import_dump(data, source)  # type: ignore[arg-type]
    assert isinstance(result, ImportFailure), result
    assert result.source_name == source
    assert result.reason.startswith(source + ": ")
    assert "\n" not in result.reason and len(result.reason) <= 300
    return result


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<hierarchy><node text="&lol3;"/></hierarchy>
"""


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (b"", None, "input is empty"),
        (b" \n\t ", None, "input is empty"),
        (b"\xef\xbb\xbf", None, "input is empty"),
        (b"\x00\x01binary", None, "neither XML nor JSON"),
        ("<hierarchy/>".encode("utf-16"), None, "input is UTF-16; dumps must be UTF-8"),
        (
            b'<hierarchy rotation="0">\n  <node bounds="[0,0][1,1]">\n    <node',
            None,
            "XML not well-formed at line 3, column 5: unclosed token",
        ),
        (
            b"<hierarchy>\n<node></hierarchy>",
            None,
            "XML not well-formed at line 2, column 9: mismatched tag",
        ),
        (b"<html><body/></html>", None, "XML root element <html> is not a known dump format"),
        (
            b"<hierarchy><div/></hierarchy>",
            "android-uiautomator",
            "<hierarchy> has a child <div>, expected <node>",
        ),
        (
            b'<hierarchy>\n<node bounds="[a,b]"/></hierarchy>',
            "android-uiautomator",
            "node 0 (line 2) has bounds '[a,b]' that are not four integers",
        ),
        (
            b'<hierarchy><node bounds="[0,0][1,99999999999]"/></hierarchy>',
            "android-uiautomator",
            "node 0 (line 1) has bounds 99999999999, outside the 32-bit coordinate range",
        ),
        (
            b'<hierarchy><node clickable="yes"/></hierarchy>',
            "android-uiautomator",
            "node 0 (line 1) has clickable 'yes', expected true or false",
        ),
        (BILLION_LAUGHS, None, "XML document type declaration refused at line 2"),
        (
            b'<!DOCTYPE x SYSTEM "file:///etc/passwd"><hierarchy/>',
            None,
            "XML document type declaration refused",
        ),
        (b'{"a": 1,\n "b": }', None, "JSON not well-formed: invalid character at line 2, column 7"),
        (b'{"a": [1, 2', None, "JSON not well-formed: Input data was truncated"),
        (b'{"foo": 1, "bar": 2}', None, "JSON is an object with keys 'foo', 'bar': not a known"),
        (b"[1, 2, 3]", None, "JSON is an array of 3 items: not a known dump format"),
        (b"[]", None, "JSON is an array of 0 items: not a known dump format"),
        (b'"text"', None, "neither XML nor JSON"),
        (b'{"a": "\xff"}', None, "JSON not well-formed: Invalid UTF-8"),
    ],
)
def test_malformed_input_gives_a_precise_failure(
    data: bytes, fmt: str | None, expected: str
) -> None:
    failure = _failure(data)
    assert failure.format == fmt
    assert expected in failure.reason, failure.reason


def test_deep_nesting_is_refused_without_recursion() -> None:
    deep_xml = b"<hierarchy>" + b"<node>" * 10_000 + b"</node>" * 10_000 + b"</hierarchy>"
    assert "XML nested deeper than 258 elements" in _failure(deep_xml).reason
    deep_json = b'{"attributes": {}, "children": [' * 10_000 + b"{}" + b"]}" * 10_000
    assert "JSON nested 20001 containers deep; the limit is 528" in _failure(deep_json).reason
    # A bare <node> root has no wrapper: 258 levels pass the XML reader, not the tree limit.
    xml = b"<node>" * 258 + b"</node>" * 258
    assert "node 257 is nested deeper than 256 levels" in _failure(xml).reason
    # Depths 0..256 are allowed (257 levels under the <hierarchy> wrapper).
    ok = b"<hierarchy>" + b"<node>" * 257 + b"</node>" * 257 + b"</hierarchy>"
    tree = import_dump(ok, "ok.xml")
    assert isinstance(tree, RawTree) and len(tree.nodes) == 257


def test_too_many_nodes_is_refused_not_truncated() -> None:
    data = b"<hierarchy>" + b"<node/>" * (MAX_RAW_NODES + 1) + b"</hierarchy>"
    failure = _failure(data)
    assert failure.format == "android-uiautomator"
    assert f"more than {MAX_RAW_NODES} nodes" in failure.reason
    at_limit = b"<hierarchy><node>" + b"<node/>" * (MAX_RAW_NODES - 1) + b"</node></hierarchy>"
    tree = import_dump(at_limit, "big.xml")
    assert isinstance(tree, RawTree) and len(tree.nodes) == MAX_RAW_NODES


def test_oversized_input_is_refused_before_parsing() -> None:
    failure = _failure(b" " * (MAX_INPUT_BYTES + 1))
    assert f"the limit is {MAX_INPUT_BYTES}" in failure.reason


def test_non_bytes_input_is_a_failure() -> None:
    assert "input is str, expected bytes" in _failure("<hierarchy/>").reason


def test_bom_and_leading_whitespace_are_accepted() -> None:
    data = b"\xef\xbb\xbf\n  <hierarchy>" + NODE + b"</hierarchy>"
    assert detect_format(data) == "android-uiautomator"
    tree = import_dump(data, "bom.xml")
    assert isinstance(tree, RawTree) and tree.nodes[0].text == "t"
    as_bytearray: object = bytearray(data)
    assert import_dump(as_bytearray, "b") == tree  # type: ignore[arg-type]


def test_the_file_name_never_decides_the_format() -> None:
    data = b"<hierarchy>" + NODE + b"</hierarchy>"
    assert import_dump(data, "looks-like.json") == import_dump(data, "x.xml")


def test_detect_format_none_for_unparseable_or_unknown() -> None:
    assert detect_format(b"") is None
    assert detect_format(b"<a") is None
    assert detect_format(b"<html/>") is None
    assert detect_format(b"{}") is None
    assert detect_format(BILLION_LAUGHS) is None


def test_every_format_name_is_listed() -> None:
    assert len(set(FORMATS)) == len(FORMATS) == 11


# ---- properties -----------------------------------------------------------------------------


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_any_bytes_give_a_tree_or_a_failure(data: bytes) -> None:
    result = import_dump(data, "fuzz")
    assert isinstance(result, RawTree | ImportFailure)
    assert detect_format(data) in (None, *FORMATS)


_PREFIXES = [b"<hierarchy>", b"<node ", b"<AppiumAUT>", b'{"attributes": {', b"[{", b'{"activity"']


@settings(max_examples=300)
@given(st.sampled_from(_PREFIXES), st.binary(max_size=200))
def test_format_like_garbage_never_raises(prefix: bytes, tail: bytes) -> None:
    result = import_dump(prefix + tail, "fuzz")
    assert isinstance(result, RawTree | ImportFailure)


# XML 1.0 characters, without the surrogate range; attribute values escape tabs/newlines.
_XML_TEXT = st.text(
    st.characters(
        codec="utf-8",
        exclude_categories=["Cs"],
        exclude_characters="\ufffe\uffff",
        min_codepoint=0x09,
    ).filter(lambda c: c in "\t\n\r" or ord(c) >= 0x20),
    max_size=12,
)


@dataclass(frozen=True)
class Spec:
    """A generated node: its text, bounds, clickable flag and children."""

    text: str
    bounds: tuple[int, int, int, int]
    clickable: bool
    kids: tuple[Spec, ...] = ()


_COORD = st.integers(-5000, 5000)
_BOUNDS = st.tuples(_COORD, _COORD, _COORD, _COORD)
SPECS: st.SearchStrategy[Spec] = st.recursive(
    st.builds(Spec, _XML_TEXT, _BOUNDS, st.booleans()),
    lambda kids: st.builds(
        Spec, _XML_TEXT, _BOUNDS, st.booleans(), st.lists(kids, max_size=4).map(tuple)
    ),
    max_leaves=40,
)


def _render(spec: Spec) -> str:
    left, top, right, bottom = spec.bounds
    attrs = (
        f'text={quoteattr(spec.text)} class="android.view.View" '
        f'bounds="[{left},{top}][{right},{bottom}]" clickable="{str(spec.clickable).lower()}"'
    )
    return f"<node {attrs}>{''.join(_render(k) for k in spec.kids)}</node>"


Row = tuple[str | None, tuple[int, int, int, int], bool, int]


def _flatten(spec: Spec, parent: int, out: list[Row]) -> None:
    """Expected (text, bounds, clickable, parent) rows in pre-order."""
    index = len(out)
    out.append((spec.text or None, spec.bounds, spec.clickable, parent))
    for kid in spec.kids:
        _flatten(kid, index, out)


@settings(max_examples=150, deadline=None)
@given(st.lists(SPECS, min_size=1, max_size=3))
def test_generated_uiautomator_trees_round_trip(roots: list[Spec]) -> None:
    xml = "<hierarchy>" + "".join(_render(root) for root in roots) + "</hierarchy>"
    tree = import_dump(xml.encode(), "gen.xml")
    assert isinstance(tree, RawTree), tree
    expected: list[Row] = []
    for root in roots:  # one window per root
        _flatten(root, -1, expected)
    assert [(n.text, n.bounds, n.clickable, n.parent) for n in tree.nodes] == expected
    assert len(tree.windows) == len(roots)
    assert_well_formed(tree)
    assert import_dump(xml.encode(), "gen.xml") == tree


def _maestro(spec: Spec) -> dict[str, object]:
    left, top, right, bottom = spec.bounds
    return {
        "attributes": {
            "accessibilityText": spec.text,
            "bounds": f"[{left},{top}][{right},{bottom}]",
        },
        "children": [_maestro(k) for k in spec.kids],
        "clickable": spec.clickable,
    }


@settings(max_examples=100, deadline=None)
@given(SPECS)
def test_generated_maestro_trees_round_trip(root: Spec) -> None:
    data = json.dumps(_maestro(root), ensure_ascii=False).encode()
    tree = import_dump(data, "gen.json")
    assert isinstance(tree, RawTree), tree
    expected: list[Row] = []
    _flatten(root, -1, expected)
    assert [(n.label, n.bounds, n.clickable, n.parent) for n in tree.nodes] == expected
    assert_well_formed(tree)
