"""The parsed XML tree of an import is freed by its reference count when the caller drops
it: no parser cycle keeps it for the collector (issue 41: the collector's scans were a
quarter of a 5,000-node import + normalize)."""

from __future__ import annotations

import gc
import weakref

from bridge.core.importers import safe_xml


def test_the_parsed_tree_is_freed_without_the_collector() -> None:
    gc.disable()
    try:
        root = safe_xml.parse_xml(b'<a><b x="1"/><b x="2"/></a>')
        child = weakref.ref(root.children[0])
        del root
        assert child() is None  # freed by its reference count: no cycle keeps it
    finally:
        gc.enable()
