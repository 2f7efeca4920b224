"""NodeRef locators one at a time: what each one finds, and the refusal a client gets.

bridge/core/noderef.py's rules, on small screens whose answer is known: a repeated automation id
is scoped by the nearest identified ancestor; a list row is found by its item key inside its
own list; look-alikes are told apart by nearby text or by their count; every refusal carries
its error code, its reason and, for AMBIGUOUS_MATCH, a ref per candidate. Refs a client sends
may carry any subset of locators, so each strong locator is also tried alone.
"""

from __future__ import annotations

import msgspec

from bridge.core.identity import IdAllocator
from bridge.core.noderef import (
    Ambiguous,
    GenerationCheck,
    NotFound,
    Resolved,
    Stale,
    WeakUnresolvable,
    ancestor_scope,
    build_ref,
    context_text,
    resolution_error,
    resolve_ref,
)
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.tree import NodeTree
from bridge.wire.enums import ErrorCode, Role
from bridge.wire.noderef import (
    BoundsNearestLocator,
    CollectionItemLocator,
    NodeRef,
    ResourceIdLocator,
    ResourceIdScopedLocator,
    RoleLabelAncestorLocator,
    StructuralPathLocator,
)
from bridge.wire.raw import RawNode, RawTree


def _node(handle: int, parent: int, cls: str, **fields: object) -> RawNode:
    return RawNode(handle=handle, parent=parent, class_name=cls, **fields)  # type: ignore[arg-type]


def _norm(nodes: list[RawNode], sid: str = "s_1", ids: IdAllocator | None = None) -> Normalized:
    raw = RawTree(capture=1, platform="ANDROID", nodes=tuple(nodes))  # type: ignore[arg-type]
    out = normalize(raw, SnapshotContext("d", sid, 0), ids)
    assert isinstance(out, Normalized)
    return out


def _handle(out: Normalized, node_id: str) -> int:
    return out.handles[node_id]


def _by_handle(out: Normalized, handle: int) -> str:
    return next(nid for nid, h in out.handles.items() if h == handle)


def _ref(out: Normalized, handle: int) -> NodeRef:
    ref = build_ref(out.full, NodeTree(out.full.nodes), _by_handle(out, handle))
    assert ref is not None
    return ref


def _only(ref: NodeRef, kind: type) -> NodeRef:
    """The same ref carrying only its locators of one kind (a client may send any subset)."""
    kept = tuple(loc for loc in ref.locators if isinstance(loc, kind))
    assert kept, f"the ref has no {kind.__name__}"
    return msgspec.structs.replace(ref, locators=kept)


# ---- a repeated id, scoped by the panel around it -----------------------------------------


def _panels(first: str = "inbox", second: str = "archive") -> list[RawNode]:
    """Two identified panels, each with a Delete button of the same automation id."""
    return [
        _node(0, -1, "android.widget.FrameLayout"),
        _node(1, 0, "android.widget.LinearLayout", automation_id=f"app:id/{first}"),
        _node(2, 1, "android.widget.TextView", text=first.title()),
        _node(
            3,
            1,
            "android.widget.Button",
            text="Delete",
            automation_id="app:id/delete",
            clickable=True,
            bounds=(0, 0, 100, 50),
        ),
        _node(4, 0, "android.widget.LinearLayout", automation_id=f"app:id/{second}"),
        _node(5, 4, "android.widget.TextView", text=second.title()),
        _node(
            6,
            4,
            "android.widget.Button",
            text="Delete",
            automation_id="app:id/delete",
            clickable=True,
            bounds=(0, 100, 100, 150),
        ),
        _node(7, 0, "android.widget.Button", text="Compose", automation_id="app:id/compose"),
    ]


def test_a_unique_id_is_the_first_locator_and_finds_its_element_alone() -> None:
    out = _norm(_panels())
    ref = _ref(out, 7)
    assert ref.locators[0] == ResourceIdLocator(value="app:id/compose")
    got = resolve_ref(_only(ref, ResourceIdLocator), out.full)
    assert isinstance(got, Resolved) and got.locator == "RESOURCE_ID"
    assert _handle(out, got.node.node_id) == 7


def test_a_repeated_id_is_scoped_by_the_nearest_identified_ancestor() -> None:
    out = _norm(_panels())
    tree = NodeTree(out.full.nodes)
    assert ancestor_scope(tree, _by_handle(out, 6)) == "id:app:id/archive"
    assert ancestor_scope(tree, _by_handle(out, 0)) is None
    ref = _ref(out, 6)
    assert ref.locators[0] == ResourceIdScopedLocator(
        value="app:id/delete", ancestor="id:app:id/archive"
    )
    assert not any(isinstance(loc, ResourceIdLocator) for loc in ref.locators)
    # the panels swap places: the scoped id still names the archive's button
    swapped = _norm(_panels("archive", "inbox"), "s_2")
    got = resolve_ref(_only(ref, ResourceIdScopedLocator), swapped.full)
    assert isinstance(got, Resolved) and got.locator == "RESOURCE_ID_SCOPED"
    assert _handle(swapped, got.node.node_id) == 3


def test_a_scoped_id_without_a_scope_matches_every_element_with_that_id() -> None:
    out = _norm(_panels())
    ref = msgspec.structs.replace(
        _ref(out, 6), locators=(ResourceIdScopedLocator(value="app:id/delete", ancestor=None),)
    )
    # both buttons match; the ref's ancestor fingerprint singles out the archive's
    got = resolve_ref(ref, out.full)
    assert isinstance(got, Resolved) and got.locator == "RESOURCE_ID_SCOPED"
    assert _handle(out, got.node.node_id) == 6
    # without that fact nothing tells them apart: both are candidates
    bare = msgspec.structs.replace(ref, ancestor_fingerprint=None)
    both = resolve_ref(bare, out.full)
    assert isinstance(both, Ambiguous) and both.locator == "RESOURCE_ID_SCOPED"
    assert sorted(_handle(out, c.node_id) for c in both.candidates) == [3, 6]


def test_a_scoped_id_in_a_scope_that_is_gone_is_not_found() -> None:
    out = _norm(_panels())
    ref = msgspec.structs.replace(
        _ref(out, 6),
        locators=(ResourceIdScopedLocator(value="app:id/delete", ancestor="id:app:id/trash"),),
    )
    got = resolve_ref(ref, out.full)
    assert got == NotFound("no element matches any of the ref's strong locators")
    env = resolution_error(got, out.full, NodeTree(out.full.nodes))
    assert env.error is ErrorCode.NODE_NOT_FOUND
    assert env.message == "no element matches any of the ref's strong locators"
    assert env.recovery[0] == "take a fresh snapshot (snapshot.get) and find the element again"


def test_an_id_repeated_inside_one_scope_gives_no_id_locator() -> None:
    nodes = _panels()
    nodes.append(_node(8, 4, "android.widget.Button", text="Empty", automation_id="app:id/delete"))
    out = _norm(nodes)
    ref = _ref(out, 6)
    assert not any(
        isinstance(loc, ResourceIdLocator | ResourceIdScopedLocator) for loc in ref.locators
    )
    # a repeated id with no identified ancestor at all gives none either
    flat = _norm(
        [
            _node(0, -1, "android.widget.FrameLayout"),
            _node(1, 0, "android.widget.Button", text="A", automation_id="app:id/x"),
            _node(2, 0, "android.widget.Button", text="B", automation_id="app:id/x"),
        ]
    )
    assert [type(loc) for loc in _ref(flat, 2).locators] == [
        RoleLabelAncestorLocator,
        StructuralPathLocator,
    ]


# ---- list rows: the item key inside its own list ------------------------------------------


def _lists() -> list[RawNode]:
    """Two identified lists holding a row with the same text."""
    return [
        _node(0, -1, "android.widget.FrameLayout"),
        _node(1, 0, "android.widget.ListView", automation_id="app:id/inbox", scrollable=True),
        _node(2, 1, "android.widget.LinearLayout", clickable=True),
        _node(3, 2, "android.widget.TextView", text="Alice"),
        _node(4, 1, "android.widget.LinearLayout", clickable=True),
        _node(5, 4, "android.widget.TextView", text="Bob"),
        _node(6, 0, "android.widget.ListView", automation_id="app:id/archive", scrollable=True),
        _node(7, 6, "android.widget.LinearLayout", clickable=True),
        _node(8, 7, "android.widget.TextView", text="Alice"),
    ]


def test_a_row_is_found_by_its_item_key_inside_its_own_list() -> None:
    out = _norm(_lists())
    ref = _ref(out, 7)
    item = next(loc for loc in ref.locators if isinstance(loc, CollectionItemLocator))
    assert item.item_key == "Alice" and item.scroll_container == "id:app:id/archive"
    got = resolve_ref(_only(ref, CollectionItemLocator), out.full)
    assert isinstance(got, Resolved) and got.locator == "ROLE_STATE_COLLECTION_ITEM"
    assert _handle(out, got.node.node_id) == 7
    # without a container the key names both rows
    loose = msgspec.structs.replace(
        ref,
        locators=(msgspec.structs.replace(item, scroll_container=None),),
        ancestor_fingerprint=None,
    )
    both = resolve_ref(loose, out.full)
    assert isinstance(both, Ambiguous) and both.locator == "ROLE_STATE_COLLECTION_ITEM"
    assert sorted(_handle(out, c.node_id) for c in both.candidates) == [2, 7]


# ---- look-alikes: nearby text, then their count --------------------------------------------


def _cards(titles: list[str]) -> list[RawNode]:
    nodes = [_node(0, -1, "android.widget.FrameLayout")]
    for k, title in enumerate(titles):
        card = len(nodes)
        nodes.append(_node(card, 0, "android.widget.LinearLayout"))
        if title:
            nodes.append(_node(len(nodes), card, "android.widget.TextView", text=title))
        nodes.append(
            _node(
                len(nodes),
                card,
                "android.widget.Button",
                text="Buy",
                clickable=True,
                bounds=(0, 100 * k, 100, 100 * k + 80),
            )
        )
    return nodes


def _buys(out: Normalized) -> list[str]:
    return [n.node_id for n in out.full.nodes if n.text == "Buy"]


def test_nearby_text_is_the_first_text_outside_the_element_and_not_a_look_alikes() -> None:
    out = _norm(_cards(["Basic", "Pro"]))
    tree = NodeTree(out.full.nodes)
    basic, pro = _buys(out)
    assert context_text(tree, basic) == "Basic"
    assert context_text(tree, pro) == "Pro"
    # an element with no text near it (its look-alikes' own labels do not count)
    bare = _norm(_cards(["", ""]))
    bare_tree = NodeTree(bare.full.nodes)
    assert [context_text(bare_tree, b) for b in _buys(bare)] == [None, None]


def test_a_look_alike_ref_records_its_title_and_position() -> None:
    out = _norm(_cards(["Basic", "Pro"]))
    ref = _ref(out, _handle(out, _buys(out)[1]))
    label = next(loc for loc in ref.locators if isinstance(loc, RoleLabelAncestorLocator))
    assert label == RoleLabelAncestorLocator(
        role=Role.BUTTON, label="Buy", ancestor="|text:Pro|nth:2/2"
    )
    moved = _norm(_cards(["Team", "Pro", "Basic"]), "s_2")
    got = resolve_ref(_only(ref, RoleLabelAncestorLocator), moved.full)
    assert isinstance(got, Resolved) and got.locator == "ROLE_LABEL_ANCESTOR"
    assert got.node.node_id == _buys(moved)[1]


def test_untitled_look_alikes_resolve_by_position_only_while_their_count_holds() -> None:
    out = _norm(_cards(["", ""]))
    ref = _only(_ref(out, _handle(out, _buys(out)[1])), RoleLabelAncestorLocator)
    assert ref.locators == (
        RoleLabelAncestorLocator(role=Role.BUTTON, label="Buy", ancestor="|nth:2/2"),
    )
    same = resolve_ref(ref, out.full)
    assert isinstance(same, Resolved) and same.node.node_id == _buys(out)[1]
    fewer = _norm(_cards([""]), "s_2")
    stale = resolve_ref(ref, fewer.full)
    assert stale == Stale(
        "the ref's element was the 2th of 2 look-alikes; 1 remain, "
        "so which one it was cannot be told"
    )
    env = resolution_error(stale, fewer.full, NodeTree(fewer.full.nodes))
    assert env.error is ErrorCode.STALE_NODE_REF and env.message == stale.reason
    more = _norm(_cards(["", "", ""]), "s_3")
    many = resolve_ref(ref, more.full)
    assert isinstance(many, Ambiguous) and len(many.candidates) == 3
    env = resolution_error(many, more.full, NodeTree(more.full.nodes))
    assert env.error is ErrorCode.AMBIGUOUS_MATCH
    assert env.message == "3 elements match the ref's ROLE_LABEL_ANCESTOR locator"
    assert [c.node_id for c in env.candidates] == [c.node_id for c in many.candidates]


# ---- positional refs, generations and vision -----------------------------------------------


def test_a_ref_with_only_positional_locators_resolves_only_to_the_identical_element() -> None:
    out = _norm(_panels())
    ref = _ref(out, 6)
    weak = msgspec.structs.replace(
        ref,
        locators=tuple(
            loc
            for loc in ref.locators
            if isinstance(loc, StructuralPathLocator | BoundsNearestLocator)
        ),
    )
    got = resolve_ref(weak, out.full)
    assert isinstance(got, Resolved) and got.locator == "STRUCTURAL_PATH"
    assert _handle(out, got.node.node_id) == 6
    changed = _norm(_panels("archive", "inbox"), "s_2")
    refused = resolve_ref(weak, changed.full)
    assert refused == WeakUnresolvable(
        "the ref has only positional locators and the element there is not the same"
    )
    env = resolution_error(refused, changed.full, NodeTree(changed.full.nodes))
    assert env.error is ErrorCode.WEAK_REFERENCE_UNRESOLVABLE
    assert env.message == refused.reason


def test_a_generation_check_names_the_generations_and_screens_in_its_refusal() -> None:
    ids = IdAllocator()
    out = _norm(_panels(), "s_1", ids)
    ref = _ref(out, 7)
    gone = resolve_ref(ref, out.full, generation=GenerationCheck(3, 5, None))
    assert gone == Stale("generation 3 is no longer known (the device is at 5)")
    other = msgspec.structs.replace(out.full, screen_state_id="screen-b")
    moved = resolve_ref(ref, other, generation=GenerationCheck(3, 5, out.full))
    assert moved == Stale(
        f"the screen changed from {out.full.screen_state_id} to screen-b since generation 3"
    )
    same = resolve_ref(ref, out.full, generation=GenerationCheck(5, 5, None))
    assert isinstance(same, Resolved) and _handle(out, same.node.node_id) == 7


# ---- what is told apart: nearby text, and what stands where the element was ---------------


def _titled(*children: RawNode) -> list[RawNode]:
    return [_node(0, -1, "android.widget.FrameLayout"), *children]


def test_nearby_text_skips_the_elements_own_subtree_blank_nodes_and_its_own_label() -> None:
    nodes = _titled(
        _node(1, 0, "android.widget.LinearLayout"),
        _node(2, 1, "android.widget.Button", label="Buy", clickable=True),
        _node(3, 2, "android.widget.TextView", text="inside the button"),
        _node(4, 1, "android.widget.TextView", text="Buy"),  # a look-alike's own text
        _node(5, 1, "android.view.View"),  # no text at all
        _node(6, 1, "android.widget.TextView", text="Pro plan"),
    )
    out = _norm(nodes)
    tree = NodeTree(out.full.nodes)
    assert context_text(tree, _by_handle(out, 2)) == "Pro plan"
    assert context_text(tree, _by_handle(out, 0)) is None  # the root has no ancestors


def test_nearby_text_is_searched_three_levels_up_only() -> None:
    def nested(text_parent: int) -> list[RawNode]:
        return _titled(
            _node(1, 0, "android.widget.LinearLayout"),
            _node(2, 1, "android.widget.LinearLayout"),
            _node(3, 2, "android.widget.LinearLayout"),
            _node(4, 3, "android.widget.Button", label="Go", clickable=True),
            _node(5, text_parent, "android.widget.TextView", text="Heading"),
        )

    for parent, found in ((3, "Heading"), (2, "Heading"), (1, "Heading"), (0, None)):
        out = _norm(nested(parent))
        assert context_text(NodeTree(out.full.nodes), _by_handle(out, 4)) == found, parent


def test_nearby_text_scans_at_most_64_nodes_of_an_ancestor() -> None:
    def padded(fillers: int) -> list[RawNode]:
        nodes = _titled(
            _node(1, 0, "android.widget.LinearLayout"),
            _node(2, 1, "android.widget.Button", label="Go", clickable=True),
        )
        nodes += [_node(3 + k, 1, "android.view.View") for k in range(fillers)]
        nodes.append(_node(3 + fillers, 1, "android.widget.TextView", text="Far"))
        return nodes

    # the ancestor's own descendants in document order: the button is the first (k = 0)
    near = _norm(padded(62))  # the text is the 64th descendant (k = 63)
    assert context_text(NodeTree(near.full.nodes), _by_handle(near, 2)) == "Far"
    far = _norm(padded(63))  # the 65th (k = 64): past the scan
    assert context_text(NodeTree(far.full.nodes), _by_handle(far, 2)) is None


def test_in_the_same_id_space_the_refs_own_node_id_settles_an_ambiguity() -> None:
    ids = IdAllocator()
    out = _norm(_panels(), "s_1", ids)
    ref = msgspec.structs.replace(
        _ref(out, 6),
        locators=(ResourceIdScopedLocator(value="app:id/delete", ancestor=None),),
        ancestor_fingerprint=None,
    )
    again = _norm(_panels(), "s_2", ids)  # the same screen, captured again
    got = resolve_ref(ref, again.full, same_id_space=True)
    assert isinstance(got, Resolved) and got.node.node_id == ref.node_id
    assert _handle(again, got.node.node_id) == 6
    assert isinstance(resolve_ref(ref, again.full), Ambiguous)  # ids from another allocator


def _one(cls: str, aid: str, **fields: object) -> list[RawNode]:
    return _titled(
        _node(1, 0, "android.widget.TextView", text="Title"),
        _node(2, 0, cls, automation_id=aid, **fields),
    )


def test_something_of_the_same_kind_where_the_element_was_is_stale_with_what_changed() -> None:
    ref = _ref(_norm(_one("android.widget.Button", "app:id/go", text="Go", clickable=True)), 2)
    other = _norm(_one("android.widget.Button", "app:id/stop", text="Stop", clickable=True), "s_2")
    got = resolve_ref(ref, other.full)
    assert isinstance(got, Stale) and got.node is not None and _handle(other, got.node.node_id) == 2
    assert got.reason == "the element at 0/1 is the same kind but its automation, name changed"


def test_a_tab_that_became_a_button_is_the_same_kind_another_role_change_is_not() -> None:
    tab = _norm(
        _one("android.widget.Button", "app:id/a", label="Inbox, tab 1 of 3", clickable=True)
    )
    assert tab.full.nodes[2].role is Role.TAB
    button = _norm(
        _one("android.widget.Button", "app:id/b", label="Settings", clickable=True), "s_2"
    )
    got = resolve_ref(_ref(tab, 2), button.full)
    assert isinstance(got, Stale)
    assert (
        got.reason == "the element at 0/1 is the same kind but its role, automation, name changed"
    )
    back = resolve_ref(
        _ref(button, 2),
        _norm(
            _one("android.widget.Button", "app:id/c", label="Inbox, tab 1 of 3", clickable=True),
            "s_3",
        ).full,
    )
    assert isinstance(back, Stale)
    text = _norm(_one("android.widget.TextView", "app:id/a", text="Total"))
    assert text.full.nodes[2].role is Role.TEXT
    clickable = _norm(
        _one("android.widget.TextView", "app:id/b", text="Other", clickable=True), "s_2"
    )
    assert clickable.full.nodes[2].role is Role.BUTTON
    assert resolve_ref(_ref(text, 2), clickable.full) == NotFound(
        "no element matches any of the ref's strong locators"
    )


def test_another_class_where_the_element_was_is_not_found() -> None:
    ref = _ref(_norm(_one("android.widget.Button", "app:id/go", text="Go", clickable=True)), 2)
    image = _norm(_one("android.widget.ImageView", "app:id/x", label="Go2"), "s_2")
    assert resolve_ref(ref, image.full) == NotFound(
        "no element matches any of the ref's strong locators"
    )
    empty = _norm(_titled(_node(1, 0, "android.widget.TextView", text="Title")), "s_3")
    assert isinstance(resolve_ref(ref, empty.full), NotFound)  # nothing at the path at all


def test_a_scoped_label_only_counts_look_alikes_in_its_scope() -> None:
    # "Delete" in two panels: the ref names its panel, so the other panel's is no look-alike
    out = _norm(_panels())
    label = RoleLabelAncestorLocator(role=Role.BUTTON, label="Delete", ancestor="id:app:id/archive")
    ref = msgspec.structs.replace(_ref(out, 6), locators=(label,))
    got = resolve_ref(ref, out.full)
    assert isinstance(got, Resolved) and _handle(out, got.node.node_id) == 6
