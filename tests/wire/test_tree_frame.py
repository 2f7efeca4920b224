"""``TreeFrameDecoder`` gives what ``AGENT_TO_HUB`` gives, frame after frame, while reusing
the unchanged nodes of the last whole tree (issue 41: whole trees without intermediate
objects)."""

from __future__ import annotations

import msgspec
import pytest

from bridge.bench.hub_screens import COUNT_INDEX, raw_tree, screen_nodes, with_count
from bridge.wire.agent_link import AgentStatus, Reply, TreePush
from bridge.wire.codec import AGENT_TO_HUB, DecodeFailure, encode
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.tree_frame import RawTreeFrame, TreeFrameDecoder, TreePushFrame


def _push(nodes: tuple[RawNode, ...], capture: int, **tree: object) -> bytes:
    body = msgspec.structs.replace(raw_tree(nodes, capture), **tree)
    return encode(TreePush(reason="event", stable=True, tree=body, quiet_ms=capture))


def test_the_lazy_tree_has_the_raw_trees_fields() -> None:
    lazy = {f.encode_name: (f.default, f.required) for f in msgspec.structs.fields(RawTreeFrame)}
    full = {f.encode_name: (f.default, f.required) for f in msgspec.structs.fields(RawTree)}
    assert lazy == full
    push = {f.encode_name for f in msgspec.structs.fields(TreePushFrame)}
    assert push == {f.encode_name for f in msgspec.structs.fields(TreePush)}
    assert RawTreeFrame.__struct_config__.forbid_unknown_fields


def test_every_frame_decodes_as_the_whole_decoder_decodes_it() -> None:
    nodes = screen_nodes(200, 0)
    frames = [_push(nodes, 1)]
    frames.append(_push(with_count(nodes, 1), 2))  # one text
    frames.append(_push(with_count(nodes, 1), 3, package="other.app"))  # tree fields only
    fewer = nodes[:150]
    frames.append(_push(fewer, 4))  # another size
    moved = list(fewer)
    moved[20] = msgspec.structs.replace(moved[20], parent=0)  # a node under another parent
    frames.append(_push(tuple(moved), 5))
    frames.append(encode(AgentStatus(state="ready")))
    frames.append(encode(Reply(id=3, ok=True, tree=raw_tree(nodes, 6))))
    frames.append(_push(with_count(nodes, 9), 7, warnings=("cache not cleared",)))
    decoder = TreeFrameDecoder()
    for frame in frames:
        assert decoder.decode(frame) == AGENT_TO_HUB.decode(frame)


def test_unchanged_nodes_are_the_last_trees_objects_and_the_shape_is_known() -> None:
    decoder = TreeFrameDecoder()
    nodes = screen_nodes(300, 0)
    first = decoder.decode(_push(nodes, 1))
    second = decoder.decode(_push(with_count(nodes, 1), 2))
    assert isinstance(first, TreePush) and isinstance(second, TreePush)
    a, b = first.tree.nodes, second.tree.nodes
    differ = [i for i in range(len(a)) if a[i] is not b[i]]
    assert differ == [COUNT_INDEX]
    assert b[COUNT_INDEX].text == "Count 1"
    assert decoder.kept_shape(first.tree, second.tree)
    assert not decoder.kept_shape(second.tree, second.tree)  # not the tree decoded before
    moved = list(with_count(nodes, 1))
    moved[20] = msgspec.structs.replace(moved[20], parent=0)
    third = decoder.decode(_push(tuple(moved), 3))
    assert isinstance(third, TreePush)
    assert not decoder.kept_shape(second.tree, third.tree)


@pytest.mark.parametrize(
    "bad",
    [
        b'{"handle":7,"parent":0,"window":1,"text":5}',  # a field of the wrong type
        b'{"handle":7,"parent":0,"window":1,"nope":1}',  # an unknown field
        b"[1,2]",  # not an object
    ],
)
def test_a_bad_changed_node_fails_as_before_and_is_not_remembered(bad: bytes) -> None:
    decoder = TreeFrameDecoder()
    nodes = screen_nodes(40, 0)
    good = _push(nodes, 1)
    assert isinstance(decoder.decode(good), TreePush)
    start = good.index(b'{"handle":8,')
    end = good.index(b'{"handle":9,') - 1
    frame = good[:start] + bad + good[end:]
    failed = decoder.decode(frame)
    assert isinstance(failed, DecodeFailure)
    assert failed == AGENT_TO_HUB.decode(frame)
    again = decoder.decode(_push(with_count(nodes, 2), 2))
    assert isinstance(again, TreePush)
    assert again == AGENT_TO_HUB.decode(_push(with_count(nodes, 2), 2))
    assert not decoder.kept_shape(again.tree, again.tree)
