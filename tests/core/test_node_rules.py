"""``node_rules.state_and_actions``: a node's state and verbs from its raw flags, action names
and role — each rule, and the memo that serves screens' repeated combinations, which must
never answer one combination with another's result."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from bridge.core import node_rules
from bridge.core.node_rules import RAW_ACTIONS, state_and_actions
from bridge.wire.enums import ActionVerb, Role, Source
from bridge.wire.node import NodeState
from bridge.wire.raw import RawNode

V = ActionVerb


@pytest.fixture(autouse=True)
def _cold_memo() -> Iterator[None]:
    node_rules._STATE_MEMO.clear()
    yield
    node_rules._STATE_MEMO.clear()


def _raw(**flags: object) -> RawNode:
    return RawNode(handle=1, parent=0, **flags)  # type: ignore[arg-type]


def test_flags_become_state() -> None:
    state, verbs = state_and_actions(_raw(), Role.TEXT, False)
    assert state is NodeState.DEFAULT and verbs == ()
    state, _ = state_and_actions(
        _raw(enabled=False, focused=True, selected=True, password=True), Role.INPUT, False
    )
    assert state == NodeState(enabled=False, focused=True, selected=True, password=True)


def test_checked_only_where_a_node_can_be_checked() -> None:
    # a checkable raw node, or a checkable role, reports its checked flag (False included)
    assert state_and_actions(_raw(checkable=True), Role.BUTTON, False)[0].checked is False
    assert state_and_actions(_raw(checked=True), Role.CHECKBOX, False)[0].checked is True
    assert state_and_actions(_raw(checked=True), Role.RADIO, False)[0].checked is True
    assert state_and_actions(_raw(), Role.SWITCH, False)[0].checked is False
    # anything else: no checked state at all, whatever the flag says
    assert state_and_actions(_raw(checked=True), Role.BUTTON, False)[0].checked is None


def test_an_ios_switch_is_checked_by_its_value() -> None:
    on = state_and_actions(_raw(value="1"), Role.SWITCH, True)[0]
    off = state_and_actions(_raw(value="0", checked=True), Role.SWITCH, True)[0]
    assert (on.checked, off.checked) == (True, False)
    # only "1"/"0", only on iOS, only for a switch
    assert state_and_actions(_raw(value="on", checked=True), Role.SWITCH, True)[0].checked is True
    assert state_and_actions(_raw(value="1"), Role.SWITCH, False)[0].checked is False
    assert (
        state_and_actions(_raw(value="1", checkable=True), Role.CHECKBOX, True)[0].checked is False
    )


def test_clickable_and_its_verb() -> None:
    state, verbs = state_and_actions(_raw(clickable=True), Role.BUTTON, False)
    assert state.clickable and verbs == (V.CLICK,)
    # iOS has no clickable flag: a hittable element of an actionable role is clickable
    state, verbs = state_and_actions(_raw(hittable=True), Role.BUTTON, True)
    assert state.clickable and verbs == (V.CLICK,)
    assert state_and_actions(_raw(hittable=True), Role.INPUT, True)[0].clickable
    assert not state_and_actions(_raw(hittable=True), Role.TEXT, True)[0].clickable
    assert not state_and_actions(_raw(hittable=False), Role.BUTTON, True)[0].clickable
    # hittable means nothing on Android
    assert not state_and_actions(_raw(hittable=True), Role.BUTTON, False)[0].clickable


def test_verbs_from_flags_names_and_role_in_one_order() -> None:
    _, verbs = state_and_actions(_raw(long_clickable=True), Role.BUTTON, False)
    assert verbs == (V.LONG_CLICK,)
    _, verbs = state_and_actions(_raw(scrollable=True), Role.LIST, False)
    assert verbs == (V.SCROLL_FORWARD, V.SCROLL_BACKWARD)
    _, verbs = state_and_actions(_raw(), Role.INPUT, False)
    assert verbs == (V.SET_TEXT, V.CLEAR_TEXT)
    assert state_and_actions(_raw(enabled=False), Role.INPUT, False)[1] == ()
    # every raw action name maps to its verb; unknown names are dropped; no repeats
    for name, verb in RAW_ACTIONS.items():
        assert state_and_actions(_raw(actions=(name, "noSuchAction")), Role.TEXT, False)[1] == (
            verb,
        )
    _, verbs = state_and_actions(
        _raw(clickable=True, actions=("paste", "click", "focus", "longClick")), Role.BUTTON, False
    )
    order = list(ActionVerb)
    assert list(verbs) == sorted(verbs, key=order.index)
    assert verbs == (V.CLICK, V.LONG_CLICK, V.FOCUS, V.PASTE)


# For each input of the rules, a node and the same node differing in that input only, where
# the difference shows in the result: the memo must tell the two apart.
PAIRS: dict[str, tuple[Role, bool, dict[str, object], dict[str, object]]] = {
    "role": (Role.INPUT, False, {}, {}),  # compared against Role.TEXT below
    "ios": (Role.BUTTON, True, {"hittable": True}, {}),  # against Android
    "checkable": (Role.BUTTON, False, {"checkable": True}, {"checkable": False}),
    "checked": (Role.CHECKBOX, False, {"checked": True}, {"checked": False}),
    "clickable": (Role.BUTTON, False, {"clickable": True}, {"clickable": False}),
    "hittable": (Role.BUTTON, True, {"hittable": True}, {"hittable": False}),
    "long_clickable": (Role.BUTTON, False, {"long_clickable": True}, {}),
    "scrollable": (Role.LIST, False, {"scrollable": True}, {}),
    "enabled": (Role.BUTTON, False, {"enabled": False}, {}),
    "focused": (Role.BUTTON, False, {"focused": True}, {}),
    "selected": (Role.BUTTON, False, {"selected": True}, {}),
    "password": (Role.INPUT, False, {"password": True}, {}),
    "actions": (Role.TEXT, False, {"actions": ("focus",)}, {}),
    "switch value": (Role.SWITCH, True, {"value": "1"}, {"value": "0"}),
}


@pytest.mark.parametrize("field", sorted(PAIRS))
def test_the_memo_never_answers_for_another_combination(field: str) -> None:
    role, ios, a_flags, b_flags = PAIRS[field]
    a_role, a_ios, b_role, b_ios = role, ios, role, ios
    if field == "role":
        b_role = Role.TEXT
    if field == "ios":
        b_ios = False
    a, b = _raw(**a_flags), _raw(**b_flags)
    cold_a = state_and_actions(a, a_role, a_ios)
    node_rules._STATE_MEMO.clear()
    cold_b = state_and_actions(b, b_role, b_ios)
    assert cold_a != cold_b, "the pair must differ in the result"
    # warm: each answered after the other was memoized, twice over
    for _ in range(2):
        assert state_and_actions(a, a_role, a_ios) == cold_a
        assert state_and_actions(b, b_role, b_ios) == cold_b


def test_the_memo_is_bounded_and_long_action_lists_stay_out_of_it() -> None:
    many = tuple(f"custom{i}" for i in range(node_rules._STATE_MEMO_ACTIONS + 1))
    state_and_actions(_raw(actions=many), Role.TEXT, False)
    assert node_rules._STATE_MEMO == {}
    just = many[:-1]
    state_and_actions(_raw(actions=just), Role.TEXT, False)
    assert len(node_rules._STATE_MEMO) == 1
    for i in range(node_rules._STATE_MEMO_MAX + 10):
        state_and_actions(_raw(actions=(f"a{i}",)), Role.TEXT, False)
        assert len(node_rules._STATE_MEMO) <= node_rules._STATE_MEMO_MAX
    assert len(node_rules._STATE_MEMO) == 11  # cleared once, at the bound


def test_equal_raw_nodes_share_one_result() -> None:
    a = _raw(clickable=True)
    b = msgspec.structs.replace(a, handle=7, text="other text")  # not inputs of the rules
    assert state_and_actions(a, Role.BUTTON, False) is state_and_actions(b, Role.BUTTON, False)


# ---- texts of a subtree: own text, the bottom-up desc, a row's derived label ------------------


def _protos(*nodes: RawNode, ios: bool = False) -> list[node_rules.Proto]:
    protos = [node_rules.Proto(i, n) for i, n in enumerate(nodes)]
    node_rules.link_children(protos, ios)
    return protos


def _tree(texts: dict[int, tuple[int, str | None]], **root_flags: object) -> list[RawNode]:
    """A root (handle 0) and nodes ``handle: (parent, text)`` in pre-order."""
    nodes = [RawNode(handle=0, parent=-1, **root_flags)]  # type: ignore[arg-type]
    nodes += [RawNode(handle=h, parent=p, text=t) for h, (p, t) in sorted(texts.items())]
    return nodes


def _descs(protos: list[node_rules.Proto]) -> None:
    for p in reversed(protos):  # children before parents, as the normalizer's bottom-up pass
        node_rules.fill_desc(p, protos)


def test_own_text_by_platform() -> None:
    raw = RawNode(handle=1, parent=0, text="  ", label=" Save ", value="v")
    assert node_rules.own_text(raw, ios=False) == "Save"
    assert node_rules.own_text(RawNode(handle=1, parent=0, value="v"), ios=False) is None
    assert node_rules.own_text(RawNode(handle=1, parent=0, value=" v "), ios=True) == "v"
    assert node_rules.own_text(RawNode(handle=1, parent=0, text="t", label="l"), ios=True) == "t"


def test_link_children_sets_children_positions_and_own_texts() -> None:
    protos = _protos(
        RawNode(handle=0, parent=-1, text="root"),
        RawNode(handle=1, parent=0, text="a"),
        RawNode(handle=2, parent=1, text="a1"),
        RawNode(handle=3, parent=0, text="b"),
        RawNode(handle=4, parent=-1, text="second root"),
    )
    assert [p.children for p in protos] == [[1, 3], [2], [], [], []]
    assert [p.position for p in protos] == [0, 0, 0, 1, 1]
    assert [p.own for p in protos] == ["root", "a", "a1", "b", "second root"]
    # without a platform, own texts are left alone
    bare = [node_rules.Proto(i, n) for i, n in enumerate([RawNode(handle=0, parent=-1, text="x")])]
    node_rules.link_children(bare)
    assert bare[0].own is None


def test_desc_is_own_text_then_the_childrens_in_order_at_most_eight() -> None:
    protos = _protos(*_tree({1: (0, "a"), 2: (1, "a1"), 3: (1, "a2"), 4: (0, "b")}, text="top"))
    _descs(protos)
    assert protos[0].desc == ["top", "a", "a1", "a2", "b"]
    assert protos[1].desc == ["a", "a1", "a2"]
    # ten children of one text each: the room is for the last eight (the later fill it first),
    # and the node's own text goes before them
    many = _protos(*_tree({h: (0, f"t{h}") for h in range(1, 11)}, text="own"))
    _descs(many)
    assert many[0].desc == ["own"] + [f"t{h}" for h in range(3, 11)]
    # exactly eight: all of them
    eight = _protos(*_tree({h: (0, f"t{h}") for h in range(1, 9)}))
    _descs(eight)
    assert eight[0].desc == [f"t{h}" for h in range(1, 9)]
    # a child's desc (its own text and its last eight children's) is cut to the room left
    deep = _protos(*_tree({1: (0, "x"), **{h: (1, f"d{h}") for h in range(2, 12)}, 12: (0, "y")}))
    _descs(deep)
    assert deep[1].desc == ["x"] + [f"d{h}" for h in range(4, 12)]
    assert deep[0].desc == ["x", "d4", "d5", "d6", "d7", "d8", "d9", "y"]


def test_a_password_fields_own_text_stays_out_of_desc() -> None:
    protos = _protos(
        RawNode(handle=0, parent=-1),
        RawNode(handle=1, parent=0, text="hunter2", password=True),
        RawNode(handle=2, parent=0, text="Sign in"),
    )
    _descs(protos)
    assert protos[1].desc == [] and protos[1].own == "hunter2"
    assert protos[0].desc == ["Sign in"]


def test_derived_label_one_text_or_a_rows_first_three() -> None:
    p = node_rules.Proto(0, RawNode(handle=0, parent=-1))
    assert node_rules.derived_label(p) is None
    p.desc = ["Only"]
    p.role = Role.LIST_ITEM
    assert node_rules.derived_label(p) == "Only"
    p.desc = ["Inbox", "3 new", "today", "more"]
    assert node_rules.derived_label(p) == "Inbox 3 new today"
    p.role = Role.BUTTON  # not a row: the first text alone
    assert node_rules.derived_label(p) == "Inbox"
    p.role = Role.LIST_ITEM
    p.desc = ["x" * 100, "y" * 100]
    assert node_rules.derived_label(p) == ("x" * 100 + " " + "y" * 100)[: node_rules.ITEM_KEY_MAX]
    assert len(node_rules.derived_label(p) or "") == node_rules.ITEM_KEY_MAX == 120


def test_vision_nodes_are_left_out_of_a_canvas_s_accessible_children() -> None:
    plain = [RawNode(handle=1, parent=0), RawNode(handle=2, parent=0)]
    assert node_rules._accessible(plain) is plain
    read = RawNode(handle=3, parent=0, source=Source.VISION)
    assert node_rules._accessible([*plain, read]) == plain
    assert node_rules._accessible([]) == []
