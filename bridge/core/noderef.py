"""NodeRef building and strict resolution against a newer snapshot.

Resolution never guesses:
- strong locators (RESOURCE_ID, RESOURCE_ID_SCOPED, ROLE_LABEL_ANCESTOR,
  ROLE_STATE_COLLECTION_ITEM) are tried strongest first; the first that finds anything
  decides the candidate set, later strong locators can only narrow it;
- several candidates are narrowed only by facts that single out one element: the ref's node
  id when the snapshot comes from the same id space (ids are never reused for another
  element), or the ancestor fingerprint; otherwise AMBIGUOUS_MATCH with every candidate;
- look-alikes (same role, name and scope) are told apart when the ref is built: by the text
  next to them (a card's title: ``|text:``), else by position among exactly n (``|nth:k/n``),
  which is honoured only while there are still exactly n — never positions alone;
- when every strong locator finds nothing, weak locators (STRUCTURAL_PATH, BOUNDS_NEAREST)
  never resolve: they only tell STALE_NODE_REF (something else now stands there) from
  NODE_NOT_FOUND. A ref with weak locators only resolves just when the node at its path has
  the identical fingerprint and ancestor fingerprint, else WEAK_REFERENCE_UNRESOLVABLE;
- one candidate whose fingerprint drifted far (``identity.FAR_DRIFT``) is STALE_NODE_REF;
- with a generation check, a changed screenStateId or any drift of the target is stale,
  while unrelated changes elsewhere (a ticking clock) are not.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.core.ancestor_spec import AncestorSpec
from bridge.core.identity import (
    FAR_DRIFT,
    FIELD_WEIGHTS,
    FINGERPRINT_FIELDS,
    ancestor_fingerprint,
    automation,
    drifted_fields,
    fingerprint,
    node_name,
    short_hash,
)
from bridge.core.shown_text import numbers_only, text_change, to_record
from bridge.core.tree import NodeTree
from bridge.wire.enums import ErrorCode, NodeRefSource, Role, Source
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import (
    STRONG_LOCATORS,
    BoundsNearestLocator,
    CollectionItemLocator,
    Locator,
    NodeRef,
    ResourceIdLocator,
    ResourceIdScopedLocator,
    RoleLabelAncestorLocator,
    StructuralPathLocator,
)
from bridge.wire.snapshot import ScreenSnapshot

_ID_LOCATORS = frozenset({"RESOURCE_ID", "RESOURCE_ID_SCOPED"})
_SCOPE_ROLES = frozenset({Role.DIALOG, Role.LIST, Role.LIST_ITEM, Role.MENU, Role.WEB_VIEW})


# ---- building ------------------------------------------------------------------------------


def ancestor_scope(tree: NodeTree, node_id: str) -> str | None:
    """A short description of the nearest identifying ancestor: ``id:<automation id>``, or
    the role of the nearest dialog, list, row, menu or web view; None when none. Names are
    left out: a container's name is often derived from texts inside it, which change."""
    for anc in tree.ancestors(node_id):
        aid = automation(anc)
        if aid:
            return f"id:{aid}"
        if anc.role in _SCOPE_ROLES:
            return anc.role.value
    return None


_CONTEXT_LEVELS = 3
_CONTEXT_SCAN = 64


def context_text(tree: NodeTree, node_id: str) -> str | None:
    """The first text near the element but outside it: searched in the subtrees of its
    nearest ancestors (up to three levels), document order, skipping its own subtree."""
    own = {node_id} | {d.node_id for d in tree.descendants(node_id)}
    me = tree.get(node_id)
    my_name = node_name(me) if me is not None else None
    for level, anc in enumerate(tree.ancestors(node_id)):
        if level >= _CONTEXT_LEVELS:
            break
        for k, other in enumerate(tree.descendants(anc.node_id)):
            if k >= _CONTEXT_SCAN:
                break
            if other.node_id in own or not (other.text or other.label):
                continue
            if (other.text or other.label) == my_name:
                continue  # a look-alike's own text tells nothing apart
            if other.role in (Role.TEXT, Role.IMAGE):
                return other.text or other.label
    return None


def locator_kind(loc: Locator) -> str:
    """The wire tag of a locator (``RESOURCE_ID`` ...)."""
    return str(loc.__struct_config__.tag)


def build_ref(snapshot: ScreenSnapshot, tree: NodeTree, node_id: str) -> NodeRef | None:
    """A ref for ``node_id`` of ``snapshot``, locators strongest first; None if absent."""
    node = tree.get(node_id)
    if node is None:
        return None
    locators: list[Locator] = []
    aid = automation(node)
    scope = ancestor_scope(tree, node_id)
    if aid:
        same = tree.lookup("ids", aid)
        if len(same) == 1:
            locators.append(ResourceIdLocator(value=aid))
        else:
            scoped = [n for n in same if ancestor_scope(tree, n.node_id) == scope]
            if scope is not None and len(scoped) == 1:
                locators.append(ResourceIdScopedLocator(value=aid, ancestor=scope))
    name = node_name(node)
    if node.collection is not None and node.collection.item_key:
        container = ancestor_scope(tree, node_id)
        locators.append(
            CollectionItemLocator(
                role=node.role, item_key=node.collection.item_key, scroll_container=container
            )
        )
    if name:
        spec = _label_spec(tree, node, name, scope)
        spec = AncestorSpec(spec.scope, spec.text, spec.nth, shown=to_record(node, name))
        locators.append(
            RoleLabelAncestorLocator(role=node.role, label=name, ancestor=spec.render())
        )
    locators.append(StructuralPathLocator(value=tree.path(node_id)))
    if node.bounds is not None:
        locators.append(BoundsNearestLocator(bounds=node.bounds))
    vision = node.source is Source.VISION  # read from pixels: text and bounds only
    return NodeRef(
        snapshot_id=snapshot.snapshot_id,
        node_id=node_id,
        fingerprint=_fingerprint(tree, node),
        ancestor_fingerprint=_ancestry(tree, node_id),
        locators=tuple(locators),
        source=NodeRefSource.VISION if vision else None,
        confidence=node.confidence if vision else None,
    )


def _fingerprint(tree: NodeTree, node: SemanticNode) -> str:
    """``fingerprint(node)``, cached in the capture's index."""
    return tree.index.fingerprint(node, fingerprint)


def _ancestry(tree: NodeTree, node_id: str) -> str:
    """``ancestor_fingerprint(tree, node_id)``, cached in the capture's index."""
    return tree.index.ancestry(tree, node_id, ancestor_fingerprint)


def _look_alikes(tree: NodeTree, role: Role, name: str, scope: str | None) -> list[SemanticNode]:
    return [
        n
        for n in tree.lookup("name", (role, name))
        if scope is None or ancestor_scope(tree, n.node_id) == scope
    ]


def _label_spec(tree: NodeTree, node: SemanticNode, name: str, scope: str | None) -> AncestorSpec:
    """Scope alone when that is unique; else the nearby text that sets the element apart;
    else its position among exactly n look-alikes."""
    alikes = _look_alikes(tree, node.role, name, scope)
    if len(alikes) <= 1:
        return AncestorSpec(scope)
    ctx = context_text(tree, node.node_id)
    if ctx is not None and sum(1 for a in alikes if context_text(tree, a.node_id) == ctx) != 1:
        ctx = None  # the nearby text does not set it apart
    k = next(i for i, a in enumerate(alikes, start=1) if a.node_id == node.node_id)
    return AncestorSpec(scope, text=ctx, nth=(k, len(alikes)))


# ---- resolving -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resolved:
    node: SemanticNode
    locator: str


@dataclass(frozen=True, slots=True)
class NotFound:
    reason: str


@dataclass(frozen=True, slots=True)
class Ambiguous:
    candidates: tuple[SemanticNode, ...]
    locator: str


@dataclass(frozen=True, slots=True)
class Stale:
    reason: str
    node: SemanticNode | None = None


@dataclass(frozen=True, slots=True)
class WeakUnresolvable:
    reason: str


Resolution = Resolved | NotFound | Ambiguous | Stale | WeakUnresolvable


@dataclass(frozen=True, slots=True)
class GenerationCheck:
    """The caller asserts the ref was built at ``expected``; ``current`` is the device's
    generation now and ``origin`` the snapshot at ``expected`` if still known."""

    expected: int
    current: int
    origin: ScreenSnapshot | None


def _candidates(tree: NodeTree, locator: Locator) -> list[SemanticNode]:
    """The elements an id or collection locator names. ``_resolve_strong`` handles
    ROLE_LABEL_ANCESTOR itself (it can be stale); positional locators never reach here (they
    resolve only to the identical element, ``_weak_only``)."""
    match locator:
        case ResourceIdLocator(value=value):
            return tree.lookup("ids", value)
        case ResourceIdScopedLocator(value=value, ancestor=anc):
            return [
                n
                for n in tree.lookup("ids", value)
                if anc is None or ancestor_scope(tree, n.node_id) == anc
            ]
        case CollectionItemLocator(role=role, item_key=key, scroll_container=container):
            return [
                n
                for n in tree.lookup("item", (role, key))
                if container is None or ancestor_scope(tree, n.node_id) == container
            ]
    return []


def _role_label(tree: NodeTree, loc: RoleLabelAncestorLocator) -> list[SemanticNode] | Stale:
    """Look-alikes by role, name and scope, told apart by nearby text, else by position among
    exactly n of them; fewer than n look-alikes means the ref's element cannot be told: stale."""
    spec = AncestorSpec.parse(loc.ancestor)
    alikes = _look_alikes(tree, loc.role, loc.label, spec.scope)
    if spec.text is not None:
        by_text = [n for n in alikes if context_text(tree, n.node_id) == spec.text]
        if len(by_text) == 1 or spec.nth is None:
            return by_text
    if spec.nth is not None and alikes:
        k, n = spec.nth
        if len(alikes) == n:
            return [alikes[k - 1]]
        if len(alikes) < n:
            return Stale(
                f"the ref's element was the {k}th of {n} look-alikes; {len(alikes)} remain, "
                "so which one it was cannot be told"
            )
    return alikes


def _narrow(
    ref: NodeRef, tree: NodeTree, candidates: list[SemanticNode], same_id_space: bool
) -> SemanticNode | None:
    """The single candidate that facts (not position in a list) single out, or None."""
    if same_id_space:
        by_id = [c for c in candidates if c.node_id == ref.node_id]
        if len(by_id) == 1:
            return by_id[0]
    if ref.ancestor_fingerprint is not None:
        same_anc = [c for c in candidates if _ancestry(tree, c.node_id) == ref.ancestor_fingerprint]
        if len(same_anc) == 1:
            return same_anc[0]
    return None


def resolve_ref(
    ref: NodeRef,
    snapshot: ScreenSnapshot,
    tree: NodeTree | None = None,
    *,
    same_id_space: bool = False,
    generation: GenerationCheck | None = None,
) -> Resolution:
    """Resolve ``ref`` against ``snapshot`` (the newest one). ``same_id_space`` is true when
    the snapshot's node ids come from the allocator that numbered the ref's snapshot."""
    tree = tree if tree is not None else NodeTree(snapshot.nodes)
    if generation is not None and generation.expected != generation.current:
        origin = generation.origin
        if origin is None:
            return Stale(
                f"generation {generation.expected} is no longer known "
                f"(the device is at {generation.current})"
            )
        if origin.screen_state_id != snapshot.screen_state_id:
            return Stale(
                f"the screen changed from {origin.screen_state_id} to "
                f"{snapshot.screen_state_id} since generation {generation.expected}"
            )
    strong = [loc for loc in ref.locators if isinstance(loc, STRONG_LOCATORS)]
    outcome = _resolve_strong(ref, tree, strong, same_id_space) if strong else None
    if outcome is None:
        return _as_vision(_weak_only(ref, tree))
    if isinstance(outcome, Resolved):
        if (
            outcome.locator not in _ID_LOCATORS
            and ref.ancestor_fingerprint is not None
            and _ancestry(tree, outcome.node.node_id) != ref.ancestor_fingerprint
        ):
            # Found by name, but it no longer sits where the ref's element sat: without an
            # id to vouch for it, that is another element (or the same one moved) - refuse.
            return Stale(
                f"the element found by {outcome.locator} sits under different ancestors",
                outcome.node,
            )
        strict = generation is not None and generation.expected != generation.current
        return _as_vision(_check_drift(ref, outcome, strict=strict, tree=tree))
    return _as_vision(outcome)


def _as_vision(outcome: Resolution) -> Resolution:
    """A node read by vision resolves by its text and bounds only: the resolution says so."""
    if isinstance(outcome, Resolved) and outcome.node.source is Source.VISION:
        return Resolved(outcome.node, f"{outcome.locator} (vision: text and bounds read from "
                        "the screenshot, weaker evidence than accessibility)")  # fmt: skip
    return outcome


def _label_locator(ref: NodeRef) -> RoleLabelAncestorLocator | None:
    return next((loc for loc in ref.locators if isinstance(loc, RoleLabelAncestorLocator)), None)


def _check_drift(ref: NodeRef, outcome: Resolved, *, strict: bool, tree: NodeTree) -> Resolution:
    """The one candidate is refused when its identity drifted far (any drift under a
    generation check), or when the text it shows is no longer the one the ref recorded
    (``shown_text``); a name or text whose numbers alone changed is tolerated unless
    ``strict``."""
    node = outcome.node
    fields = drifted_fields(ref.fingerprint, _fingerprint(tree, node))
    label = _label_locator(ref)
    name = node_name(node)
    if not strict and fields == ("name",) and label is not None and name is not None:
        if numbers_only(label.label, name):
            fields = ()  # a counter, a clock, a percentage in the name
    if sum(FIELD_WEIGHTS[f] for f in fields) >= (1 if strict else FAR_DRIFT):
        return Stale(f"the element found by {outcome.locator} changed ({', '.join(fields)})", node)
    if label is not None:
        shown = AncestorSpec.parse(label.ancestor).shown
        reason = text_change(shown, label.label, node, strict=strict)
        if reason is not None:
            return Stale(f"the element found by {outcome.locator} changed: {reason}", node)
    return outcome


def _resolve_strong(
    ref: NodeRef, tree: NodeTree, strong: list[Locator], same_id_space: bool
) -> Resolution:
    chosen: list[SemanticNode] | None = None
    chosen_by = ""
    for loc in strong:
        if isinstance(loc, RoleLabelAncestorLocator):
            told = _role_label(tree, loc)
            if isinstance(told, Stale):
                return told
            found = told
        else:
            found = _candidates(tree, loc)
        if not found:
            continue
        if chosen is None:
            chosen, chosen_by = found, locator_kind(loc)
        else:
            ids = {n.node_id for n in found}
            narrowed = [c for c in chosen if c.node_id in ids]
            if narrowed:
                chosen = narrowed
        if len(chosen) == 1:
            break
    if chosen is None:
        return _diagnose_missing(ref, tree)
    if len(chosen) == 1:
        return Resolved(chosen[0], chosen_by)
    single = _narrow(ref, tree, chosen, same_id_space)
    if single is not None:
        return Resolved(single, chosen_by)
    return Ambiguous(tuple(chosen), chosen_by)


def _diagnose_missing(ref: NodeRef, tree: NodeTree) -> Resolution:
    """Strong locators found nothing: tell 'something else stands there now' (stale) from
    'it is gone' (not found). Never resolves."""
    for loc in ref.locators:
        if isinstance(loc, StructuralPathLocator):
            there = tree.at_path(loc.value)
            if there is None:
                break
            fp = _fingerprint(tree, there)
            fields = drifted_fields(ref.fingerprint, fp)
            if fields and _same_kind(ref.fingerprint, there, fields):
                return Stale(
                    f"the element at {loc.value} is the same kind but its "
                    f"{', '.join(fields)} changed",
                    there,
                )
    return NotFound("no element matches any of the ref's strong locators")


_TAB_EVIDENCE_ROLES = frozenset({Role.TAB, Role.BUTTON, Role.TEXT, Role.IMAGE, Role.UNKNOWN})
"""Roles a node of one raw class moves between when tab evidence (a label saying "…, tab 2 of
5", a selected member in a row) appears or goes."""


def _same_kind(old_fingerprint: str, there: SemanticNode, fields: tuple[str, ...]) -> bool:
    """The element now at the ref's path is of the same kind: same raw class and same role,
    or a role change that is only tab evidence coming or going (TAB <-> BUTTON, TEXT ...)."""
    if "class" in fields:
        return False
    if "role" not in fields:
        return True
    if there.role not in _TAB_EVIDENCE_ROLES:
        return False
    segment = len(old_fingerprint) // len(FINGERPRINT_FIELDS)
    old = {short_hash(r.value, size=8)[:segment]: r for r in _TAB_EVIDENCE_ROLES}
    was = old.get(old_fingerprint[:segment])
    return was is not None and (was is Role.TAB) != (there.role is Role.TAB)


def _weak_only(ref: NodeRef, tree: NodeTree) -> Resolution:
    for loc in ref.locators:
        if isinstance(loc, StructuralPathLocator):
            there = tree.at_path(loc.value)
            if (
                there is not None
                and _fingerprint(tree, there) == ref.fingerprint
                and _ancestry(tree, there.node_id) == ref.ancestor_fingerprint
            ):
                return Resolved(there, "STRUCTURAL_PATH")
    return WeakUnresolvable(
        "the ref has only positional locators and the element there is not the same"
    )


# ---- errors ------------------------------------------------------------------------------


def resolution_error(
    outcome: NotFound | Ambiguous | Stale | WeakUnresolvable,
    snapshot: ScreenSnapshot,
    tree: NodeTree,
) -> ErrorEnvelope:
    """The reference error envelope for a refusal, with ordered recovery hints."""
    match outcome:
        case NotFound(reason=reason):
            return ErrorEnvelope(
                error=ErrorCode.NODE_NOT_FOUND,
                message=reason,
                recovery=(
                    "take a fresh snapshot (snapshot.get) and find the element again",
                    "wait for the element (wait present) if the screen is still loading",
                    "scroll the container if the element may be off screen",
                ),
            )
        case Ambiguous(candidates=cands, locator=by):
            refs = tuple(
                r for r in (build_ref(snapshot, tree, c.node_id) for c in cands) if r is not None
            )
            return ErrorEnvelope(
                error=ErrorCode.AMBIGUOUS_MATCH,
                message=f"{len(cands)} elements match the ref's {by} locator",
                recovery=(
                    "pick one of the candidates and act on its ref",
                    "narrow the query with within, role, resourceId or nth",
                ),
                candidates=refs,
            )
        case Stale(reason=reason):
            return ErrorEnvelope(
                error=ErrorCode.STALE_NODE_REF,
                message=reason,
                recovery=(
                    "find the element again on the current screen",
                    "check that the screen is the one you expect before acting",
                ),
            )
        case WeakUnresolvable(reason=reason):
            return ErrorEnvelope(
                error=ErrorCode.WEAK_REFERENCE_UNRESOLVABLE,
                message=reason,
                recovery=(
                    "find the element again by text, role or id",
                    "use a screenshot and a vision step if the element has no semantics",
                ),
            )
