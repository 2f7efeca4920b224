"""The per-node rules of normalization, shared by the full pass and the incremental one.

A ``Proto`` is one node under construction; each rule below reads the proto, its raw node
and the protos around it (parent, children, siblings) and writes the proto's fields. Every
rule is a pure function of what it reads, which is what lets ``bridge.core.renormalize``
recompute only the nodes whose inputs changed and get exactly what the full pass gets:

- ``fill_desc``: the first texts of the node's subtree (its own text first) — children;
- ``fill_role``: role, texts, state and actions — the node, its parent (role, class, tab row),
  its children and siblings (raw), its window (type and extent), its subtree's texts;
- ``fill_collections``: the ``CollectionInfo`` of a list's rows — the list and its children;
- ``fill_identity``: the identity key — the node's final fields and its parent's chain.

A keyboard root (``summary``) overrides role, label, value, hint and collection in the final
fields (``final_*``) only: the rules above read the computed ones, as the full pass always did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bridge.core import roles as role_rules
from bridge.core.keyboard import KEYBOARD_LABEL, KeyboardRegion
from bridge.wire.enums import ActionVerb, Role
from bridge.wire.node import CollectionInfo, NodeState
from bridge.wire.raw import RawNode

ITEM_KEY_MAX = 120
DESC_TEXTS = 8
"""Texts of a subtree remembered per node (labels of containers, item keys)."""
CHAIN_LINKS = 12
"""Ancestor links in an identity key."""

RAW_ACTIONS: dict[str, ActionVerb] = {
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
ACTIONABLE_ROLES = frozenset(
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
_CLICKABLE_ON_IOS = ACTIONABLE_ROLES | {Role.INPUT}
_STATE_MEMO_MAX = 4096
_STATE_MEMO_ACTIONS = 16
"""Raw nodes with more action names than this are not memoized (bounded memo keys)."""
_STATE_MEMO: dict[tuple[object, ...], tuple[NodeState, tuple[ActionVerb, ...]]] = {}


class Proto:
    """A node under construction (mutable, internal). ``index``/``parent``/``children`` are
    positions in the capture's pre-order list; ``position`` is the index among siblings."""

    __slots__ = (
        "actions",
        "chain",
        "children",
        "collection",
        "depth",
        "desc",
        "hint",
        "index",
        "key",
        "label",
        "link",
        "name",
        "nid",
        "node",
        "own",
        "parent",
        "position",
        "raw",
        "role",
        "state",
        "summary",
        "tab_row",
        "text",
        "value",
        "wtype",
    )

    def __init__(self, index: int, raw: RawNode) -> None:
        self.index = index
        self.raw = raw
        self.parent = raw.parent
        self.position = 0
        self.children: list[int] = []
        self.own: str | None = None
        """The node's own text (see ``own_text``), password or not."""
        self.desc: list[str] = []
        self.wtype = "application"
        self.role = Role.UNKNOWN
        self.label: str | None = None
        self.text: str | None = None
        self.value: str | None = None
        self.hint: str | None = None
        self.state = NodeState.DEFAULT
        self.actions: tuple[ActionVerb, ...] = ()
        self.collection: CollectionInfo | None = None
        self.tab_row: frozenset[int] = frozenset()
        """Indexes of this node's children that form a tab row."""
        self.summary: KeyboardRegion | None = None
        self.link: tuple[object, ...] = ()
        self.chain: tuple[object, ...] = ()
        self.name: str | None = None
        self.key: tuple[object, ...] = ()
        self.nid = ""
        self.node: object = None
        """The built ``SemanticNode`` (typed loosely: it is set by the assembler)."""
        self.depth = 0

    # The fields a keyboard summary overrides (see the module docstring).
    @property
    def final_role(self) -> Role:
        return Role.UNKNOWN if self.summary is not None else self.role

    @property
    def final_label(self) -> str | None:
        if self.summary is not None:
            return self.label or KEYBOARD_LABEL
        return self.label

    @property
    def final_value(self) -> str | None:
        return self.summary.package if self.summary is not None else self.value

    @property
    def final_hint(self) -> str | None:
        return self.summary.hint if self.summary is not None else self.hint

    @property
    def final_collection(self) -> CollectionInfo | None:
        return None if self.summary is not None else self.collection


def clean(text: str | None) -> str | None:
    if text is None:
        return None
    stripped = text.strip()
    return stripped or None


def own_text(raw: RawNode, ios: bool) -> str | None:
    if ios:
        return clean(raw.text) or clean(raw.label) or clean(raw.value)
    return clean(raw.text) or clean(raw.label)


def link_children(protos: Sequence[Proto], ios: bool | None = None) -> None:
    """Children lists and positions from the parent indexes (pre-order); a root's position
    is its place among the roots. With ``ios`` given, also each node's ``own`` text
    (``own_text``), in the same pass."""
    roots = 0
    for p in protos:
        if ios is not None:
            p.own = own_text(p.raw, ios)
        if p.parent >= 0:
            siblings = protos[p.parent].children
            p.position = len(siblings)
            siblings.append(p.index)
        else:
            p.position = roots
            roots += 1


def fill_desc(p: Proto, protos: Sequence[Proto]) -> None:
    """The node's first texts: its own (unless a password) and then its children's, the
    later children filling the room first (``DESC_TEXTS``), as a bottom-up pass gives."""
    acc: list[str] = []
    for c in reversed(p.children):
        room = DESC_TEXTS - len(acc)
        if room <= 0:
            break
        acc[0:0] = protos[c].desc[:room]
    if p.own is not None and not p.raw.password:
        acc.insert(0, p.own)
    p.desc = acc


def siblings_of(p: Proto, protos: Sequence[Proto]) -> list[RawNode]:
    return [protos[c].raw for c in p.children]


_NO_TABS: frozenset[int] = frozenset()


def tab_row_of(
    p: Proto, protos: Sequence[Proto], children: Sequence[RawNode] | None = None
) -> frozenset[int]:
    """Indexes of ``p``'s children that form a tab row (lists and menus hold rows).
    ``children``: ``siblings_of(p, protos)`` when the caller has it."""
    if len(p.children) < 2 or role_rules.item_container(p.role):
        return _NO_TABS
    kids = p.children
    raws = children if children is not None else siblings_of(p, protos)
    return frozenset(kids[i] for i in role_rules.tab_row(raws))


_CONTEXT_ORDER = (
    "is_root", "parent_role", "parent_class", "window_type", "window_extent", "children",
    "has_text_descendant", "in_tab_row", "siblings", "position",
)  # fmt: skip
"""``RoleContext``'s fields in order: ``fill_role`` passes them by position (checked at
import: a reordered tuple fails here, not silently)."""
if role_rules.RoleContext._fields != _CONTEXT_ORDER:  # pragma: no cover
    raise ImportError("RoleContext's fields moved: update node_rules._CONTEXT_ORDER")


def fill_role(
    p: Proto,
    protos: Sequence[Proto],
    extent: int,
    ios: bool,
    kin: dict[int, list[RawNode]] | None = None,
) -> None:
    """Role, texts, state and actions of ``p`` (its parent is done: role and tab row)."""
    parent = protos[p.parent] if p.parent >= 0 else None
    if kin is None:
        kin = {}
    children = kin.get(p.index)
    if children is None:
        children = kin[p.index] = siblings_of(p, protos)
    if parent is not None:
        siblings = kin.get(parent.index)
        if siblings is None:
            siblings = kin[parent.index] = siblings_of(parent, protos)
    else:
        siblings = []
    p.role = role_rules.infer_role(
        p.raw,
        role_rules.RoleContext(  # by position (a keyword call costs twice as much)
            parent is None,  # is_root
            parent.role if parent is not None else None,  # parent_role
            parent.raw.class_name if parent is not None else None,  # parent_class
            p.wtype,  # window_type
            extent,  # window_extent
            _accessible(children),  # children
            len(p.desc) > (1 if p.own else 0),  # has_text_descendant
            parent is not None and p.index in parent.tab_row,  # in_tab_row
            siblings,
            p.position,
        ),
    )
    fill_texts(p, ios)
    p.state, p.actions = state_and_actions(p.raw, p.role, ios)


def _accessible(children: list[RawNode]) -> list[RawNode]:
    """``children`` without hub-made (vision) nodes, which come last under their anchor: a
    canvas the hub read stays a canvas."""
    if children and children[-1].source is not None:
        return [c for c in children if c.source is None]
    return children


def fill_texts(p: Proto, ios: bool) -> None:
    raw = p.raw
    label = clean(raw.label)
    text = clean(raw.text)
    value = clean(raw.value)
    hint = clean(raw.hint)
    p.label = p.text = p.value = p.hint = None
    if p.role is Role.INPUT:
        typed = value if ios else (text or value)
        if typed is not None and typed == hint:
            typed = None  # an empty field showing its hint
        p.value = typed
        p.hint = hint
        p.label = label if label != typed else None
    elif ios:
        if p.role is Role.TEXT:
            p.text = text or label or value
        else:
            p.label = label or text
            p.value = value if value != p.label else None
        p.hint = hint
    else:
        p.text = text
        p.label = label
        p.value = value
        p.hint = hint
    if p.label is None and p.role in ACTIONABLE_ROLES:
        p.label = p.text or derived_label(p)
    if raw.password:
        p.value = None
        p.text = None


def derived_label(p: Proto) -> str | None:
    """A sole meaningful descendant's text; for list rows the first texts joined."""
    texts = p.desc
    if not texts:
        return None
    if len(texts) == 1 or p.role is not Role.LIST_ITEM:
        return texts[0]
    return " ".join(texts[:3])[:ITEM_KEY_MAX]


def state_and_actions(
    raw: RawNode, role: Role, ios: bool
) -> tuple[NodeState, tuple[ActionVerb, ...]]:
    """The node's state and actions: a function of its flags, action names and role only
    (memoized: screens repeat a handful of combinations)."""
    switch_value = raw.value if ios and role is Role.SWITCH and raw.value in ("1", "0") else None
    memo = len(raw.actions) <= _STATE_MEMO_ACTIONS
    key = (
        role,
        ios,
        raw.checkable,
        raw.checked,
        raw.clickable,
        raw.hittable,
        raw.long_clickable,
        raw.scrollable,
        raw.enabled,
        raw.focused,
        raw.selected,
        raw.password,
        raw.actions,
        switch_value,
    )
    if memo:
        found = _STATE_MEMO.get(key)
        if found is not None:
            return found
    checked: bool | None = None
    if raw.checkable or role in _CHECKABLE_ROLES:
        checked = raw.checked
        if switch_value is not None:
            checked = switch_value == "1"
    clickable = raw.clickable or (ios and bool(raw.hittable) and role in _CLICKABLE_ON_IOS)
    state = NodeState(
        enabled=raw.enabled,
        clickable=clickable,
        focused=raw.focused,
        selected=raw.selected,
        checked=checked,
        password=raw.password,
    )
    if state == NodeState.DEFAULT:
        state = NodeState.DEFAULT
    verbs: set[ActionVerb] = {RAW_ACTIONS[a] for a in raw.actions if a in RAW_ACTIONS}
    if clickable:
        verbs.add(ActionVerb.CLICK)
    if raw.long_clickable:
        verbs.add(ActionVerb.LONG_CLICK)
    if raw.scrollable:
        verbs.update((ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD))
    if role is Role.INPUT and raw.enabled:
        verbs.update((ActionVerb.SET_TEXT, ActionVerb.CLEAR_TEXT))
    found = (state, tuple(sorted(verbs, key=_ACTION_ORDER.__getitem__)))
    if memo:
        if len(_STATE_MEMO) >= _STATE_MEMO_MAX:
            _STATE_MEMO.clear()
        _STATE_MEMO[key] = found
    return found


def fill_collections(p: Proto, protos: Sequence[Proto]) -> None:
    """Collection info of the rows of list ``p`` (every child: rows get one, others none)."""
    ids = Counter(protos[i].raw.automation_id for i in p.children)
    index = 0
    for child_idx in p.children:
        child = protos[child_idx]
        if child.role is not Role.LIST_ITEM:
            child.collection = None
            continue
        child.collection = row_collection(child, p, ids, index)
        index += 1


def row_collection(
    child: Proto, listing: Proto, ids: Counter[str | None], index: int
) -> CollectionInfo:
    aid = child.raw.automation_id
    # A row's automation id is its identity only when no sibling shares it.
    key = aid if aid and ids[aid] == 1 else None
    if key is None:
        key = child.label or derived_label(child)
    return CollectionInfo(
        index=child.raw.item_row if child.raw.item_row is not None else index,
        item_key=key[:ITEM_KEY_MAX] if key else None,
        row_count=listing.raw.collection_rows,
    )


def fill_identity(p: Proto, protos: Sequence[Proto]) -> None:
    """Identity key: automation id, role, ancestor chain, item key, and the name when there is
    no automation id (final fields: a keyboard root is identified as summed up)."""
    plain = p.summary is None  # final fields are the computed ones: no properties
    coll = p.collection if plain else p.final_collection
    item = coll.item_key if coll else None
    raw = p.raw
    aid = raw.automation_id
    p.link = ((p.role if plain else p.final_role).value, aid, item, raw.class_name)
    parent_chain = protos[p.parent].chain if p.parent >= 0 else ()
    p.chain = (*parent_chain, p.link)[-CHAIN_LINKS:]
    if aid:
        p.name = None
    elif plain:
        p.name = p.label or p.text or p.hint
    else:
        p.name = p.final_label or p.text or p.final_hint
    p.key = (p.raw.window, parent_chain, p.link, p.name)


def summarize_keyboard(p: Proto, keyboard: KeyboardRegion) -> None:
    """Mark ``p`` as the root of ``keyboard`` (the final fields sum it up)."""
    p.summary = keyboard
