"""``web_items`` on hand-built pages: every item's role, texts, ids, device bounds and flags,
the culling by the WebView's box and margin, the folding of wrappers, the budget and the
depth cap (pure: no browser; tests/core/test_web_tree.py reads recorded Chromium pages)."""

from __future__ import annotations

from bridge.core.web_tree import (
    MAX_DEPTH,
    MAX_TEXT,
    Viewport,
    WebContent,
    web_items,
)
from bridge.wire.cdp import DomSnapshot, FullAXTree
from tests.core.webpage import El, Strings, document, item, node, snapshot

BOX = (0, 200, 1000, 1200)
"""The WebView (device px): 1000 wide, so 400 CSS px make 2.5 device px each."""
VIEW = Viewport(BOX, page_x=0, page_y=40, css_width=400, css_height=400)


def login_page() -> tuple[FullAXTree, DomSnapshot]:
    s = Strings()
    doc = document(
        s,
        [
            El(1, "#document"),
            El(2, "HTML", box=(0, 0, 400, 2000)),
            El(10, "H1", (("id", "title"),), box=(16, 40, 368, 32)),
            El(11, "INPUT", (("id", "email"), ("placeholder", "you@example.com")),
               box=(16, 100, 368, 40)),
            El(12, "INPUT", (("type", "PassWord"), ("id", "pw"), ("placeholder", "Password")),
               box=(16, 160, 368, 40)),
            El(13, "BUTTON", (("id", ""), ("class", "go")), box=(16, 220, 100, 40)),
            El(21, "IMG", box=(20, 224, 10, 0)),
            El(14, "DIV", (("id", "list"),), box=(16, 280, 368, 200), overflow="auto",
               scroll=(0, 0, 368, 600), client=(0, 0, 368, 200)),
            El(15, "LI", box=(16, 300, 368, 40)),
            El(16, "LI", box=(16, 600, 368, 40)),
            El(17, "LI", box=(16, 640, 368, 40)),
            El(18, "INPUT", (("type", "checkbox"),), box=(16, 0, 20, 20)),
            El(19, "SPAN", box=(0, 0, 0, 0)),
            El(20, "DIV", box=(0, 0, 100, 200), overflow="scroll", scroll=(0, 0, 100, 201),
               client=(0, 0, 100, 200)),
            El(23, "INPUT", (("type", "radio"),), box=(60, 0, 20, 20)),
            El(24, "INPUT", (("type", "checkbox"),), box=(100, 0, 20, 20)),
        ],
        content_height=401.5,
    )  # fmt: skip
    ax = FullAXTree(
        nodes=(
            node("1", "RootWebArea", name="Shop  \n login", bid=1, children=("2",)),
            node("2", "generic", bid=2,
                 children=("3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14",
                           "zz", "16", "17", "18")),
            node("3", "heading", name="Welcome", bid=10, children=("3t",)),
            node("3t", "StaticText", name="Welcome", children=("3i",)),
            node("3i", "InlineTextBox", name="Welcome"),
            node("4", "textbox", name="Email", value="a@b.c", bid=11, children=("4e",),
                 props={"focusable": True, "focused": True}),
            node("4e", "generic", name="inner editor", bid=99),
            node("5", "textbox", name="Password", value="hunter2", bid=12,
                 props={"focusable": True, "focused": False}),
            node("6", "button", name="Go", bid=13, children=("6t", "6i"),
                 props={"disabled": True, "focusable": "true"}),
            node("6t", "StaticText", name="Go"),
            node("6i", "img", name="arrow", bid=21),
            node("7", "generic", bid=14, children=("7a", "7b", "7c")),
            node("7a", "listitem", name="Row 1", bid=15),
            node("7b", "listitem", name="Row 2", bid=16, props={"selected": True}),
            node("7c", "listitem", name="Row 3", bid=17),
            node("8", "checkbox", name="Remember", bid=18, props={"checked": "mixed"}),
            node("9", "StaticText", name="Loose  text", bid=19),
            node("10", "StaticText", name="Shop login"),
            node("11", "paragraph", children=("11t",)),
            node("11t", "StaticText", name="Para"),
            node("12", "button", name="Hidden", ignored=True, children=("12c",)),
            node("12c", "link", name="Inner"),
            node("13", "LineBreak", name="\n"),
            node("14", None, children=("14c",)),
            node("14c", "StaticText", name="No role"),
            node("16", "generic", bid=20, children=("16c",)),
            node("16c", "StaticText"),
            node("17", "radio", name="Yes", bid=23, props={"checked": True}),
            node("18", "checkbox", name="No", bid=24, props={"checked": "false"}),
        )
    )  # fmt: skip
    return ax, snapshot(s, doc)


LOGIN_ITEMS = (
    item(-1, "RootWebArea", 1, name="Shop login", bounds=BOX, scrollable=True),
    item(0, "heading", 10, html_id="title", name="Welcome", bounds=(40, 200, 960, 280),
         heading=True),
    item(0, "textbox", 11, html_id="email", name="Email", value="a@b.c", hint="you@example.com",
         bounds=(40, 350, 960, 450), focusable=True, focused=True),
    item(0, "textbox", 12, html_id="pw", name="Password", bounds=(40, 500, 960, 600),
         focusable=True, password=True),
    item(0, "button", 13, name="Go", bounds=(40, 650, 290, 750), disabled=True, focusable=True),
    item(4, "img", 21, name="arrow"),
    item(0, "generic", 14, html_id="list", bounds=(40, 800, 960, 1300), scrollable=True),
    item(6, "listitem", 15, name="Row 1", bounds=(40, 850, 960, 950)),
    item(6, "listitem", 16, name="Row 2", bounds=(40, 1600, 960, 1700), visible=False,
         selected=True),
    item(0, "checkbox", 18, name="Remember", bounds=(40, 100, 90, 150), visible=False,
         checked=True),
    item(0, "StaticText", 19, name="Loose text"),
    item(0, "StaticText", None, name="Para"),
    item(0, "link", None, name="Inner"),
    item(0, "StaticText", None, name="No role"),
    item(0, "radio", 23, name="Yes", bounds=(150, 100, 200, 150), visible=False, checked=True),
    item(0, "checkbox", 24, name="No", bounds=(250, 100, 300, 150), visible=False,
         checked=False),
)  # fmt: skip


def test_a_page_becomes_items_with_roles_texts_ids_bounds_and_flags() -> None:
    ax, snap = login_page()
    got = web_items(ax, snap, VIEW, url="https://shop.example/login")
    assert got == WebContent(LOGIN_ITEMS, None, "https://shop.example/login")
    by_id = [it.automation_id for it in got.items]
    assert by_id == [
        "web:1", "web:#title", "web:#email", "web:#pw", "web:13", "web:21", "web:#list",
        "web:15", "web:16", "web:18", "web:19", "web:x", "web:x", "web:x", "web:23", "web:24",
    ]  # fmt: skip


def test_the_margin_is_half_the_webview_by_default_and_can_be_set() -> None:
    ax, snap = login_page()
    # a margin of 400 device px: Row 2 (1600..1700) is beyond the WebView's bottom plus 400
    # (1600 is not < 1600) and the checkboxes above (100..150) are within 200 - 400
    tight = web_items(ax, snap, VIEW, margin=400).items
    assert [it.name for it in tight if it.role == "listitem"] == ["Row 1"]
    assert tight == tuple(it for it in LOGIN_ITEMS if it.name != "Row 2")
    # margin 0: only what meets the WebView itself (the radio's row is above it)
    none = web_items(ax, snap, VIEW, margin=0).items
    assert [it.name for it in none] == [
        "Shop login", "Welcome", "Email", "Password", "Go", "arrow", None, "Row 1",
        "Loose text", "Para", "Inner", "No role",
    ]  # fmt: skip
    assert all(it.visible for it in none)
    # 401 reaches Row 2's top
    assert [it.name for it in web_items(ax, snap, VIEW, margin=401).items] == [
        it.name for it in LOGIN_ITEMS
    ]


def test_without_a_root_there_are_no_items_but_the_url_is_kept() -> None:
    _, snap = login_page()
    orphan = FullAXTree(nodes=(node("1", "button", name="x", parent="0"),))
    assert web_items(orphan, snap, VIEW, url="u") == WebContent((), None, "u")
    assert web_items(FullAXTree(nodes=()), snap, VIEW) == WebContent((), None, None)


def test_a_page_no_taller_than_its_viewport_does_not_scroll() -> None:
    ax = FullAXTree(nodes=(node("1", "RootWebArea", bid=1),))
    s = Strings()
    for height, scrolls in ((401.0, False), (401.5, True), (0.0, False)):
        snap = snapshot(s, document(s, [El(1, "#document")], content_height=height))
        (root,) = web_items(ax, snap, VIEW).items
        assert (root.role, root.scrollable) == ("RootWebArea", scrolls)
    empty = DomSnapshot(documents=(), strings=())
    assert web_items(ax, empty, VIEW).items[0].scrollable is False


def _budget_page() -> tuple[FullAXTree, DomSnapshot]:
    s = Strings()
    doc = document(
        s,
        [El(1, "#document"), *(El(10 + i, "A", (("id", f"a{i}"),), box=(0, 50 + 10 * i, 100, 10))
                               for i in range(4))],
    )  # fmt: skip
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", name="R", bid=1, children=("0", "1", "2", "3")),
            *(node(str(i), "link", name=f"L{i}", value="vv", bid=10 + i) for i in range(4)),
        )
    )
    return ax, snapshot(s, doc)


def test_the_budget_counts_nodes_and_bytes_in_document_order() -> None:
    ax, snap = _budget_page()
    full = web_items(ax, snap, VIEW)
    # each item costs 48 + its name, value, hint and html id: root 49, links 48+2+2+2 = 54
    assert [it.name for it in full.items] == ["R", "L0", "L1", "L2", "L3"]
    assert full.truncated is None
    assert web_items(ax, snap, VIEW, max_bytes=49 + 4 * 54).truncated is None
    cut = web_items(ax, snap, VIEW, max_bytes=49 + 4 * 54 - 1)
    assert cut.items == full.items[:4]
    assert cut.truncated == "web content cut at 4 nodes / 211 bytes (caps: 1500 nodes, 264 bytes)"
    nodes = web_items(ax, snap, VIEW, max_nodes=3)
    assert nodes.items == full.items[:3]
    assert nodes.truncated == (
        "web content cut at 3 nodes / 157 bytes (caps: 3 nodes, 524288 bytes)"
    )
    assert web_items(ax, snap, VIEW, max_nodes=5).truncated is None
    assert web_items(ax, snap, VIEW, max_nodes=4).items == full.items[:4]


def test_after_the_cut_nothing_later_is_added() -> None:
    _, snap = _budget_page()
    # a later, smaller item would fit, but the budget stops in document order
    small = FullAXTree(
        nodes=(
            node("r", "RootWebArea", name="R", bid=1, children=("0", "1")),
            node("0", "link", name="L" * 40, bid=10),
            node("1", "link", name="S", bid=11),
        )
    )
    got = web_items(small, snap, VIEW, max_bytes=49 + 60)
    assert [it.name for it in got.items] == ["R"]
    assert got.truncated == "web content cut at 1 nodes / 49 bytes (caps: 1500 nodes, 109 bytes)"


def test_the_depth_is_capped() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document")]))
    chain = [
        node(f"n{i}", "list" if i else "RootWebArea", name=f"d{i}", bid=1 if i == 0 else None,
             children=(f"n{i + 1}",))
        for i in range(MAX_DEPTH + 3)
    ]  # fmt: skip
    got = web_items(FullAXTree(nodes=tuple(chain)), snap, VIEW).items
    assert [it.name for it in got] == [f"d{i}" for i in range(MAX_DEPTH + 1)]
    assert [it.parent for it in got] == list(range(-1, MAX_DEPTH))


def test_texts_are_collapsed_and_capped_and_ids_and_hints_too() -> None:
    s = Strings()
    long_id = "i" * 300
    long_hint = "h" * (MAX_TEXT + 50)
    snap = snapshot(
        s,
        document(s, [
            El(1, "#document"),
            El(5, "INPUT", (("id", long_id), ("placeholder", long_hint)), box=(0, 40, 10, 10)),
            El(6, "INPUT", (("placeholder", "  spaced   hint "),), box=(0, 60, 10, 10)),
            El(7, "INPUT", (("type",),), box=(0, 80, 10, 10)),
        ]),
    )  # fmt: skip
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", name="   ", bid=1, children=("a", "b", "c")),
            node("a", "searchbox", name="n" * (MAX_TEXT + 1), value=" a \t b ", bid=5),
            node("b", "textbox", bid=6, value=""),
            node("c", "textbox", name="c", bid=7),
        )
    )
    got = web_items(ax, snap, VIEW).items
    assert got == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "searchbox", 5, html_id="i" * 200, name="n" * MAX_TEXT, value="a b",
             hint="h" * MAX_TEXT, bounds=(0, 200, 25, 225)),
        item(0, "textbox", 6, hint="spaced hint", bounds=(0, 250, 25, 275)),
        item(0, "textbox", 7, name="c", bounds=(0, 300, 25, 325)),
    )  # fmt: skip


def test_a_control_keeps_children_that_are_more_than_its_text() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document")]))
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=("b", "l")),
            node("b", "button", name="Buy", children=("g",)),
            node("g", "generic", children=("t", "i")),
            node("t", "StaticText", name="Buy"),
            node("i", "InlineTextBox", name="Buy"),
            node("l", "link", name="More", children=("w", "p")),
            node("w", "button", ignored=True, children=("t2",)),
            node("t2", "StaticText", name="More text"),
            node("p", "img", name="pic"),
        )
    )
    assert web_items(ax, snap, VIEW).items == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "button", None, name="Buy"),
        item(0, "link", None, name="More"),
        item(2, "img", None, name="pic"),
    )


def test_a_named_wrapper_is_kept_and_a_text_repeating_it_is_not() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document")]))
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=("n", "p")),
            node("n", "navigation", name="Menu", children=("t", "u")),
            node("t", "StaticText", name="Menu"),
            node("u", "StaticText", name="Home"),
            node("p", "paragraph", name="Intro", children=("q",)),
            node("q", "StaticText", name="Intro"),
        )
    )
    assert web_items(ax, snap, VIEW).items == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "navigation", None, name="Menu"),
        item(1, "StaticText", None, name="Home"),
        item(0, "paragraph", None, name="Intro"),
    )


def test_unnamed_boxless_leaves_are_pruned_and_parents_repointed() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document"), El(3, "A", box=(0, 40, 10, 10))]))
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=("a", "b", "c")),
            node("a", "img"),
            node("b", "list", children=("b1", "b2")),
            node("b1", "listitem"),
            node("b2", "listitem", bid=3),
            node("c", "link", name="C"),
        )
    )
    assert web_items(ax, snap, VIEW).items == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "list", None),
        item(1, "listitem", 3, bounds=(0, 200, 25, 225)),
        item(0, "link", None, name="C"),
    )
    # nothing to prune: the same items come back
    alone = FullAXTree(nodes=(node("r", "RootWebArea", bid=1),))
    assert web_items(alone, snap, VIEW).items == (item(-1, "RootWebArea", 1, bounds=BOX),)


def test_a_box_without_width_or_height_is_no_box() -> None:
    s = Strings()
    snap = snapshot(
        s,
        document(s, [El(1, "#document"), El(2, "A", box=(0, 40, 0, 10)),
                     El(3, "A", box=(0, 40, 10, 0)), El(4, "A", box=(0, 40, -1, 10)),
                     El(5, "A", box=(0, 40, 1, 1))]),
    )  # fmt: skip
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=("2", "3", "4", "5", "6")),
            *(node(str(b), "link", name=f"L{b}", bid=b) for b in (2, 3, 4, 5, 6)),
        )
    )
    # 6 has no layout object at all
    assert [it.bounds for it in web_items(ax, snap, VIEW).items] == [
        BOX,
        None,
        None,
        None,
        (0, 200, 2, 202),
        None,
    ]


def _links(*boxes: tuple[float, float, float, float]) -> tuple[FullAXTree, DomSnapshot]:
    s = Strings()
    els = [El(10 + i, "A", box=b) for i, b in enumerate(boxes)]
    snap = snapshot(s, document(s, [El(1, "#document"), *els]))
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=tuple(str(i) for i in range(len(boxes)))),
            *(node(str(i), "link", name=f"L{i}", bid=10 + i) for i in range(len(boxes))),
        )
    )
    return ax, snap


def test_boxes_touching_the_reach_or_the_webview_are_outside_it() -> None:
    ax, snap = _links(
        (400, 100, 10, 10),  # device left 1000: touches the WebView's right edge
        (410, 100, 40, 10),  # right of the WebView (device 1025..1125, below x 1200)
        (-10, 100, 10, 10),  # device right 0: touches its left edge
        (-20, 100, 10, 10),  # wholly left of it
        (0, -170, 10, 10),  # device bottom -300: touches the top of the reach
        (0, 30, 10, 10),  # device bottom 200: touches the WebView's top, inside the reach
        (0, 30, 10, 10.4),  # device bottom 201: overlaps the WebView by one pixel
        (399.6, 100, 10, 10),  # device left 999: overlaps it by one pixel
    )
    got = web_items(ax, snap, VIEW).items
    assert got == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "link", 15, name="L5", bounds=(0, 175, 25, 200), visible=False),
        item(0, "link", 16, name="L6", bounds=(0, 175, 25, 201)),
        item(0, "link", 17, name="L7", bounds=(999, 350, 1024, 375)),
    )


def test_an_odd_webview_height_grows_the_reach_by_whole_pixels() -> None:
    box = (0, 200, 1000, 1201)  # 1001 high: the margin is 500, not 500.5
    view = Viewport(box, page_x=0, page_y=40, css_width=400, css_height=400)
    ax, snap = _links((0, 640.4, 10, 10), (0, 640, 10, 10))  # device tops 1701 and 1700
    assert [it.name for it in web_items(ax, snap, view).items] == [None, "L1"]


def test_a_webview_of_no_size_still_shows_its_pages_root() -> None:
    ax, snap = _links((0, 40, 10, 10))
    flat = Viewport((0, 200, 0, 200), page_x=0, page_y=0, css_width=400, css_height=0)
    assert web_items(ax, snap, flat).items == (item(-1, "RootWebArea", 1, bounds=(0, 200, 0, 200),
                                                    visible=False),)  # fmt: skip


def test_wrappers_count_towards_the_depth_cap() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document")]))

    def wrapped(levels: int) -> FullAXTree:
        chain = [node(f"g{i}", "generic", children=(f"g{i + 1}",)) for i in range(levels)]
        return FullAXTree(nodes=(node("r", "RootWebArea", bid=1, children=("g0",)), *chain,
                                 node(f"g{levels}", "button", name="Deep")))  # fmt: skip

    # the button is at depth levels + 1
    assert [it.name for it in web_items(wrapped(MAX_DEPTH - 1), snap, VIEW).items] == [None, "Deep"]
    assert [it.name for it in web_items(wrapped(MAX_DEPTH), snap, VIEW).items] == [None]


def test_a_controls_text_is_dropped_through_wrappers_but_not_its_other_content() -> None:
    s = Strings()
    snap = snapshot(s, document(s, [El(1, "#document")]))
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=("b1", "b2", "b3", "b4")),
            # text under two wrappers, with inline boxes and a line break: all the label's
            node("b1", "button", name="Buy", children=("g1",)),
            node("g1", "generic", children=("g2", "lb")),
            node("g2", "generic", children=("t1", "i1")),
            node("t1", "StaticText", name="Buy now"),
            node("i1", "InlineTextBox", name="Buy now"),
            node("lb", "LineBreak"),
            # a picture under a wrapper is content of its own
            node("b2", "button", name="Pic", children=("g3",)),
            node("g3", "generic", children=("im",)),
            node("im", "img", name="cart"),
            # a child without a role is no text: it is walked (and folds)
            node("b3", "link", name="Odd", children=("nr",)),
            node("nr", None, children=("t3",)),
            node("t3", "StaticText", name="odd text"),
            # an ignored wrapper of text is text too
            node("b4", "link", name="Hid", children=("ig",)),
            node("ig", "link", ignored=True, children=("t4",)),
            node("t4", "StaticText", name="hidden text"),
        )
    )
    assert web_items(ax, snap, VIEW).items == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "button", None, name="Buy"),
        item(0, "button", None, name="Pic"),
        item(2, "img", None, name="cart"),
        item(0, "link", None, name="Odd"),
        item(4, "StaticText", None, name="odd text"),
        item(0, "link", None, name="Hid"),
    )
