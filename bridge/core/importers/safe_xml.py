"""A small, defensive XML reader built on the stdlib expat parser.

Invariants:
- a document type declaration or any entity declaration is refused when it is met, before any
  entity could be expanded (no billion-laughs, no external entities);
- at most ``MAX_XML_ELEMENTS`` elements and ``MAX_TREE_DEPTH + 2`` levels of nesting are read;
  past either the parse stops with a ``DumpError``;
- the result is a plain tree of ``XmlElement`` (tag, attributes, children, line) in document
  order; character data, comments and processing instructions are dropped;
- every failure is a ``DumpError`` whose message names the position (line, column).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_RAW_NODES, MAX_TREE_DEPTH

MAX_XML_ELEMENTS = MAX_RAW_NODES + 16
"""Wrapper elements (``hierarchy``, ``AppiumAUT``) are not nodes; a few more are allowed."""
MAX_XML_DEPTH = MAX_TREE_DEPTH + 2


@dataclass(slots=True)
class XmlElement:
    tag: str
    attrib: dict[str, str]
    line: int
    children: list[XmlElement] = field(default_factory=list)


class XmlError(DumpError):
    """The document is not XML a dump may be (not well-formed, over a limit, a DTD): no
    format is known from it."""


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class XmlReader:
    """Reads one document into an ``XmlElement`` tree; a subclass may read the elements as
    they open instead (``_start`` calling ``_admit`` first) and ``release`` what it built."""

    def __init__(self) -> None:
        self.parser = expat.ParserCreate()
        self.root: XmlElement | None = None
        self.stack: list[XmlElement] = []
        self.count = 0
        p = self.parser
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.StartDoctypeDeclHandler = self._doctype
        p.EntityDeclHandler = self._entity
        p.ExternalEntityRefHandler = self._external

    def _where(self) -> str:
        return f"line {self.parser.CurrentLineNumber}, column {self.parser.CurrentColumnNumber + 1}"

    def _admit(self, depth: int) -> None:
        """Count one more element opened ``depth`` elements deep; past a limit, refuse."""
        self.count += 1
        if self.count > MAX_XML_ELEMENTS:
            raise _Refused(f"more than {MAX_XML_ELEMENTS} XML elements (at {self._where()})")
        if depth >= MAX_XML_DEPTH:
            raise _Refused(f"XML nested deeper than {MAX_XML_DEPTH} elements at {self._where()}")

    def _start(self, tag: str, attrib: dict[str, str]) -> None:
        self._admit(len(self.stack))
        element = XmlElement(tag, attrib, self.parser.CurrentLineNumber, [])
        stack = self.stack
        if stack:
            stack[-1].children.append(element)
        else:
            self.root = element
        stack.append(element)

    def _end(self, tag: str) -> None:
        self.stack.pop()

    def release(self) -> None:
        """Cut the parser's handlers and drop the element stack once the parse ended. The
        handlers are the reader's own methods: left in place, reader and parser form a cycle
        only the collector frees, with all the reader holds (a subclass drops its own stack
        and keeps its result until the caller has read it)."""
        p = self.parser
        p.StartElementHandler = p.EndElementHandler = None
        p.StartDoctypeDeclHandler = p.EntityDeclHandler = p.ExternalEntityRefHandler = None
        self.stack = []

    def _doctype(self, *args: object) -> None:
        raise _Refused(f"XML document type declaration refused at {self._where()}")

    def _entity(self, *args: object) -> None:
        raise _Refused(f"XML entity declaration refused at {self._where()}")

    def _external(self, *args: object) -> int:
        raise _Refused(f"XML external entity reference refused at {self._where()}")


def run_reader(reader: XmlReader, data: bytes) -> None:
    """Feed ``data`` to ``reader`` (an ``XmlReader`` or a subclass whose handlers read the
    elements as they open: ``_admit`` first, then ``DumpError`` for what they refuse); a
    failure of the document itself (not well-formed, over a limit, a DTD) becomes an
    ``XmlError`` naming its position. The caller reads the result from its
    reader."""
    try:
        reader.parser.Parse(data, True)
    except _Refused as refused:
        raise XmlError(refused.message) from None
    except expat.ExpatError as error:
        text = expat.ErrorString(error.code) if error.code is not None else str(error)
        raise XmlError(
            f"XML not well-formed at line {error.lineno}, column {error.offset + 1}: {text}"
        ) from None
    finally:
        reader.release()


def parse_xml(data: bytes) -> XmlElement:
    """Parse ``data`` into an ``XmlElement`` tree or raise ``DumpError``."""
    reader = XmlReader()
    try:
        run_reader(reader, data)
    finally:
        root, reader.root = reader.root, None  # the tree goes when the caller drops it
    if root is None:  # pragma: no cover - expat reports "no element found" first
        raise DumpError("XML has no root element")
    return root
