"""LAYER 4 — how the CLI shows things: JSON (pretty on a terminal), the screen outline, watch
lines, and the lines that explain a refusal.

Rules: JSON goes to stdout, one value per line when piped and indented on a terminal, so
scripts parse it and people read it; every human line is cut to ``WIDTH`` with an ellipsis,
never silently; device texts are shown quoted, so an empty or odd text is visible.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import msgspec

from bridge.wire.codec import encode
from bridge.wire.enums import Source
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef, RoleLabelAncestorLocator
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot

WIDTH = 110
SCREEN_MARKER = "__screen_"
"""A screen marker id, bare (iOS, test tags) or after ``package:id/`` (Android)."""

WEB_MARK = "web:"
"""A web node's id prefix (docs/webviews.md; the CLI reads it without importing the core)."""


def cut(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def emit(value: Any) -> None:
    """A wire value (or builtins) as JSON on stdout: indented on a terminal, else one line."""
    data = encode(value) if isinstance(value, msgspec.Struct) else msgspec.json.encode(value)
    if sys.stdout.isatty():
        data = msgspec.json.format(data, indent=2)
    sys.stdout.write(data.decode() + "\n")
    sys.stdout.flush()


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# ---- nodes and screens ---------------------------------------------------------------------


def short_id(resource_id: str) -> str:
    """``com.pkg:id/login`` -> ``login``."""
    return resource_id.rsplit(":id/", 1)[-1]


def screen_names(snapshot: ScreenSnapshot) -> list[str]:
    names: list[str] = []
    for node in snapshot.nodes:
        for ident in (node.resource_id, node.automation_id):
            if ident and (name := short_id(ident).rsplit("/", 1)[-1]).startswith(SCREEN_MARKER):
                marker = name.removeprefix(SCREEN_MARKER)
                if marker not in names:
                    names.append(marker)
    return names


def screen_title(snapshot: ScreenSnapshot) -> str:
    """The screen's marker names, else its app; what a person calls "the screen"."""
    names = screen_names(snapshot)
    return "+".join(names) if names else (snapshot.app_id or snapshot.package_name)


def _quoted(text: str, limit: int = 40) -> str:
    return '"' + cut(text.replace("\n", " "), limit) + '"'


def node_words(node: SemanticNode) -> str:
    """Role, texts, id and state of one node: ``BUTTON "Sign in" #login disabled``."""
    parts = [node.role.value]
    if node.text:
        parts.append(_quoted(node.text))
    if node.label and node.label != node.text:
        parts.append("label " + _quoted(node.label))
    if node.value and node.value != node.text:
        parts.append("value " + _quoted(node.value))
    if node.hint and node.hint not in (node.text, node.label):
        parts.append("hint " + _quoted(node.hint))
    ident = node.resource_id or node.automation_id
    if ident:
        parts.append("#" + short_id(ident))
    state = node.effective_state
    flags = [
        name
        for name, on in (
            ("disabled", not state.enabled),
            ("focused", state.focused),
            ("selected", state.selected),
            ("password", state.password),
        )
        if on
    ]
    if state.checked is not None:
        flags.append("checked" if state.checked else "unchecked")
    parts.extend(flags)
    if node.source is Source.VISION:
        parts.append(f"[vision {node.confidence:.2f}]")
    if (node.automation_id or "").startswith(WEB_MARK):
        parts.append("[web]")
    return " ".join(parts)


def outline(snapshot: ScreenSnapshot, device: str, bounds: bool = False) -> list[str]:
    """The screen as an indented outline, one node per line, led by its handle (node id)."""
    depth: dict[str, int] = {}
    width = max((len(n.node_id) for n in snapshot.nodes), default=2)
    lines = [
        f"{device}  {screen_title(snapshot)}  ({snapshot.package_name}, "
        f"{len(snapshot.nodes)} nodes, {snapshot.snapshot_id})"
    ]
    for node in snapshot.nodes:
        level = depth[node.parent_id] + 1 if node.parent_id in depth else 0
        depth[node.node_id] = level
        where = f"  {list(node.bounds)}" if bounds and node.bounds else ""
        lines.append(cut(f"{node.node_id:<{width}} {'  ' * level}{node_words(node)}{where}"))
    return lines


def texts_of(snapshot: ScreenSnapshot, room: int) -> str:
    """The screen's distinct texts, quoted, within ``room`` characters; what does not fit is
    counted: ``'A', 'B', … (3 more)``."""
    seen: list[str] = []
    for node in snapshot.nodes:
        text = node.text or node.label or node.hint
        if text and text not in seen:
            seen.append(text)
    pieces = [repr(cut(text, 30)) for text in seen]
    for shown in range(len(pieces), -1, -1):
        rest = len(pieces) - shown
        tail = f"{', ' if shown else ''}… ({rest} more)" if rest else ""
        line = ", ".join(pieces[:shown]) + tail
        if len(line) <= room:
            return line
    return cut(f"… ({len(pieces)} texts)", room)


def watch_line(
    snapshot: ScreenSnapshot, added: int, removed: int, changed: int, initial: bool
) -> str:
    """One line per update: time, screen, what changed, and what the screen says."""
    clock = time.strftime("%H:%M:%S")
    title = screen_title(snapshot)
    change = f"{len(snapshot.nodes)} nodes" if initial else f"+{added} -{removed} ~{changed}"
    head = f"{clock}  {title:<10} {change:<11}"
    return cut(f"{head}  {texts_of(snapshot, WIDTH - len(head) - 2)}")


# ---- refusals ------------------------------------------------------------------------------


def ref_words(ref: NodeRef) -> str:
    for locator in ref.locators:
        if isinstance(locator, RoleLabelAncestorLocator):
            return f"{locator.role.value} {locator.label!r}"
    return ""


def candidate_lines(candidates: tuple[NodeRef, ...], device: str, verb: str) -> list[str]:
    """How to pick one candidate: by handle, or by ``--nth`` in document order."""
    lines = []
    for i, ref in enumerate(candidates):
        lines.append(f"  --nth {i}: {ref_words(ref)} ({ref.node_id})")
    if candidates:
        first = candidates[0].node_id
        lines.append(
            f"  pick one: add --nth N or --within TEXT, or use its handle: "
            f"mobridge {verb} {device} {first}"
        )
    return lines


def no_match_reason(
    query: SemanticQuery, nodes: tuple[SemanticNode, ...] | list[SemanticNode]
) -> str:
    """Why ``query`` found nothing among ``nodes``, in one line: which of its parts nothing
    has, with the closest texts or roles that are there (``no element shows 'Emial';
    closest: 'Email'``)."""
    import difflib

    parts: list[str] = []
    if query.role is not None and not any(n.role is query.role for n in nodes):
        roles = sorted({n.role.value for n in nodes})
        parts.append(f"no {query.role.value} on the screen (roles here: {', '.join(roles)})")
    for field, wanted, have in (
        ("shows", query.text, [t for n in nodes for t in (n.text, n.hint) if t]),
        ("is labelled", query.label, [n.label for n in nodes if n.label]),
    ):
        if wanted is None:
            continue
        value = wanted.value
        folded = value.casefold()
        if any(folded == h.casefold() or folded in h.casefold() for h in have):
            continue
        close = difflib.get_close_matches(value, sorted(set(have)), n=3, cutoff=0.5)
        hint = f"; closest: {', '.join(repr(c) for c in close)}" if close else ""
        parts.append(f"no element {field} {value!r}{hint}")
    if query.resource_id is not None:
        ids = sorted({short_id(n.resource_id) for n in nodes if n.resource_id})
        if not any(query.resource_id in (i, short_id(i)) for i in ids):
            close = difflib.get_close_matches(short_id(query.resource_id), ids, n=3, cutoff=0.5)
            hint = f"; closest: {', '.join(close)}" if close else ""
            parts.append(f"no element has the id {query.resource_id!r}{hint}")
    if not parts:
        parts.append(
            "each part matches something, but no one element matches them all"
            + (
                " (or --within / --nth narrowed it away)"
                if query.within is not None or query.nth is not None
                else ""
            )
        )
    return "; ".join(parts)
