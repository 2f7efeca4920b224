from __future__ import annotations

import pytest

from bridge.core.importers.failure import DumpError
from bridge.core.importers.safe_xml import MAX_XML_ELEMENTS, parse_xml


def test_parses_into_plain_elements_in_document_order() -> None:
    root = parse_xml(b'<a x="1">\n  <b/>text<c y="\xe4\xb8\xad"/><!-- c --><?pi x?></a>')
    assert root.tag == "a" and root.attrib == {"x": "1"} and root.line == 1
    assert [(c.tag, c.attrib, c.line) for c in root.children] == [
        ("b", {}, 2),
        ("c", {"y": "中"}, 2),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', "XML document type declaration refused"),
        (b"<a>&e;</a>", "XML not well-formed at line 1, column 4: undefined entity"),
        (b'<a x="1" x="2"/>', "duplicate attribute"),
        (b"<a></b>", "mismatched tag"),
        (b"<a/><b/>", "junk after document element"),
    ],
)
def test_refusals(data: bytes, message: str) -> None:
    with pytest.raises(DumpError, match=message):
        parse_xml(data)


def test_element_count_is_capped() -> None:
    with pytest.raises(DumpError, match=f"more than {MAX_XML_ELEMENTS} XML elements"):
        parse_xml(b"<a>" + b"<b/>" * MAX_XML_ELEMENTS + b"</a>")
