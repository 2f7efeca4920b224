"""Verification policies: measuring one predicate over an action's before/after observation.

``verify(policy, expected, before=, after=, target_id=)`` returns a
``bridge.wire.action.Verification`` (predicate, CONDITION_MET / NOT_MET / UNKNOWN, evidence
with the values seen), ``None`` for DISPATCH_ONLY (no predicate applies), or
``PolicyRejected`` when the request cannot be verified at all. ``check_verify_request`` makes
every refusal up front so the hub answers an error *before* dispatching.

The target is named by its node id: ids are stable across a device's snapshots and never
given to another element, so the same id in ``after`` is the same element (and a missing id
means the element is gone). A verification measures its predicate and nothing else: a text
change elsewhere on the screen (a ticking clock) never changes a target's result.

==============================  ====================  =======================================
policy                          ``expected``          MET when (on the after observation)
==============================  ====================  =======================================
NODE_STATE_CHANGED              none                  the target's effective state differs in
                                                      enabled/clickable/selected/checked/
                                                      password (``focused`` is left out: any
                                                      touch may move focus); target gone from
                                                      either side UNKNOWN
NODE_VALUE_EQUALS               ``value``             the condition (no query: the target)
NODE_DISAPPEARED                none | ``absent``     the target id is absent, or its bounds
                                                      are empty or off-screen; or the
                                                      ``absent`` condition holds
NODE_APPEARED                   none | ``present``    the target is visible after and was not
                                                      before; or the ``present`` condition
                                                      holds (the count before is evidence)
PACKAGE_CHANGED                 none | ``app``        appId (else packageName) differs; with
                                                      ``app``, also equals it (Kleene AND)
WINDOW_CHANGED                  none                  windowId differs, else packageName/appId
                                                      differs — never derived from treeHash
COLLECTION_POSITION_CHANGED     none                  the visible item keys (itemKey, else
                                                      #index) of the target's scroll container
                                                      changed; no items on either side UNKNOWN
CLIPBOARD_EQUALS                ``clipboard``         the clipboard equals (unread: UNKNOWN)
EXPLICIT_CONDITION              any condition         the condition holds
DISPATCH_ONLY                   none                  (no verification object)
==============================  ====================  =======================================

The hub calls ``verify`` on each new after-snapshot while it waits (``timeoutMs``) and keeps
the last answer: the evidence always holds the last value seen. DISPATCH_ONLY being refused
for destructive / financial / external actions is the mutation policy's job, not this one's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from bridge.core.conditions import (
    MET,
    NOT_MET,
    UNKNOWN,
    ConditionOutcome,
    ConditionRejected,
    ConditionView,
    evaluate,
    kleene_and,
    validate_condition,
)
from bridge.core.query import root_viewport
from bridge.core.tree import NodeTree
from bridge.wire.action import Evidence, Predicate, Verification, Verify
from bridge.wire.base import Bounds
from bridge.wire.conditions import Absent, AppForeground, ClipboardEquals, Condition, Present
from bridge.wire.conditions import ValueEquals as ValueCondition
from bridge.wire.enums import PredicateSource, VerificationPolicy, VerificationResult
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

P = VerificationPolicy

STATE_CHANGE_FIELDS: tuple[str, ...] = ("enabled", "clickable", "selected", "checked", "password")
"""State fields NODE_STATE_CHANGED compares (``focused`` left out on purpose)."""

_EXPECTED: dict[VerificationPolicy, tuple[tuple[type, ...], bool]] = {
    # policy: (condition kinds accepted, expected required)
    P.NODE_STATE_CHANGED: ((), False),
    P.NODE_VALUE_EQUALS: ((ValueCondition,), True),
    P.NODE_DISAPPEARED: ((Absent,), False),
    P.NODE_APPEARED: ((Present,), False),
    P.PACKAGE_CHANGED: ((AppForeground,), False),
    P.WINDOW_CHANGED: ((), False),
    P.COLLECTION_POSITION_CHANGED: ((), False),
    P.CLIPBOARD_EQUALS: ((ClipboardEquals,), True),
    P.EXPLICIT_CONDITION: ((object,), True),
    P.DISPATCH_ONLY: ((), False),
}
_KIND_NAMES: dict[type, str] = {
    ValueCondition: "value",
    Absent: "absent",
    Present: "present",
    AppForeground: "app",
    ClipboardEquals: "clipboard",
}
_NEEDS_TARGET_WITHOUT_EXPECTED = frozenset(
    {P.NODE_STATE_CHANGED, P.NODE_DISAPPEARED, P.NODE_APPEARED, P.COLLECTION_POSITION_CHANGED}
)


@dataclass(frozen=True, slots=True)
class Observed:
    """One side of an action: a snapshot, its tree, and what the hub knew at that moment."""

    snapshot: ScreenSnapshot
    tree: NodeTree
    at_ms: int
    stable_since_ms: int | None = None
    clipboard: str | None = None
    viewport: Bounds | None = None

    @classmethod
    def of(
        cls,
        snapshot: ScreenSnapshot,
        *,
        at_ms: int,
        tree: NodeTree | None = None,
        stable_since_ms: int | None = None,
        clipboard: str | None = None,
        viewport: Bounds | None = None,
    ) -> Observed:
        return cls(
            snapshot,
            tree if tree is not None else NodeTree(snapshot.nodes),
            at_ms,
            stable_since_ms,
            clipboard,
            viewport,
        )

    def view(self, target_id: str | None) -> ConditionView:
        return ConditionView(
            snapshot=self.snapshot,
            tree=self.tree,
            now_ms=self.at_ms,
            stable_since_ms=self.stable_since_ms,
            clipboard=self.clipboard,
            target_id=target_id,
            viewport=self.viewport,
        )

    def screen_bounds(self) -> Bounds | None:
        """The viewport, else the bounding box of the roots' bounds, else unknown (None)."""
        return self.viewport if self.viewport is not None else root_viewport(self.tree)


@dataclass(frozen=True, slots=True)
class PolicyRejected:
    """The request cannot be verified as asked; the hub answers INVALID_PARAMS with it."""

    reason: str


# ---- up-front checks ---------------------------------------------------------------------------


def check_policy(
    policy: VerificationPolicy, expected: Condition | None, *, has_target: bool
) -> str | None:
    """Why ``expected`` does not fit ``policy`` (kind, presence, target needs), else None."""
    kinds, required = _EXPECTED[policy]
    if expected is None:
        if required:
            if policy is P.EXPLICIT_CONDITION:
                return "EXPLICIT_CONDITION needs an expected condition"
            return f"{policy.value} needs an expected {_KIND_NAMES[kinds[0]]} condition"
        if policy in _NEEDS_TARGET_WITHOUT_EXPECTED and not has_target:
            return f"{policy.value} without an expected condition needs a target node"
        return None
    if not isinstance(expected, kinds):
        allowed = " or ".join(_KIND_NAMES[k] for k in kinds)
        what = f"an expected {allowed} condition" if allowed else "no expected condition"
        kind = type(expected).__struct_config__.tag
        return f"{policy.value} takes {what}, got {kind!r}"
    return validate_condition(expected, has_target=has_target)


def check_verify_request(verify: Verify, *, has_target: bool = True) -> str | None:
    """The up-front refusal for an action's ``verify`` (None when it can be verified).
    ``has_target``: the action names a node (False for global and app actions)."""
    return check_policy(verify.policy, verify.expected, has_target=has_target)


# ---- helpers -----------------------------------------------------------------------------------


def _ev(
    obs: Observed,
    what: str,
    observed: str | int | float | bool | None = None,
    expected: str | int | float | bool | None = None,
    node_id: str | None = None,
) -> Evidence:
    return Evidence(
        what=what,
        snapshot_id=obs.snapshot.snapshot_id,
        node_id=node_id,
        observed=observed,
        expected=expected,
    )


def _bounds_text(bounds: Bounds | None) -> str | None:
    return None if bounds is None else ",".join(map(str, bounds))


def _visible(node: SemanticNode, screen: Bounds | None) -> bool:
    """Bounds unknown counts as visible (nothing says otherwise); empty or off-screen does not."""
    b = node.bounds
    if b is None:
        return True
    if b[2] <= b[0] or b[3] <= b[1]:
        return False
    if screen is None:
        return True
    return b[0] < screen[2] and b[2] > screen[0] and b[1] < screen[3] and b[3] > screen[1]


def _state_text(state: NodeState) -> str:
    return " ".join(f"{name}={getattr(state, name)}" for name in STATE_CHANGE_FIELDS).lower()


def _app(snapshot: ScreenSnapshot) -> str:
    return snapshot.app_id or snapshot.package_name


# ---- policies ------------------------------------------------------------------------------------

Measured = tuple[VerificationResult, tuple[Evidence, ...]]


def _state_changed(before: Observed, after: Observed, target: str) -> Measured:
    old, new = before.tree.get(target), after.tree.get(target)
    if old is None or new is None:
        side = before if old is None else after
        return UNKNOWN, (_ev(side, "target present", False, True, target),)
    a, b = old.effective_state, new.effective_state
    evidence = (
        _ev(before, "state before", _state_text(a), None, target),
        _ev(after, "state after", _state_text(b), None, target),
    )
    differs = any(getattr(a, f) != getattr(b, f) for f in STATE_CHANGE_FIELDS)
    return (MET if differs else NOT_MET), evidence


def _disappeared(before: Observed, after: Observed, target: str) -> Measured:
    if before.tree.get(target) is None:
        return UNKNOWN, (_ev(before, "target present before", False, True, target),)
    node = after.tree.get(target)
    if node is None:
        return MET, (_ev(after, "target present", False, False, target),)
    visible = _visible(node, after.screen_bounds())
    evidence = (
        _ev(after, "target present", True, False, target),
        _ev(after, "target visible (bounds)", _bounds_text(node.bounds), None, target),
    )
    return (NOT_MET if visible else MET), evidence


def _appeared(before: Observed, after: Observed, target: str) -> Measured:
    node = after.tree.get(target)
    old = before.tree.get(target)
    was = old is not None and _visible(old, before.screen_bounds())
    now = node is not None and _visible(node, after.screen_bounds())
    evidence = (
        _ev(before, "target visible before", was, False, target),
        _ev(after, "target visible", now, True, target),
    )
    return (MET if now and not was else NOT_MET), evidence


def _package_changed(before: Observed, after: Observed) -> Measured:
    a, b = _app(before.snapshot), _app(after.snapshot)
    evidence = (_ev(before, "app before", a), _ev(after, "app after", b))
    return (MET if a != b else NOT_MET), evidence


def _window_changed(before: Observed, after: Observed) -> Measured:
    sa, sb = before.snapshot, after.snapshot
    evidence = (
        _ev(before, "windowId before", sa.window_id),
        _ev(after, "windowId after", sb.window_id),
        _ev(before, "app before", _app(sa)),
        _ev(after, "app after", _app(sb)),
    )
    changed = sa.window_id != sb.window_id or _app(sa) != _app(sb)
    return (MET if changed else NOT_MET), evidence


def _items_by_container(tree: NodeTree) -> dict[str, list[SemanticNode]]:
    out: dict[str, list[SemanticNode]] = defaultdict(list)
    for node in tree.nodes:
        if node.collection is not None and node.collection.scroll_container_id is not None:
            out[node.collection.scroll_container_id].append(node)
    return out


def _top_level_items(tree: NodeTree, container: str) -> list[SemanticNode]:
    """Descendants carrying collection info with no such ancestor below ``container``."""
    out: list[SemanticNode] = []
    for node in tree.descendants(container):
        if node.collection is None:
            continue
        nested = False
        for anc in tree.ancestors(node.node_id):
            if anc.node_id == container:
                break
            if anc.collection is not None:
                nested = True
                break
        if not nested:
            out.append(node)
    return out


def _items(
    tree: NodeTree, container: str, index: dict[str, list[SemanticNode]]
) -> list[SemanticNode]:
    return index.get(container) or _top_level_items(tree, container)


def _container_of(tree: NodeTree, target: str) -> str | None:
    """The target, or its nearest ancestor, that holds collection items."""
    index = _items_by_container(tree)
    for nid in (target, *(a.node_id for a in tree.ancestors(target))):
        if _items(tree, nid, index):
            return nid
    return None


def _position(obs: Observed, container: str) -> tuple[str, ...]:
    """Keys of the container's visible items in document order."""
    tree = obs.tree
    node = tree.get(container)
    if node is None:
        return ()
    frame = node.bounds if node.bounds is not None else obs.screen_bounds()
    keys: list[str] = []
    for item in _items(tree, container, _items_by_container(tree)):
        if not _visible(item, frame):
            continue
        coll = item.collection
        assert coll is not None
        if coll.item_key is not None:
            keys.append(coll.item_key)
        elif coll.index is not None:
            keys.append(f"#{coll.index}")
        else:
            keys.append(item.node_id)
    return tuple(keys)


def _collection_moved(before: Observed, after: Observed, target: str) -> Measured:
    if before.tree.get(target) is None:
        return UNKNOWN, (_ev(before, "target present before", False, True, target),)
    container = _container_of(before.tree, target)
    if container is None:
        return UNKNOWN, (_ev(before, "collection items around the target", 0, None, target),)
    if after.tree.get(container) is None:
        return UNKNOWN, (_ev(after, "scroll container present", False, True, container),)
    a, b = _position(before, container), _position(after, container)
    evidence = (
        _ev(before, "first visible item before", a[0] if a else None, None, container),
        _ev(after, "first visible item after", b[0] if b else None, None, container),
        _ev(before, "visible items before", len(a), None, container),
        _ev(after, "visible items after", len(b), None, container),
    )
    if not a and not b:
        return UNKNOWN, evidence
    return (MET if a != b else NOT_MET), evidence


def _present_count(before: Observed, condition: Present) -> Evidence | None:
    out = evaluate(condition, before.view(None))
    if isinstance(out, ConditionRejected) or not out.evidence:
        return None
    first = out.evidence[0]
    return _ev(before, f"before: {first.what}", first.observed)


def _from_condition(out: ConditionOutcome) -> Measured:
    return out.result, out.evidence


def _measure(
    policy: VerificationPolicy,
    expected: Condition | None,
    before: Observed,
    after: Observed,
    target: str | None,
) -> Measured | PolicyRejected:
    if expected is not None:
        out = evaluate(expected, after.view(target))
        if isinstance(out, ConditionRejected):
            return PolicyRejected(out.reason)
        measured = _from_condition(out)
        if policy is P.NODE_APPEARED and isinstance(expected, Present):
            extra = _present_count(before, expected)
            if extra is not None:
                return measured[0], (*measured[1], extra)
        if policy is P.PACKAGE_CHANGED:
            changed = _package_changed(before, after)
            return kleene_and((changed[0], measured[0])), (*changed[1], *measured[1])
        return measured
    if policy is P.PACKAGE_CHANGED:
        return _package_changed(before, after)
    if policy is P.WINDOW_CHANGED:
        return _window_changed(before, after)
    assert target is not None  # check_policy: these policies need a target without expected
    if policy is P.NODE_STATE_CHANGED:
        return _state_changed(before, after, target)
    if policy is P.NODE_DISAPPEARED:
        return _disappeared(before, after, target)
    if policy is P.NODE_APPEARED:
        return _appeared(before, after, target)
    return _collection_moved(before, after, target)


def verify(
    policy: VerificationPolicy,
    expected: Condition | None,
    *,
    before: Observed,
    after: Observed,
    target_id: str | None,
    source: PredicateSource = PredicateSource.CALLER,
) -> Verification | PolicyRejected | None:
    """Measure ``policy`` from ``before`` to ``after``.

    ``target_id`` is the acted node's id (resolved against ``before``), None for global and
    app actions. ``source`` is CALLER when the caller asked for the check and INTRINSIC for a
    device operation's own postcondition. Returns None for DISPATCH_ONLY.
    """
    problem = check_policy(policy, expected, has_target=target_id is not None)
    if problem is not None:
        return PolicyRejected(problem)
    if policy is P.DISPATCH_ONLY:
        return None
    measured = _measure(policy, expected, before, after, target_id)
    if isinstance(measured, PolicyRejected):
        return measured
    result, evidence = measured
    return Verification(
        predicate=Predicate(policy=policy, source=source, condition=expected),
        result=result,
        evidence=evidence,
    )


def verify_request(
    request: Verify,
    *,
    before: Observed,
    after: Observed,
    target_id: str | None,
    source: PredicateSource = PredicateSource.CALLER,
) -> Verification | PolicyRejected | None:
    """``verify`` for an action's ``verify`` field."""
    return verify(
        request.policy,
        request.expected,
        before=before,
        after=after,
        target_id=target_id,
        source=source,
    )
