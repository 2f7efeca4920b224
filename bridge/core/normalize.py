"""Normalization: a RawTree -> semantic nodes and the full and compact ScreenSnapshots.

Invariants:
- deterministic: the same raw tree, allocator state and context give byte-identical output;
- node ids come from the device's ``IdAllocator`` over the FULL tree, and the compact
  snapshot is a subset of the full one with the same ids (parents re-pointed to the nearest
  kept ancestor);
- password values never survive: ``state.password`` is set and ``value``/``text`` are
  dropped — no value, no length;
- roles are never raw class names (see ``roles.infer_role``);
- a soft keyboard's root carries its summary (``keyboard``) in both views, and the compact
  view holds that one node instead of every key (``compact.compact_nodes``).

The caller passes the snapshot id, timestamp and device id in; nothing here reads a clock.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from bridge.core import roles as role_rules
from bridge.core.compact import compact_nodes
from bridge.core.identity import (
    IdAllocator,
    layout_hash,
    screen_state_id,
    tree_hash,
)
from bridge.core.keyboard import KEYBOARD_LABEL, KeyboardRegion, find_keyboards
from bridge.core.screens import node_screen_id
from bridge.wire.base import PACKAGE_PATTERN
from bridge.wire.enums import ActionVerb, Orientation, Platform, Role, Source
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.snapshot import ScreenSnapshot

_ITEM_KEY_MAX = 120
_PACKAGE_RE = re.compile(PACKAGE_PATTERN)

_RAW_ACTIONS: dict[str, ActionVerb] = {
    "click": ActionVerb.CLICK,
    "longClick": ActionVerb.LONG_CLICK,
    "setText": ActionVerb.SET_TEXT,
    "clearText": ActionVerb.CLEAR_TEXT,
    "focus": ActionVerb.FOCUS,
    "scrollForward": ActionVerb.SCROLL_FORWARD,
    "scrollBackward": ActionVerb.SCROLL_BACKWARD,
    "select": ActionVerb.SELECT,
    "expand": ActionVerb.EXPAND,
    "collapse": ActionVerb.COLLAPSE,
    "dismiss": ActionVerb.DISMISS,
    "copy": ActionVerb.COPY,
    "paste": ActionVerb.PASTE,
}
_ACTION_ORDER = {verb: i for i, verb in enumerate(ActionVerb)}
_CHECKABLE_ROLES = frozenset({Role.CHECKBOX, Role.RADIO, Role.SWITCH})
_ACTIONABLE_ROLES = frozenset(
    {
        Role.BUTTON,
        Role.LIST_ITEM,
        Role.LINK,
        Role.TAB,
        Role.MENU,
        Role.CHECKBOX,
        Role.RADIO,
        Role.SWITCH,
    }
)


@dataclass(frozen=True, slots=True)
class SnapshotContext:
    """What the caller knows and the core must not invent: ids, time, device."""

    device_id: str
    snapshot_id: str
    timestamp_ms: int


@dataclass(frozen=True, slots=True)
class Normalized:
    full: ScreenSnapshot
    compact: ScreenSnapshot
    layout_hash: str
    """Changes whenever anything moved; the stability tracker watches it with treeHash."""
    handles: dict[str, int]
    """Node id -> the agent-local handle of the capture it came from."""
    screens: tuple[str, ...]
    """Screen marker ids present in the tree (``__screen_<id>``), in document order."""


@dataclass(frozen=True, slots=True)
class NormalizeFailure:
    reason: str


def validate_raw_tree(raw: RawTree) -> str | None:
    """A reason when the raw tree breaks its invariants (pre-order, parent indexes)."""
    if not raw.nodes:
        return "the tree has no nodes"
    for i, node in enumerate(raw.nodes):
        if node.parent >= i or node.parent < -1:
            return f"node {i} has parent {node.parent}; parents must be earlier nodes or -1"
        if node.bounds is not None and (
            node.bounds[2] < node.bounds[0] or node.bounds[3] < node.bounds[1]
        ):
            # Degenerate but real (failed WDA snapshots); tolerated, never rejected.
            continue
    return None


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    stripped = text.strip()
    return stripped or None


def package_name(raw: RawTree) -> tuple[str, str | None]:
    """(packageName valid for the reference pattern, appId as reported)."""
    app = raw.package
    if not app:
        for window in raw.windows:
            if window.type == "application" and window.package:
                app = window.package
                break
    if not app:
        app = next((n.package for n in raw.nodes if n.package), None)
    if not app:
        return "unknown.app", None
    if _PACKAGE_RE.match(app):
        return app, app
    parts = [re.sub(r"[^A-Za-z0-9_]", "_", p) or "x" for p in app.split(".")]
    parts = [p if p[0].isalpha() else "x" + p for p in parts]
    if len(parts) < 2:
        parts.insert(0, "app")
    return ".".join(parts), app


def _orientation(raw: RawTree) -> Orientation:
    if raw.rotation in (90, 270):
        return Orientation.LANDSCAPE
    if raw.screen is not None and raw.screen.width > raw.screen.height:
        return Orientation.LANDSCAPE
    return Orientation.PORTRAIT


def _window_types(raw: RawTree) -> dict[int, str]:
    return {w.id: w.type for w in raw.windows}


def _main_window_id(raw: RawTree) -> int:
    apps = [w for w in raw.windows if w.type == "application"]
    for window in apps:
        if window.active or window.focused:
            return window.id
    if apps:
        return apps[0].id
    return raw.nodes[0].window if raw.nodes else 0


class _Proto:
    """A node under construction (mutable, internal)."""

    __slots__ = (
        "actions",
        "children",
        "collection",
        "descendant_texts",
        "hint",
        "index",
        "label",
        "parent",
        "position",
        "raw",
        "role",
        "state",
        "text",
        "value",
    )

    def __init__(self, index: int, raw: RawNode) -> None:
        self.index = index
        self.raw = raw
        self.parent = raw.parent
        self.position = 0
        """Index among the parent's children."""
        self.children: list[int] = []
        self.descendant_texts: list[str] = []
        self.role = Role.UNKNOWN
        self.label: str | None = None
        self.text: str | None = None
        self.value: str | None = None
        self.hint: str | None = None
        self.state = NodeState.DEFAULT
        self.actions: tuple[ActionVerb, ...] = ()
        self.collection: CollectionInfo | None = None


def _own_text(raw: RawNode, ios: bool) -> str | None:
    if ios:
        return _clean(raw.text) or _clean(raw.label) or _clean(raw.value)
    return _clean(raw.text) or _clean(raw.label)


def _build_protos(raw: RawTree) -> list[_Proto]:
    ios = raw.platform is Platform.IOS
    protos = [_Proto(i, n) for i, n in enumerate(raw.nodes)]
    for p in protos:
        if p.parent >= 0:
            p.position = len(protos[p.parent].children)
            protos[p.parent].children.append(p.index)
    # bottom-up: texts of descendants (capped) for labels of containers and item keys
    for p in reversed(protos):
        own = _own_text(p.raw, ios)
        if own is not None and not p.raw.password:
            p.descendant_texts.insert(0, own)
        if p.parent >= 0:
            above = protos[p.parent]
            room = 8 - len(above.descendant_texts)
            if room > 0:
                above.descendant_texts[0:0] = p.descendant_texts[:room]
    wtypes = _window_types(raw)
    extents = role_rules.window_extents(raw)
    rows: dict[int, frozenset[int]] = {}
    kin: dict[int, list[RawNode]] = {}
    for p in protos:
        parent = protos[p.parent] if p.parent >= 0 else None
        window_type = wtypes.get(p.raw.window, "application")
        if window_type == "application" and parent is None and _looks_like_dialog(p, protos):
            window_type = "dialog"
        p.role = role_rules.infer_role(
            p.raw,
            role_rules.RoleContext(
                is_root=parent is None,
                parent_role=parent.role if parent is not None else None,
                parent_class=parent.raw.class_name if parent is not None else None,
                window_type=window_type,
                window_extent=extents.get(p.raw.window, 0),
                children=_siblings(p, protos, kin),
                has_text_descendant=len(p.descendant_texts) > (1 if _own_text(p.raw, ios) else 0),
                in_tab_row=parent is not None and p.index in _tab_row(parent, protos, rows, kin),
                siblings=_siblings(parent, protos, kin) if parent is not None else (),
                position=p.position,
            ),
        )
        _fill_texts(p, ios)
        _fill_state_and_actions(p, ios)
    _fill_collections(protos)
    return protos


def _tab_row(
    parent: _Proto,
    protos: Sequence[_Proto],
    rows: dict[int, frozenset[int]],
    kin: dict[int, list[RawNode]],
) -> frozenset[int]:
    """Indexes of the parent's children that form a tab row (computed once per parent; lists
    and menus hold rows, not tabs)."""
    found = rows.get(parent.index)
    if found is None:
        if role_rules.item_container(parent.role):
            found = frozenset()
        else:
            kids = parent.children
            found = frozenset(kids[i] for i in role_rules.tab_row(_siblings(parent, protos, kin)))
        rows[parent.index] = found
    return found


def _siblings(p: _Proto, protos: Sequence[_Proto], kin: dict[int, list[RawNode]]) -> list[RawNode]:
    """The raw children of ``p`` (built once per node, shared by it and its children)."""
    found = kin.get(p.index)
    if found is None:
        found = kin[p.index] = [protos[c].raw for c in p.children]
    return found


def _summarize_keyboard(p: _Proto, keyboard: KeyboardRegion) -> None:
    """A keyboard's root says what it is, which input method, and what hides it; its role is
    UNKNOWN (the reference has no keyboard role, and a keyboard is no SCREEN of the app)."""
    p.role = Role.UNKNOWN
    p.label = p.label or KEYBOARD_LABEL
    p.value = keyboard.package
    p.hint = keyboard.hint
    p.collection = None


def _looks_like_dialog(root: _Proto, protos: Sequence[_Proto]) -> bool:
    """A root whose subtree holds the platform's alert parts (alertTitle / button1)."""
    stack = list(root.children)
    seen = 0
    while stack and seen < 64:
        idx = stack.pop()
        seen += 1
        aid = protos[idx].raw.automation_id or ""
        if aid.endswith((":id/alertTitle", ":id/parentPanel", ":id/button1")):
            return True
        stack.extend(protos[idx].children)
    return False


def _fill_texts(p: _Proto, ios: bool) -> None:
    raw = p.raw
    label = _clean(raw.label)
    text = _clean(raw.text)
    value = _clean(raw.value)
    hint = _clean(raw.hint)
    if p.role is Role.INPUT:
        typed = value if ios else (text or value)
        if typed is not None and typed == hint:
            typed = None  # an empty field showing its hint
        p.value = typed
        p.hint = hint
        p.label = label if label != typed else None
        p.text = None
    elif ios:
        if p.role is Role.TEXT:
            p.text = text or label or value
            p.label = None
        else:
            p.label = label or text
            p.value = value if value != p.label else None
        p.hint = hint
    else:
        p.text = text
        p.label = label
        p.value = value
        p.hint = hint
    if p.label is None and p.role in _ACTIONABLE_ROLES:
        p.label = p.text or _derived_label(p)
    if raw.password:
        p.value = None
        p.text = None


def _derived_label(p: _Proto) -> str | None:
    """A sole meaningful descendant's text; for list rows the first texts joined."""
    texts = p.descendant_texts
    if not texts:
        return None
    if len(texts) == 1 or p.role is not Role.LIST_ITEM:
        return texts[0]
    return " ".join(texts[:3])[:_ITEM_KEY_MAX]


def _fill_state_and_actions(p: _Proto, ios: bool) -> None:
    raw = p.raw
    checked: bool | None = None
    if raw.checkable or p.role in _CHECKABLE_ROLES:
        checked = raw.checked
        if ios and p.role is Role.SWITCH and raw.value in ("1", "0"):
            checked = raw.value == "1"
    clickable = raw.clickable or (
        ios and bool(raw.hittable) and p.role in _ACTIONABLE_ROLES | {Role.INPUT}
    )
    p.state = NodeState(
        enabled=raw.enabled,
        clickable=clickable,
        focused=raw.focused,
        selected=raw.selected,
        checked=checked,
        password=raw.password,
    )
    verbs: set[ActionVerb] = {_RAW_ACTIONS[a] for a in raw.actions if a in _RAW_ACTIONS}
    if clickable:
        verbs.add(ActionVerb.CLICK)
    if raw.long_clickable:
        verbs.add(ActionVerb.LONG_CLICK)
    if raw.scrollable:
        verbs.update((ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD))
    if p.role is Role.INPUT and raw.enabled:
        verbs.update((ActionVerb.SET_TEXT, ActionVerb.CLEAR_TEXT))
    p.actions = tuple(sorted(verbs, key=_ACTION_ORDER.__getitem__))


def _fill_collections(protos: list[_Proto]) -> None:
    for p in protos:
        if p.role is not Role.LIST:
            continue
        ids = Counter(protos[i].raw.automation_id for i in p.children)
        index = 0
        for child_idx in p.children:
            child = protos[child_idx]
            if child.role is not Role.LIST_ITEM:
                continue
            aid = child.raw.automation_id
            # A row's automation id is its identity only when no sibling shares it.
            key = aid if aid and ids[aid] == 1 else None
            if key is None:
                key = child.label or _derived_label(child)
            child.collection = CollectionInfo(
                index=child.raw.item_row if child.raw.item_row is not None else index,
                item_key=key[:_ITEM_KEY_MAX] if key else None,
                row_count=p.raw.collection_rows,
            )
            index += 1


def _identity_keys(protos: Sequence[_Proto]) -> list[tuple[object, ...]]:
    """Conservative identity per node: automation id, role, ancestor chain, item key, and the
    name when there is no automation id."""
    chains: list[tuple[object, ...]] = []
    keys: list[tuple[object, ...]] = []
    for p in protos:
        item = p.collection.item_key if p.collection else None
        link = (p.role.value, p.raw.automation_id, item, p.raw.class_name)
        chain = ((*chains[p.parent], link) if p.parent >= 0 else (link,))[-12:]
        chains.append(chain)
        name = None if p.raw.automation_id else (p.label or p.text or p.hint)
        parent_chain = chains[p.parent] if p.parent >= 0 else ()
        keys.append((p.raw.window, parent_chain, link, name))
    return keys


def screen_markers(nodes: Sequence[SemanticNode]) -> tuple[str, ...]:
    """Screen ids of every ``__screen_<id>`` marker in document order (duplicates once);
    the one definition of a marker lives in ``bridge.core.screens``."""
    return tuple(dict.fromkeys(sid for n in nodes if (sid := node_screen_id(n)) is not None))


def normalize(
    raw: RawTree, ctx: SnapshotContext, ids: IdAllocator | None = None
) -> Normalized | NormalizeFailure:
    """Normalize one capture. ``ids`` carries node identity across a device's captures;
    without it ids are numbered n1.. in document order."""
    problem = validate_raw_tree(raw)
    if problem is not None:
        return NormalizeFailure(problem)
    protos = _build_protos(raw)
    keyboards = find_keyboards(raw)
    for keyboard in keyboards:
        _summarize_keyboard(protos[keyboard.root], keyboard)
    allocator = ids if ids is not None else IdAllocator()
    node_ids = allocator.allocate(_identity_keys(protos))
    ios = raw.platform is Platform.IOS
    nodes: list[SemanticNode] = []
    for p, nid in zip(protos, node_ids, strict=True):
        coll = p.collection
        if coll is not None and p.parent >= 0:
            coll = msgspec.structs.replace(coll, scroll_container_id=node_ids[p.parent])
        raw_node = p.raw
        nodes.append(
            SemanticNode(
                node_id=nid,
                parent_id=node_ids[p.parent] if p.parent >= 0 else None,
                role=p.role,
                label=p.label,
                text=p.text,
                value=p.value,
                hint=p.hint,
                resource_id=None if ios else raw_node.automation_id,
                automation_id=raw_node.automation_id,
                class_name=None if ios else raw_node.class_name,
                native_type=raw_node.class_name if ios else None,
                state=p.state,
                actions=p.actions,
                bounds=raw_node.bounds,
                collection=coll,
                source=Source.ACCESSIBILITY,
            )
        )
    package, app_id = package_name(raw)
    markers = screen_markers(nodes)
    thash = tree_hash(nodes)
    sid = screen_state_id(nodes, markers, package)
    common = {
        "schema_version": 1,
        "device_id": ctx.device_id,
        "snapshot_id": ctx.snapshot_id,
        "timestamp": ctx.timestamp_ms,
        "package_name": package,
        "window_id": _main_window_id(raw),
        "orientation": _orientation(raw),
        "screen_state_id": sid,
        "tree_hash": thash,
        "platform": raw.platform,
        "app_id": app_id,
    }
    full = ScreenSnapshot(compact=False, nodes=tuple(nodes), **common)  # type: ignore[arg-type]
    kept, truncated = compact_nodes(
        nodes,
        collapsed={node_ids[k.root] for k in keyboards},
        keep={node_ids[i] for k in keyboards for i in k.hide_keys},
    )
    compact = ScreenSnapshot(
        compact=True,
        nodes=kept,
        truncated=truncated,
        **common,  # type: ignore[arg-type]
    )
    handles = {nid: p.raw.handle for p, nid in zip(protos, node_ids, strict=True)}
    return Normalized(full, compact, layout_hash(nodes), handles, markers)
