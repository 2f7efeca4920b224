"""Flow files as YAML node trees that remember where every value came from.

PyYAML's composer gives nodes with start marks; this module turns them into plain data
(``str``, ``int``, ``float``, ``bool``, ``None``, ``list``, ``dict``) while

- refusing what a flow never needs and a hostile file could abuse: files over
  ``MAX_FLOW_BYTES``, nesting deeper than ``MAX_DEPTH``, more than ``MAX_VALUES`` values
  (alias expansion included: a "billion laughs" file stops here), duplicate keys (YAML keeps
  the last silently; a flow refuses), non-string keys, tags other than the core scalars;
- expanding ``${NAME}`` in string values from the variables it is given (an unknown name is
  an error at that value's line; ``$${`` writes a literal ``${``);
- locating any msgspec error path (``$.tap.within.text``) back to its node, so a type error
  found after conversion still names the file and line.

Callers keep the ``Source`` to quote a step's own text in reports (``snippet``): a report
shows ``${PASSWORD}`` as written, never the value it expanded to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bridge.flows.errors import FlowError, Place

MAX_FLOW_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_VALUES = 100_000
MAX_SNIPPET = 400
VARIABLE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Source:
    """One flow file read from disk: its text and its YAML documents (node trees)."""

    path: Path
    """Resolved path (the identity used for cycle checks)."""
    display: str
    """The path as reports and messages show it."""
    text: str
    documents: list[yaml.Node] = field(default_factory=list)

    def place(self, node: yaml.Node | None) -> Place:
        if node is None:
            return Place(self.display, 1, 1)
        mark = node.start_mark
        return Place(self.display, mark.line + 1, mark.column + 1)

    def error(self, node: yaml.Node | None, message: str) -> FlowError:
        return FlowError(self.place(node), message)

    def snippet(self, node: yaml.Node) -> str:
        """The text of ``node`` as written (a step's own lines, dedented, capped)."""
        lines = self.text.splitlines()
        first, last = node.start_mark.line, node.end_mark.line
        if node.end_mark.column == 0 and last > first:
            last -= 1
        chunk = lines[first : last + 1]
        if chunk:
            chunk[0] = chunk[0][node.start_mark.column :]
        column = node.start_mark.column
        kept = [chunk[0].rstrip()] + [
            (s[column:] if s[:column].isspace() else s.lstrip()).rstrip() for s in chunk[1:]
        ]
        while kept and (not kept[-1].strip() or kept[-1].lstrip().startswith("#")):
            kept.pop()
        text = "\n".join(kept)
        return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1] + "…"


def read_source(path: Path, display: str, at: FlowError | None = None) -> Source:
    """Read and compose ``path``. A file that cannot be read or parsed raises FlowError; the
    error names ``at``'s place when given (the ``runFlow`` line that named the file)."""

    def fail(message: str, line: int = 1, column: int = 1) -> FlowError:
        if at is not None:
            return FlowError(at.place, f"{message} ({at.message})")
        return FlowError(Place(display, line, column), message)

    try:
        if path.is_dir():
            raise fail(f"{display} is a directory, not a flow file")
        size = path.stat().st_size
        if size > MAX_FLOW_BYTES:
            raise fail(f"{display} is {size} bytes; a flow file may have {MAX_FLOW_BYTES}")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise fail(f"{display}: no such file") from None
    except OSError as exc:
        raise fail(f"{display}: cannot read it: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"{display} is not UTF-8 text (byte {exc.start})") from None
    source = Source(path=path.resolve(), display=display, text=text)
    try:
        source.documents = [d for d in yaml.compose_all(text, Loader=_Loader) if d is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        if mark is None:
            raise fail(f"not valid YAML: {what}") from None
        raise fail(f"not valid YAML: {what}", mark.line + 1, mark.column + 1) from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise fail(f"not valid YAML: {type(exc).__name__}") from None
    return source


class Converter:
    """Turns nodes of one source into plain data, expanding variables (see module rules)."""

    def __init__(self, source: Source, variables: Mapping[str, str]) -> None:
        self.source = source
        self.variables = variables
        self.used: set[str] = set()
        self._budget = MAX_VALUES
        self._constructor = yaml.constructor.SafeConstructor()

    def data(self, node: yaml.Node, depth: int = 0) -> Any:
        self._budget -= 1
        if self._budget < 0:
            raise self.source.error(node, f"more than {MAX_VALUES} values (aliases included)")
        if depth > MAX_DEPTH:
            raise self.source.error(node, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.data(item, depth + 1) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.key(key_node)
                if key in out:
                    raise self.source.error(key_node, f"duplicate key {key!r}")
                out[key] = self.data(value_node, depth + 1)
            return out
        raise self.source.error(node, "unsupported YAML node")  # pragma: no cover

    def key(self, node: yaml.Node) -> str:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:bool":
            return str(node.value)  # ``true:`` (a when test) is a word, as written
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            raise self.source.error(node, "keys must be plain words (strings)")
        return str(node.value)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise self.source.error(
                node, f"unsupported YAML tag {node.tag!r}: use a string, number, true/false"
            )
        value = self._constructor.construct_object(node)
        if isinstance(value, str):
            return self.expand(value, node)
        return value

    def expand(self, text: str, node: yaml.Node) -> str:
        """``text`` with every ``${NAME}`` replaced (``$${`` stays a literal ``${``)."""

        def one(found: re.Match[str]) -> str:
            if found.group(0) == "$${":
                return "${"
            name = found.group(1)
            if not NAME.match(name):
                raise self.source.error(
                    node, f"${{{name}}} is not a variable name (letters, digits, _)"
                )
            if name not in self.variables:
                raise self.source.error(
                    node,
                    f"unknown variable ${{{name}}}: give it with --env {name}=VALUE, in the "
                    "environment, in the flow's env, or in the runFlow's env",
                )
            self.used.add(name)
            return self.variables[name]

        return VARIABLE.sub(one, text)


def locate(root: yaml.Node, path: str) -> tuple[yaml.Node, str | None]:
    """The node a msgspec error path (``$.a.b[2]``) points at, as deep as it exists, and the
    key name when the path's last segment names a mapping key that is absent."""
    node = root
    for found in re.finditer(r"\.([^.\[]+)|\[(\d+)\]", path.removeprefix("$")):
        key, index = found.group(1), found.group(2)
        if key is not None and isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
            if nxt is None:
                return node, key
            node = nxt
        elif index is not None and isinstance(node, yaml.SequenceNode):
            i = int(index)
            if i >= len(node.value):
                return node, None
            node = node.value[i]
        else:
            return node, None
    return node, None


def key_node(mapping: yaml.Node, key: str) -> yaml.Node | None:
    """The key node ``key`` of a mapping node (for errors about the key itself)."""
    if isinstance(mapping, yaml.MappingNode):
        for k, _ in mapping.value:
            if getattr(k, "value", None) == key:
                return k  # type: ignore[no-any-return]
    return None
