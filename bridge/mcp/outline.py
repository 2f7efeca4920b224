"""A screen as a short outline for a model: one line per meaningful node (pure).

Line grammar (one node per line, indented two spaces per outlined ancestor, at most
``MAX_DEPTH`` levels)::

    <handle> <role> "<name>" [="<value>"] [hint="<hint>"] [#<short id>] [flags]

- ``name`` is the label, else the text (both when they differ); a value is the node's value
  (an input's text); texts longer than ``MAX_TEXT`` are cut with ``…`` — the structured
  content keeps them whole;
- ``#id`` is the resource id without its ``package:id/`` prefix;
- flags: ``disabled``, ``checked`` / ``unchecked``, ``selected``, ``focused``, ``password``,
  ``scrolls`` (it takes SCROLL_FORWARD/BACKWARD), ``tap`` (a CLICK on a role that is not
  plainly tappable: text, image, container), ``vision=<confidence>`` (text the hub read from
  the screenshot where the tree is blind: weaker evidence, acted on by a coordinate tap);
- a node is meaningful when it has a name, a value or a hint, takes an action other than
  COPY, has a checked state, or scrolls; pure layout containers are left out, and so is a
  text that only repeats the name of the outlined node it sits in;
- screen markers (``__screen_<id>``) are not lines: they are listed in the header.

The header is ``<device> · <app> · screen <ids> · <w>x<h> <orientation>`` (the generation is
in the structured content; handles carry it to ``act``).
Nothing here reads a clock or a socket.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bridge.wire.enums import ActionVerb, Role, Source
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

MAX_TEXT = 80
MAX_DEPTH = 8
SCREEN_MARKER = "__screen_"
_SCROLLS = frozenset({ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD})
_PLAINLY_TAPPABLE = frozenset(
    {
        Role.BUTTON,
        Role.INPUT,
        Role.CHECKBOX,
        Role.RADIO,
        Role.SWITCH,
        Role.TAB,
        Role.LINK,
        Role.LIST_ITEM,
        Role.MENU,
        Role.SLIDER,
    }
)


@dataclass(frozen=True, slots=True)
class Outline:
    header: str
    lines: tuple[str, ...]
    shown: tuple[str, ...]
    """Node ids of the lines, in order."""
    screens: tuple[str, ...]
    size: tuple[int, int] | None
    omitted: int

    @property
    def text(self) -> str:
        return "\n".join((self.header, *self.lines))


def short_id(resource_id: str | None) -> str | None:
    if not resource_id:
        return None
    return resource_id.rsplit(":id/", 1)[-1]


def screen_ids(snapshot: ScreenSnapshot) -> tuple[str, ...]:
    """The screen markers present, in document order (``__screen_login`` -> ``login``)."""
    found: list[str] = []
    for node in snapshot.nodes:
        ident = short_id(node.automation_id or node.resource_id)
        if ident and ident.startswith(SCREEN_MARKER):
            name = ident[len(SCREEN_MARKER) :]
            if name and name not in found:
                found.append(name)
    return tuple(found)


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) > MAX_TEXT:
        flat = flat[: MAX_TEXT - 1] + "…"
    return flat.replace('"', "'")


def node_name(node: SemanticNode) -> str | None:
    return node.label or node.text or None


def _is_marker(node: SemanticNode) -> bool:
    ident = short_id(node.automation_id or node.resource_id)
    return bool(ident and ident.startswith(SCREEN_MARKER))


def meaningful(node: SemanticNode) -> bool:
    if node.role is Role.SCREEN:
        return False
    if node.label or node.text or node.value or node.hint:
        return True
    state = node.effective_state
    if state.checked is not None:
        return True
    return _acts(node)


def _acts(node: SemanticNode) -> bool:
    return any(a is not ActionVerb.COPY for a in node.actions)


def _flags(node: SemanticNode) -> list[str]:
    state = node.effective_state
    flags: list[str] = []
    if not state.enabled:
        flags.append("disabled")
    if state.checked is True:
        flags.append("checked")
    elif state.checked is False:
        flags.append("unchecked")
    if state.selected:
        flags.append("selected")
    if state.focused:
        flags.append("focused")
    if state.password:
        flags.append("password")
    if any(a in _SCROLLS for a in node.actions):
        flags.append("scrolls")
    if ActionVerb.CLICK in node.actions and node.role not in _PLAINLY_TAPPABLE:
        flags.append("tap")
    if node.source is Source.VISION:
        flags.append(f"vision={node.confidence:.2f}")
    return flags


def render_line(node: SemanticNode, handle: str | None) -> str:
    parts: list[str] = []
    if handle:
        parts.append(handle)
    parts.append(node.role.value.lower())
    if node.label:
        parts.append(f'"{_clip(node.label)}"')
        if node.text and node.text != node.label:
            parts.append(f'text="{_clip(node.text)}"')
    elif node.text:
        parts.append(f'"{_clip(node.text)}"')
    if node.value and node.value != node.text:
        parts.append(f'="{_clip(node.value)}"')
    if node.hint and node.hint != node_name(node):
        parts.append(f'hint="{_clip(node.hint)}"')
    ident = short_id(node.resource_id or node.automation_id)
    if ident:
        parts.append(f"#{ident}")
    parts.extend(_flags(node))
    return " ".join(parts)


def _size(snapshot: ScreenSnapshot) -> tuple[int, int] | None:
    for node in snapshot.nodes:
        if node.bounds is not None:
            left, top, right, bottom = node.bounds
            return (right - left, bottom - top)
    return None


def build_outline(
    snapshot: ScreenSnapshot,
    handle_of: Callable[[SemanticNode], str | None],
    max_lines: int = 200,
) -> Outline:
    """The outline of ``snapshot``; ``handle_of`` gives each shown node's handle (or None)."""
    by_id = {node.node_id: node for node in snapshot.nodes}
    shown_parent: dict[str, str | None] = {}
    depth: dict[str, int] = {}
    lines: list[str] = []
    shown: list[str] = []
    omitted = 0
    for node in snapshot.nodes:
        parent = node.parent_id
        nearest = None
        while parent is not None:
            if parent in depth:
                nearest = parent
                break
            parent = by_id[parent].parent_id if parent in by_id else None
        if _is_marker(node) or not meaningful(node):
            continue
        if nearest is not None and node.role is Role.TEXT and not _acts(node):
            outer = by_id[nearest]
            if node.text and node.text in (outer.label, outer.text):
                continue
        level = 0 if nearest is None else min(MAX_DEPTH, depth[nearest] + 1)
        depth[node.node_id] = level
        shown_parent[node.node_id] = nearest
        if len(lines) >= max_lines:
            omitted += 1
            continue
        lines.append("  " * level + render_line(node, handle_of(node)))
        shown.append(node.node_id)
    screens = screen_ids(snapshot)
    size = _size(snapshot)
    header = [snapshot.device_id, snapshot.app_id or snapshot.package_name]
    if screens:
        header.append("screen " + ",".join(screens))
    if size is not None:
        header.append(f"{size[0]}x{size[1]} {snapshot.orientation.value}")
    if omitted:
        lines.append(f"… {omitted} more nodes (raise maxLines, or use find)")
    return Outline(" · ".join(header), tuple(lines), tuple(shown), screens, size, omitted)
