"""The one entry point: bytes of any supported dump -> ``RawTree`` or ``ImportFailure``.

Invariants:
- the format is detected from the content only (never the file name): the first byte after an
  optional UTF-8 byte-order mark and ASCII whitespace says XML (``<``) or JSON (``{``/``[``),
  then the root element or the document's keys say which dialect (``detect_xml``,
  ``detect_json``);
- ``import_dump`` never raises: every problem, including an importer bug, becomes an
  ``ImportFailure`` (format = the detected format, when known); a tree is returned only whole;
- importing the same bytes twice gives equal trees (no clock, no randomness, no global state);
- every returned tree passes ``agent.check_raw_tree``; foreign formats get ``capture`` 0 and
  handle = index.
"""

from __future__ import annotations

from typing import Any

from bridge.core.gc_pause import gc_paused
from bridge.core.importers import android_xml, idb, ios_xml, maestro, rico
from bridge.core.importers.agent import (
    AGENT_PUSH,
    AGENT_TREE,
    check_raw_tree,
    import_agent,
    looks_like_push,
    looks_like_tree,
)
from bridge.core.importers.failure import DumpError, ImportFailure, make_failure, shown
from bridge.core.importers.limits import MAX_INPUT_BYTES
from bridge.core.importers.safe_json import decode_json
from bridge.core.importers.safe_xml import XmlElement, XmlError, parse_xml, run_reader
from bridge.wire.raw import RawTree

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_WHITESPACE = b" \t\r\n"


def detect_xml(root: XmlElement) -> str | None:
    tag = root.tag
    if tag == "hierarchy":
        first = root.children[0] if root.children else None
        if root.attrib.get("class") == "hierarchy" or (
            first is not None and first.tag != "node" and "class" in first.attrib
        ):
            return android_xml.APPIUM
        return android_xml.UIAUTOMATOR
    if tag == "node":
        if "raw" in root.attrib or "child-count" in root.attrib:
            return android_xml.A11YNODE
        return android_xml.UIAUTOMATOR
    if tag == "AppiumAUT" or tag.startswith("XCUIElementType"):
        return ios_xml.WDA_XML
    return None


def detect_json(doc: Any) -> str | None:
    if looks_like_push(doc):
        return AGENT_PUSH
    if looks_like_tree(doc):
        return AGENT_TREE
    if maestro.looks_like_maestro(doc):
        return maestro.maestro_flavour(doc)
    if idb.legacy_root(doc) is not None:
        return idb.WDA_JSON_LEGACY
    if idb.looks_like_idb(doc):
        return idb.IDB_JSON
    if rico.rico_root(doc) is not None:
        return rico.RICO
    return None


def _body(data: object) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise DumpError(f"input is {type(data).__name__}, expected bytes")
    body = bytes(data)
    if len(body) > MAX_INPUT_BYTES:
        raise DumpError(f"input is {len(body)} bytes; the limit is {MAX_INPUT_BYTES}")
    if body.startswith(_UTF16_BOMS):
        raise DumpError("input is UTF-16; dumps must be UTF-8")
    if body.startswith(_UTF8_BOM):
        body = body[len(_UTF8_BOM) :]
    body = body.lstrip(_WHITESPACE)
    if not body:
        raise DumpError("input is empty")
    return body


def _describe_json(doc: Any) -> str:
    if isinstance(doc, dict):
        keys = ", ".join(shown(k) for k in list(doc)[:6])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(doc, list):
        return f"an array of {len(doc)} items"
    return "a JSON scalar"


class _Import:
    """One import: remembers the detected format so a failure can report it."""

    def __init__(self) -> None:
        self.format: str | None = None

    def run(self, data: object) -> RawTree:
        body = _body(data)
        if body[:1] == b"<":
            reader = android_xml.AndroidReader()
            try:
                run_reader(reader, body)
            except android_xml.NotAndroid:
                pass  # another root: read the tree, then its dialect
            except XmlError:
                raise  # not a document of any format
            except DumpError:
                self.format = reader.format
                raise
            else:
                self.format = reader.format or android_xml.UIAUTOMATOR
                return reader.tree()
            root = parse_xml(body)
            self.format = detect_xml(root)
            if self.format is None:
                raise DumpError(f"XML root element <{root.tag}> is not a known dump format")
            assert self.format == ios_xml.WDA_XML, self.format  # Android roots were read above
            return ios_xml.import_ios_xml(root)
        if body[:1] in (b"{", b"["):
            doc = decode_json(body)
            self.format = detect_json(doc)
            if self.format is None:
                raise DumpError(f"JSON is {_describe_json(doc)}: not a known dump format")
            return self._json(body, doc, self.format)
        raise DumpError(f"input starts with {shown(body[:12])}, neither XML nor JSON")

    def detect(self, data: object) -> str | None:
        body = _body(data)
        if body[:1] == b"<":
            return detect_xml(parse_xml(body))
        if body[:1] in (b"{", b"["):
            return detect_json(decode_json(body))
        return None

    @staticmethod
    def _json(body: bytes, doc: Any, fmt: str) -> RawTree:
        if fmt in (AGENT_PUSH, AGENT_TREE):
            return import_agent(body, fmt)
        if fmt in (maestro.MAESTRO_IOS, maestro.MAESTRO_ANDROID):
            return maestro.import_maestro(doc, fmt)
        if fmt == idb.WDA_JSON_LEGACY:
            root = idb.legacy_root(doc)
            assert root is not None
            return idb.import_legacy(root)
        if fmt == idb.IDB_JSON:
            return idb.import_idb(doc)
        root = rico.rico_root(doc)
        assert root is not None
        return rico.import_rico(doc, root)


def import_dump(data: bytes, source_name: str) -> RawTree | ImportFailure:
    """Import one dump. ``source_name`` only labels the failure reason (it is never used to
    guess the format)."""
    job = _Import()
    try:
        with gc_paused():  # the parsed dump lives until the import ends (gc_pause)
            tree = job.run(data)
        check_raw_tree(tree)
    except DumpError as error:
        return make_failure(source_name, job.format, error.message)
    except Exception as error:  # an importer bug must still not escape as a traceback
        return make_failure(
            source_name, job.format, f"importer error {type(error).__name__}: {error}"
        )
    return tree


def detect_format(data: bytes) -> str | None:
    """The dump format of ``data`` (e.g. ``"android-uiautomator"``), or None when the content
    is not a supported format or cannot be parsed."""
    try:
        return _Import().detect(data)
    except Exception:
        return None
