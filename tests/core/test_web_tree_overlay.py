"""Web items as raw nodes (``WebOverlay``, ``WebOverlays``): where they go in the device's
tree, their handles, parents and every field they carry; ``same_shape_changes``,
``is_web_node``, ``walk_items`` (pages walked from inside), the viewport's maths and the
recorded-answer decoder (pure)."""

from __future__ import annotations

import msgspec
import pytest

from bridge.core.web_tree import (
    HANDLE_RANGE,
    MAX_SAME_SHAPE_CHANGES,
    WEB_HANDLE_BASE,
    Viewport,
    WebContent,
    WebOverlay,
    WebOverlays,
    _descends,
    is_web_node,
    same_shape_changes,
    viewport_of,
    walk_items,
    web_roles_snapshot,
)
from bridge.wire.cdp import LayoutMetrics, VisualViewport
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, ScreenSize
from bridge.wire.web_walk import PageWalk, WalkNode
from tests.core.webpage import item

WEBVIEW = (0, 200, 1000, 1200)


def device(*extra: RawNode) -> RawTree:
    """0 app > 1 decoy (WebView bounds, not a WebView), 2 WebView > 3 its child > 4 grandchild;
    5 a sibling after it > 6 its child."""
    return RawTree(
        capture=7,
        platform=Platform.ANDROID,
        screen=ScreenSize(width=1000, height=2000),
        nodes=(
            RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout",
                    bounds=(0, 0, 1000, 2000)),
            RawNode(handle=2, parent=0, class_name="android.widget.ImageView", bounds=WEBVIEW),
            RawNode(handle=3, parent=0, window=4, class_name="android.webkit.WebView",
                    package="com.shop", bounds=WEBVIEW),
            RawNode(handle=4, parent=2, class_name="android.view.View", bounds=(0, 200, 10, 10)),
            RawNode(handle=5, parent=3, class_name="android.view.View", bounds=(0, 200, 5, 5)),
            RawNode(handle=6, parent=0, class_name="android.widget.TextView", text="Footer"),
            RawNode(handle=7, parent=5, class_name="android.widget.TextView", text="Small"),
            *extra,
        ),
    )  # fmt: skip


ITEMS = (
    item(-1, "RootWebArea", 1, name="Shop", bounds=WEBVIEW, scrollable=True),
    item(0, "textbox", 11, html_id="email", name="Email", value="a@b.c", hint="you@…",
         bounds=(40, 350, 960, 450), focusable=True, focused=True),
    item(0, "textbox", 12, name="Code", value="123", bounds=(40, 500, 960, 600), disabled=True,
         password=True),
    item(0, "button", 13, name="Go", bounds=(40, 650, 290, 750), disabled=True),
    item(0, "link", 14, name="More", value="https://x/", visible=False, selected=True),
    item(4, "checkbox", 15, name="Keep", checked=False, focusable=True),
    item(4, "radio", 16, name="Yes", checked=True),
    item(0, "heading", 17, name="Title", heading=True),
    item(0, "StaticText", None, name="Plain"),
)  # fmt: skip


def web(handle: int, parent: int, role: str, aid: str, **kw: object) -> RawNode:
    return RawNode(handle=handle, parent=parent, window=4, class_name=f"web:{role}",
                   automation_id=aid, package="com.shop", **kw)  # type: ignore[arg-type]  # fmt: skip


B = WEB_HANDLE_BASE
EXPECTED_WEB = (
    web(B, 2, "RootWebArea", "web:1", text="Shop", label="Shop", bounds=WEBVIEW,
        scrollable=True),
    web(B - 1, 5, "textbox", "web:#email", label="Email", value="a@b.c", hint="you@…",
        bounds=(40, 350, 960, 450), clickable=True, focusable=True, focused=True,
        editable=True),
    web(B - 2, 5, "textbox", "web:12", label="Code", value="123", bounds=(40, 500, 960, 600),
        enabled=False, password=True),
    web(B - 3, 5, "button", "web:13", text="Go", bounds=(40, 650, 290, 750), enabled=False),
    web(B - 4, 5, "link", "web:14", text="More", clickable=True, visible=False, selected=True),
    web(B - 5, 9, "checkbox", "web:15", text="Keep", clickable=True, checkable=True,
        focusable=True),
    web(B - 6, 9, "radio", "web:16", text="Yes", clickable=True, checkable=True, checked=True),
    web(B - 7, 5, "heading", "web:17", text="Title", heading=True),
    web(B - 8, 5, "StaticText", "web:x", text="Plain"),
)  # fmt: skip


def test_the_overlay_goes_right_after_the_webviews_subtree_with_every_field() -> None:
    raw = device()
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(raw)
    n = len(ITEMS)
    assert seen.capture == 7 and seen.screen == raw.screen
    assert seen.nodes == (
        *raw.nodes[:5],
        *EXPECTED_WEB,
        raw.nodes[5],
        msgspec.structs.replace(raw.nodes[6], parent=5 + n),
    )


def test_the_last_webview_with_the_anchors_bounds_takes_the_overlay() -> None:
    second = RawNode(handle=8, parent=0, class_name="XCUIElementTypeWebView", bounds=WEBVIEW)
    raw = device(second)
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS[:1])).apply(raw)
    assert seen.nodes[:-1] == raw.nodes
    assert seen.nodes[-1] == msgspec.structs.replace(
        EXPECTED_WEB[0], parent=7, window=0, package=None
    )


def test_no_items_or_no_webview_leaves_the_tree_as_it_is() -> None:
    raw = device()
    assert WebOverlay(WEBVIEW, WebContent(())).apply(raw) is raw
    # moved and resized at once: not the WebView the page was read under, as far as is known
    assert WebOverlay((1, 201, 1000, 1201), WebContent(ITEMS)).apply(raw) is raw
    # the decoy has the bounds but is no WebView; a node without a class is none either
    bare = msgspec.structs.replace(
        raw, nodes=(raw.nodes[0], msgspec.structs.replace(raw.nodes[2], class_name=None))
    )
    assert WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(bare) is bare


def _moved_to(raw: RawTree, bounds: tuple[int, int, int, int]) -> RawTree:
    nodes = list(raw.nodes)
    nodes[2] = msgspec.structs.replace(nodes[2], bounds=bounds)
    return msgspec.structs.replace(raw, nodes=tuple(nodes))


def test_a_webview_that_only_moved_takes_its_page_along_until_it_is_read_again() -> None:
    """A screen sliding in, a native list scrolling the WebView: the page read at the old
    place shows where the WebView is now, every node moved by as much as it moved."""
    raw = _moved_to(device(), (-300, 150, 700, 1150))
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(raw)
    added = seen.nodes[5 : 5 + len(ITEMS)]
    for got, want in zip(added, EXPECTED_WEB, strict=True):
        if want.bounds is None:
            assert got.bounds is None
            continue
        left, top, right, bottom = want.bounds
        assert got.bounds == (left - 300, top - 50, right - 300, bottom - 50)
        assert msgspec.structs.replace(got, bounds=want.bounds) == want


def test_a_webview_resized_in_place_keeps_its_page_where_it_was() -> None:
    """A keyboard shrinking the WebView from below: its top-left corner stays, so does the
    page (until it is read at the new size)."""
    raw = _moved_to(device(), (0, 200, 1000, 700))
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(raw)
    assert seen.nodes[5 : 5 + len(ITEMS)] == EXPECTED_WEB


def test_a_move_is_followed_only_when_one_webview_could_be_the_one() -> None:
    """Two WebViews the page's WebView could have become (each the same size): neither takes
    it (no guess); the page shows again once read at its WebView's new place."""
    other = RawNode(handle=8, parent=0, class_name="android.webkit.WebView",
                    bounds=(0, 1300, 1000, 2300))  # fmt: skip
    raw = _moved_to(device(other), (0, 100, 1000, 1100))
    assert WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(raw) is raw
    # one of them exactly where the page was read: that one, unmoved
    exact = device(other)
    assert WebOverlay(WEBVIEW, WebContent(ITEMS)).apply(exact).nodes[5 : 5 + len(ITEMS)] == (
        EXPECTED_WEB
    )


def test_a_webview_at_the_end_of_the_tree_takes_the_nodes_last() -> None:
    raw = RawTree(
        capture=1, platform=Platform.ANDROID, screen=ScreenSize(width=1000, height=2000),
        nodes=(RawNode(handle=1, parent=-1, bounds=(0, 0, 1000, 2000)),
               RawNode(handle=2, parent=0, class_name="WebView", bounds=WEBVIEW)),
    )  # fmt: skip
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS[:2]), handle_base=-50).apply(raw)
    assert [(n.handle, n.parent) for n in seen.nodes] == [(1, -1), (2, 0), (-50, 1), (-51, 2)]


def test_several_pages_take_their_own_webviews_and_handle_ranges() -> None:
    lower = (0, 1300, 1000, 1900)
    raw = device(RawNode(handle=9, parent=0, class_name="android.webkit.WebView", bounds=lower))
    overlays = WebOverlays.of([(WEBVIEW, WebContent(ITEMS[:1])), (lower, WebContent(ITEMS[:2]))])
    assert [o.handle_base for o in overlays.overlays] == [B, B - HANDLE_RANGE]
    seen = overlays.apply(raw)
    assert [(n.handle, n.parent) for n in seen.nodes] == [
        (1, -1), (2, 0), (3, 0), (4, 2), (5, 3), (B, 2), (6, 0), (7, 6), (9, 0),
        (B - HANDLE_RANGE, 8), (B - HANDLE_RANGE - 1, 9),
    ]  # fmt: skip
    assert WebOverlays(()).apply(raw) is raw


def test_same_shape_changes_names_the_changed_nodes_or_gives_up() -> None:
    raw = device()
    assert same_shape_changes(None, raw) is None
    assert same_shape_changes(raw, raw) == ()
    nodes = list(raw.nodes)
    nodes[4] = msgspec.structs.replace(nodes[4], text="new")
    nodes[6] = msgspec.structs.replace(nodes[6], checked=True)
    changed = msgspec.structs.replace(raw, nodes=tuple(nodes))
    assert same_shape_changes(raw, changed) == (4, 6)
    assert same_shape_changes(raw, msgspec.structs.replace(raw, nodes=raw.nodes[:-1])) is None
    for change in ({"parent": 0}, {"handle": 50}):
        moved = msgspec.structs.replace(raw.nodes[4], **change)
        nodes = (*raw.nodes[:4], moved, *raw.nodes[5:])
        assert same_shape_changes(raw, msgspec.structs.replace(raw, nodes=nodes)) is None


def test_same_shape_changes_allows_up_to_the_cap() -> None:
    base = tuple(RawNode(handle=i, parent=i - 1) for i in range(MAX_SAME_SHAPE_CHANGES + 2))
    tree = RawTree(capture=1, platform=Platform.ANDROID, screen=ScreenSize(width=1, height=1),
                   nodes=base)  # fmt: skip

    def with_changes(count: int) -> RawTree:
        nodes = tuple(
            msgspec.structs.replace(n, text="x") if i < count else n for i, n in enumerate(base)
        )
        return msgspec.structs.replace(tree, nodes=nodes)

    cap = MAX_SAME_SHAPE_CHANGES
    assert same_shape_changes(tree, with_changes(cap)) == tuple(range(cap))
    assert same_shape_changes(tree, with_changes(cap + 1)) is None


def test_is_web_node_by_the_mark() -> None:
    assert [is_web_node(a) for a in ("web:#a", "web:12", "web:", None, "Web:1", "xweb:1", "")] == [
        True, True, True, False, False, False, False,
    ]  # fmt: skip


def test_automation_ids() -> None:
    assert item(-1, "link", 5, html_id="go").automation_id == "web:#go"
    assert item(-1, "link", 5, html_id="").automation_id == "web:5"
    assert item(-1, "link", 0).automation_id == "web:0"
    assert item(-1, "link", None).automation_id == "web:x"


def test_viewport_maths_both_ways() -> None:
    vp = Viewport((100, 200, 1100, 1700), page_x=30, page_y=60, css_width=400, css_height=600)
    assert vp.scale == 2.5
    assert vp.to_device(30, 60, 400, 600) == (100, 200, 1100, 1700)
    assert vp.to_device(34, 70, 10, 4) == (110, 225, 135, 235)
    assert vp.to_css(110, 225) == (4.0, 10.0)
    assert Viewport((0, 0, 500, 500), 0, 0, 0, 0).scale == 1.0
    assert Viewport((0, 0, 500, 500), 0, 0, -1, 0).scale == 1.0
    assert Viewport((0, 0, 500, 500), 0, 0, 0, 0).to_device(3, 4, 5, 6) == (3, 4, 8, 10)
    vv = VisualViewport(pageX=30, pageY=60, clientWidth=400, clientHeight=600, scale=9, zoom=9)
    assert viewport_of(LayoutMetrics(cssVisualViewport=vv), (100, 200, 1100, 1700)) == vp


def test_recorded_answers_decode() -> None:
    ax, snap = web_roles_snapshot(
        b'{"nodes": [{"nodeId": "1", "role": {"type": "role", "value": "button"}, "x": 1}]}',
        b'{"documents": [{"frameId": 0}], "strings": ["F"]}',
    )
    assert ax.nodes[0].nodeId == "1" and ax.nodes[0].role is not None
    assert ax.nodes[0].role.text() == "button"
    assert snap.strings == ("F",) and snap.documents[0].frameId == 0
    with pytest.raises(msgspec.ValidationError):
        web_roles_snapshot(b'{"nodes": 1}', b'{"documents": [], "strings": []}')


WALK_BOX = (0, 200, 1000, 1200)


def walk(*nodes: WalkNode, **kw: object) -> PageWalk:
    fields: dict[str, object] = {"title": " My  page ", "url": "https://x.test/", "sx": 0,
                                 "sy": 40, "vw": 400, "vh": 400, "sh": 400}  # fmt: skip
    fields.update(kw)
    return PageWalk(nodes=nodes, **fields)  # type: ignore[arg-type]


def test_a_walked_page_becomes_items_with_the_same_rules() -> None:
    page = walk(
        WalkNode(p=-1, k=1, r="form", i="f", x=0, y=40, w=400, ht=400),
        WalkNode(
            p=0,
            k=2,
            r="textbox",
            n="Email",
            v=" a  b ",
            h="you@",
            i="email",
            x=16,
            y=100,
            w=368,
            ht=40,
            f="FS",
        ),
        WalkNode(
            p=0, k=3, r="textbox", n="Password", v="secret", x=16, y=160, w=368, ht=40, f="PD"
        ),
        WalkNode(p=0, k=4, r="checkbox", n="Keep", x=16, y=0, w=20, ht=20, f="C"),
        WalkNode(p=0, k=5, r="checkbox", n="No", f="UE"),
        WalkNode(p=0, k=6, r="StaticText", n="My page"),
        WalkNode(p=-1, k=7, r="StaticText", n="My page"),
        WalkNode(p=-1, k=8, r="StaticText"),
        WalkNode(p=0, k=9, r="heading", n="Far", x=0, y=640, w=10, ht=10),
        WalkNode(p=8, k=10, r="link", n="Under far"),
        WalkNode(p=0, k=11, r="list", x=0, y=300, w=100, ht=100, f="L"),
        WalkNode(p=10, k=12, r="r" * 100, n="long role", x=0, y=0, w=0, ht=10),
        WalkNode(p=0, k=13, r="StaticText", n="Inside"),
        WalkNode(p=0, k=14, r="link", n="Zero", x=0, y=600, w=10, ht=0),
    )
    got = walk_items(page, WALK_BOX)
    assert got == WebContent(
        (
            item(-1, "RootWebArea", 0, name="My page", bounds=WALK_BOX),
            item(0, "form", 1, html_id="f", bounds=(0, 200, 1000, 1200)),
            item(1, "textbox", 2, html_id="email", name="Email", value="a b", hint="you@",
                 bounds=(40, 350, 960, 450), focusable=True, focused=True),
            item(1, "textbox", 3, name="Password", bounds=(40, 500, 960, 600), disabled=True,
                 password=True),
            item(1, "checkbox", 4, name="Keep", bounds=(40, 100, 90, 150), visible=False,
                 checked=True),
            item(1, "checkbox", 5, name="No", checked=False, selected=True),
            item(1, "StaticText", 6, name="My page"),
            item(1, "list", 11, bounds=(0, 850, 250, 1100), scrollable=True),
            item(7, "r" * 64, 12, name="long role"),
            item(1, "StaticText", 13, name="Inside"),
            item(1, "link", 14, name="Zero"),
        ),
        None,
        "https://x.test/",
    )  # fmt: skip


def test_a_walked_page_scrolls_when_taller_and_keeps_its_margin() -> None:
    far = WalkNode(p=-1, k=1, r="link", n="Far", x=0, y=639, w=10, ht=10)
    for sh, scrolls in ((401, False), (401.5, True)):
        root = walk_items(walk(sh=sh), WALK_BOX).items[0]
        assert root.scrollable is scrolls
    # default margin: half the WebView (500): the link at device 1697.5.. is in, 1700 is not
    assert [it.name for it in walk_items(walk(far), WALK_BOX).items] == ["My page", "Far"]
    assert [it.name for it in walk_items(walk(far), WALK_BOX, margin=497).items] == ["My page"]
    assert walk_items(walk(url=""), WALK_BOX) == WebContent(
        (item(-1, "RootWebArea", 0, name="My page", bounds=WALK_BOX),), None, None
    )
    assert walk_items(walk(url="u" * 3000), WALK_BOX).url == "u" * 2048


def test_a_walked_page_is_cut_by_the_budget() -> None:
    nodes = [WalkNode(p=-1, k=i, r="link", n=f"L{i}", i="ab") for i in range(1, 4)]
    full = walk_items(walk(*nodes, title=""), WALK_BOX)
    assert [it.name for it in full.items] == [None, "L1", "L2", "L3"] and full.truncated is None
    # the root costs nothing; each link 48 + 2 + 2
    assert walk_items(walk(*nodes, title=""), WALK_BOX, max_bytes=3 * 52).truncated is None
    cut = walk_items(walk(*nodes, title=""), WALK_BOX, max_bytes=3 * 52 - 1)
    assert cut == WebContent(
        full.items[:3],
        "web content cut at 3 nodes / 104 bytes (caps: 1500 nodes, 155 bytes)",
        "https://x.test/",
    )
    by_nodes = walk_items(walk(*nodes, title=""), WALK_BOX, max_nodes=2)
    assert by_nodes.items == full.items[:2]
    assert (
        by_nodes.truncated == "web content cut at 2 nodes / 52 bytes (caps: 2 nodes, 524288 bytes)"
    )


def test_a_webview_at_the_root_and_a_second_window_after_it() -> None:
    raw = RawTree(
        capture=1, platform=Platform.ANDROID, screen=ScreenSize(width=1000, height=2000),
        nodes=(RawNode(handle=1, parent=-1, class_name="WebView", bounds=WEBVIEW),
               RawNode(handle=3, parent=-1, window=1, class_name="android.widget.FrameLayout"),
               RawNode(handle=4, parent=1, class_name="android.widget.Button")),
    )  # fmt: skip
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS[:2]), handle_base=-50).apply(raw)
    assert [(n.handle, n.parent) for n in seen.nodes] == [
        (1, -1),
        (-50, 0),
        (-51, 1),
        (3, -1),
        (4, 3),
    ]


def test_descent_is_followed_up_to_the_root_and_stops_below_the_ancestor() -> None:
    nodes = (
        RawNode(handle=1, parent=-1),
        RawNode(handle=2, parent=0),
        RawNode(handle=3, parent=1),
        RawNode(handle=4, parent=-1),
        RawNode(handle=5, parent=3),
        RawNode(handle=6, parent=0),
    )
    got = {(i, a): _descends(nodes, i, a) for i in range(1, 6) for a in range(i)}
    assert {k for k, v in got.items() if v} == {(1, 0), (2, 0), (2, 1), (4, 3), (5, 0)}


def test_a_walked_page_drops_text_repeating_its_parent_and_reads_small_boxes() -> None:
    page = walk(
        WalkNode(p=-1, k=1, r="heading", n="Title", x=0, y=40, w=1, ht=1),
        WalkNode(p=0, k=2, r="StaticText", n="Title"),
        WalkNode(p=0, k=3, r="StaticText", n="Sub"),
        WalkNode(p=-1, k=4, r="link", n="Right", x=410, y=100, w=40, ht=10),
        WalkNode(p=-1, k=5, r="link", n="Edge", x=400, y=100, w=10, ht=10),
    )
    assert walk_items(page, WALK_BOX).items == (
        item(-1, "RootWebArea", 0, name="My page", bounds=WALK_BOX),
        item(0, "heading", 1, name="Title", bounds=(0, 200, 2, 202), heading=True),
        item(1, "StaticText", 3, name="Sub"),
    )


def test_a_walked_page_under_an_odd_webview_grows_by_whole_pixels() -> None:
    box = (0, 200, 1000, 1201)
    page = walk(WalkNode(p=-1, k=1, r="link", n="A", x=0, y=640.4, w=10, ht=10),
                WalkNode(p=-1, k=2, r="link", n="B", x=0, y=640, w=10, ht=10))  # fmt: skip
    assert [it.name for it in walk_items(page, box).items] == ["My page", "B"]


def test_a_webview_with_one_child_takes_the_nodes_after_that_child() -> None:
    raw = RawTree(
        capture=1, platform=Platform.ANDROID, screen=ScreenSize(width=1000, height=2000),
        nodes=(RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout"),
               RawNode(handle=2, parent=0, class_name="android.webkit.WebView", bounds=WEBVIEW),
               RawNode(handle=3, parent=1, class_name="android.view.View"),
               RawNode(handle=4, parent=0, class_name="android.widget.Button")),
    )  # fmt: skip
    seen = WebOverlay(WEBVIEW, WebContent(ITEMS[:2]), handle_base=-50).apply(raw)
    assert [(n.handle, n.parent) for n in seen.nodes] == [
        (1, -1),
        (2, 0),
        (3, 1),
        (-50, 1),
        (-51, 3),
        (4, 0),
    ]
