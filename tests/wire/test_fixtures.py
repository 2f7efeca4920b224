"""Golden fixtures (protocol/fixtures/) are canonical, typed right and cover every message.

Canonical means: decoding a fixture and encoding it again gives the same JSON document, so a
fixture never spells a field at its default and never carries a field the type lacks. The Java
and Swift agent tests read the same files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest

from bridge.wire.agent_link import AgentToHub, HubToAgent, Reply, TreePush
from bridge.wire.client_protocol import (
    RESULT_TYPES,
    ClientToHub,
    DeltaEvent,
    HubToClient,
    PatchEvent,
    SnapshotEvent,
)
from bridge.wire.codec import DecodeFailure, WireFormat, convert, encode
from bridge.wire.raw import RawTree
from bridge.wire.snapshot import ScreenSnapshot
from tests.strategies import as_builtins
from tests.wire.golden import (
    DIRECTIONS,
    FIXTURES,
    REFERENCE_KINDS,
    Golden,
    message_fixtures,
    reference_fixtures,
    tag_of,
)

MESSAGES = message_fixtures()
REFERENCES = reference_fixtures()


def _decoded(golden: Golden) -> msgspec.Struct:
    message = golden.codec.decode(golden.raw())
    assert not isinstance(message, DecodeFailure), f"{golden}: {message}"
    assert isinstance(message, msgspec.Struct)
    return message


@pytest.mark.parametrize("golden", MESSAGES, ids=str)
def test_message_fixture_is_canonical(golden: Golden) -> None:
    message = _decoded(golden)
    assert json.loads(encode(message)) == golden.doc()
    packed = encode(message, WireFormat.MSGPACK)
    assert golden.codec.decode(packed, WireFormat.MSGPACK) == message


@pytest.mark.parametrize("golden", MESSAGES, ids=str)
def test_message_fixture_is_named_after_its_type(golden: Golden) -> None:
    assert tag_of(_decoded(golden)) == golden.message_type


@pytest.mark.parametrize("golden", [g for g in MESSAGES if g.request_type], ids=str)
def test_result_fixture_body_is_a_canonical_result_of_its_request(golden: Golden) -> None:
    assert golden.request_type in RESULT_TYPES, f"{golden}: no request type {golden.request_type}"
    body = golden.doc()["result"]
    typed = convert(body, RESULT_TYPES[golden.request_type])
    assert as_builtins(typed) == body


@pytest.mark.parametrize(
    ("direction", "union"),
    [
        ("client-to-hub", ClientToHub),
        ("hub-to-client", HubToClient),
        ("agent-link/hub-to-agent", HubToAgent),
        ("agent-link/agent-to-hub", AgentToHub),
    ],
)
def test_every_message_type_has_a_fixture(direction: str, union: Any) -> None:
    tags = {m.__struct_config__.tag for m in get_args(union)}
    present = {g.message_type for g in MESSAGES if g.direction == direction}
    assert tags - present == set(), f"{direction} lacks fixtures for {sorted(tags - present)}"
    assert present - tags == set(), f"{direction} has fixtures of unknown types"


def test_every_request_type_has_a_result_fixture() -> None:
    present = {g.request_type for g in MESSAGES if g.request_type}
    assert set(RESULT_TYPES) - present == set()


def test_fixture_tree_holds_nothing_else() -> None:
    expected_dirs = {*DIRECTIONS, *(f"reference/{kind}" for kind in REFERENCE_KINDS)}
    for path in FIXTURES.rglob("*.json"):
        assert str(path.parent.relative_to(FIXTURES)) in expected_dirs, path


@pytest.mark.parametrize(("kind", "path"), REFERENCES, ids=[f"{k}/{p.name}" for k, p in REFERENCES])
def test_reference_fixture_is_canonical(kind: str, path: Path) -> None:
    raw = path.read_bytes()
    value = msgspec.json.decode(raw, type=REFERENCE_KINDS[kind])
    assert json.loads(encode(value)) == json.loads(raw)


@pytest.mark.parametrize("kind", list(REFERENCE_KINDS))
def test_every_reference_kind_has_fixtures(kind: str) -> None:
    assert len([k for k, _ in REFERENCES if k == kind]) >= 3


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.json")), ids=lambda p: p.name)
def test_fixture_text_is_pretty_utf8_with_final_newline(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.startswith("{\n  ")
    assert "\t" not in text


# ---- raw trees: the invariants of bridge/wire/raw.py hold in every fixture ----------------


def _raw_trees() -> list[tuple[str, RawTree]]:
    trees = []
    for golden in MESSAGES:
        if golden.direction != "agent-link/agent-to-hub":
            continue
        message = _decoded(golden)
        if isinstance(message, TreePush | Reply) and message.tree is not None:
            trees.append((str(golden), message.tree))
    return trees


@pytest.mark.parametrize(("name", "tree"), _raw_trees(), ids=[n for n, _ in _raw_trees()])
def test_fixture_raw_tree_is_well_formed(name: str, tree: RawTree) -> None:
    handles = [node.handle for node in tree.nodes]
    assert len(set(handles)) == len(handles), "handles are unique within a capture"
    for index, node in enumerate(tree.nodes):
        assert node.parent == -1 or 0 <= node.parent < index, "pre-order: parents come first"
    if tree.focus is not None:
        assert tree.focus in handles
    if tree.windows:
        window_ids = {w.id for w in tree.windows}
        assert {node.window for node in tree.nodes} <= window_ids
    assert any(node.parent == -1 for node in tree.nodes)


def test_android_and_ios_tree_pushes_exist() -> None:
    platforms = {tree.platform.value for _, tree in _raw_trees()}
    assert platforms == {"ANDROID", "IOS"}


# ---- deltas: the golden delta applied to the golden snapshot gives a consistent tree -------


def apply_delta(snapshot: ScreenSnapshot, delta: DeltaEvent) -> ScreenSnapshot:
    """Reference application of a delta (the algorithm protocol/README.md describes)."""
    assert snapshot.snapshot_id == delta.base
    nodes = {n.node_id: n for n in snapshot.nodes if n.node_id not in set(delta.remove)}
    nodes.update({n.node_id: n for n in delta.upsert})
    children: dict[str, list[str]] = {}
    for node in snapshot.nodes:
        if node.node_id in nodes:
            children.setdefault(node.parent_id or "", []).append(node.node_id)
    for parent, ids in delta.order.items():
        children[parent] = list(ids)
    ordered: list[str] = []
    stack = list(reversed(children.get("", [])))
    while stack:
        node_id = stack.pop()
        ordered.append(node_id)
        stack.extend(reversed(children.get(node_id, [])))
    assert sorted(ordered) == sorted(nodes), "every node is reachable exactly once"
    return msgspec.structs.replace(delta.meta, nodes=tuple(nodes[i] for i in ordered))


def test_golden_delta_applies_to_golden_snapshot() -> None:
    event = _decoded(Golden("hub-to-client", FIXTURES / "hub-to-client" / "snapshot.json"))
    delta = _decoded(Golden("hub-to-client", FIXTURES / "hub-to-client" / "delta.json"))
    assert isinstance(event, SnapshotEvent) and isinstance(delta, DeltaEvent)
    assert delta.seq == event.seq + 1 and delta.subscription == event.subscription
    assert delta.meta.nodes == () and delta.meta.snapshot_id == delta.snapshot_id
    after = apply_delta(event.snapshot, delta)
    for node in after.nodes:
        if node.parent_id is not None:
            assert node.node_id in delta.order.get(node.parent_id, (node.node_id,))
    assert [n.node_id for n in after.nodes] == ["n1", "n3", "n4", "n5", "n9", "n6", "n7", "n8"]
    assert not set(delta.remove) & {n.node_id for n in after.nodes}


def apply_patch(snapshot: ScreenSnapshot, event: PatchEvent) -> ScreenSnapshot:
    """Reference application of a ``patch`` event (protocol/README.md): remove, upsert, edit
    (absent field: unchanged; present: the new value, null clearing), order, meta fields."""
    assert snapshot.snapshot_id == event.base
    doc = msgspec.to_builtins(snapshot)
    nodes = {n["nodeId"]: n for n in doc["nodes"] if n["nodeId"] not in set(event.remove)}
    nodes.update({n["nodeId"]: n for n in msgspec.to_builtins(event.upsert)})
    for edit in msgspec.to_builtins(event.edit):
        node = nodes[edit.pop("nodeId")]  # an edit names a node held
        for key, value in edit.items():
            if value is None:
                node.pop(key, None)
            else:
                node[key] = value
    children: dict[str, list[str]] = {}
    for node in doc["nodes"]:
        if node["nodeId"] in nodes:
            children.setdefault(node.get("parentId") or "", []).append(node["nodeId"])
    for parent, ids in event.order.items():
        children[parent] = list(ids)
    ordered: list[str] = []
    stack = list(reversed(children.get("", [])))
    while stack:
        node_id = stack.pop()
        ordered.append(node_id)
        stack.extend(reversed(children.get(node_id, [])))
    assert sorted(ordered) == sorted(nodes), "every node is reachable exactly once"
    meta = {k: v for k, v in doc.items() if k != "nodes"}
    for key, value in msgspec.to_builtins(event.meta or {}).items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    meta["snapshotId"] = event.snapshot_id
    return msgspec.convert({**meta, "nodes": [nodes[i] for i in ordered]}, ScreenSnapshot)


def test_golden_patches_apply_and_match_the_golden_delta() -> None:
    hub = FIXTURES / "hub-to-client"
    event = _decoded(Golden("hub-to-client", hub / "snapshot.json"))
    delta = _decoded(Golden("hub-to-client", hub / "delta.json"))
    slim = _decoded(Golden("hub-to-client", hub / "patch.json"))
    clear = _decoded(Golden("hub-to-client", hub / "patch--clear.json"))
    assert isinstance(event, SnapshotEvent) and isinstance(delta, DeltaEvent)
    assert isinstance(slim, PatchEvent) and isinstance(clear, PatchEvent)
    assert (slim.seq, slim.base, slim.snapshot_id) == (delta.seq, delta.base, delta.snapshot_id)
    after = apply_patch(event.snapshot, slim)
    assert after == apply_delta(event.snapshot, delta)
    assert clear.seq == slim.seq + 1 and clear.base == slim.snapshot_id
    cleared = apply_patch(after, clear)
    n4 = next(n for n in cleared.nodes if n.node_id == "n4")
    assert n4.value is None and n4.state is None and cleared.app_id is None
    assert [n.node_id for n in cleared.nodes] == [n.node_id for n in after.nodes]
