"""The slim (``patch`` event) body: applied by the client it rebuilds exactly what the classic
``delta`` rebuilds — on generated trees perturbed field by field and on every real dump."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.client.delta import Desync, apply_delta, apply_patch_event
from bridge.core.identity import IdAllocator
from bridge.core.patch import patch
from bridge.core.slim_patch import node_edit, slim
from bridge.wire.client_protocol import DeltaEvent, PatchEvent
from bridge.wire.codec import HUB_TO_CLIENT, WireFormat, encode
from bridge.wire.enums import ActionVerb, Platform, Role, Source
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.node_edit import META_EDIT_FIELDS, NODE_EDIT_FIELDS
from bridge.wire.snapshot import ScreenSnapshot
from tests.core.realdumps import dump_params, raw_of
from tests.core.test_patch import _norm, _perturb, snapshot, trees

POOL = list(range(1, 16))


def events(a: ScreenSnapshot, b: ScreenSnapshot) -> tuple[DeltaEvent, PatchEvent]:
    """The classic and the slim event the hub would send for ``a`` -> ``b``."""
    body = patch(a, b)
    part = slim({n.node_id: n for n in a.nodes}, a, body)
    head = {
        "subscription": "d:full",
        "seq": 1,
        "generation": 2,
        "base": a.snapshot_id,
        "snapshot_id": b.snapshot_id,
    }
    classic = DeltaEvent(
        **head, device="d", meta=body.meta, remove=body.remove, upsert=body.upsert, order=body.order
    )
    slim_event = PatchEvent(
        **head,
        meta=part.meta,
        remove=part.remove,
        upsert=part.upsert,
        edit=part.edit,
        order=part.order,
    )
    return classic, slim_event


def over_the_wire(event: PatchEvent, fmt: WireFormat) -> PatchEvent:
    decoded = HUB_TO_CLIENT.decode(encode(event, fmt), fmt)
    assert isinstance(decoded, PatchEvent), decoded
    return decoded


FIELD_VALUES: dict[str, list[object]] = {
    "role": [Role.BUTTON, Role.TEXT, Role.INPUT],
    "label": [None, "a", "Sign in"],
    "text": [None, "", "12:00:01", "edited"],
    "value": [None, "demo"],
    "hint": [None, "Search"],
    "resource_id": [None, "login"],
    "class_name": [None, "android.widget.Button"],
    "automation_id": [None, "go"],
    "native_type": [None, "XCUIElementTypeButton"],
    "state": [None, NodeState(clickable=True), NodeState(checked=False, focused=True)],
    "actions": [(), (ActionVerb.CLICK,), (ActionVerb.CLICK, ActionVerb.SCROLL_FORWARD)],
    "bounds": [None, (0, 0, 10, 10), (0, 9, 10, 19)],
    "collection": [None, CollectionInfo(index=3, row_count=10)],
    "source": [Source.ACCESSIBILITY, Source.VISION],
    "confidence": [1.0, 0.5],
}


@st.composite
def perturbed(draw: st.DrawFn) -> tuple[ScreenSnapshot, ScreenSnapshot]:
    """``a`` and a copy with a few fields of a few nodes (and of the meta) changed; sometimes
    also a different shape (a second random tree over the same id pool)."""
    a = snapshot(draw(trees(POOL)), "s_1")
    nodes = list(a.nodes)
    for i in draw(st.lists(st.integers(0, len(nodes) - 1), max_size=4)):
        for name in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=3)):
            value = draw(st.sampled_from(FIELD_VALUES[name]))
            nodes[i] = msgspec.structs.replace(nodes[i], **{name: value})
    b = msgspec.structs.replace(a, snapshot_id="s_2", nodes=tuple(nodes))
    meta = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "timestamp": st.integers(0, 2**41),
                "tree_hash": st.sampled_from(["00", "ab12"]),
                "app_id": st.sampled_from([None, "com.example"]),
                "truncated": st.booleans(),
                "platform": st.sampled_from(list(Platform)),
                "screen_state_id": st.sampled_from(["x:0", "x:1"]),
            },
        )
    )
    b = msgspec.structs.replace(b, **meta)
    if draw(st.booleans()):
        b = msgspec.structs.replace(b, nodes=draw(trees(POOL)))
    return a, b


@settings(max_examples=400, deadline=None)
@given(perturbed(), st.sampled_from(list(WireFormat)))
def test_patch_event_rebuilds_what_the_classic_delta_rebuilds(
    pair: tuple[ScreenSnapshot, ScreenSnapshot], fmt: WireFormat
) -> None:
    a, b = pair
    classic, slim_event = events(a, b)
    via_delta = apply_delta(a, classic)
    via_patch = apply_patch_event(a, over_the_wire(slim_event, fmt))
    assert via_delta == b
    assert via_patch == b
    assert not any(n.node_id not in {m.node_id for m in a.nodes} for n in slim_event.edit)


@settings(max_examples=200, deadline=None)
@given(trees(POOL), trees(POOL))
def test_patch_event_law_on_unrelated_trees(
    a: tuple[SemanticNode, ...], b: tuple[SemanticNode, ...]
) -> None:
    sa, sb = snapshot(a, "s_1"), snapshot(b, "s_2")
    _, slim_event = events(sa, sb)
    assert apply_patch_event(sa, over_the_wire(slim_event, WireFormat.MSGPACK)) == sb


@pytest.mark.parametrize("path", dump_params())
def test_patch_event_law_on_real_dumps_and_perturbed_copies(path: Path) -> None:
    raw = raw_of(path)
    for seed in range(3):
        ids = IdAllocator()
        a = _norm(raw, "s_1", ids)
        b = _norm(_perturb(raw, seed), "s_2", ids)
        for compact in (False, True):
            sa, sb = (a.compact, b.compact) if compact else (a.full, b.full)
            for x, y in ((sa, sb), (sb, sa)):
                _, slim_event = events(x, y)
                assert apply_patch_event(x, over_the_wire(slim_event, WireFormat.JSON)) == y


def test_a_one_field_change_is_one_edit_with_only_that_field() -> None:
    old = SemanticNode(
        node_id="n4",
        role=Role.INPUT,
        parent_id="n1",
        label="Username",
        text="dem",
        resource_id="username",
        class_name="android.widget.EditText",
        state=NodeState(clickable=True, focused=True),
        actions=(ActionVerb.CLICK, ActionVerb.SET_TEXT),
        bounds=(0, 100, 600, 180),
    )
    new = msgspec.structs.replace(old, text="demo")
    edit = node_edit(old, new)
    assert edit is not None
    assert msgspec.json.encode(edit) == b'{"nodeId":"n4","text":"demo"}'
    cleared = node_edit(old, msgspec.structs.replace(old, text=None, state=None))
    assert cleared is not None
    assert msgspec.json.decode(msgspec.json.encode(cleared)) == {
        "nodeId": "n4",
        "text": None,
        "state": None,
    }
    # An edit that would carry every field the node has goes whole instead.
    other = SemanticNode(node_id="n4", role=Role.BUTTON, label="Go")
    assert node_edit(old, other) is None


def test_edit_types_mirror_the_node_and_the_snapshot_field_for_field() -> None:
    assert set(NODE_EDIT_FIELDS) == set(SemanticNode.__struct_fields__) - {"node_id"}
    assert set(META_EDIT_FIELDS) == set(ScreenSnapshot.__struct_fields__) - {
        "nodes",
        "snapshot_id",
    }


def test_an_edit_of_an_unknown_node_does_not_apply() -> None:
    a = snapshot((SemanticNode(node_id="n1", role=Role.SCREEN, label="x"),), "s_1")
    b = msgspec.structs.replace(
        a, snapshot_id="s_2", nodes=(SemanticNode(node_id="n1", role=Role.SCREEN, label="y"),)
    )
    _, slim_event = events(a, b)
    assert slim_event.edit and slim_event.edit[0].node_id == "n1"
    hostile = msgspec.structs.replace(
        slim_event, edit=(msgspec.structs.replace(slim_event.edit[0], node_id="n99"),)
    )
    out = apply_patch_event(a, hostile)
    assert isinstance(out, Desync) and "n99" in out.reason
