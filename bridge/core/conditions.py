"""Pure evaluation of wait conditions (``bridge.wire.conditions``) over one snapshot.

``evaluate(condition, view)`` answers CONDITION_MET / CONDITION_NOT_MET / CONDITION_UNKNOWN
with evidence (what was looked at, the last value seen, what was expected), or
``ConditionRejected`` when the condition can never be evaluated (the hub answers an error):

==============  ============================================================================
``present``     MET with >= 1 match, else NOT_MET
``absent``      MET with 0 matches, else NOT_MET
``value``       exactly one match (no query: the view's acted target) whose value — else text —
                equals ``equals`` exactly; 0 matches NOT_MET; several UNKNOWN (evidence names the
                count); a target gone from the snapshot UNKNOWN; a password field UNKNOWN
                (its value is never observed, and the expected text is not echoed)
``state``       exactly one match with every given state field equal (``checked`` of a node
                that is not checkable is null, never false); 0 NOT_MET; several UNKNOWN
``screen``      the marker is displayed (``screens.displayed_screens``, per platform)
``app``         the snapshot's ``appId`` or ``packageName`` equals ``appId``
``stable``      ``now_ms - stable_since_ms >= forMs``; UNKNOWN while ``stable_since_ms`` is
                None (never observed, or the agent reports the screen unsettled)
``clipboard``   equality; UNKNOWN when the clipboard was not read (``clipboard`` None)
``allOf``       Kleene AND: NOT_MET if any is NOT_MET, else UNKNOWN if any is UNKNOWN, else MET
``anyOf``       Kleene OR:  MET if any is MET, else UNKNOWN if any is UNKNOWN, else NOT_MET
``not``         swaps MET and NOT_MET; UNKNOWN stays UNKNOWN
==============  ============================================================================

Limits (a hostile client cannot make evaluation unbounded): nesting deeper than
``MAX_CONDITION_DEPTH``, more than ``MAX_SUBCONDITIONS`` children in one ``allOf``/``anyOf``,
or more than ``MAX_CONDITION_NODES`` conditions in all is a *rejection*, not UNKNOWN — such a
condition can never become met, so waiting on it would only burn the timeout. So is a query
the query engine refuses (an unsafe regex) and a ``value`` without query where no target was
acted on. ``validate_condition`` runs every up-front check so the hub can refuse before
waiting; ``evaluate`` repeats the structural ones and reports query refusals as it meets them.

Every child of ``allOf``/``anyOf`` is evaluated (no short-circuit) so a refusal anywhere is
always reported and the evidence is complete. Evidence is capped at ``MAX_EVIDENCE`` items
and observed strings at ``MAX_EVIDENCE_TEXT`` characters. Nothing here reads a clock:
``now_ms`` and ``stable_since_ms`` are passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import msgspec

from bridge.core.query import QueryRejected, run_query
from bridge.core.safe_regex import RegexRejected
from bridge.core.screens import displayed_screens
from bridge.core.textmatch import compile_text_match
from bridge.core.tree import NodeTree
from bridge.wire.action import Evidence
from bridge.wire.base import Bounds
from bridge.wire.conditions import (
    MAX_CONDITION_DEPTH,
    MAX_SUBCONDITIONS,
    Absent,
    AllOf,
    AnyOf,
    AppForeground,
    ClipboardEquals,
    Condition,
    Not,
    Present,
    ScreenShown,
    Stable,
    StateIs,
    ValueEquals,
)
from bridge.wire.enums import Platform, VerificationResult
from bridge.wire.node import SemanticNode
from bridge.wire.query import QueryState, SemanticQuery, TextMatch
from bridge.wire.snapshot import ScreenSnapshot

MET = VerificationResult.CONDITION_MET
NOT_MET = VerificationResult.CONDITION_NOT_MET
UNKNOWN = VerificationResult.CONDITION_UNKNOWN

MAX_CONDITION_NODES = 64
"""Conditions in one tree, all levels counted (each leaf runs one query over the screen)."""
MAX_EVIDENCE = 32
MAX_EVIDENCE_TEXT = 200
_QUERY_TEXT_IN_EVIDENCE = 160

Scalar = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class ConditionView:
    """Everything a condition may look at, captured at one moment. The caller passes the
    times in; ``clipboard`` None means unknown (not read), ``""`` an empty clipboard;
    ``target_id`` is the acted node (for ``value`` without a query)."""

    snapshot: ScreenSnapshot
    tree: NodeTree
    now_ms: int
    stable_since_ms: int | None = None
    clipboard: str | None = None
    target_id: str | None = None
    viewport: Bounds | None = None

    @property
    def platform(self) -> Platform:
        return self.snapshot.platform

    @classmethod
    def of(
        cls,
        snapshot: ScreenSnapshot,
        *,
        now_ms: int,
        tree: NodeTree | None = None,
        stable_since_ms: int | None = None,
        clipboard: str | None = None,
        target_id: str | None = None,
        viewport: Bounds | None = None,
    ) -> ConditionView:
        """A view over ``snapshot`` (its ``NodeTree`` built unless given)."""
        return cls(
            snapshot=snapshot,
            tree=tree if tree is not None else NodeTree(snapshot.nodes),
            now_ms=now_ms,
            stable_since_ms=stable_since_ms,
            clipboard=clipboard,
            target_id=target_id,
            viewport=viewport,
        )


@dataclass(frozen=True, slots=True)
class ConditionOutcome:
    result: VerificationResult
    evidence: tuple[Evidence, ...] = ()

    @property
    def met(self) -> bool:
        return self.result is MET


@dataclass(frozen=True, slots=True)
class ConditionRejected:
    """The condition cannot be evaluated at all; the hub answers an error with ``reason``."""

    reason: str


# ---- three-valued logic ----------------------------------------------------------------------


def kleene_and(results: Iterable[VerificationResult]) -> VerificationResult:
    """MET for an empty input (the neutral element)."""
    seen = set(results)
    if NOT_MET in seen:
        return NOT_MET
    return UNKNOWN if UNKNOWN in seen else MET


def kleene_or(results: Iterable[VerificationResult]) -> VerificationResult:
    """NOT_MET for an empty input (the neutral element)."""
    seen = set(results)
    if MET in seen:
        return MET
    return UNKNOWN if UNKNOWN in seen else NOT_MET


def kleene_not(result: VerificationResult) -> VerificationResult:
    return {MET: NOT_MET, NOT_MET: MET, UNKNOWN: UNKNOWN}[result]


# ---- validation --------------------------------------------------------------------------------


def _walk(condition: Condition) -> Iterator[tuple[Condition, int]]:
    """Every condition of the tree with its depth (root 1), pre-order, without recursion."""
    stack: list[tuple[Condition, int]] = [(condition, 1)]
    while stack:
        cond, depth = stack.pop()
        yield cond, depth
        match cond:
            case AllOf(conditions=subs) | AnyOf(conditions=subs):
                stack.extend((c, depth + 1) for c in reversed(subs))
            case Not(condition=sub):
                stack.append((sub, depth + 1))
            case _:
                pass


def _structure_problem(condition: Condition, *, has_target: bool) -> str | None:
    count = 0
    for cond, depth in _walk(condition):
        count += 1
        if depth > MAX_CONDITION_DEPTH:
            return f"condition nests deeper than {MAX_CONDITION_DEPTH} levels"
        if count > MAX_CONDITION_NODES:
            return f"condition has more than {MAX_CONDITION_NODES} sub-conditions in all"
        match cond:
            case AllOf(conditions=subs) | AnyOf(conditions=subs):
                if not 1 <= len(subs) <= MAX_SUBCONDITIONS:
                    kind = "allOf" if isinstance(cond, AllOf) else "anyOf"
                    return f"{kind} needs 1 to {MAX_SUBCONDITIONS} conditions, got {len(subs)}"
            case ValueEquals(query=None) if not has_target:
                return "a value condition without a query needs an acted target"
            case StateIs(state=state) if _given_state(state) == ():
                return "a state condition must name at least one state field"
            case _:
                pass
    return None


def _text_matches(query: SemanticQuery) -> Iterator[TextMatch]:
    for spec in (query.text, query.label, query.within.text if query.within else None):
        if spec is not None:
            yield spec


def query_problem(query: SemanticQuery) -> str | None:
    """Why the query engine would refuse ``query`` (an unsafe or invalid regex), else None."""
    for spec in _text_matches(query):
        checked = compile_text_match(spec)
        if isinstance(checked, RegexRejected):
            return f"regex {checked.pattern[:80]!r} refused: {checked.reason}"
    return None


def _query_of(condition: Condition) -> SemanticQuery | None:
    match condition:
        case Present(query=q) | Absent(query=q) | StateIs(query=q):
            return q
        case ValueEquals(query=q):
            return q
        case _:
            return None


def validate_condition(condition: Condition, *, has_target: bool = False) -> str | None:
    """Every up-front refusal: nesting depth, sub-condition counts, regex safety, a ``value``
    without query where no target is acted on (``has_target``), an empty ``state``."""
    problem = _structure_problem(condition, has_target=has_target)
    if problem is not None:
        return problem
    for cond, _ in _walk(condition):
        query = _query_of(cond)
        if query is not None:
            problem = query_problem(query)
            if problem is not None:
                return problem
    return None


# ---- evaluation ----------------------------------------------------------------------------


def _clip(value: Scalar) -> Scalar:
    if isinstance(value, str) and len(value) > MAX_EVIDENCE_TEXT:
        return value[: MAX_EVIDENCE_TEXT - 1] + "…"
    return value


def _describe(query: SemanticQuery) -> str:
    text = msgspec.json.encode(query).decode()
    if len(text) > _QUERY_TEXT_IN_EVIDENCE:
        text = text[: _QUERY_TEXT_IN_EVIDENCE - 1] + "…"
    return text


def _evidence(
    view: ConditionView,
    what: str,
    observed: Scalar = None,
    expected: Scalar = None,
    node_id: str | None = None,
) -> Evidence:
    return Evidence(
        what=what,
        snapshot_id=view.snapshot.snapshot_id,
        node_id=node_id,
        observed=_clip(observed),
        expected=_clip(expected),
    )


def _given_state(state: QueryState) -> tuple[tuple[str, bool], ...]:
    return tuple(
        (name, wanted)
        for name in state.__struct_fields__
        if (wanted := getattr(state, name)) is not None
    )


def _matches(
    view: ConditionView, query: SemanticQuery
) -> tuple[SemanticNode, ...] | ConditionRejected:
    found = run_query(view.tree, query, viewport=view.viewport)
    if isinstance(found, QueryRejected):
        return ConditionRejected(f"query refused ({found.field}): {found.reason}")
    return tuple(item.node for item in found.items)


def _outcome(result: VerificationResult, *evidence: Evidence) -> ConditionOutcome:
    return ConditionOutcome(result, evidence)


def _count_evidence(
    view: ConditionView, kind: str, query: SemanticQuery, nodes: Sequence[SemanticNode]
) -> Evidence:
    return _evidence(
        view,
        f"{kind} matches {_describe(query)}",
        observed=len(nodes),
        expected="exactly 1" if kind in ("value", "state") else None,
        node_id=nodes[0].node_id if len(nodes) == 1 else None,
    )


def _eval_value(cond: ValueEquals, view: ConditionView) -> ConditionOutcome | ConditionRejected:
    if cond.query is None:
        if view.target_id is None:
            return ConditionRejected("a value condition without a query needs an acted target")
        target = view.tree.get(view.target_id)
        if target is None:
            ev = _evidence(view, "value of the target: gone", node_id=view.target_id)
            return _outcome(UNKNOWN, ev)
        node = target
    else:
        found = _matches(view, cond.query)
        if isinstance(found, ConditionRejected):
            return found
        if len(found) != 1:
            ev = _count_evidence(view, "value", cond.query, found)
            return _outcome(NOT_MET if not found else UNKNOWN, ev)
        node = found[0]
    if node.effective_state.password:
        ev = _evidence(view, "value of a password field (never observed)", node_id=node.node_id)
        return _outcome(UNKNOWN, ev)
    seen = node.value if node.value is not None else node.text
    field = "value" if node.value is not None else "text"
    ev = _evidence(view, field, observed=seen, expected=cond.equals, node_id=node.node_id)
    return _outcome(MET if seen == cond.equals else NOT_MET, ev)


def _eval_state(cond: StateIs, view: ConditionView) -> ConditionOutcome | ConditionRejected:
    found = _matches(view, cond.query)
    if isinstance(found, ConditionRejected):
        return found
    if len(found) != 1:
        ev = _count_evidence(view, "state", cond.query, found)
        return _outcome(NOT_MET if not found else UNKNOWN, ev)
    node = found[0]
    actual = node.effective_state
    evidence: list[Evidence] = []
    result = MET
    for name, wanted in _given_state(cond.state):
        seen = getattr(actual, name)
        evidence.append(_evidence(view, f"state.{name}", seen, wanted, node.node_id))
        if seen != wanted:
            result = NOT_MET
    return ConditionOutcome(result, tuple(evidence))


def _eval_leaf(cond: Condition, view: ConditionView) -> ConditionOutcome | ConditionRejected:
    match cond:
        case Present(query=query) | Absent(query=query):
            found = _matches(view, query)
            if isinstance(found, ConditionRejected):
                return found
            present = isinstance(cond, Present)
            kind = "present" if present else "absent"
            ev = _evidence(
                view,
                f"{kind} matches {_describe(query)}",
                observed=len(found),
                expected=">=1" if present else 0,
                node_id=found[0].node_id if found else None,
            )
            return _outcome(MET if bool(found) == present else NOT_MET, ev)
        case ValueEquals():
            return _eval_value(cond, view)
        case StateIs():
            return _eval_state(cond, view)
        case ScreenShown(name=name):
            shown = displayed_screens(view.tree, view.platform, viewport=view.viewport)
            ev = _evidence(view, "screens displayed", " ".join(shown) or None, name)
            return _outcome(MET if name in shown else NOT_MET, ev)
        case AppForeground(app_id=app_id):
            snap = view.snapshot
            current = snap.app_id or snap.package_name
            ok = app_id in (snap.app_id, snap.package_name)
            return _outcome(MET if ok else NOT_MET, _evidence(view, "app", current, app_id))
        case Stable(for_ms=for_ms):
            since = view.stable_since_ms
            if since is None:
                ev = _evidence(view, "stable for ms (screen not settled)", None, for_ms)
                return _outcome(UNKNOWN, ev)
            quiet = max(0, view.now_ms - since)
            ev = _evidence(view, "stable for ms", quiet, for_ms)
            return _outcome(MET if quiet >= for_ms else NOT_MET, ev)
        case ClipboardEquals(equals=equals):
            if view.clipboard is None:
                return _outcome(UNKNOWN, _evidence(view, "clipboard (not read)", None, equals))
            ev = _evidence(view, "clipboard", view.clipboard, equals)
            return _outcome(MET if view.clipboard == equals else NOT_MET, ev)
        case _:
            raise TypeError(f"not a leaf condition: {type(cond).__name__}")


def _eval(cond: Condition, view: ConditionView) -> ConditionOutcome | ConditionRejected:
    match cond:
        case AllOf(conditions=subs) | AnyOf(conditions=subs):
            outcomes: list[ConditionOutcome] = []
            for sub in subs:
                out = _eval(sub, view)
                if isinstance(out, ConditionRejected):
                    return out
                outcomes.append(out)
            combine = kleene_and if isinstance(cond, AllOf) else kleene_or
            result = combine(o.result for o in outcomes)
            evidence = tuple(e for o in outcomes for e in o.evidence)
            return ConditionOutcome(result, evidence[:MAX_EVIDENCE])
        case Not(condition=sub):
            out = _eval(sub, view)
            if isinstance(out, ConditionRejected):
                return out
            return ConditionOutcome(kleene_not(out.result), out.evidence)
        case _:
            return _eval_leaf(cond, view)


def evaluate(condition: Condition, view: ConditionView) -> ConditionOutcome | ConditionRejected:
    """Evaluate ``condition`` on ``view``. See the module table for each kind's semantics."""
    problem = _structure_problem(condition, has_target=view.target_id is not None)
    if problem is not None:
        return ConditionRejected(problem)
    return _eval(condition, view)
