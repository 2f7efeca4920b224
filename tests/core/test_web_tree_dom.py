"""What ``web_tree`` reads from a DOM snapshot (``_dom_facts``): boxes, ids, password inputs,
placeholders, scrolling boxes and frames, each compared whole, including CDP's ragged
edges (short or missing per-layout lists, string indexes out of range, boxes of the wrong
length, a node laid out twice)."""

from __future__ import annotations

from bridge.core.web_tree import _clip, _Dom, _dom_facts
from bridge.wire.cdp import (
    DomSnapshot,
    RareInteger,
    SnapshotDocument,
    SnapshotLayout,
    SnapshotNodes,
)

STRINGS = (
    "DIV", "id", "a", "type", "PASSWORD", "placeholder", "Type here", "", "auto", "hidden",
    "scroll", "IFRAME", "F1", "password", "b", "FRAME",
)  # fmt: skip
DIV, ID, A, TYPE, PASSWORD, PLACEHOLDER, HERE, EMPTY, AUTO, HIDDEN = range(10)
SCROLL, IFRAME, F1, LOWER_PASSWORD, B, FRAME = range(10, 16)


def test_boxes_ids_passwords_placeholders_and_scrollers_of_one_document() -> None:
    doc = SnapshotDocument(
        nodes=SnapshotNodes(
            backendNodeId=(10, 11, 12, 13, 14, 15, 16),
            nodeName=(DIV,) * 7,
            attributes=(
                (ID, A, PLACEHOLDER, HERE),
                (TYPE, PASSWORD, ID, EMPTY, PLACEHOLDER, EMPTY),
                (TYPE, LOWER_PASSWORD, 99, B),
                (ID,),
                (),
                (ID, B),
                (ID, HERE),
                (ID, B),  # beyond the nodes: ignored
            ),
        ),
        layout=SnapshotLayout(
            nodeIndex=(0, 1, 2, 3, 4, 5, 6, 0, 7, -1),
            bounds=(
                (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (1, 1, 1), (13, 14, 15, 16),
                (17, 18, 19, 20), (21, 22, 23, 24), (99, 99, 99, 99), (0, 0, 1, 1), (0, 0, 1, 1),
            ),
            styles=((AUTO,), (SCROLL,), (HIDDEN,), (AUTO,), (), (AUTO,), (AUTO,), (AUTO,)),
            scrollRects=((0, 0, 10, 102), (0, 0, 10, 101), (0, 0, 10, 500), (0, 0, 10, 500),
                         (0, 0, 10, 500), (0, 0, 10, 500), (0, 0, 500)),
            clientRects=((0, 0, 10, 100), (0, 0, 10, 100), (0, 0, 10, 100), (0, 0, 10, 100),
                         (0, 0, 10, 100), (0, 0, 10)),
        ),
    )  # fmt: skip
    dom = _dom_facts(DomSnapshot(documents=(doc,), strings=STRINGS))
    assert dom == _Dom(
        boxes={
            10: (1, 2, 3, 4),
            11: (5, 6, 7, 8),
            12: (9, 10, 11, 12),
            14: (13, 14, 15, 16),
            15: (17, 18, 19, 20),
            16: (21, 22, 23, 24),
        },
        ids={10: "a", 15: "b", 16: "Type here"},
        passwords=frozenset({11, 12}),
        placeholders={10: "Type here"},
        # 10: 102 > 100 + 1; 11: 101 is within a pixel; 12: overflow hidden; 13: no box
        # (three numbers) yet it scrolls all the same; 14: no style; 15: no whole client
        # rect; 16: no whole scroll rect
        scrollers=frozenset({10, 13}),
    )


def test_long_ids_and_placeholders_are_capped() -> None:
    strings = ("id", "i" * 300, "placeholder", "p" * 1500)
    doc = SnapshotDocument(
        nodes=SnapshotNodes(backendNodeId=(1,), attributes=((0, 1, 2, 3),), nodeName=(9,))
    )
    dom = _dom_facts(DomSnapshot(documents=(doc,), strings=strings))
    assert dom == _Dom(boxes={}, ids={1: "i" * 200}, passwords=frozenset(),
                       placeholders={1: "p" * 1000})  # fmt: skip


def _framed(
    owner_client: tuple[float, ...], child: int = 1, owner_index: int = 1, frame_id: int = F1
) -> DomSnapshot:
    top = SnapshotDocument(
        nodes=SnapshotNodes(
            backendNodeId=(1, 2),
            nodeName=(DIV, IFRAME),
            contentDocumentIndex=RareInteger(index=(owner_index,), value=(child,)),
        ),
        layout=SnapshotLayout(
            nodeIndex=(0, 1),
            bounds=((0, 0, 400, 1000), (10, 100, 200, 100)),
            clientRects=((0, 0, 400, 1000), owner_client),
        ),
    )
    inner = SnapshotDocument(
        frameId=frame_id,
        nodes=SnapshotNodes(backendNodeId=(50, 51), nodeName=(DIV, DIV)),
        layout=SnapshotLayout(nodeIndex=(1,), bounds=((5, 6, 7, 8),)),
        scrollOffsetX=3,
        scrollOffsetY=4,
        contentHeight=100,
    )
    return DomSnapshot(documents=(top, inner), strings=STRINGS)


def test_a_frames_boxes_are_moved_by_its_owners_client_box_less_its_scroll() -> None:
    dom = _dom_facts(_framed((2, 4, 196, 94)))
    clip = (12, 104, 196, 94)
    assert dom == _Dom(
        boxes={1: (0, 0, 400, 1000), 2: (10, 100, 200, 100), 51: (5 + 12 - 3, 6 + 104 - 4, 7, 8)},
        ids={},
        passwords=frozenset(),
        placeholders={},
        frames={2: "F1"},
        clips={51: clip},
        frame_scrolls=frozenset({2}),  # 100 > 94 + 1
    )


def test_an_owner_without_a_client_rect_shows_its_frame_in_its_whole_box() -> None:
    dom = _dom_facts(_framed(()))
    assert dom.boxes[51] == (5 + 10 - 3, 6 + 100 - 4, 7, 8)
    assert dom.clips == {51: (10, 100, 200, 100)}
    assert dom.frame_scrolls == frozenset()  # 100 is not > 100 + 1
    assert _dom_facts(_framed((2, 4, 196, 99))).frame_scrolls == frozenset()
    assert _dom_facts(_framed((2, 4, 196, 98.5))).frame_scrolls == frozenset({2})


def test_frames_that_do_not_resolve_are_left_out() -> None:
    plain = _Dom(boxes={1: (0, 0, 400, 1000), 2: (10, 100, 200, 100)}, ids={},
                 passwords=frozenset(), placeholders={})  # fmt: skip
    # a document index that is the top one, or past the list; an owner with no layout
    for child, owner in ((0, 1), (2, 1), (-1, 1), (1, 0), (1, 5)):
        dom = _dom_facts(_framed((2, 4, 196, 94), child=child, owner_index=owner))
        if owner == 0:  # the layout box of node 0 is found: it owns the frame
            assert dom.frames == {1: "F1"} and 51 in dom.boxes
        else:
            assert dom == plain, (child, owner)
    # a frame id out of the string table reads as ""
    assert _dom_facts(_framed((2, 4, 196, 94), frame_id=-1)).frames == {2: ""}
    assert _dom_facts(_framed((2, 4, 196, 94), frame_id=99)).frames == {2: ""}


def test_an_owner_whose_node_is_missing_still_places_its_frame() -> None:
    snap = _framed((2, 4, 196, 94))
    top = snap.documents[0]
    short = SnapshotDocument(
        nodes=SnapshotNodes(backendNodeId=(1,), nodeName=(DIV,),
                            contentDocumentIndex=top.nodes.contentDocumentIndex),
        layout=top.layout,
    )  # fmt: skip
    dom = _dom_facts(DomSnapshot(documents=(short, snap.documents[1]), strings=STRINGS))
    assert dom.frames == {} and dom.frame_scrolls == frozenset()
    assert dom.boxes == {1: (0, 0, 400, 1000), 51: (14, 106, 7, 8)}
    assert dom.clips == {51: (12, 104, 196, 94)}


def test_attributes_are_read_in_name_value_pairs_and_missing_strings_are_empty() -> None:
    doc = SnapshotDocument(
        nodes=SnapshotNodes(
            backendNodeId=(1, 2),
            nodeName=(),  # no names at all: nobody is a frame owner
            attributes=((PLACEHOLDER, ID, TYPE, B), (ID, 99, PLACEHOLDER, len(STRINGS))),
        ),
        layout=SnapshotLayout(nodeIndex=(0,), bounds=((1, 2, 3, 4),)),
    )
    dom = _dom_facts(DomSnapshot(documents=(doc,), strings=STRINGS))
    assert dom == _Dom(boxes={1: (1, 2, 3, 4)}, ids={}, passwords=frozenset(),
                       placeholders={1: "id"})  # fmt: skip


def test_scrolling_styles_of_nodes_out_of_range_are_ignored() -> None:
    doc = SnapshotDocument(
        nodes=SnapshotNodes(backendNodeId=(1,), nodeName=(DIV,)),
        layout=SnapshotLayout(
            nodeIndex=(1, -1, 5),
            bounds=((0, 0, 1, 1),) * 3,
            styles=((AUTO,),) * 3,
            scrollRects=((0, 0, 10, 500),) * 3,
            clientRects=((0, 0, 10, 100),) * 3,
        ),
    )
    dom = _dom_facts(DomSnapshot(documents=(doc,), strings=STRINGS))
    assert dom == _Dom(boxes={}, ids={}, passwords=frozenset(), placeholders={})


def test_a_frame_owner_without_bounds_or_client_rects_in_the_lists() -> None:
    snap = _framed((2, 4, 196, 94))
    top = snap.documents[0]
    # the owner is laid out, but the bounds list stops before it: its frame is not placed
    cut = SnapshotLayout(nodeIndex=(0, 1), bounds=((0, 0, 400, 1000),))
    no_bounds = DomSnapshot(
        documents=(SnapshotDocument(nodes=top.nodes, layout=cut), snap.documents[1]),
        strings=STRINGS,
    )
    assert _dom_facts(no_bounds) == _Dom(boxes={1: (0, 0, 400, 1000)}, ids={},
                                         passwords=frozenset(), placeholders={})  # fmt: skip
    # the client rects stop before it: its frame fills its whole box
    short = SnapshotLayout(nodeIndex=(0, 1), bounds=top.layout.bounds,
                           clientRects=((0, 0, 400, 1000),))  # fmt: skip
    dom = _dom_facts(
        DomSnapshot(
            documents=(SnapshotDocument(nodes=top.nodes, layout=short), snap.documents[1]),
            strings=STRINGS,
        )
    )
    assert dom.boxes[51] == (5 + 10 - 3, 6 + 100 - 4, 7, 8)
    assert dom.clips == {51: (10, 100, 200, 100)} and dom.frames == {2: "F1"}


def test_frame_entries_that_do_not_resolve_do_not_stop_the_others() -> None:
    # two frame owners: the first names no document; the second is the frame; the rare
    # lists are of different lengths (CDP pairs them by position)
    top = SnapshotDocument(
        nodes=SnapshotNodes(
            backendNodeId=(1, 2, 3),
            nodeName=(DIV, IFRAME, IFRAME),
            contentDocumentIndex=RareInteger(index=(1, 2, 0), value=(7, 1)),
        ),
        layout=SnapshotLayout(nodeIndex=(1, 2), bounds=((0, 0, 50, 50), (10, 100, 200, 100))),
    )
    inner = SnapshotDocument(
        frameId=F1, nodes=SnapshotNodes(backendNodeId=(50,)),
        layout=SnapshotLayout(nodeIndex=(0,), bounds=((1, 1, 1, 1),)),
    )  # fmt: skip
    dom = _dom_facts(DomSnapshot(documents=(top, inner), strings=STRINGS))
    assert dom.frames == {3: "F1"} and dom.boxes[50] == (11, 101, 1, 1)


def test_a_leaf_frame_listed_first_does_not_stop_a_later_frames_children() -> None:
    # top > [leaf frame 1, frame 2 > frame 3]
    def owner_doc(bids: tuple[int, ...], children: tuple[int, ...], frame: int) -> SnapshotDocument:
        return SnapshotDocument(
            frameId=frame,
            nodes=SnapshotNodes(
                backendNodeId=bids,
                nodeName=(IFRAME,) * len(bids),
                contentDocumentIndex=RareInteger(index=tuple(range(len(children))),
                                                 value=children),
            ),
            layout=SnapshotLayout(nodeIndex=tuple(range(len(bids))),
                                  bounds=tuple((0, 10 * i, 5, 5) for i in range(len(bids)))),
        )  # fmt: skip

    docs = (
        owner_doc((1, 2), (1, 2), -1),
        owner_doc((10,), (), F1),
        owner_doc((20,), (3,), B),
        owner_doc((30,), (), F1),
    )
    dom = _dom_facts(DomSnapshot(documents=docs, strings=STRINGS))
    assert dom.frames == {1: "F1", 2: "b", 20: "F1"}
    assert dom.boxes[30] == (0, 10, 5, 5)


def test_frames_past_the_cap_are_not_read() -> None:
    count = 10
    top = SnapshotDocument(
        nodes=SnapshotNodes(
            backendNodeId=tuple(range(100, 100 + count)),
            nodeName=(IFRAME,) * count,
            contentDocumentIndex=RareInteger(index=tuple(range(count)),
                                             value=tuple(range(1, count + 1))),
        ),
        layout=SnapshotLayout(nodeIndex=tuple(range(count)),
                              bounds=tuple((0, 10 * i, 5, 5) for i in range(count))),
    )  # fmt: skip
    frames = tuple(
        SnapshotDocument(frameId=F1, nodes=SnapshotNodes(backendNodeId=(200 + i,)),
                         layout=SnapshotLayout(nodeIndex=(0,), bounds=((0, 0, 1, 1),)))
        for i in range(count)
    )  # fmt: skip
    dom = _dom_facts(DomSnapshot(documents=(top, *frames), strings=STRINGS))
    assert sorted(dom.frames) == list(range(100, 108))
    assert sorted(b for b in dom.boxes if b >= 200) == list(range(200, 208))


def test_clips_intersect() -> None:
    assert _clip(None, (1, 2, 3, 4)) == (1, 2, 3, 4)
    # a inside b on one side, b inside a on the other, every coordinate different
    assert _clip((10, 20, 30, 40), (15, 5, 100, 200)) == (15, 20, 25, 40)
    assert _clip((0, 0, 1000, 1000), (15, 5, 100, 200)) == (15, 5, 100, 200)
    assert _clip((15, 5, 100, 200), (0, 0, 1000, 1000)) == (15, 5, 100, 200)
    assert _clip((2, 30, 50, 9), (7, 1, 8, 100)) == (7, 30, 8, 9)
    # no overlap: an empty box where the later one starts
    assert _clip((0, 0, 10, 10), (20, 30, 5, 5)) == (20, 30, 0.0, 0.0)
    assert _clip((0, 0, 10, 10), (5, 30, 5, 5)) == (5, 30, 5, 0.0)
    assert _clip((0, 0, 10, 10), (30, 5, 5, 5)) == (30, 5, 0.0, 5)
