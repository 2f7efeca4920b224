"""``web_items`` with frames: a same-process frame's document placed where its ``iframe`` is
(less the frame's scroll), its elements visible only inside the frame's box, a frame whose
document is taller scrolls, nested frames in any order, cross-process frames (``remote``,
ids ``shifted``) and the ``MAX_FRAMES`` caps (pure, hand-built CDP answers)."""

from __future__ import annotations

from dataclasses import replace

import msgspec

from bridge.core.web_tree import (
    MAX_DEPTH,
    MAX_FRAMES,
    REMOTE_SHIFT,
    Viewport,
    WebContent,
    shifted,
    web_items,
)
from bridge.wire.cdp import DomSnapshot, FullAXTree, SnapshotDocument
from tests.core.webpage import El, Strings, document, item, node, snapshot

BOX = (0, 200, 1000, 1200)
VIEW = Viewport(BOX, page_x=0, page_y=40, css_width=400, css_height=400)


def framed(content_height: float = 200) -> tuple[FullAXTree, DomSnapshot, FullAXTree]:
    s = Strings()
    top = document(
        s,
        [
            El(1, "#document"),
            El(2, "IFRAME", box=(10, 100, 200, 100), client=(2, 4, 196, 94), content_doc=1),
        ],
    )
    inner = document(
        s,
        [
            El(100, "#document"),
            El(101, "BUTTON", (("id", "inframe"),), box=(0, 30, 50, 20)),
            El(102, "A", box=(0, 200, 50, 20)),
            El(103, "INPUT", (("type", "password"),), box=(0, 60, 50, 20)),
        ],
        frame="F1",
        scroll_y=20,
        content_height=content_height,
    )
    ax = FullAXTree(
        nodes=(
            node("1", "RootWebArea", name="Top", bid=1, children=("f",)),
            node("f", "Iframe", bid=2),
        )
    )
    frame_ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", name="Inner", bid=100, children=("b", "a", "p")),
            node("b", "button", name="In frame", bid=101, parent="r"),
            node("a", "link", name="Far", bid=102, parent="r"),
            node("p", "textbox", name="Secret", value="s3cret", bid=103, parent="r"),
        )
    )
    return ax, snapshot(s, top, inner), frame_ax


FRAME_ITEMS = (
    item(-1, "RootWebArea", 1, name="Top", bounds=BOX),
    item(0, "Iframe", 2, bounds=(25, 350, 525, 600), scrollable=True),
    # the frame's (0, 30) is the top document's (10 + 2, 100 + 4 + 30 - 20)
    item(1, "button", 101, html_id="inframe", name="In frame", bounds=(30, 385, 155, 435)),
    # inside the WebView, but below the frame's box (device 360..595)
    item(1, "link", 102, name="Far", bounds=(30, 810, 155, 860), visible=False),
    item(1, "textbox", 103, name="Secret", bounds=(30, 460, 155, 510), password=True),
)


def test_a_frames_document_goes_under_its_iframe_moved_and_clipped() -> None:
    ax, snap, frame_ax = framed()
    got = web_items(ax, snap, VIEW, frames={"F1": frame_ax})
    assert got == WebContent(FRAME_ITEMS)


def test_without_its_tree_a_frame_stays_one_node() -> None:
    ax, snap, frame_ax = framed()
    assert web_items(ax, snap, VIEW).items == FRAME_ITEMS[:2]
    assert web_items(ax, snap, VIEW, frames={"F2": frame_ax}).items == FRAME_ITEMS[:2]
    rootless = FullAXTree(nodes=tuple(n for n in frame_ax.nodes if n.parentId is not None))
    assert web_items(ax, snap, VIEW, frames={"F1": rootless}).items == FRAME_ITEMS[:2]


def test_a_frame_scrolls_only_when_its_document_is_taller_than_its_box() -> None:
    ax, snap, frame_ax = framed(content_height=95)  # the box is 94 high: 95 is within a pixel
    got = web_items(ax, snap, VIEW, frames={"F1": frame_ax}).items
    assert got == (FRAME_ITEMS[0], replace(FRAME_ITEMS[1], scrollable=False), *FRAME_ITEMS[2:])
    taller = web_items(*framed(content_height=95.5)[:2], VIEW, frames={"F1": frame_ax}).items
    assert taller[1].scrollable is True


def _nested() -> tuple[FullAXTree, DomSnapshot, dict[str, FullAXTree]]:
    """Three frames, each inside the next, listed innermost first: top > C > B > A."""
    s = Strings()
    top = document(s, [El(1, "#document"),
                       El(2, "IFRAME", box=(0, 40, 400, 300), client=(0, 0, 400, 300),
                          content_doc=3)])  # fmt: skip
    a = document(s, [El(10, "#document"), El(11, "BUTTON", box=(4, 8, 40, 20))], frame="A")
    b = document(s, [El(20, "#document"),
                     El(21, "IFRAME", box=(10, 10, 100, 100), client=(0, 0, 100, 100),
                        content_doc=1)], frame="B")  # fmt: skip
    c = document(s, [El(30, "#document"),
                     El(31, "IFRAME", box=(20, 20, 60, 60), client=(0, 0, 60, 60),
                        content_doc=2)], frame="C", scroll_y=4)  # fmt: skip
    ax = FullAXTree(nodes=(node("1", "RootWebArea", bid=1, children=("f",)),
                           node("f", "Iframe", bid=2)))  # fmt: skip
    trees = {
        "C": FullAXTree(nodes=(node("c", "RootWebArea", bid=30, children=("cf",)),
                               node("cf", "Iframe", bid=31))),
        "B": FullAXTree(nodes=(node("b", "RootWebArea", bid=20, children=("bf",)),
                               node("bf", "Iframe", bid=21))),
        "A": FullAXTree(nodes=(node("a", "RootWebArea", bid=10, children=("x",)),
                               node("x", "button", name="Deep", bid=11))),
    }  # fmt: skip
    return ax, snapshot(s, top, a, b, c), trees


def test_nested_frames_are_placed_whatever_order_they_are_listed_in() -> None:
    ax, snap, trees = _nested()
    got = web_items(ax, snap, VIEW, frames=trees).items
    # C at (0, 40); B at C's (20, 20) less C's scroll 4: (20, 56); A at B's (10, 10): (30, 66)
    # the button at A's (4, 8): (34, 74, 40, 20) -> device
    assert got == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "Iframe", 2, bounds=(0, 200, 1000, 950)),
        item(1, "Iframe", 31, bounds=(50, 240, 200, 390)),
        item(2, "Iframe", 21, bounds=(75, 265, 325, 515)),
        item(3, "button", 11, name="Deep", bounds=(85, 285, 185, 335)),
    )


def test_an_element_outside_an_inner_frames_clip_is_not_visible() -> None:
    ax, snap, trees = _nested()
    # the deep button moved to A's (4, 90): inside the WebView and inside A's own box, but
    # below what C's box (60 high) leaves of it: A's clip is the frames' common box
    s = Strings(list(snap.strings))
    a = document(s, [El(10, "#document"), El(11, "BUTTON", box=(4, 90, 40, 20))], frame="A")
    moved = DomSnapshot(
        documents=(snap.documents[0], a, *snap.documents[2:]), strings=tuple(s.table)
    )
    got = web_items(ax, moved, VIEW, frames=trees).items
    assert got[-1] == item(3, "button", 11, name="Deep", bounds=(85, 490, 185, 540),
                           visible=False)  # fmt: skip


def _many(count: int) -> tuple[FullAXTree, DomSnapshot, dict[str, FullAXTree]]:
    s = Strings()
    owners = [El(100 + i, "IFRAME", box=(0, 40 + 20 * i, 100, 20), client=(0, 0, 100, 20),
                 content_doc=i + 1) for i in range(count)]  # fmt: skip
    docs = [
        document(s, [El(1000 + i, "#document"), El(2000 + i, "BUTTON", box=(0, 0, 10, 10))],
                 frame=f"F{i}")
        for i in range(count)
    ]  # fmt: skip
    ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=1, children=tuple(f"f{i}" for i in range(count))),
            *(node(f"f{i}", "Iframe", bid=100 + i) for i in range(count)),
        )
    )
    trees = {
        f"F{i}": FullAXTree(nodes=(node("x", "RootWebArea", bid=1000 + i, children=("b",)),
                                   node("b", "button", name=f"B{i}", bid=2000 + i)))
        for i in range(count)
    }  # fmt: skip
    return ax, snapshot(s, document(s, [El(1, "#document"), *owners]), *docs), trees


def test_at_most_max_frames_frames_are_read() -> None:
    assert MAX_FRAMES == 8
    ax, snap, trees = _many(MAX_FRAMES + 2)
    got = web_items(ax, snap, VIEW, frames=trees).items
    buttons = [it.name for it in got if it.role == "button"]
    assert buttons == [f"B{i}" for i in range(MAX_FRAMES)]
    assert [it.role for it in got].count("Iframe") == MAX_FRAMES + 2
    # each frame's button where its frame is: frame i's top is 40 + 20 i CSS px
    assert [it.bounds for it in got if it.role == "button"] == [
        (0, 200 + 50 * i, 25, 225 + 50 * i) for i in range(MAX_FRAMES)
    ]


def _remote_page(scroll_y: float = 0, content_height: float = 50) -> tuple[
    FullAXTree, DomSnapshot, FullAXTree, DomSnapshot
]:  # fmt: skip
    s = Strings()
    top = document(
        s,
        [
            El(1, "#document"),
            El(3, "IFRAME", box=(10, 300, 200, 100), client=(2, 4, 196, 94)),
            El(4, "FRAME", box=(10, 500, 200, 100)),
        ],
    )
    ax = FullAXTree(
        nodes=(
            node("1", "RootWebArea", bid=1, children=("f", "g")),
            node("f", "Iframe", bid=3),
            node("g", "Iframe", bid=4),
        )
    )
    r = Strings()
    other = document(
        r,
        [El(5, "#document"), El(6, "BUTTON", (("id", "r"),), box=(0, 10, 50, 20))],
        scroll_y=scroll_y,
        content_height=content_height,
    )
    other_ax = FullAXTree(
        nodes=(
            node("a", "RootWebArea", name="Remote page", bid=5, children=("b",)),
            node("b", "button", name="Remote", bid=6),
            node("c", "StaticText", name="no id"),
        )
    )
    return ax, snapshot(s, top), other_ax, snapshot(r, other)


def test_shifted_moves_every_dom_node_id_and_nothing_else() -> None:
    _, _, other_ax, other = _remote_page()
    tree, snap = shifted(other_ax, other, 3 * REMOTE_SHIFT)
    assert [n.backendDOMNodeId for n in tree.nodes] == [3 * REMOTE_SHIFT + 5,
                                                        3 * REMOTE_SHIFT + 6, None]  # fmt: skip
    assert [n.nodeId for n in tree.nodes] == ["a", "b", "c"]
    assert tree.nodes[1].name == other_ax.nodes[1].name
    assert snap.documents[0].nodes.backendNodeId == (3 * REMOTE_SHIFT + 5, 3 * REMOTE_SHIFT + 6)
    assert snap.documents[0].layout == other.documents[0].layout
    assert snap.documents[0].nodes.attributes == other.documents[0].nodes.attributes
    assert snap.strings == other.strings


def test_a_cross_process_frame_goes_under_its_owner_in_the_owners_client_box() -> None:
    ax, snap, other_ax, other = _remote_page()
    tree, moved = shifted(other_ax, other, REMOTE_SHIFT)
    got = web_items(ax, snap, VIEW, remote={3: (tree, moved)})
    # the owner's client box starts at (10 + 2, 300 + 4); the button at its (0, 10)
    assert got.items == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "Iframe", 3, bounds=(25, 850, 525, 1100)),
        item(1, "button", REMOTE_SHIFT + 6, html_id="r", name="Remote",
             bounds=(30, 885, 155, 935)),
        item(0, "Iframe", 4, bounds=(25, 1350, 525, 1600), visible=False),
    )  # fmt: skip


def test_a_scrolled_taller_cross_process_frame_scrolls_and_clips() -> None:
    ax, snap, other_ax, other = _remote_page(scroll_y=8, content_height=95.5)
    got = web_items(ax, snap, VIEW, remote={3: (other_ax, other)}).items
    assert got[1] == item(0, "Iframe", 3, bounds=(25, 850, 525, 1100), scrollable=True)
    assert got[2] == item(1, "button", 6, html_id="r", name="Remote", bounds=(30, 865, 155, 915))
    # a FRAME owner without client rects: its whole box; the button below it is cut
    four = web_items(ax, snap, VIEW, remote={4: (other_ax, other)}).items
    assert four[2] == item(0, "Iframe", 4, bounds=(25, 1350, 525, 1600), visible=False,
                           scrollable=False)  # fmt: skip
    assert four[3] == item(2, "button", 6, html_id="r", name="Remote",
                           bounds=(25, 1355, 150, 1405), visible=False)  # fmt: skip


def test_a_cross_process_frame_without_an_owner_box_or_documents_is_skipped() -> None:
    ax, snap, other_ax, other = _remote_page()
    empty = DomSnapshot(documents=(), strings=())
    for remote in ({3: (other_ax, empty)}, {9: (other_ax, other)}):
        got = web_items(ax, snap, VIEW, remote=remote).items
        assert [it.role for it in got] == ["RootWebArea", "Iframe", "Iframe"]


def test_at_most_max_frames_cross_process_frames_are_read() -> None:
    s = Strings()
    count = MAX_FRAMES + 1
    owners = [El(10 + i, "IFRAME", box=(0, 40 + 20 * i, 100, 20)) for i in range(count)]
    top = document(s, [El(1, "#document"), *owners])
    frames = tuple(node(f"f{i}", "Iframe", bid=10 + i) for i in range(count))
    root = node("r", "RootWebArea", bid=1, children=tuple(f"f{i}" for i in range(count)))
    ax = FullAXTree(nodes=(root, *frames))
    remote = {}
    for i in range(count):
        r = Strings()
        shift = (i + 1) * REMOTE_SHIFT
        other = snapshot(r, document(r, [El(5, "#document"), El(6, "BUTTON", box=(0, 0, 10, 10))]))
        tree = FullAXTree(nodes=(node("a", "RootWebArea", bid=5, children=("b",)),
                                 node("b", "button", name=f"B{i}", bid=6)))  # fmt: skip
        remote[10 + i] = shifted(tree, other, shift)
    got = web_items(ax, snapshot(s, top), VIEW, remote=remote).items
    assert [it.name for it in got if it.role == "button"] == [f"B{i}" for i in range(MAX_FRAMES)]
    assert [it.bounds for it in got if it.role == "button"] == [
        (0, 200 + 50 * i, 25, 225 + 50 * i) for i in range(MAX_FRAMES)
    ]


def test_a_frames_tree_is_walked_in_its_own_nodes_to_any_depth() -> None:
    ax, snap, _ = framed()
    named = FullAXTree(nodes=(ax.nodes[0], node("f", "Iframe", name="Ad", bid=2)))
    # node ids that the top tree also has, meaning other nodes there
    frame_ax = FullAXTree(
        nodes=(
            node("r", "RootWebArea", bid=100, children=("1", "t")),
            node("1", "generic", children=("f",)),
            node("f", "list", name="Offers", children=("g",)),
            node("g", "listitem", name="One", bid=101, children=("h",)),
            node("h", "generic", children=("k",)),
            node("k", "link", name="Deep link"),
            node("t", "StaticText", name="Ad"),  # repeats its frame's name: dropped
        )
    )
    got = web_items(named, snap, VIEW, frames={"F1": frame_ax}).items
    assert got == (
        FRAME_ITEMS[0],
        replace(FRAME_ITEMS[1], name="Ad"),
        item(1, "list", None, name="Offers"),
        item(2, "listitem", 101, html_id="inframe", name="One", bounds=(30, 385, 155, 435)),
        item(3, "link", None, name="Deep link"),
    )


def test_a_frames_document_counts_towards_the_depth_cap() -> None:
    _, snap, frame_ax = framed()

    def at_depth(depth: int) -> FullAXTree:
        # the Iframe at ``depth``: its document's elements one deeper
        chain = [node(f"l{i}", "list", name=f"d{i}", children=(f"l{i + 1}",))
                 for i in range(1, depth)]  # fmt: skip
        return FullAXTree(nodes=(node("1", "RootWebArea", name="Top", bid=1, children=("l1",)),
                                 *chain, node(f"l{depth}", "Iframe", bid=2)))  # fmt: skip

    def roles(depth: int) -> list[str]:
        got = web_items(at_depth(depth), snap, VIEW, frames={"F1": frame_ax}).items
        return [it.role for it in got if it.role not in ("list", "RootWebArea")]

    assert roles(MAX_DEPTH - 1) == ["Iframe", "button", "link", "textbox"]
    assert roles(MAX_DEPTH) == ["Iframe"]


def test_frames_past_the_cap_are_not_read_whatever_the_order_of_their_trees() -> None:
    ax, snap, trees = _many(MAX_FRAMES + 2)
    backwards = dict(reversed(list(trees.items())))  # F9, F8, ... : the first 8 are read
    got = web_items(ax, snap, VIEW, frames=backwards).items
    # F8 and F9 have trees but their documents are past the cap; F0 and F1 have documents
    # but their trees are past it
    assert [it.name for it in got if it.role == "button"] == [f"B{i}" for i in range(2, 8)]


def _remote_in(owner_client: tuple[float, ...] | None) -> tuple[FullAXTree, DomSnapshot]:
    """A top page with a cross-process frame owner (bid 3, an IFRAME at (10, 300) CSS px,
    200 x 100, with ``owner_client`` as its client rect or none)."""
    s = Strings()
    top = document(s, [El(1, "#document"),
                       El(3, "IFRAME", box=(10, 300, 200, 100),
                          client=owner_client if owner_client is not None else ())])  # fmt: skip
    ax = FullAXTree(nodes=(node("1", "RootWebArea", bid=1, children=("f",)),
                           node("f", "Iframe", bid=3)))  # fmt: skip
    return ax, snapshot(s, top)


def _remote_doc(*, scroll_x: float = 0, scroll_y: float = 0,
                content_height: float = 50) -> tuple[FullAXTree, DomSnapshot]:  # fmt: skip
    """The frame's page: a button at its (0, 10), another at (100, 10), 50 x 20 each."""
    r = Strings()
    doc = document(
        r,
        [El(5, "#document"), El(6, "BUTTON", box=(0, 10, 50, 20)),
         El(7, "BUTTON", (("id", "far"),), box=(100, 10, 50, 20))],
        scroll_x=scroll_x, scroll_y=scroll_y, content_height=content_height,
    )  # fmt: skip
    snap = snapshot(r, doc)
    # an attribute whose value is past the string table: it reads as ""
    attrs = (*doc.nodes.attributes[:2], (r("id"), len(r.table)))
    odd = DomSnapshot(documents=(replace_doc_attrs(doc, attrs),), strings=snap.strings)
    tree = FullAXTree(nodes=(node("a", "RootWebArea", bid=5, children=("b", "c")),
                             node("b", "button", name="Near", bid=6),
                             node("c", "button", name="Far", bid=7)))  # fmt: skip
    return tree, odd


def replace_doc_attrs(
    doc: SnapshotDocument, attrs: tuple[tuple[int, ...], ...]
) -> SnapshotDocument:
    return msgspec.structs.replace(doc, nodes=msgspec.structs.replace(doc.nodes, attributes=attrs))


def test_a_cross_process_frame_is_clipped_to_its_owners_client_box() -> None:
    ax, snap = _remote_in((2, 4, 100, 94))
    tree, other = _remote_doc(scroll_x=6, scroll_y=2)
    got = web_items(ax, snap, VIEW, remote={3: (tree, other)}).items
    # the client box: (12, 304) 100 x 94; the page scrolled by (6, 2): "Far" at x 106..156
    # is just inside it (12 + 100); unscrolled, at 112.., it is not
    assert got == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "Iframe", 3, bounds=(25, 850, 525, 1100)),
        item(1, "button", 6, name="Near", bounds=(15, 880, 140, 930)),
        item(1, "button", 7, name="Far", bounds=(265, 880, 390, 930)),
    )
    tree, other = _remote_doc(scroll_x=0, scroll_y=2)
    got = web_items(ax, snap, VIEW, remote={3: (tree, other)}).items
    assert got[3] == item(1, "button", 7, name="Far", bounds=(280, 880, 405, 930), visible=False)


def test_a_cross_process_frame_owner_without_a_client_rect_shows_it_in_its_whole_box() -> None:
    # the whole box is 200 wide: "Far" at 110..160 is inside it
    ax, snap = _remote_in(None)
    tree, other = _remote_doc()
    got = web_items(ax, snap, VIEW, remote={3: (tree, other)}).items
    assert got[2:] == (
        item(1, "button", 6, name="Near", bounds=(25, 875, 150, 925)),
        item(1, "button", 7, name="Far", bounds=(275, 875, 400, 925)),
    )
    # the client rects stop before the owner: the same
    short = msgspec.structs.replace(
        snap.documents[0],
        layout=msgspec.structs.replace(snap.documents[0].layout, clientRects=()),
    )
    again = web_items(ax, DomSnapshot(documents=(short,), strings=snap.strings), VIEW,
                      remote={3: (tree, other)}).items  # fmt: skip
    assert again == got


def test_a_cross_process_frame_scrolls_when_taller_than_its_owners_client_box() -> None:
    ax, snap = _remote_in((2, 4, 196, 94))
    for height, scrolls in ((95, False), (95.5, True)):
        tree, other = _remote_doc(content_height=height)
        got = web_items(ax, snap, VIEW, remote={3: (tree, other)}).items
        assert got[1].scrollable is scrolls


def test_cross_process_frames_that_cannot_be_placed_do_not_stop_the_others() -> None:
    ax, snap = _remote_in((2, 4, 196, 94))
    tree, other = _remote_doc()
    got = web_items(ax, snap, VIEW, remote={9: (tree, other), 3: (tree, other)}).items
    assert [it.name for it in got] == [None, None, "Near", "Far"]


def test_a_cross_process_frame_inside_a_frame_is_placed_and_clipped_by_both() -> None:
    s = Strings()
    top = document(s, [El(1, "#document"),
                       El(2, "IFRAME", box=(10, 100, 200, 100), client=(2, 4, 196, 94),
                          content_doc=1)])  # fmt: skip
    # in the frame: the remote frame's owner at the frame's (20, 30), 150 x 100 (taller than
    # the frame shows: the frame's box cuts it)
    inner = document(s, [El(100, "#document"),
                         El(101, "IFRAME", box=(20, 30, 150, 100), client=(2, 2, 140, 90))],
                     frame="F1", scroll_x=4, scroll_y=6)  # fmt: skip
    ax = FullAXTree(nodes=(node("1", "RootWebArea", bid=1, children=("f",)),
                           node("f", "Iframe", bid=2)))  # fmt: skip
    frame_ax = FullAXTree(nodes=(node("r", "RootWebArea", bid=100, children=("o",)),
                                 node("o", "Iframe", bid=101)))  # fmt: skip
    r = Strings()
    rdoc = document(r, [El(5, "#document"), El(6, "BUTTON", box=(0, 10, 50, 20)),
                        El(7, "BUTTON", box=(0, 70, 50, 20))])  # fmt: skip
    tree = FullAXTree(nodes=(node("a", "RootWebArea", bid=5, children=("b", "c")),
                             node("b", "button", name="Seen", bid=6),
                             node("c", "button", name="Cut", bid=7)))  # fmt: skip
    got = web_items(ax, snapshot(s, top, inner), VIEW, frames={"F1": frame_ax},
                    remote={101: (tree, snapshot(r, rdoc))}).items  # fmt: skip
    # the frame's document at (12 - 4, 104 - 6); the owner's client box at
    # (8 + 20 + 2, 98 + 30 + 2) = (30, 130), 140 x 90; clipped by the frame's box
    # (12, 104) 196 x 94 to (30, 130) 140 x 68: "Cut" at 200 is below it
    assert got == (
        item(-1, "RootWebArea", 1, bounds=BOX),
        item(0, "Iframe", 2, bounds=(25, 350, 525, 600)),
        item(1, "Iframe", 101, bounds=(70, 420, 445, 670)),
        item(2, "button", 6, name="Seen", bounds=(75, 450, 200, 500)),
        item(2, "button", 7, name="Cut", bounds=(75, 600, 200, 650), visible=False),
    )
