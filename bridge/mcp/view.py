"""The view compiler: a screen as the few lines an agent needs, within a token budget (pure).

Input: one compact ``ScreenSnapshot``, a function giving each shown node its handle, an
optional ``goal`` (free words), a budget in tokens (``chars_per_token`` characters each) and
optionally the ``View`` the agent saw before. Output: a ``View`` whose ``text`` is what the
model reads. Rules (tested in tests/mcp/test_view.py, with hypothesis):

- lines are the outline's (``bridge.mcp.outline.render_line``), indented under their outlined
  ancestor, in document order;
- repeated rows — ``ROW_RUN`` or more consecutive siblings of the same shape (role, id,
  flags and the shape of what they hold) — keep their first ``ROW_KEEP`` rows and every row
  that matches the goal; the rest becomes one line ``… N more rows like this, use scroll or
  find``;
- when the lines do not fit the budget, the ones that matter are kept first: rows matching a
  goal word, then interactive ones (they take an action other than COPY, scroll, or have a
  checked state), then the rest, each group in document order; what is left out is counted
  in a last line ``… N more lines (raise maxTokens, or use find)``. The text never exceeds
  the budget except by that one last line and the header (the caller caps the budget);
- with ``since`` (a view of the same device) and the same screen (same app and screen
  markers, and at most half of the lines replaced), only what changed is listed: ``+ line``
  for a new or changed line, ``- eN`` for a line gone, or ``no change``; a different screen
  gets the whole view (``changed`` is then true).

A ``View`` keeps every line by node id (``lines``) so the next call can diff against it.
Nothing here reads a clock or a socket.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bridge.mcp.outline import MAX_DEPTH, meaningful, render_line, screen_ids, short_id
from bridge.wire.enums import ActionVerb, Role
from bridge.wire.node import SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

CHARS_PER_TOKEN = 4
DEFAULT_TOKENS = 1500
MIN_TOKENS = 100
MAX_TOKENS = 20_000
ROW_RUN = 6
"""Consecutive same-shaped siblings from which a run of rows is collapsed."""
ROW_KEEP = 3
"""Rows of a collapsed run that stay (plus every row matching the goal)."""
_WORD = re.compile(r"[\w']+", re.UNICODE)
_STOP = frozenset({"the", "a", "an", "to", "of", "and", "or", "on", "in", "for", "my", "me"})
_SCREEN_MARKER = "__screen_"


@dataclass(frozen=True, slots=True)
class Entry:
    """One outline line: the node, its depth, its text, and what ranks it."""

    node_id: str
    depth: int
    line: str
    interactive: bool
    words: frozenset[str]
    parent: str | None
    shape: str


@dataclass(frozen=True)
class View:
    device: str
    screen_key: str
    """App and screen markers: two views with the same key show the same screen."""
    header: str
    text: str
    lines: dict[str, str]
    """node id -> its line (without indentation), every meaningful node of the screen."""
    shown: tuple[str, ...]
    """Node ids whose line is in ``text``."""
    whole: bool
    """``text`` is the whole view (not a diff against ``since``)."""
    changed: bool = True
    """The screen differs from ``since`` (always true without one)."""
    omitted: int = 0
    collapsed: int = 0
    goal_hits: tuple[str, ...] = field(default_factory=tuple)


def goal_words(goal: str | None) -> frozenset[str]:
    if not goal:
        return frozenset()
    return frozenset(
        w for w in (m.lower() for m in _WORD.findall(goal[:500])) if len(w) > 1 and w not in _STOP
    )


def goal_hits(entries: Sequence[Entry], words: frozenset[str]) -> list[str]:
    """Entries matching the goal best, document order: each goal word weighs 1 / the number
    of entries holding it; an entry is a hit when it holds a telling word (one that at most
    half the entries hold: "item" on every row of a list tells nothing) and its weight is at
    least half the best one."""
    if not words:
        return []
    holding = {w: sum(1 for e in entries if w in e.words) for w in words}
    telling = {w for w, n in holding.items() if 0 < n <= max(1, len(entries) // 2)}
    score = {
        e.node_id: sum(1 / holding[w] for w in words & e.words)
        for e in entries
        if e.words & telling
    }
    if not score:
        return []
    best = max(score.values())
    return [e.node_id for e in entries if score.get(e.node_id, 0.0) >= best / 2]


def _interactive(node: SemanticNode) -> bool:
    if node.effective_state.checked is not None:
        return True
    return any(a is not ActionVerb.COPY for a in node.actions)


def _words(node: SemanticNode) -> frozenset[str]:
    raw = " ".join(
        t for t in (node.label, node.text, node.value, node.hint, short_id(node.resource_id)) if t
    )
    if node.effective_state.password:
        raw = " ".join(t for t in (node.label, node.hint, short_id(node.resource_id)) if t)
    return frozenset(w.lower() for w in _WORD.findall(raw.replace("_", " ")))


def _is_marker(node: SemanticNode) -> bool:
    ident = short_id(node.automation_id or node.resource_id)
    return bool(ident and ident.startswith(_SCREEN_MARKER))


def entries_of(
    snapshot: ScreenSnapshot, handle_of: Callable[[SemanticNode], str | None]
) -> list[Entry]:
    """Every meaningful node as an entry, document order (the outline's rules)."""
    by_id = {node.node_id: node for node in snapshot.nodes}
    depth: dict[str, int] = {}
    out: list[Entry] = []
    for node in snapshot.nodes:
        parent = node.parent_id
        nearest = None
        hops = 0
        while parent is not None and hops < 256:
            if parent in depth:
                nearest = parent
                break
            parent = by_id[parent].parent_id if parent in by_id else None
            hops += 1
        if _is_marker(node) or not meaningful(node):
            continue
        if nearest is not None and node.role is Role.TEXT and not _interactive(node):
            outer = by_id[nearest]
            if node.text and node.text in (outer.label, outer.text):
                continue
        level = 0 if nearest is None else min(MAX_DEPTH, depth[nearest] + 1)
        depth[node.node_id] = level
        line = render_line(node, handle_of(node))
        flags = " ".join(p for p in line.split() if p in ("disabled", "password", "scrolls", "tap"))
        shape = f"{node.role.value}|{short_id(node.resource_id) or ''}|{flags}"
        out.append(
            Entry(node.node_id, level, line, _interactive(node), _words(node), nearest, shape)
        )
    return out


def _subtree_end(entries: Sequence[Entry], i: int) -> int:
    """Index just past entry ``i`` and the entries nested under it."""
    j = i + 1
    while j < len(entries) and entries[j].depth > entries[i].depth:
        j += 1
    return j


def _row_shape(entries: Sequence[Entry], i: int, end: int) -> str:
    return "/".join(f"{e.depth - entries[i].depth}:{e.shape}" for e in entries[i:end])


def _collapse(entries: list[Entry], hits: set[str]) -> tuple[list[Entry | tuple[int, int]], int]:
    """Entries with long runs of same-shaped sibling rows cut to ``ROW_KEEP`` (and the goal's
    rows); a cut run leaves ``(depth, count)`` where its rows were."""
    out: list[Entry | tuple[int, int]] = []
    collapsed = 0
    i = 0
    while i < len(entries):
        end = _subtree_end(entries, i)
        shape = _row_shape(entries, i, end)
        rows = [(i, end)]
        j = end
        while j < len(entries) and entries[j].depth == entries[i].depth:
            if entries[j].parent != entries[i].parent:
                break
            nxt = _subtree_end(entries, j)
            if _row_shape(entries, j, nxt) != shape:
                break
            rows.append((j, nxt))
            j = nxt
        if len(rows) < ROW_RUN:
            out.append(entries[i])
            i += 1
            continue
        cut = 0
        for k, (a, b) in enumerate(rows):
            row = entries[a:b]
            if k < ROW_KEEP or any(e.node_id in hits for e in row):
                if cut:
                    out.append((entries[i].depth, cut))
                    collapsed += cut
                    cut = 0
                out.extend(row)
            else:
                cut += 1
        if cut:
            out.append((entries[i].depth, cut))
            collapsed += cut
        i = j
    return out, collapsed


def _more_rows(depth: int, count: int) -> str:
    return "  " * depth + f"… {count} more rows like this, use scroll or find"


def _screen_key(snapshot: ScreenSnapshot) -> str:
    app = snapshot.app_id or snapshot.package_name or ""
    return f"{app}|{','.join(screen_ids(snapshot))}"


def _header(snapshot: ScreenSnapshot) -> str:
    parts = [snapshot.device_id, snapshot.app_id or snapshot.package_name or "?"]
    screens = screen_ids(snapshot)
    if screens:
        parts.append("screen " + ",".join(screens))
    for node in snapshot.nodes:
        if node.bounds is not None:
            left, top, right, bottom = node.bounds
            parts.append(f"{right - left}x{bottom - top} {snapshot.orientation.value}")
            break
    return " · ".join(parts)


def compile_view(
    snapshot: ScreenSnapshot,
    handle_of: Callable[[SemanticNode], str | None],
    *,
    goal: str | None = None,
    max_tokens: int = DEFAULT_TOKENS,
    since: View | None = None,
    chars_per_token: int = CHARS_PER_TOKEN,
) -> View:
    """The view of ``snapshot`` (see the module rules)."""
    budget = max(MIN_TOKENS, min(MAX_TOKENS, max_tokens)) * chars_per_token
    entries = entries_of(snapshot, handle_of)
    lines = {e.node_id: e.line for e in entries}
    key = _screen_key(snapshot)
    header = _header(snapshot)
    words = goal_words(goal)
    hits = goal_hits(entries, words)
    hit_set = set(hits)
    if since is not None and since.device == snapshot.device_id and since.screen_key == key:
        diff = _diff(since.lines, entries, budget)
        if diff is not None:
            text, shown, omitted = diff
            return View(
                snapshot.device_id,
                key,
                header,
                f"{header} · changes since the last view\n{text}",
                lines,
                shown,
                whole=False,
                changed=False,
                omitted=omitted,
                goal_hits=tuple(hits),
            )
    items, collapsed = _collapse(entries, hit_set)
    goal_line = ""
    if words:
        handles = [lines[h].split(" ", 1)[0] for h in hits[:20]]
        goal_line = (
            f"goal matches: {', '.join(handles)}"
            if handles
            else "goal matches: none on screen (scroll, or find)"
        )
    head = "\n".join(p for p in (header, goal_line) if p)
    rendered = [
        ("  " * i.depth + i.line) if isinstance(i, Entry) else _more_rows(*i) for i in items
    ]
    total = sum(len(r) + 1 for r in rendered)
    room = budget - len(head) - 1
    keep = set(range(len(items)))
    if total > room:
        keep = _select(items, rendered, hit_set, room - 60)
    body = [r for k, r in enumerate(rendered) if k in keep]
    shown = tuple(i.node_id for k, i in enumerate(items) if k in keep and isinstance(i, Entry))
    omitted = sum(1 for k, i in enumerate(items) if k not in keep and isinstance(i, Entry))
    if omitted:
        body.append(f"… {omitted} more lines (raise maxTokens, or use find)")
    return View(
        snapshot.device_id,
        key,
        header,
        "\n".join((head, *body)),
        lines,
        shown,
        whole=True,
        changed=since is None or since.screen_key != key or since.device != snapshot.device_id,
        omitted=omitted,
        collapsed=collapsed,
        goal_hits=tuple(hits),
    )


def _select(
    items: Sequence[Entry | tuple[int, int]], rendered: Sequence[str], hits: set[str], room: int
) -> set[int]:
    """Indexes of the items to keep within ``room`` characters: goal rows, then interactive
    ones, then the rest (document order within each rank); a collapse marker ranks with the
    interactive lines."""

    def rank(k: int) -> int:
        item = items[k]
        if not isinstance(item, Entry):
            return 1
        if item.node_id in hits:
            return 0
        return 1 if item.interactive else 2

    keep: set[int] = set()
    used = 0
    for k in sorted(range(len(items)), key=lambda k: (rank(k), k)):
        size = len(rendered[k]) + 1
        if used + size > room:
            continue
        keep.add(k)
        used += size
    return keep


def _diff(
    before: dict[str, str], entries: Sequence[Entry], budget: int
) -> tuple[str, tuple[str, ...], int] | None:
    """Changed lines against ``before`` (None when more than half the lines were replaced:
    the caller sends the whole view)."""
    now = {e.node_id for e in entries}
    added = [e for e in entries if before.get(e.node_id) != e.line]
    gone = [nid for nid in before if nid not in now]
    if len(added) + len(gone) > max(4, len(entries) // 2):
        return None
    if not added and not gone:
        return "no change", (), 0
    out: list[str] = []
    shown: list[str] = []
    used = 0
    omitted = 0
    for e in added:
        line = "+ " + e.line
        if used + len(line) + 1 > budget - 60:
            omitted += 1
            continue
        out.append(line)
        shown.append(e.node_id)
        used += len(line) + 1
    for nid in gone:
        handle = before[nid].split(" ", 1)[0]
        out.append(f"- {handle if handle.startswith('e') else before[nid]}")
    if omitted:
        out.append(f"… {omitted} more changed lines (call screen)")
    return "\n".join(out), tuple(shown), omitted
