"""Node ids: an element that stays in place while its text changes keeps its id.

A list row without a unique id used to get new ids (for itself and its children) when one of
its texts changed, because the row's name is part of its identity; the delta then held the
whole row twice (removed and upserted). Now the row keeps its ids and the delta is the one
changed text (and the row's derived label). Ids are still never given to another element: a
list whose every row changes at once (scrolled, refilled) gets new ids, and so does a look-alike
when several identical rows change in number.
"""

from __future__ import annotations

import msgspec

from bridge.bench.hub_screens import raw_tree, screen_nodes
from bridge.core.identity import IdAllocator
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.patch import patch
from bridge.wire.raw import RawNode, RawTree


def _norm(tree: RawTree, ids: IdAllocator, sid: str) -> Normalized:
    out = normalize(tree, SnapshotContext("dev", sid, 0), ids)
    assert isinstance(out, Normalized)
    return out


def _rows(nodes: tuple[RawNode, ...]) -> list[int]:
    return [i for i, n in enumerate(nodes) if (n.automation_id or "").endswith(":id/row")]


def test_a_list_row_whose_text_changes_keeps_its_ids() -> None:
    nodes = screen_nodes(60)
    ids = IdAllocator()
    before = _norm(raw_tree(nodes, 1), ids, "s_1")
    detail = _rows(nodes)[3] + 2  # the row's detail text
    edited = list(nodes)
    edited[detail] = msgspec.structs.replace(nodes[detail], text="9 items, on the way")
    after = _norm(raw_tree(tuple(edited), 2), ids, "s_2")
    assert [n.node_id for n in before.full.nodes] == [n.node_id for n in after.full.nodes]
    body = patch(before.full, after.full)
    assert body.remove == () and body.order == {}
    changed = {n.node_id: n for n in body.upsert}
    assert len(changed) == 2, "the text and the row (its label is made of its texts)"
    assert any(n.text == "9 items, on the way" for n in changed.values())
    assert len(msgspec.json.encode(patch(before.compact, after.compact).upsert)) < 700


def test_a_text_without_an_id_keeps_its_id_when_it_changes() -> None:
    nodes = screen_nodes(60)
    heading = next(i for i, n in enumerate(nodes) if n.text == "Bench orders")
    ids = IdAllocator()
    before = _norm(raw_tree(nodes, 1), ids, "s_1")
    edited = list(nodes)
    edited[heading] = msgspec.structs.replace(nodes[heading], text="Your orders")
    after = _norm(raw_tree(tuple(edited), 2), ids, "s_2")
    assert before.full.nodes[heading].node_id == after.full.nodes[heading].node_id
    assert patch(before.full, after.full).upsert == (after.full.nodes[heading],)


def test_a_list_whose_rows_all_change_gets_new_ids() -> None:
    nodes = screen_nodes(60)
    ids = IdAllocator()
    before = _norm(raw_tree(nodes, 1), ids, "s_1")
    edited = list(nodes)
    for row in _rows(nodes):
        title = row + 1
        edited[title] = msgspec.structs.replace(nodes[title], text=f"Order {nodes[title].text}9")
    after = _norm(raw_tree(tuple(edited), 2), ids, "s_2")
    rows_before = {before.full.nodes[i].node_id for i in _rows(nodes)}
    rows_after = {after.full.nodes[i].node_id for i in _rows(nodes)}
    assert not rows_before & rows_after, "a refilled list: every row is another item"


def test_look_alikes_changing_in_number_get_new_ids() -> None:
    base = screen_nodes(60)
    row = _rows(base)[0]
    # three identical rows (no unique ids, same texts), then one of them goes
    same = [msgspec.structs.replace(n, text="Same") if n.text else n for n in base]
    ids = IdAllocator()
    first = _norm(raw_tree(tuple(same), 1), ids, "s_1")
    keep = [i for i in range(len(same)) if not row <= i < row + 4]
    index = {old: new for new, old in enumerate(keep)}
    fewer = tuple(
        msgspec.structs.replace(
            same[i], parent=index[same[i].parent] if same[i].parent >= 0 else -1
        )
        for i in keep
    )
    second = _norm(raw_tree(fewer, 2), ids, "s_2")
    rows_first = [first.full.nodes[i].node_id for i in _rows(tuple(same))]
    rows_second = [second.full.nodes[i].node_id for i in _rows(fewer)]
    assert not set(rows_first) & set(rows_second), "which one went cannot be told: new ids"
