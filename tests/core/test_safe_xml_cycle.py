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


def test_an_android_import_leaves_no_reader_for_the_collector() -> None:
    """The streaming reader of Android dumps (``android_xml.AndroidReader``) cuts its
    parser's handlers when the parse ends: it goes with the import, by reference counts."""
    from bridge.core.importers import import_dump
    from bridge.core.importers.android_xml import AndroidReader

    def readers() -> int:
        return sum(isinstance(o, AndroidReader) for o in gc.get_objects())

    gc.collect()
    gc.disable()
    try:
        before = readers()
        tree = import_dump(
            b'<hierarchy rotation="0"><node bounds="[0,0][10,10]" package="p"/></hierarchy>', "t"
        )
        assert not hasattr(tree, "reason"), tree
        assert readers() == before
    finally:
        gc.enable()
