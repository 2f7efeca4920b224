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


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Reader:
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

    def _start(self, tag: str, attrib: dict[str, str]) -> None:
        self.count += 1
        if self.count > MAX_XML_ELEMENTS:
            raise _Refused(f"more than {MAX_XML_ELEMENTS} XML elements (at {self._where()})")
        if len(self.stack) >= MAX_XML_DEPTH:
            raise _Refused(f"XML nested deeper than {MAX_XML_DEPTH} elements at {self._where()}")
        element = XmlElement(tag, attrib, self.parser.CurrentLineNumber, [])
        stack = self.stack
        if stack:
            stack[-1].children.append(element)
        else:
            self.root = element
        stack.append(element)

    def _end(self, tag: str) -> None:
        self.stack.pop()

    def _doctype(self, *args: object) -> None:
        raise _Refused(f"XML document type declaration refused at {self._where()}")

    def _entity(self, *args: object) -> None:
        raise _Refused(f"XML entity declaration refused at {self._where()}")

    def _external(self, *args: object) -> int:
        raise _Refused(f"XML external entity reference refused at {self._where()}")


def parse_xml(data: bytes) -> XmlElement:
    """Parse ``data`` into an ``XmlElement`` tree or raise ``DumpError``."""
    reader = _Reader()
    try:
        reader.parser.Parse(data, True)
        root = reader.root
    except _Refused as refused:
        raise DumpError(refused.message) from None
    except expat.ExpatError as error:
        text = expat.ErrorString(error.code) if error.code is not None else str(error)
        raise DumpError(
            f"XML not well-formed at line {error.lineno}, column {error.offset + 1}: {text}"
        ) from None
    finally:
        # The parser's handlers are the reader's methods: a cycle only the collector frees.
        # Cut what it holds, so the parsed tree goes when the caller drops it.
        reader.root, reader.stack = None, []
    if root is None:  # pragma: no cover - expat reports "no element found" first
        raise DumpError("XML has no root element")
    return root
