"""The parsed XML tree of an import is freed by its reference count when the caller drops
it: no parser cycle keeps it for the collector (issue 41: the collector's scans were a
quarter of a 5,000-node import + normalize)."""

from __future__ import annotations

import gc

from bridge.core.importers import safe_xml


def _elements() -> int:
    return sum(isinstance(o, safe_xml.XmlElement) for o in gc.get_objects())


def test_the_parsed_tree_is_freed_without_the_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        before = _elements()
        root = safe_xml.parse_xml(b'<a><b x="1"/><b x="2"/></a>')
        assert _elements() == before + 3
        del root
        assert _elements() == before  # freed by reference counts: no cycle keeps them
    finally:
        gc.enable()
