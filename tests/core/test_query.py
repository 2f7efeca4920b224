"""run_query: field semantics, within / firstVisible / nth, reasons, and invariants."""

# ruff: noqa: RUF001 - fullwidth, Arabic and Hebrew letters are the point of these tests

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.query import (
    Matches,
    QueryRejected,
    is_visible,
    resource_id_matches,
    root_viewport,
    run_query,
    visible_text,
)
from bridge.core.textmatch import normalize_text
from bridge.core.tree import NodeTree
from bridge.wire.base import Bounds
from bridge.wire.enums import MatchMode, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.query import QueryState, SemanticQuery, TextMatch, Within
from tests.core.realdumps import dump_params, raw_of

SCREEN: Bounds = (0, 0, 1080, 2400)


def node(nid: str, role: Role = Role.TEXT, parent: str | None = None, **kw: Any) -> SemanticNode:
    return SemanticNode(node_id=nid, role=role, parent_id=parent, **kw)


def tree(*nodes: SemanticNode) -> NodeTree:
    return NodeTree(nodes)


def q(**kw: Any) -> SemanticQuery:
    for key in ("text", "label"):
        if isinstance(kw.get(key), str):
            kw[key] = TextMatch(value=kw[key])
    return SemanticQuery(**kw)


def run(t: NodeTree, query: SemanticQuery, viewport: Bounds | None = None) -> Matches:
    out = run_query(t, query, viewport=viewport)
    assert isinstance(out, Matches), out
    return out


def ids(out: Matches) -> list[str]:
    return [m.node.node_id for m in out.items]


@pytest.fixture
def login() -> NodeTree:
    return tree(
        node("n0", Role.SCREEN, bounds=SCREEN),
        node("n1", Role.TEXT, "n0", text="Welcome back", bounds=(0, 100, 1080, 200)),
        node(
            "n2",
            Role.INPUT,
            "n0",
            label="Email",
            value="ada@example.com",
            resource_id="com.app:id/email",
            bounds=(40, 300, 1040, 420),
        ),
        node(
            "n3",
            Role.INPUT,
            "n0",
            label="Password",
            text="hunter2",
            value="hunter2",
            state=NodeState(password=True),
            resource_id="com.app:id/password",
            bounds=(40, 460, 1040, 580),
        ),
        node(
            "n4",
            Role.BUTTON,
            "n0",
            label="Sign in",
            automation_id="login",
            state=NodeState(clickable=True),
            bounds=(40, 640, 1040, 760),
        ),
        node(
            "n5",
            Role.BUTTON,
            "n0",
            text="→",
            label="Next",
            state=NodeState(enabled=False, clickable=True),
            bounds=(900, 2200, 1040, 2300),
        ),
        node("n6", Role.CHECKBOX, "n0", text="Remember me", state=NodeState(checked=True)),
        node("n7", Role.SWITCH, "n0", text="Dark mode", state=NodeState(checked=False)),
        node("n8", Role.TEXT, "n0", text="Sign in", bounds=(40, 3000, 1040, 3100)),
    )


# --------------------------------------------------------------------------- text / label


def test_text_falls_back_to_label_only_when_the_node_has_no_text(login: NodeTree) -> None:
    out = run(login, q(text="sign in"))
    assert ids(out) == ["n4", "n8"]
    assert out.items[0].reason == "text NORMALIZED_EXACT 'Sign in' (from label)"
    assert out.items[1].reason == "text NORMALIZED_EXACT 'Sign in'"
    assert [m.confidence for m in out.items] == [0.95, 0.95]
    exact = run(login, q(text="Sign in"))
    assert [m.reason for m in exact.items] == [
        "text EXACT 'Sign in' (from label)",
        "text EXACT 'Sign in'",
    ]
    assert [m.confidence for m in exact.items] == [1.0, 1.0]
    # n5 has visible text "→": its label "Next" is reachable through `label`, not `text`
    assert ids(run(login, q(text="Next"))) == []
    assert ids(run(login, q(label="Next"))) == ["n5"]


def test_label_matches_the_label_only(login: NodeTree) -> None:
    assert ids(run(login, q(label="Sign in"))) == ["n4"]
    assert ids(run(login, q(label="Welcome back"))) == []


def test_input_text_falls_back_to_value(login: NodeTree) -> None:
    out = run(login, q(text=TextMatch(value="ada@", match=MatchMode.CONTAINS)))
    assert ids(out) == ["n2"]
    assert "(from value)" in out.items[0].reason


def test_password_nodes_never_match_on_text_or_value(login: NodeTree) -> None:
    assert ids(run(login, q(text="hunter2"))) == []
    regex = TextMatch(value="^h", match=MatchMode.REGEX)
    assert ids(run(login, q(text=regex))) == []
    assert ids(run(login, q(text="Password"))) == ["n3"]  # its label still finds it
    assert visible_text(login.by_id["n3"]) == ("label", "Password")


def test_blank_text_counts_as_absent() -> None:
    t = tree(node("n0", Role.BUTTON, text=" \u200b\u00a0", label="Close"))
    assert ids(run(t, q(text="close"))) == ["n0"]


def test_text_modes_flow_through(login: NodeTree) -> None:
    contains = run(login, q(text=TextMatch(value="welcome", match=MatchMode.CONTAINS)))
    assert ids(contains) == ["n1"]
    assert contains.items[0].reason.startswith("text CONTAINS")
    assert 0.5 <= contains.items[0].confidence < 0.9
    synonym = run(login, q(text=TextMatch(value="Log in", match=MatchMode.SEMANTIC_SYNONYM)))
    assert ids(synonym) == ["n4", "n8"]
    assert all(m.confidence == 0.8 for m in synonym.items)
    exact = run(login, q(text=TextMatch(value="sign in", match=MatchMode.EXACT)))
    assert ids(exact) == []


# --------------------------------------------------------------------------- resourceId


@pytest.mark.parametrize(
    ("query_id", "expected"),
    [
        ("com.app:id/email", ["n2"]),
        ("email", ["n2"]),
        ("login", ["n4"]),  # automation_id
        ("mail", []),
        ("id/email", []),
        ("com.other:id/email", []),
        ("", []),
    ],
)
def test_resource_id(login: NodeTree, query_id: str, expected: list[str]) -> None:
    assert ids(run(login, q(resource_id=query_id))) == expected


def test_full_query_id_does_not_match_a_short_node_id() -> None:
    n = node("n0", automation_id="login")
    assert resource_id_matches("login", n)
    assert not resource_id_matches("com.app:id/login", n)


# --------------------------------------------------------------------------- role / state


def test_role_and_state_filters(login: NodeTree) -> None:
    assert ids(run(login, q(role=Role.BUTTON))) == ["n4", "n5"]
    assert ids(run(login, q(role=Role.BUTTON, state=QueryState(enabled=True)))) == ["n4"]
    assert ids(run(login, q(state=QueryState(enabled=False)))) == ["n5"]
    assert ids(run(login, q(state=QueryState(clickable=True, enabled=False)))) == ["n5"]
    out = run(login, q(role=Role.BUTTON, state=QueryState(enabled=True)))
    assert out.items[0].reason == "role BUTTON + state enabled=true"


def test_checked_none_never_matches_true_or_false(login: NodeTree) -> None:
    assert ids(run(login, q(state=QueryState(checked=True)))) == ["n6"]
    assert ids(run(login, q(state=QueryState(checked=False)))) == ["n7"]


def test_every_field_must_hold(login: NodeTree) -> None:
    assert ids(run(login, q(text="Sign in", role=Role.TEXT))) == ["n8"]
    assert ids(run(login, q(text="Sign in", role=Role.BUTTON, resource_id="login"))) == ["n4"]
    assert ids(run(login, q(text="Sign in", role=Role.INPUT))) == []
    out = run(login, q(text="Sign in", role=Role.BUTTON, resource_id="login"))
    assert out.items[0].reason == (
        "text EXACT 'Sign in' (from label) + resourceId 'login' + role BUTTON"
    )


# --------------------------------------------------------------------------- within


@pytest.fixture
def lists() -> NodeTree:
    return tree(
        node("n0", Role.SCREEN, bounds=SCREEN),
        node("n1", Role.LIST, "n0", resource_id="com.app:id/inbox"),
        node("n2", Role.LIST_ITEM, "n1"),
        node("n3", Role.TEXT, "n2", text="Delete"),
        node("n4", Role.LIST, "n0", resource_id="com.app:id/archive"),
        node("n5", Role.LIST_ITEM, "n4"),
        node("n6", Role.TEXT, "n5", text="Delete"),
        node("n7", Role.BUTTON, "n0", text="Delete"),
        node("n8", Role.DIALOG, "n0", text="Confirm"),
        node("n9", Role.LIST, "n8", resource_id="com.app:id/inbox"),
        node("n10", Role.TEXT, "n9", text="Delete"),
    )


def test_within_restricts_to_descendants_of_any_anchor(lists: NodeTree) -> None:
    assert ids(run(lists, q(text="Delete"))) == ["n3", "n6", "n7", "n10"]
    out = run(lists, q(text="Delete", within=Within(resource_id="inbox")))
    assert ids(out) == ["n3", "n10"]
    assert out.items[0].reason == "text EXACT 'Delete' + within n1 [resourceId 'inbox']"
    assert out.items[1].reason.endswith("within n9 [resourceId 'inbox']")
    assert ids(run(lists, q(text="Delete", within=Within(role=Role.LIST)))) == ["n3", "n6", "n10"]
    assert ids(run(lists, q(within=Within(text=TextMatch(value="Confirm"))))) == ["n9", "n10"]


def test_within_excludes_the_anchor_itself(lists: NodeTree) -> None:
    assert ids(run(lists, q(role=Role.LIST, within=Within(role=Role.LIST)))) == []
    assert ids(run(lists, q(role=Role.LIST, within=Within(role=Role.DIALOG)))) == ["n9"]


def test_within_with_no_anchor_matches_nothing(lists: NodeTree) -> None:
    out = run(lists, q(text="Delete", within=Within(resource_id="nope")))
    assert out == Matches(items=(), total=0)


def test_empty_within_is_no_restriction(lists: NodeTree) -> None:
    assert ids(run(lists, q(text="Delete", within=Within()))) == ["n3", "n6", "n7", "n10"]


# --------------------------------------------------------------------------- firstVisible / nth


def test_first_visible_uses_the_viewport_or_the_root_bounds(login: NodeTree) -> None:
    # n8 "Sign in" is below the screen; n4 is on it
    assert ids(run(login, q(text="Sign in", first_visible=True))) == ["n4"]
    assert ids(
        run(login, q(text="Sign in", first_visible=True), viewport=(0, 2900, 1080, 3200))
    ) == ["n8"]
    out = run(login, q(role=Role.BUTTON, first_visible=True), viewport=(0, 0, 10, 10))
    assert out == Matches(items=(), total=2)


def test_first_visible_skips_nodes_without_area_or_bounds() -> None:
    t = tree(
        node("n0", Role.SCREEN, bounds=(0, 0, 100, 100)),
        node("n1", Role.BUTTON, "n0", text="Go"),
        node("n2", Role.BUTTON, "n0", text="Go", bounds=(10, 10, 10, 40)),
        node("n3", Role.BUTTON, "n0", text="Go", bounds=(100, 0, 150, 50)),  # touches the edge
        node("n4", Role.BUTTON, "n0", text="Go", bounds=(90, 90, 150, 150)),
        node("n5", Role.BUTTON, "n0", text="Go", bounds=(0, 0, 5, 5)),
    )
    out = run(t, q(text="Go", first_visible=True))
    assert ids(out) == ["n4"]
    assert out.total == 5
    assert ids(run(t, q(text="Go", first_visible=True, nth=1))) == ["n5"]
    assert ids(run(t, q(text="Go", first_visible=True, nth=2))) == []


def test_first_visible_without_any_viewport_accepts_any_area() -> None:
    t = tree(node("n0", Role.BUTTON, text="Go", bounds=(-500, -500, -400, -400)))
    assert root_viewport(t) == (-500, -500, -400, -400)
    t2 = tree(
        node("n0", Role.SCREEN), node("n1", Role.BUTTON, "n0", text="Go", bounds=(1, 1, 2, 2))
    )
    assert root_viewport(t2) is None
    assert ids(run(t2, q(text="Go", first_visible=True))) == ["n1"]


def test_root_viewport_spans_every_root() -> None:
    t = tree(
        node("n0", Role.SCREEN, bounds=(0, 0, 1080, 80)),
        node("n1", Role.SCREEN, bounds=(0, 80, 1080, 2400)),
    )
    assert root_viewport(t) == (0, 0, 1080, 2400)


def test_nth_indexes_the_ordered_matches(login: NodeTree) -> None:
    assert ids(run(login, q(role=Role.BUTTON, nth=0))) == ["n4"]
    assert ids(run(login, q(role=Role.BUTTON, nth=1))) == ["n5"]
    out = run(login, q(role=Role.BUTTON, nth=2))
    assert out == Matches(items=(), total=2)


# --------------------------------------------------------------------------- rejection


@pytest.mark.parametrize(
    ("query", "field"),
    [
        (SemanticQuery(text=TextMatch(value=r"(a)\1", match=MatchMode.REGEX)), "text"),
        (SemanticQuery(label=TextMatch(value="(?=a)a", match=MatchMode.REGEX)), "label"),
        (
            SemanticQuery(
                role=Role.TEXT,
                within=Within(text=TextMatch(value="(", match=MatchMode.REGEX)),
            ),
            "within.text",
        ),
    ],
)
def test_unsafe_regex_rejects_the_query(login: NodeTree, query: SemanticQuery, field: str) -> None:
    out = run_query(login, query, viewport=None)
    assert isinstance(out, QueryRejected)
    assert out.field == field
    assert "regex" in out.reason


def test_query_without_node_fields_matches_every_node(login: NodeTree) -> None:
    out = run(login, q(nth=3))
    assert ids(out) == ["n3"]
    assert out.total == len(login)
    assert out.items[0].reason == "any node"


# --------------------------------------------------------------------------- CJK and RTL


@pytest.fixture
def intl() -> NodeTree:
    return tree(
        node("n0", Role.SCREEN, bounds=SCREEN),
        node("n1", Role.TEXT, "n0", text="ようこそ、山田さん", bounds=(0, 0, 1080, 100)),
        node("n2", Role.BUTTON, "n0", label="ログイン", bounds=(0, 200, 1080, 300)),
        node("n3", Role.BUTTON, "n0", text="ＯＫ", bounds=(0, 400, 500, 500)),
        node("n4", Role.BUTTON, "n0", text="登录", bounds=(0, 600, 500, 700)),
        node("n5", Role.BUTTON, "n0", text="\u2067تسجيل الدخول\u2069", bounds=(0, 800, 1080, 900)),
        node("n6", Role.TEXT, "n0", text="\u200fשלום\u00a0עולם", bounds=(0, 1000, 1080, 1100)),
        node("n7", Role.LIST, "n0", resource_id="com.app:id/orders"),
        node("n8", Role.LIST_ITEM, "n7", text="注文番号 12345"),
        node("n9", Role.LIST_ITEM, "n7", text="注文番号 67890"),
    )


def test_cjk_text_matches(intl: NodeTree) -> None:
    assert ids(run(intl, q(text="ログイン"))) == ["n2"]
    assert ids(run(intl, q(text="OK"))) == ["n3"]  # fullwidth folds under NFKC
    contains = TextMatch(value="山田", match=MatchMode.CONTAINS)
    assert ids(run(intl, q(text=contains))) == ["n1"]
    synonym = TextMatch(value="Sign in", match=MatchMode.SEMANTIC_SYNONYM)
    assert ids(run(intl, q(text=synonym))) == ["n2", "n4"]
    regex = TextMatch(value=r"注文番号 \d{5}$", match=MatchMode.REGEX)
    assert ids(run(intl, q(text=regex, within=Within(resource_id="orders")))) == ["n8", "n9"]
    assert ids(run(intl, q(text=regex, nth=1))) == ["n9"]


def test_rtl_text_matches_without_bidi_controls(intl: NodeTree) -> None:
    assert ids(run(intl, q(text="تسجيل الدخول"))) == ["n5"]
    assert ids(run(intl, q(text="שלום עולם"))) == ["n6"]
    contains = TextMatch(value="עולם", match=MatchMode.CONTAINS)
    assert ids(run(intl, q(text=contains))) == ["n6"]
    exact = TextMatch(value="تسجيل الدخول", match=MatchMode.EXACT)
    assert ids(run(intl, q(text=exact))) == []  # EXACT keeps the isolates


# --------------------------------------------------------------------------- invariants

_ROLES = [Role.BUTTON, Role.TEXT, Role.LIST, Role.INPUT]
_WORDS = ["Sign in", "sign  in", "OK", "Delete", "", None]
_IDS = ["com.app:id/a", "b", None]


@st.composite
def trees(draw: st.DrawFn) -> NodeTree:
    count = draw(st.integers(1, 14))
    parents = [None] + [draw(st.integers(0, i - 1)) for i in range(1, count)]
    children: dict[int, list[int]] = {i: [] for i in range(count)}
    for i, p in enumerate(parents):
        if p is not None:
            children[p].append(i)
    order: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children[i]))
    new_id = {old: f"n{k}" for k, old in enumerate(order)}
    nodes = []
    for old in order:
        p = parents[old]
        x, y = draw(st.integers(-50, 150)), draw(st.integers(-50, 150))
        w, h = draw(st.integers(0, 60)), draw(st.integers(0, 60))
        nodes.append(
            SemanticNode(
                node_id=new_id[old],
                parent_id=None if p is None else new_id[p],
                role=draw(st.sampled_from(_ROLES)),
                text=draw(st.sampled_from(_WORDS)),
                label=draw(st.sampled_from(_WORDS)),
                resource_id=draw(st.sampled_from(_IDS)),
                state=NodeState(
                    enabled=draw(st.booleans()), checked=draw(st.sampled_from([None, True]))
                ),
                bounds=draw(st.sampled_from([None, (x, y, x + w, y + h)])),
            )
        )
    return NodeTree(nodes)


text_matches = st.builds(
    TextMatch,
    value=st.sampled_from(["Sign in", "ok", "del", "^S"]),
    match=st.sampled_from(
        [MatchMode.NORMALIZED_EXACT, MatchMode.CONTAINS, MatchMode.EXACT, MatchMode.REGEX]
    ),
)
queries = st.builds(
    SemanticQuery,
    role=st.none() | st.sampled_from(_ROLES),
    text=st.none() | text_matches,
    label=st.none() | text_matches,
    resource_id=st.none() | st.sampled_from(["a", "b", "com.app:id/a"]),
    state=st.none() | st.builds(QueryState, enabled=st.none() | st.booleans()),
    within=st.none() | st.builds(Within, role=st.none() | st.sampled_from(_ROLES)),
    first_visible=st.just(True),  # overwritten below; keeps the one-field rule satisfied
)


@settings(max_examples=150, deadline=None)
@given(trees(), queries, st.booleans(), st.none() | st.integers(0, 5))
def test_query_invariants(
    t: NodeTree, query: SemanticQuery, visible: bool, nth: int | None
) -> None:
    fields = {f: getattr(query, f) for f in query.__struct_fields__}
    fields.update(first_visible=None, nth=None)
    if all(v is None for v in fields.values()):
        fields["role"] = Role.BUTTON
    unrestricted_q = SemanticQuery(**fields)
    unrestricted = run(t, unrestricted_q)
    order = [t.order[m.node.node_id] for m in unrestricted.items]
    assert order == sorted(set(order)), "document order, no duplicates"
    assert all(t.by_id[m.node.node_id] is m.node for m in unrestricted.items), "a subset"
    assert unrestricted.total == len(unrestricted.items)
    assert all(0.0 < m.confidence <= 1.0 and m.reason for m in unrestricted.items)

    if query.within is not None and query.within.role is not None:
        for m in unrestricted.items:
            assert any(a.role is query.within.role for a in t.ancestors(m.node.node_id))

    picked = run(t, msgspec.structs.replace(unrestricted_q, nth=nth))
    assert picked.total == unrestricted.total
    if nth is not None:
        assert picked.items == unrestricted.items[nth : nth + 1]
    else:
        assert picked.items == unrestricted.items

    if visible:
        view = root_viewport(t)
        shown = run(t, msgspec.structs.replace(unrestricted_q, first_visible=True, nth=nth))
        visible_items = [m for m in unrestricted.items if is_visible(m.node, view)]
        k = nth or 0
        assert list(shown.items) == visible_items[k : k + 1]
        assert shown.total == unrestricted.total


# --------------------------------------------------------------------------- real dumps

PER_DUMP = 25


@pytest.mark.parametrize("path", dump_params())
def test_every_node_is_found_by_its_own_text_and_id(path: Path) -> None:
    normalized = normalize(raw_of(path), SnapshotContext("d", "s_1", 0))
    assert isinstance(normalized, Normalized)
    t = NodeTree(normalized.full.nodes)
    checked = 0
    for n in t.nodes:
        source = visible_text(n)
        if source is None or checked >= PER_DUMP:
            continue
        checked += 1
        wanted = normalize_text(source[1])
        out = run(t, q(text=source[1]))
        found_nodes = [m.node for m in out.items]
        # found itself, or (an echo) through the actionable ancestor whose name it gives
        assert n in found_nodes or any(
            a in found_nodes and a.label == (n.text or n.label) for a in t.ancestors(n.node_id)
        )
        for m in out.items:
            other = visible_text(m.node)
            assert other is not None and normalize_text(other[1]) == wanted
        regex = TextMatch(value=re.escape(source[1][:100]), match=MatchMode.REGEX)
        found = run_query(t, q(text=regex), viewport=None)
        if isinstance(found, Matches):  # an escaped literal is never rejected, but may be long
            regex_nodes = [m.node for m in found.items]
            assert n in regex_nodes or any(a in regex_nodes for a in t.ancestors(n.node_id))
        if n.resource_id or n.automation_id:
            rid = n.resource_id or n.automation_id
            assert rid is not None
            assert n in [m.node for m in run(t, q(resource_id=rid)).items]
    everything = run(t, q(first_visible=True))
    assert everything.total == len(t)


def test_a_text_that_only_echoes_its_actionable_container_is_one_match() -> None:
    from bridge.wire.enums import ActionVerb
    from bridge.wire.node import NodeState

    row = SemanticNode(
        node_id="n2",
        parent_id="n1",
        role=Role.LIST_ITEM,
        label="Item 3",
        state=NodeState(clickable=True),
        actions=(ActionVerb.CLICK,),
    )
    title = SemanticNode(node_id="n3", parent_id="n2", role=Role.TEXT, text="Item 3")
    other = SemanticNode(node_id="n4", parent_id="n1", role=Role.TEXT, text="Item 3")
    t = NodeTree([SemanticNode(node_id="n1", role=Role.LIST), row, title, other])
    out = run(t, q(text="Item 3"))
    # the row (actionable) and the unrelated text stay; the row's own title is its echo
    assert [m.node.node_id for m in out.items] == ["n2", "n4"]
    assert [m.node.node_id for m in run(t, q(role=Role.TEXT)).items] == ["n3", "n4"]


# ---- hints and the text beside a look-alike ----------------------------------------------


def test_an_input_is_found_by_its_hint_empty_or_typed_and_a_password_never_by_its_value() -> None:
    t = tree(
        node("n0", Role.SCREEN, bounds=SCREEN),
        node("n1", Role.INPUT, "n0", hint="Username", bounds=(0, 0, 10, 10)),
        node("n2", Role.INPUT, "n0", hint="Email", value="ada@x.org", bounds=(0, 0, 10, 10)),
        node(
            "n3",
            Role.INPUT,
            "n0",
            hint="Password",
            state=NodeState(password=True),
            bounds=(0, 0, 10, 10),
        ),
        node("n4", Role.TEXT, "n0", hint="Username", bounds=(0, 0, 10, 10)),
    )
    found = run(t, q(text="Username"))
    assert ids(found) == ["n1"]  # a TEXT's hint is not what it shows
    assert "(from hint)" in found.items[0].reason
    assert ids(run(t, q(text="Email"))) == ["n2"]
    assert ids(run(t, q(text="ada@x.org"))) == ["n2"]
    assert ids(run(t, q(text="Password"))) == ["n3"]


@pytest.fixture
def plans() -> NodeTree:
    return tree(
        node("n0", Role.SCREEN, bounds=SCREEN),
        node("n1", Role.UNKNOWN, "n0"),
        node("n2", Role.TEXT, "n1", text="Basic plan"),
        node("n3", Role.BUTTON, "n1", text="Continue", actions=("CLICK",)),
        node("n4", Role.UNKNOWN, "n0"),
        node("n5", Role.TEXT, "n4", text="Pro plan"),
        node("n6", Role.BUTTON, "n4", text="Continue", actions=("CLICK",)),
    )


def test_within_text_admits_the_look_alike_beside_that_text(plans: NodeTree) -> None:
    out = run(plans, q(text="Continue", within=Within(text=TextMatch(value="Pro plan"))))
    assert ids(out) == ["n6"]
    assert out.items[0].reason.endswith("near text 'Pro plan'")
    assert ids(run(plans, q(text="Continue"))) == ["n3", "n6"]
    # with a role the reference meaning holds alone: an ancestor must match
    scoped = q(text="Continue", within=Within(role=Role.UNKNOWN, text=TextMatch(value="Pro plan")))
    assert ids(run(plans, scoped)) == []
