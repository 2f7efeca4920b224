"""The normalization engine: a full pass, and an incremental pass for the next capture.

``NormalizeEngine.run(raw, ctx)`` gives exactly what a full normalization of ``raw`` with
the engine's id allocator gives (``bridge.core.normalize.normalize`` is the full pass of a
fresh engine). When a capture has the previous capture's shape (the same handles and
parents) and differs in a few nodes, only what those nodes' changes can reach is recomputed
(``bridge.core.node_rules`` names what each rule reads), and every node whose output is
unchanged keeps the very ``SemanticNode`` object of the previous snapshot — so ``patch``
compares by identity, and the history costs only what changed.

The incremental pass falls back to the full pass whenever a precondition fails: another
shape, platform, window list or package; a node moved to another window; a window's extent
may have changed; the keyboard regions changed; or too many nodes changed.
``tests/core/test_renormalize.py`` runs both on perturbed real dumps and demands identical
snapshots and identical allocator state.

The caller uses one engine per device, feeds it the device's captures in order, one at a
time (not thread-safe), and must not mutate what it returns.
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import msgspec

from bridge.core import node_rules as rules
from bridge.core import roles as role_rules
from bridge.core.alert_screen import DIALOG_ID_ENDS
from bridge.core.compact import CompactView, build_compact
from bridge.core.gc_pause import gc_paused
from bridge.core.identity import (
    IdAllocator,
    automation,
    digest_layout_rows,
    digest_tree_rows,
    layout_row,
    screen_state_id,
    tree_row,
)
from bridge.core.keyboard import KeyboardRegion, find_keyboards, keyboard_regions, may_start_region
from bridge.core.node_ids import Key
from bridge.core.screens import node_screen_id
from bridge.core.snapshot_meta import (
    SnapshotContext,
    main_window_id,
    orientation_of,
    package_name,
    screen_markers,
    validate_raw_tree,
)
from bridge.core.tree import NodeTree
from bridge.wire.enums import Platform, Role, Source
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.snapshot import ScreenSnapshot

_SURE = next(f.default for f in msgspec.structs.fields(SemanticNode) if f.name == "confidence")
"""The default confidence object itself: msgspec omits a default it finds by identity."""
INCREMENTAL_SHARE = 0.25
"""Above this share of changed nodes the full pass is cheaper than tracking changes."""
_DIALOG_SCAN = 64


@dataclass(frozen=True, slots=True)
class Normalized:
    full: ScreenSnapshot
    compact: ScreenSnapshot
    layout_hash: str
    """Changes whenever anything moved; the stability tracker watches it with treeHash."""
    handles: dict[str, int]
    """Node id -> the agent-local handle of the capture it came from (do not mutate)."""
    screens: tuple[str, ...]
    """Screen marker ids present in the tree (``__screen_<id>``), in document order."""
    tree: NodeTree | None = None
    """The full snapshot's ``NodeTree`` (None: build it from ``full.nodes`` when needed)."""
    changed: tuple[str, ...] | None = None
    """Ids of the full nodes that differ from ``changed_from`` (None: unknown — compare)."""
    changed_from: tuple[SemanticNode, ...] | None = None
    """The full nodes of the previous capture this engine normalized, when ``changed`` is
    known: the same ids in the same places, every node not in ``changed`` the same object."""
    cut: frozenset[str] = frozenset()
    """Ids of meaningful nodes the compact view left out to stay within its budget."""


@dataclass(frozen=True, slots=True)
class NormalizeFailure:
    reason: str


@dataclass
class _State:
    """What the engine keeps of the last capture to normalize the next one."""

    raw: RawTree
    protos: list[rules.Proto]
    ios: bool
    extents: dict[int, int]
    wtypes: dict[int, str]
    keyboards: tuple[KeyboardRegion, ...]
    region_of: list[int]
    members: dict[Key, list[int]]
    rows: list[bytes]
    lrows: list[bytes]
    nodes: list[SemanticNode]
    compact: CompactView
    package: tuple[str, str | None]
    markers: tuple[str, ...]
    screen_state: str
    handles: dict[str, int]
    result: Normalized


class NormalizeEngine:
    """Normalizes one device's captures in order, reusing what did not change."""

    def __init__(self, ids: IdAllocator | None = None) -> None:
        self.ids = ids if ids is not None else IdAllocator()
        self._state: _State | None = None
        self.incremental_runs = 0
        self.full_runs = 0

    def reset(self) -> None:
        """Forget the previous capture (the next run is a full pass)."""
        self._state = None

    def reuses(self, raw: RawTree, changed: Sequence[int]) -> bool:
        """Whether ``run(raw, ctx, changed)`` would take the incremental pass (cheap: the
        caller may then run it on its event loop). Looks at ``changed`` only; mutates
        nothing."""
        state = self._state
        return state is not None and _precheck(state, raw, list(changed)) is not None

    def run(
        self, raw: RawTree, ctx: SnapshotContext, changed: Iterable[int] | None = None
    ) -> Normalized | NormalizeFailure:
        """Normalize ``raw``. ``changed`` may name the indexes of the nodes whose raw content
        differs from the previous capture (a raw delta knows them: a superset is fine);
        without it they are found by comparison."""
        state, self._state = self._state, None  # a failure half way leaves no half state
        if state is not None:
            got = _incremental(self.ids, state, raw, ctx, changed)
            if got is not None:
                self._state = state
                self.incremental_runs += 1
                return got
        problem = validate_raw_tree(raw)
        if problem is not None:
            return NormalizeFailure(problem)
        with gc_paused():  # a whole pass: what it makes lives until it ends (gc_pause)
            fresh = _full(self.ids, raw, ctx)
        self._state = fresh
        self.full_runs += 1
        return fresh.result


def normalize_once(raw: RawTree, ctx: SnapshotContext) -> Normalized | NormalizeFailure:
    """What ``NormalizeEngine().run(raw, ctx)`` gives, for a capture no later capture will
    follow: the fresh allocator is dropped with the engine, so what it would remember for the
    next capture (every key's ids, every spot's occupant) is not built."""
    problem = validate_raw_tree(raw)
    if problem is not None:
        return NormalizeFailure(problem)
    with gc_paused():  # a whole pass: what it makes lives until it ends (gc_pause)
        return _full(IdAllocator(), raw, ctx, remember=False).result


# ---- the full pass --------------------------------------------------------------------------


def _full(ids: IdAllocator, raw: RawTree, ctx: SnapshotContext, *, remember: bool = True) -> _State:
    """Every rule on every node. Passes over the nodes are fused wherever a rule reads only
    what earlier nodes of the same pass (pre-order: parents, earlier siblings) or earlier
    passes wrote: at 5,000 nodes the per-node state outgrows the CPU caches, and each pass
    re-reads all of it (issue 41's profile: the passes grew 6-9x from 1,000 to 5,000 nodes).
    ``remember``: see ``IdAllocator.allocate_protos``."""
    ios = raw.platform is Platform.IOS
    protos = [rules.Proto(i, n) for i, n in enumerate(raw.nodes)]
    rules.link_children(protos, ios)
    for p in reversed(protos):
        rules.fill_desc(p, protos)
    wtypes = {w.id: w.type for w in raw.windows}
    extents = role_rules.window_extents(raw)
    kin: dict[int, list[RawNode]] = {}
    for p in protos:
        p.wtype = _window_type(p, protos, wtypes)
        p.depth = protos[p.parent].depth + 1 if p.parent >= 0 else 0
        rules.fill_role(p, protos, extents.get(p.raw.window, 0), ios, kin)
        p.tab_row = rules.tab_row_of(p, protos, kin[p.index])  # fill_role's children
    keyboards, region_of = keyboard_regions(raw)
    for keyboard in keyboards:
        rules.summarize_keyboard(protos[keyboard.root], keyboard)  # read by final fields only
    members: dict[Key, list[int]] = {}
    for p in protos:
        # A node's collection is written when its list (earlier in pre-order) is visited.
        if p.role is Role.LIST:
            rules.fill_collections(p, protos)
        rules.fill_identity(p, protos)
        members.setdefault(p.key, []).append(p.index)
    ids.allocate_protos(protos, members, remember=remember)
    nodes = []
    rows = []
    lrows = []
    handles = {}
    for p in protos:
        p.node = node = _build_node(p, protos, ios)
        nodes.append(node)
        rows.append(tree_row(node, p.depth))
        lrows.append(layout_row(node))
        handles[p.nid] = p.raw.handle
    package = package_name(raw)
    markers = screen_markers(nodes)
    sid = screen_state_id(nodes, markers, package[0])
    compact = build_compact(nodes, _collapsed(keyboards, protos), _keep(keyboards, protos))
    full = tuple(nodes)
    result = _assemble(
        raw, ctx, full, rows, lrows, package, markers, sid, compact, handles, NodeTree(full), None
    )
    return _State(
        raw=raw,
        protos=protos,
        ios=ios,
        extents=extents,
        wtypes=wtypes,
        keyboards=keyboards,
        region_of=region_of,
        members=members,
        rows=rows,
        lrows=lrows,
        nodes=nodes,
        compact=compact,
        package=package,
        markers=markers,
        screen_state=sid,
        handles=handles,
        result=result,
    )


# ---- the incremental pass -------------------------------------------------------------------


def _incremental(
    ids: IdAllocator,
    state: _State,
    raw: RawTree,
    ctx: SnapshotContext,
    hint: Iterable[int] | None,
) -> Normalized | None:
    """The next capture from ``state`` when it has the same shape; None: use the full pass.
    ``state`` becomes the new capture's state only once every precondition held."""
    changed = (
        _changed_indexes(state.raw.nodes, raw.nodes, hint) if _same_frame(state, raw) else None
    )
    if changed is None:
        return None
    checked = _precheck(state, raw, changed)
    if checked is None:
        return None
    olds, news = checked
    # Every precondition held: from here on ``state`` becomes the new capture's.
    state.raw = raw
    for i, node in zip(changed, news, strict=True):
        state.protos[i].raw = node
    if not changed:
        return _rerun_unchanged(state, ctx)
    return _Pass(ids, state, changed, olds, ctx).run()


def _same_frame(state: _State, raw: RawTree) -> bool:
    old = state.raw
    return (
        len(raw.nodes) == len(old.nodes)
        and raw.platform is old.platform
        and raw.windows == old.windows
        and raw.package == old.package
    )


def _precheck(
    state: _State, raw: RawTree, changed: list[int]
) -> tuple[list[RawNode], list[RawNode]] | None:
    """(old, new) raw nodes at ``changed`` when the incremental pass applies; else None."""
    if not _same_frame(state, raw):
        return None
    old = state.raw
    n = len(raw.nodes)
    if len(changed) > INCREMENTAL_SHARE * n + 1 or (
        changed and not 0 <= min(changed) <= max(changed) < n
    ):
        return None
    olds = [old.nodes[i] for i in changed]
    news = [raw.nodes[i] for i in changed]
    for before, after in zip(olds, news, strict=True):
        if (
            before.handle != after.handle
            or before.parent != after.parent
            or before.window != after.window
        ):
            return None
    if not _extents_hold(state.extents, olds, news):
        return None
    keyboards_touched = any(state.region_of[i] >= 0 for i in changed) or any(
        may_start_region(raw, a) or may_start_region(old, b)
        for a, b in zip(news, olds, strict=True)
    )
    if keyboards_touched and find_keyboards(raw) != state.keyboards:
        return None
    return olds, news


def _rerun_unchanged(state: _State, ctx: SnapshotContext) -> Normalized:
    """The same nodes again: only the snapshot's id, time and meta fields are new."""
    nodes = tuple(state.nodes)
    state.result = _assemble(
        state.raw,
        ctx,
        nodes,
        state.rows,
        state.lrows,
        state.package,
        state.markers,
        state.screen_state,
        state.compact,
        state.handles,
        state.result.tree,
        (),
        state.result.full.nodes,
        state.result,
    )
    return state.result


class _Pass:
    """One incremental pass over ``changed`` raw nodes (the previous capture's shape)."""

    def __init__(
        self,
        ids: IdAllocator,
        state: _State,
        changed: list[int],
        olds: list[RawNode],
        ctx: SnapshotContext,
    ) -> None:
        self.ids = ids
        self.state = state
        self.protos = state.protos
        self.changed = changed
        self.olds = olds
        self.ctx = ctx

    def run(self) -> Normalized:
        state, protos = self.state, self.protos
        previous_nodes = state.result.full.nodes
        desc_changed = self._texts()
        role_dirty, reshaped = self._roles(desc_changed)
        coll_changed = self._collections(role_dirty, reshaped)
        key_dirty = role_dirty | coll_changed
        key_changed, touched = self._identity(key_dirty)
        id_changed = self.ids.reallocate(protos, state.members, touched, key_dirty)
        rebuild = key_dirty | key_changed | id_changed
        for i in id_changed:
            rebuild.update(protos[i].children)
        before: dict[int, SemanticNode] = {}
        moved = False
        for i in sorted(rebuild):
            p = protos[i]
            node = _build_node(p, protos, state.ios)
            old = p.node
            assert isinstance(old, SemanticNode)
            if node != old:
                before[i] = old
                p.node = node
                state.nodes[i] = node
                state.rows[i] = tree_row(node, p.depth)
                lrow = layout_row(node)
                moved = moved or lrow != state.lrows[i]
                state.lrows[i] = lrow
        # The layout rows are those of the last result; none moved: its layout hash stands.
        layout = None if moved else state.result.layout_hash
        full = tuple(state.nodes)
        renamed = any(state.nodes[i].node_id != b.node_id for i, b in before.items())
        package = state.package
        pairs = zip(self.changed, self.olds, strict=True)
        if any(a.package != protos[i].raw.package for i, a in pairs):
            state.package = package_name(state.raw)
        if state.package != package or any(
            _skeleton_changed(b, state.nodes[i]) for i, b in before.items()
        ):
            state.markers = screen_markers(full)
            state.screen_state = screen_state_id(full, state.markers, state.package[0])
        collapsed = _collapsed(state.keyboards, protos)
        keep = _keep(state.keyboards, protos)
        if renamed:
            state.handles = {p.nid: p.raw.handle for p in protos}
            tree = NodeTree(full)
            state.compact = build_compact(full, collapsed, keep, state.compact)
        else:
            prev = state.result.tree
            changed_nodes = [state.nodes[i] for i in before]
            tree = (
                NodeTree.replaced(prev, full, changed_nodes) if prev is not None else NodeTree(full)
            )
            state.compact = state.compact.update(full, sorted(before), collapsed, keep)
        state.result = _assemble(
            state.raw,
            self.ctx,
            full,
            state.rows,
            state.lrows,
            state.package,
            state.markers,
            state.screen_state,
            state.compact,
            state.handles,
            tree,
            None if renamed else tuple(state.nodes[i].node_id for i in sorted(before)),
            previous_nodes,
            layout_hash=layout,
        )
        return state.result

    def _texts(self) -> set[int]:
        """Own texts of the changed nodes and the subtree texts above them, bottom up; the
        nodes whose subtree texts changed."""
        protos, ios = self.protos, self.state.ios
        heap: list[int] = []
        for i in self.changed:
            protos[i].own = rules.own_text(protos[i].raw, ios)
            heap.append(-i)
        heapq.heapify(heap)
        out: set[int] = set()
        seen: set[int] = set()
        while heap:
            i = -heapq.heappop(heap)
            if i in seen:
                continue
            seen.add(i)
            p = protos[i]
            before = p.desc
            rules.fill_desc(p, protos)
            if p.desc != before:
                out.add(i)
                if p.parent >= 0:
                    heapq.heappush(heap, -p.parent)
        return out

    def _roles(self, desc_changed: set[int]) -> tuple[set[int], set[int]]:
        """Role, texts, state and actions of every node a change can reach, top down.
        Returns (the recomputed nodes, those whose role or tab row changed)."""
        protos, state = self.protos, self.state
        ios = state.ios
        start: set[int] = set(self.changed) | desc_changed
        parents: set[int] = set()
        class_changed: set[int] = set()
        for i, before in zip(self.changed, self.olds, strict=True):
            p = protos[i]
            if before.class_name != p.raw.class_name:
                class_changed.add(i)
            if p.parent >= 0:
                parents.add(p.parent)
                if before.bounds != p.raw.bounds or before.visible != p.raw.visible:
                    start.update(_canvas_siblings(protos, protos[p.parent], p, state.extents))
            if before.automation_id != p.raw.automation_id:
                root = _root_of(protos, i)
                wtype = _window_type(protos[root], protos, state.wtypes)
                if wtype != protos[root].wtype:
                    protos[root].wtype = wtype
                    start.add(root)
        start |= parents
        heap = list(start)
        heapq.heapify(heap)
        done: set[int] = set()
        reshaped: set[int] = set()
        kin: dict[int, list[RawNode]] = {}
        while heap:
            i = heapq.heappop(heap)
            if i in done:
                continue
            done.add(i)
            p = protos[i]
            role_before = p.role
            rules.fill_role(p, protos, state.extents.get(p.raw.window, 0), ios, kin)
            tabs = p.tab_row
            if p.role is not role_before or i in parents:
                tabs = rules.tab_row_of(p, protos)
            if p.role is not role_before or tabs != p.tab_row or i in class_changed:
                p.tab_row = tabs
                reshaped.add(i)
                for c in p.children:
                    heapq.heappush(heap, c)
        return done, reshaped

    def _collections(self, role_dirty: set[int], reshaped: set[int]) -> set[int]:
        """Collection info of the rows of every list a recomputed node belongs to or is; the
        nodes whose collection changed."""
        protos = self.protos
        lists: set[int] = set()
        for i in role_dirty:
            p = protos[i]
            if p.role is Role.LIST or i in reshaped:
                lists.add(i)
            if p.parent >= 0:
                lists.add(p.parent)
        out: set[int] = set()
        for li in lists:
            listing = protos[li]
            kids = listing.children
            before = [protos[c].collection for c in kids]
            if listing.role is Role.LIST:
                rules.fill_collections(listing, protos)
            else:
                for c in kids:
                    protos[c].collection = None
            out.update(
                c for c, was in zip(kids, before, strict=True) if protos[c].collection != was
            )
        return out

    def _identity(self, dirty: set[int]) -> tuple[set[int], set[Key]]:
        """Identity keys of the recomputed nodes and of every subtree whose ancestor chain
        changed, top down; keeps the key -> members index. Returns (the nodes whose key
        changed, every key a node left or took)."""
        protos, members = self.protos, self.state.members
        heap = list(dirty)
        heapq.heapify(heap)
        done: set[int] = set()
        changed: set[int] = set()
        touched: set[Key] = set()
        while heap:
            i = heapq.heappop(heap)
            if i in done:
                continue
            done.add(i)
            p = protos[i]
            key_before, chain_before = p.key, p.chain
            rules.fill_identity(p, protos)
            if p.chain != chain_before:
                for c in p.children:
                    heapq.heappush(heap, c)
            if p.key != key_before:
                changed.add(i)
                touched.add(key_before)
                touched.add(p.key)
                _move_member(members, key_before, p.key, i)
        return changed, touched


# ---- helpers --------------------------------------------------------------------------------


def _window_type(p: rules.Proto, protos: Sequence[rules.Proto], wtypes: dict[int, str]) -> str:
    window_type = wtypes.get(p.raw.window, "application")
    if window_type == "application" and p.parent < 0 and _looks_like_dialog(p, protos):
        return "dialog"
    return window_type


def _looks_like_dialog(root: rules.Proto, protos: Sequence[rules.Proto]) -> bool:
    """A root whose subtree holds the platform's alert parts (alertTitle / button1)."""
    stack = list(root.children)
    seen = 0
    while stack and seen < _DIALOG_SCAN:
        idx = stack.pop()
        seen += 1
        aid = protos[idx].raw.automation_id or ""
        if aid.endswith(DIALOG_ID_ENDS):
            return True
        stack.extend(protos[idx].children)
    return False


def _root_of(protos: Sequence[rules.Proto], i: int) -> int:
    while protos[i].parent >= 0:
        i = protos[i].parent
    return i


def _canvas_siblings(
    protos: Sequence[rules.Proto],
    parent: rules.Proto,
    changed: rules.Proto,
    extents: dict[int, int],
) -> list[int]:
    """Earlier siblings of a node whose bounds or visibility changed that may be drawing
    surfaces (their canvas rule looks at the later siblings' bounds)."""
    out = []
    for c in parent.children[: changed.position]:
        raw = protos[c].raw
        if not protos[c].children and _canvas_candidate(raw, extents.get(raw.window, 0)):
            out.append(c)
    return out


def _canvas_candidate(raw: RawNode, extent: int) -> bool:
    """The preconditions of ``roles.is_canvas_surface`` that do not look at siblings."""
    if raw.text or raw.label or raw.hint or raw.value:
        return False
    return bool(raw.focusable or raw.clickable) and raw.bounds is not None and extent > 0


def _extents_hold(extents: dict[int, int], olds: list[RawNode], news: list[RawNode]) -> bool:
    """Whether no window's extent (its largest node's area) can have changed."""
    for before, after in zip(olds, news, strict=True):
        a, b = _area(before), _area(after)
        if a != b:
            top = extents.get(after.window, 0)
            if b > top or a >= top:
                return False
    return True


def _area(node: RawNode) -> int:
    if node.bounds is None:
        return 0
    left, top, right, bottom = node.bounds
    return max(0, right - left) * max(0, bottom - top)


def _changed_indexes(
    old: Sequence[RawNode], new: Sequence[RawNode], hint: Iterable[int] | None
) -> list[int] | None:
    """Sorted indexes whose raw node differs; None when the hint names a bad index."""
    if hint is None:
        return [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a is not b and a != b]
    out = sorted(set(hint))
    if out and (out[0] < 0 or out[-1] >= len(new)):
        return None
    return [i for i in out if old[i] != new[i]]


def _move_member(members: dict[Key, list[int]], old: Key, new: Key, i: int) -> None:
    group = members.get(old)
    if group is not None:
        group.remove(i)
        if not group:
            del members[old]
    target = members.setdefault(new, [])
    if not target or target[-1] < i:
        target.append(i)
    else:
        insort(target, i)


def _skeleton_changed(before: SemanticNode, after: SemanticNode) -> bool:
    """The change can move the screen markers or the screenStateId skeleton."""
    return (
        before.role is not after.role
        or automation(before) != automation(after)
        or (node_screen_id(before) != node_screen_id(after))
    )


def _collapsed(keyboards: Sequence[KeyboardRegion], protos: Sequence[rules.Proto]) -> set[str]:
    return {protos[k.root].nid for k in keyboards}


def _keep(keyboards: Sequence[KeyboardRegion], protos: Sequence[rules.Proto]) -> set[str]:
    return {protos[i].nid for k in keyboards for i in k.hide_keys}


_NODE_ORDER = (
    "node_id", "role", "parent_id", "label", "text", "value", "hint", "resource_id",
    "class_name", "automation_id", "native_type", "state", "actions", "bounds", "collection",
    "source", "confidence",
)  # fmt: skip
"""``SemanticNode``'s fields in declaration order: ``_build_node`` passes them by position
(checked at import: a reordered struct fails here, not silently)."""
if SemanticNode.__struct_fields__ != _NODE_ORDER:  # pragma: no cover
    raise ImportError("SemanticNode's fields moved: update renormalize._NODE_ORDER")


def _build_node(p: rules.Proto, protos: Sequence[rules.Proto], ios: bool) -> SemanticNode:
    if p.summary is None:  # the final fields are the computed ones (read without properties)
        coll, role, label, value, hint = p.collection, p.role, p.label, p.value, p.hint
    else:
        coll, role, label = p.final_collection, p.final_role, p.final_label
        value, hint = p.final_value, p.final_hint
    parent_id = protos[p.parent].nid if p.parent >= 0 else None
    if coll is not None and parent_id is not None:
        coll = msgspec.structs.replace(coll, scroll_container_id=parent_id)
    raw = p.raw
    return SemanticNode(  # by position, in _NODE_ORDER (a keyword call costs 6x as much)
        p.nid,
        role,
        parent_id,
        label,
        p.text,
        value,
        hint,
        None if ios else raw.automation_id,  # resource_id
        None if ios else raw.class_name,  # class_name
        raw.automation_id,
        raw.class_name if ios else None,  # native_type
        p.state,
        p.actions,
        raw.bounds,
        coll,
        raw.source or Source.ACCESSIBILITY,
        _SURE if raw.confidence is None else raw.confidence,
    )


def _assemble(
    raw: RawTree,
    ctx: SnapshotContext,
    nodes: tuple[SemanticNode, ...],
    rows: list[bytes],
    lrows: list[bytes],
    package: tuple[str, str | None],
    markers: tuple[str, ...],
    screen_state: str,
    compact: CompactView,
    handles: dict[str, int],
    tree: NodeTree | None,
    changed: tuple[str, ...] | None,
    changed_from: tuple[SemanticNode, ...] | None = None,
    previous: Normalized | None = None,
    *,
    layout_hash: str | None = None,
) -> Normalized:
    """The result of a pass. ``layout_hash``: the digest of ``lrows`` when the caller knows
    it (no row changed since it was computed); None: digest them."""
    if previous is not None:
        full = msgspec.structs.replace(
            previous.full,
            snapshot_id=ctx.snapshot_id,
            timestamp=ctx.timestamp_ms,
            device_id=ctx.device_id,
            orientation=orientation_of(raw),
            window_id=main_window_id(raw),
        )
        small = msgspec.structs.replace(
            previous.compact,
            snapshot_id=ctx.snapshot_id,
            timestamp=ctx.timestamp_ms,
            device_id=ctx.device_id,
            orientation=full.orientation,
            window_id=full.window_id,
        )
        return Normalized(
            full,
            small,
            previous.layout_hash,
            handles,
            markers,
            tree,
            changed,
            changed_from,
            compact.cut,
        )
    common = {
        "schema_version": 1,
        "device_id": ctx.device_id,
        "snapshot_id": ctx.snapshot_id,
        "timestamp": ctx.timestamp_ms,
        "package_name": package[0],
        "window_id": main_window_id(raw),
        "orientation": orientation_of(raw),
        "screen_state_id": screen_state,
        "tree_hash": digest_tree_rows(rows),
        "platform": raw.platform,
        "app_id": package[1],
    }
    full = ScreenSnapshot(compact=False, nodes=nodes, **common)  # type: ignore[arg-type]
    small = ScreenSnapshot(
        compact=True,
        nodes=compact.nodes,
        truncated=compact.truncated,
        **common,  # type: ignore[arg-type]
    )
    return Normalized(
        full,
        small,
        layout_hash if layout_hash is not None else digest_layout_rows(lrows),
        handles,
        markers,
        tree,
        changed,
        changed_from if changed is not None else None,
        compact.cut,
    )
