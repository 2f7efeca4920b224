"""Running a ``SemanticQuery`` over one snapshot's ``NodeTree``.

Field semantics (every field given must hold; absent fields do not filter):

- ``role``: ``node.role == role``.
- ``text``: matches the node's *visible text* (``visible_text``): ``node.text`` when it is not
  blank; else, for an INPUT, its ``value``; else ``node.label``. The label fallback is what a
  user of Appium-style ``text`` expects: an icon button whose only name is its label "Sign in"
  is found by ``text="Sign in"``. A node that has visible text is never matched through its
  label (query ``label`` for that). An INPUT is also matched through its ``hint`` (the
  placeholder, "Username") when its visible text does not match, so a field is found by the
  words shown in it whether or not something was typed. Password nodes never expose ``text``
  or ``value`` to matching, so a query cannot be used as an oracle on a secret: only their
  label and hint match.
- ``label``: matches ``node.label`` only.
- ``resourceId``: exact match against ``resource_id`` or ``automation_id``; a short id without
  ``:id/`` also matches the Android form ``<package>:id/<short>`` (``login`` finds
  ``com.pkg:id/login``). An empty id matches nothing.
- ``state``: each given field equals the node's effective state (defaults applied); ``checked``
  absent on the node (not checkable) never equals true or false.
- ``within``: only descendants (the anchor itself excluded) of ANY node matching every given
  ``within`` field. A ``within`` with no field set imposes no restriction. A ``within`` that
  gives only ``text`` also admits a node whose nearest text around it
  (``noderef.context_text``: a card's title beside its button) matches that text — the title
  of a card is usually its sibling, not its ancestor, so "Continue within 'Basic plan'" finds
  the button of that card.
- ``firstVisible``: keep only matches whose bounds intersect the viewport with non-zero area;
  then select the first (or the ``nth``). The viewport is the caller's, else the bounding box of
  the root nodes' bounds; with neither, any non-empty bounds count as visible.
- ``nth``: zero-based index into the ordered matches (after ``firstVisible``); out of range
  selects nothing.

Invariants: items are in document order, distinct, and a subset of ``tree.nodes``;
``Matches.total`` counts every node satisfying the fields above before ``firstVisible`` and
``nth`` apply (so a caller can report ambiguity); without ``firstVisible``/``nth`` the items are
all ``total`` matches. An unsafe REGEX anywhere in the query yields ``QueryRejected`` before
any node is read. Confidence of a match is the lowest confidence of its text/label matches
(1.0 when the query has neither).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bridge.core.noderef import context_text
from bridge.core.safe_regex import RegexRejected
from bridge.core.textmatch import (
    TextMatched,
    TextMatcher,
    compile_text_match,
    normalize_text,
)
from bridge.core.tree import ROOT, NodeTree
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionVerb, MatchMode, Role
from bridge.wire.node import SemanticNode
from bridge.wire.query import QueryState, SemanticQuery, TextMatch, Within

_REASON_VALUE_MAX = 60
_STATE_FIELDS = ("enabled", "clickable", "checked", "selected", "focused")


@dataclass(frozen=True, slots=True)
class QueryMatch:
    node: SemanticNode
    reason: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Matches:
    items: tuple[QueryMatch, ...]
    total: int


@dataclass(frozen=True, slots=True)
class QueryRejected:
    """The query cannot run (e.g. an unsafe regex); ``field`` names the offending field."""

    field: str
    reason: str


QueryOutcome = Matches | QueryRejected


# --------------------------------------------------------------------------- field helpers


def _present(s: str | None) -> bool:
    return s is not None and normalize_text(s) != ""


def visible_text(node: SemanticNode) -> tuple[str, str] | None:
    """``(field, value)`` a ``text`` query is matched against, or None (see module doc)."""
    if not node.effective_state.password:
        if node.text is not None and _present(node.text):
            return "text", node.text
        if node.role is Role.INPUT and node.value is not None and _present(node.value):
            return "value", node.value
    if node.label is not None and _present(node.label):
        return "label", node.label
    return None


def resource_id_matches(query_id: str, node: SemanticNode) -> bool:
    if not query_id:
        return False
    short = ":id/" not in query_id
    for ident in (node.resource_id, node.automation_id):
        if ident is None:
            continue
        if ident == query_id or (short and ident.endswith(":id/" + query_id)):
            return True
    return False


def _state_matches(state: QueryState, node: SemanticNode) -> bool:
    effective = node.effective_state
    for name in _STATE_FIELDS:
        wanted = getattr(state, name)
        if wanted is not None and getattr(effective, name) is not wanted:
            return False
    return True


def _state_reason(state: QueryState) -> str:
    parts = [
        f"{name}={str(getattr(state, name)).lower()}"
        for name in _STATE_FIELDS
        if getattr(state, name) is not None
    ]
    return "state " + ",".join(parts)


def _quote(s: str) -> str:
    if len(s) > _REASON_VALUE_MAX:
        s = s[: _REASON_VALUE_MAX - 1] + "…"
    return "'" + s.replace("'", "\\'") + "'"


def _intersects(a: Bounds, b: Bounds) -> bool:
    return max(a[0], b[0]) < min(a[2], b[2]) and max(a[1], b[1]) < min(a[3], b[3])


def _non_empty(b: Bounds) -> bool:
    return b[2] > b[0] and b[3] > b[1]


def root_viewport(tree: NodeTree) -> Bounds | None:
    """Bounding box of the root nodes' bounds (None when no root has bounds)."""
    boxes = [b for nid in tree.children[ROOT] if (b := tree.by_id[nid].bounds) is not None]
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def is_visible(node: SemanticNode, viewport: Bounds | None) -> bool:
    """Bounds present, non-empty, and (when a viewport is known) intersecting it."""
    b = node.bounds
    if b is None or not _non_empty(b):
        return False
    return viewport is None or _intersects(b, viewport)


# --------------------------------------------------------------------------- compiled query


@dataclass(frozen=True, slots=True)
class _Compiled:
    role: Role | None
    text: TextMatcher | None
    label: TextMatcher | None
    resource_id: str | None
    state: QueryState | None


def _compile_matcher(spec: TextMatch | None, field: str) -> TextMatcher | QueryRejected | None:
    if spec is None:
        return None
    matcher = compile_text_match(spec)
    if isinstance(matcher, RegexRejected):
        return QueryRejected(field, f"unsafe or invalid regex: {matcher.reason}")
    return matcher


def _compile(
    role: Role | None,
    text: TextMatch | None,
    label: TextMatch | None,
    resource_id: str | None,
    state: QueryState | None,
    prefix: str,
) -> _Compiled | QueryRejected:
    text_m = _compile_matcher(text, prefix + "text")
    if isinstance(text_m, QueryRejected):
        return text_m
    label_m = _compile_matcher(label, prefix + "label")
    if isinstance(label_m, QueryRejected):
        return label_m
    return _Compiled(role, text_m, label_m, resource_id, state)


def _evaluate(c: _Compiled, node: SemanticNode) -> QueryMatch | None:
    """The match of one node against every field, or None. Cheap fields are tested first."""
    if c.role is not None and node.role is not c.role:
        return None
    if c.resource_id is not None and not resource_id_matches(c.resource_id, node):
        return None
    if c.state is not None and not _state_matches(c.state, node):
        return None
    parts: list[str] = []
    confidence = 1.0
    if c.text is not None:
        source = visible_text(node)
        hit: TextMatched | None = c.text.match(source[1]) if source is not None else None
        if hit is None and node.role is Role.INPUT and _present(node.hint):
            source = ("hint", node.hint or "")
            hit = c.text.match(source[1])
        if source is None or hit is None:
            return None
        via = "" if source[0] == "text" else f" (from {source[0]})"
        parts.append(f"text {hit.mode.value} {_quote(source[1])}{via}")
        confidence = min(confidence, hit.confidence)
    if c.label is not None:
        hit = c.label.match(node.label)
        if hit is None or node.label is None:
            return None
        parts.append(f"label {hit.mode.value} {_quote(node.label)}")
        confidence = min(confidence, hit.confidence)
    if c.resource_id is not None:
        parts.append(f"resourceId {_quote(c.resource_id)}")
    if c.role is not None:
        parts.append(f"role {c.role.value}")
    if c.state is not None:
        parts.append(_state_reason(c.state))
    return QueryMatch(node=node, reason=" + ".join(parts), confidence=confidence)


def _any_node_reason(m: QueryMatch) -> QueryMatch:
    return m if m.reason else QueryMatch(m.node, "any node", m.confidence)


def _within_allowed(tree: NodeTree, anchors: Iterable[SemanticNode]) -> set[str]:
    """Ids of every descendant of any anchor (anchors themselves only when nested)."""
    allowed: set[str] = set()
    for anchor in anchors:  # document order: an anchor inside a marked one adds nothing new
        if anchor.node_id in allowed:
            continue
        allowed.update(d.node_id for d in tree.descendants(anchor.node_id))
    return allowed


def _near_text(
    tree: NodeTree, main: _Compiled, nearby: TextMatcher, node: SemanticNode
) -> QueryMatch | None:
    """``node`` matched through the text beside it (see ``within`` in the module doc)."""
    m = _evaluate(main, node)
    if m is None:
        return None
    context = context_text(tree, node.node_id)
    hit = nearby.match(context) if context is not None else None
    if hit is None or context is None:
        return None
    reason = f"near text {_quote(context)}"
    return QueryMatch(
        m.node, f"{m.reason} + {reason}" if m.reason else reason, min(m.confidence, hit.confidence)
    )


def _within_is_empty(within: Within) -> bool:
    return within.role is None and within.text is None and within.resource_id is None


# --------------------------------------------------------------------------- entry point


_ECHO_LEVELS = 3
_PASSIVE_ACTIONS = frozenset({ActionVerb.COPY, ActionVerb.FOCUS})
"""Actions a text may offer and still be only a label (copying or focusing it)."""


def _without_echoes(tree: NodeTree, matches: list[QueryMatch]) -> list[QueryMatch]:
    """Drop a matched text that only echoes a matched ancestor's name: a clickable row or a
    Compose toggle takes its label from the text inside it, and both then match the same
    words. The actionable ancestor stays (the agent acts on it either way); the echo goes, so
    one visible text is one match, not an ambiguity."""
    matched = {m.node.node_id: m for m in matches}
    kept: list[QueryMatch] = []
    for m in matches:
        node = m.node
        words = node.text or node.label
        echo = False
        if words and not (set(node.actions) - _PASSIVE_ACTIONS):
            for level, anc in enumerate(tree.ancestors(node.node_id)):
                if level >= _ECHO_LEVELS:
                    break
                if anc.node_id in matched and anc.label == words and anc.actions:
                    echo = True
                    break
        if not echo:
            kept.append(m)
    return kept


_INDEXED_MODES = (MatchMode.EXACT, MatchMode.NORMALIZED_EXACT)


def _text_keys(spec: TextMatch, raw: str, norm: str) -> tuple[str, str] | None:
    """(index map, key) under which a node matching ``spec`` must be found, when the mode
    allows a lookup (EXACT: the text as is; NORMALIZED_EXACT: normalized)."""
    if spec.match is MatchMode.EXACT:
        return raw, spec.value
    if spec.match is MatchMode.NORMALIZED_EXACT:
        return norm, normalize_text(spec.value)
    return None


def _narrowed(tree: NodeTree, query: SemanticQuery) -> Sequence[SemanticNode]:
    """Every node that can match ``query``'s own fields (a superset, document order), from the
    capture's index; all nodes when no field allows a lookup."""
    index = tree.index
    groups: list[list[str]] = []
    if query.resource_id is not None:
        q = query.resource_id
        found = index.find("ids", q)
        if q and ":id/" not in q:
            found = found + index.find("short", q)
        groups.append(found if q else [])
    if query.text is not None:
        keys = _text_keys(query.text, "text", "text_norm")
        if keys is not None:
            hints = _text_keys(query.text, "hint", "hint_norm")
            assert hints is not None
            groups.append(index.find(*keys) + index.find(*hints))
    if query.label is not None:
        keys = _text_keys(query.label, "label", "label_norm")
        if keys is not None:
            groups.append(index.find(*keys))
    if query.role is not None:
        groups.append(index.find("role", query.role))
    if not groups:
        return tree.nodes
    groups.sort(key=len)
    others = [set(g) for g in groups[1:]]
    ids = {i for i in groups[0] if all(i in o for o in others)}
    order = tree.order
    return [tree.by_id[i] for i in sorted(ids, key=order.__getitem__)]


def run_query(
    tree: NodeTree, query: SemanticQuery, *, viewport: Bounds | None = None
) -> QueryOutcome:
    """All nodes of ``tree`` matching ``query`` (semantics in the module docstring)."""
    main = _compile(query.role, query.text, query.label, query.resource_id, query.state, "")
    if isinstance(main, QueryRejected):
        return main
    anchors: dict[str, QueryMatch] | None = None
    allowed: set[str] = set()
    nearby: TextMatcher | None = None
    if query.within is not None and not _within_is_empty(query.within):
        w = query.within
        within_c = _compile(w.role, w.text, None, w.resource_id, None, "within.")
        if isinstance(within_c, QueryRejected):
            return within_c
        anchors = {n.node_id: m for n in tree.nodes if (m := _evaluate(within_c, n)) is not None}
        allowed = _within_allowed(tree, (m.node for m in anchors.values()))
        if w.role is None and w.resource_id is None:
            nearby = within_c.text

    matches: list[QueryMatch] = []
    pool = tree.nodes if anchors is not None else _narrowed(tree, query)
    for node in pool:
        if anchors is not None and node.node_id not in allowed:
            near = _near_text(tree, main, nearby, node) if nearby is not None else None
            if near is not None:
                matches.append(near)
            continue
        m = _evaluate(main, node)
        if m is None:
            continue
        if anchors is not None:
            anchor = next(a for a in tree.ancestors(node.node_id) if a.node_id in anchors)
            outer = anchors[anchor.node_id]
            reason = f"within {anchor.node_id} [{outer.reason}]"
            m = QueryMatch(
                m.node,
                f"{m.reason} + {reason}" if m.reason else reason,
                min(m.confidence, outer.confidence),
            )
        matches.append(_any_node_reason(m))
    if query.text is not None or query.label is not None:
        matches = _without_echoes(tree, matches)
    total = len(matches)

    selected = matches
    if query.first_visible:
        view = viewport if viewport is not None else root_viewport(tree)
        selected = [m for m in matches if is_visible(m.node, view)]
        index = query.nth if query.nth is not None else 0
        selected = selected[index : index + 1]
    elif query.nth is not None:
        selected = matches[query.nth : query.nth + 1]
    return Matches(items=tuple(selected), total=total)
