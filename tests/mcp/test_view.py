"""The view compiler (pure): goal first, repeated rows collapsed, the token budget kept,
diffs against an earlier view; hypothesis checks the budget and the diff on random screens."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.mcp.handles import HandleTable
from bridge.mcp.view import CHARS_PER_TOKEN, MIN_TOKENS, View, compile_view
from bridge.wire.enums import ActionVerb, Orientation, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


def _snapshot(*nodes: SemanticNode, screen: str = "list") -> ScreenSnapshot:
    root = SemanticNode(node_id="n0", role=Role.SCREEN, bounds=(0, 0, 1080, 2400))
    marker = SemanticNode(
        node_id="m0", role=Role.UNKNOWN, parent_id="n0", resource_id=f"a:id/__screen_{screen}"
    )
    return ScreenSnapshot(
        schema_version=1,
        device_id="dev",
        snapshot_id="s_1",
        timestamp=0,
        package_name="com.example.app",
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x",
        compact=True,
        nodes=(root, marker, *nodes),
        tree_hash="ab",
    )


def _rows(count: int, parent: str = "list") -> list[SemanticNode]:
    nodes = [
        SemanticNode(
            node_id=parent,
            role=Role.LIST,
            parent_id="m0",
            actions=(ActionVerb.SCROLL_FORWARD,),
        )
    ]
    nodes.extend(
        SemanticNode(
            node_id=f"r{i}",
            role=Role.LIST_ITEM,
            parent_id=parent,
            text=f"Item {i + 1}",
            resource_id="a:id/row",
            actions=(ActionVerb.CLICK,),
            state=NodeState(clickable=True),
        )
        for i in range(count)
    )
    return nodes


def _view(snap: ScreenSnapshot, table: HandleTable | None = None, **kw: object) -> View:
    handles = table or HandleTable()
    return compile_view(snap, lambda n: handles.handle_for("dev", n.node_id), **kw)  # type: ignore[arg-type]


def test_repeated_rows_collapse_and_a_goal_row_stays() -> None:
    snap = _snapshot(*_rows(40))
    view = _view(snap)
    lines = view.text.splitlines()
    assert lines[0] == "dev · com.example.app · screen list · 1080x2400 portrait"
    assert sum('"Item ' in line for line in lines) == 3
    assert "… 37 more rows like this, use scroll or find" in view.text
    assert view.collapsed == 37 and len(view.lines) == 41  # every line kept for diffs
    focused = _view(snap, goal="open item 20")
    assert '"Item 20"' in focused.text and focused.goal_hits == ("r19",)
    assert focused.text.splitlines()[1].startswith("goal matches: e")
    assert "… 16 more rows like this" in focused.text and "… 20 more rows" in focused.text


def test_a_small_budget_keeps_the_goal_and_interactive_lines_first() -> None:
    texts = [
        SemanticNode(
            node_id=f"t{i}",
            role=Role.TEXT,
            parent_id="m0",
            text=f"paragraph {i} " * 4,
            resource_id=f"a:id/p{i}",  # each its own shape: nothing collapses
        )
        for i in range(30)
    ]
    pay = SemanticNode(
        node_id="pay",
        role=Role.BUTTON,
        parent_id="m0",
        text="Pay now",
        actions=(ActionVerb.CLICK,),
    )
    note = SemanticNode(node_id="note", role=Role.TEXT, parent_id="m0", text="Checkout total")
    snap = _snapshot(*texts, pay, note)
    view = _view(snap, goal="checkout", max_tokens=MIN_TOKENS)
    assert len(view.text) <= MIN_TOKENS * CHARS_PER_TOKEN + 80
    assert '"Pay now"' in view.text and '"Checkout total"' in view.text
    assert view.omitted > 0 and view.text.endswith("(raise maxTokens, or use find)")


def test_since_lists_only_changed_lines_and_a_new_screen_comes_whole() -> None:
    table = HandleTable()
    field = SemanticNode(node_id="u", role=Role.INPUT, parent_id="m0", hint="Username")
    button = SemanticNode(
        node_id="b", role=Role.BUTTON, parent_id="m0", text="Sign in", actions=(ActionVerb.CLICK,)
    )
    first = _view(_snapshot(field, button, screen="login"), table)
    typed = SemanticNode(
        node_id="u", role=Role.INPUT, parent_id="m0", hint="Username", value="demo"
    )
    second = _view(_snapshot(typed, button, screen="login"), table, since=first)
    assert not second.whole and not second.changed
    assert second.text.splitlines()[1:] == ['+ e1 input ="demo" hint="Username"']
    same = _view(_snapshot(typed, button, screen="login"), table, since=second)
    assert same.text.endswith("no change")
    home = _view(_snapshot(button, screen="home"), table, since=same)
    assert home.whole and home.changed and "screen home" in home.text


_names = st.text(alphabet="abcdefgh ", min_size=1, max_size=30)


@st.composite
def _screens(draw: st.DrawFn) -> ScreenSnapshot:
    count = draw(st.integers(min_value=0, max_value=30))
    nodes: list[SemanticNode] = []
    ids: list[str] = ["m0"]
    for i in range(count):
        parent = draw(st.sampled_from(ids))
        role = draw(st.sampled_from([Role.TEXT, Role.BUTTON, Role.LIST_ITEM, Role.INPUT]))
        clickable = draw(st.booleans())
        nodes.append(
            SemanticNode(
                node_id=f"k{i}",
                role=role,
                parent_id=parent,
                text=draw(_names),
                actions=(ActionVerb.CLICK,) if clickable else (),
            )
        )
        ids.append(f"k{i}")
    return _snapshot(*nodes)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_screens(), st.integers(min_value=MIN_TOKENS, max_value=600), st.none() | _names)
def test_any_screen_stays_within_its_budget(
    snap: ScreenSnapshot, tokens: int, goal: str | None
) -> None:
    view = _view(snap, max_tokens=tokens, goal=goal)
    body = view.text.splitlines()
    head = 2 if len(body) > 1 and body[1].startswith("goal matches:") else 1
    kept = "\n".join(body[head:-1] if view.omitted else body[head:])
    assert len(kept) <= tokens * CHARS_PER_TOKEN
    shown_lines = [line for line in body[head:] if not line.lstrip().startswith("…")]
    assert len(shown_lines) == len(view.shown)  # every shown node has exactly one line


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_screens(), _screens())
def test_a_diff_names_exactly_the_lines_that_changed(
    before: ScreenSnapshot, after: ScreenSnapshot
) -> None:
    table = HandleTable()
    first = _view(before, table)
    second = _view(after, table, since=first, max_tokens=20_000)
    if second.whole:
        return  # more than half replaced: the whole view, checked by the budget test
    changed = {nid for nid, line in second.lines.items() if first.lines.get(nid) != line}
    gone = set(first.lines) - set(second.lines)
    plus = [line for line in second.text.splitlines() if line.startswith("+ ")]
    minus = [line for line in second.text.splitlines() if line.startswith("- ")]
    assert len(plus) == len(changed) and set(second.shown) == changed
    assert len(minus) == len(gone)
    if not changed and not gone:
        assert second.text.endswith("no change")
