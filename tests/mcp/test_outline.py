"""The outline (pure), the handle table and the tool schemas; the outline's size on the real
dumps of ../shared (the token-economy target: median under 2,000 characters)."""

from __future__ import annotations

import statistics
from pathlib import Path

import jsonschema
import msgspec
import pytest

from bridge.cli.offline import load
from bridge.mcp.handles import HandleTable
from bridge.mcp.lean import lean_schema
from bridge.mcp.outline import build_outline
from bridge.mcp.schemas import ActArgs, decode_args
from bridge.mcp.server import TOOLS
from bridge.mcp.targets import HandleTarget, PointTarget, QueryTarget, target_of
from bridge.mcp.transports import HubTokenVerifier
from bridge.wire.enums import Orientation, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.noderef import NodeRef, ResourceIdLocator
from bridge.wire.snapshot import ScreenSnapshot
from tests.conftest import requires_shared
from tests.core.realdumps import dump_paths


def _snapshot(*nodes: SemanticNode) -> ScreenSnapshot:
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
        nodes=nodes,
        tree_hash="ab",
    )


def test_outline_shows_meaningful_nodes_with_handles_state_and_screen_markers() -> None:
    snap = _snapshot(
        SemanticNode(node_id="n1", role=Role.SCREEN, bounds=(0, 0, 1080, 2400)),
        SemanticNode(
            node_id="n2", role=Role.UNKNOWN, parent_id="n1", resource_id="a:id/__screen_login"
        ),
        SemanticNode(node_id="n3", role=Role.UNKNOWN, parent_id="n2"),  # a bare container
        SemanticNode(
            node_id="n4",
            role=Role.INPUT,
            parent_id="n3",
            hint="Password",
            resource_id="a:id/pw",
            state=NodeState(clickable=True, password=True, focused=True),
        ),
        SemanticNode(node_id="n5", role=Role.LIST_ITEM, parent_id="n3", label="Wi-Fi"),
        SemanticNode(node_id="n6", role=Role.TEXT, parent_id="n5", text="Wi-Fi"),  # echo
        SemanticNode(
            node_id="n7",
            role=Role.SWITCH,
            parent_id="n5",
            state=NodeState(checked=False, enabled=False),
        ),
        SemanticNode(node_id="n8", role=Role.TEXT, parent_id="n3", text="x" * 200),
    )
    table = HandleTable()
    outline = build_outline(snap, lambda n: table.handle_for("dev", n.node_id))
    assert outline.header == "dev · com.example.app · screen login · 1080x2400 portrait"
    assert outline.lines[0] == 'e1 input hint="Password" #pw focused password'
    assert outline.lines[1] == 'e2 list_item "Wi-Fi"'
    assert outline.lines[2] == "  e3 switch disabled unchecked"
    assert outline.lines[3].startswith('e4 text "xxx') and outline.lines[3].endswith('…"')
    assert len(outline.lines) == 4 and outline.shown == ("n4", "n5", "n7", "n8")
    clipped = build_outline(snap, lambda n: None, max_lines=2)
    assert clipped.omitted == 2 and clipped.lines[-1].startswith("… 2 more")


def test_handles_are_stable_per_node_bounded_and_never_repointed() -> None:
    table = HandleTable(capacity=3)
    ref = NodeRef(
        snapshot_id="s_1", node_id="n1", fingerprint="ab", locators=(ResourceIdLocator(value="x"),)
    )
    first = table.handle_for("dev", "n1", ref, 4)
    assert table.handle_for("dev", "n1") == first  # same element, same handle
    entry = table.lookup(first)
    assert entry is not None and entry.ref == ref and entry.generation == 4
    others = [table.handle_for("dev", f"n{i}") for i in range(2, 6)]
    assert len(table) == 3 and table.evicted == 2
    assert table.lookup(first) is None  # evicted: unknown, never another node's
    assert len(set([first, *others])) == 5


def test_every_tool_schema_is_a_valid_object_schema_and_arguments_are_strict() -> None:
    for spec in TOOLS.values():
        schema = lean_schema(spec.args, spec.docs)
        assert schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(schema)
    with pytest.raises(msgspec.ValidationError):
        decode_args(ActArgs, {"action": "CLICK", "handle": "e1"})  # unknown field
    with pytest.raises(msgspec.ValidationError):
        decode_args(ActArgs, {"target": "e1", "text": "x" * 20_000})
    with pytest.raises(msgspec.ValidationError):
        decode_args(ActArgs, {"target": "e1", "action": "TELEPORT"})
    with pytest.raises(msgspec.ValidationError):  # a query object is checked by the wire type
        target_of({"role": "SPACESHIP"})
    assert target_of("e12") == HandleTarget("e12")
    assert target_of({"x": 3, "y": 4}) == PointTarget(3, 4)
    plain = target_of("Sign in")
    assert isinstance(plain, QueryTarget) and plain.query.text is not None
    assert plain.query.text.value == "Sign in"
    nested = target_of({"role": "BUTTON", "text": "Continue", "within": "Basic plan"})
    assert isinstance(nested, QueryTarget) and nested.query.within is not None


@pytest.mark.anyio
async def test_an_unreachable_hub_accepts_no_token() -> None:
    verifier = HubTokenVerifier("ws://127.0.0.1:9/v1")
    assert await verifier.verify_token("anything") is None


@requires_shared
def test_outline_median_is_under_2000_characters_on_the_real_dumps() -> None:
    sizes = []
    for path in dump_paths():
        normalized = load(str(path))
        outline = build_outline(normalized.compact, lambda n: f"e{n.node_id[1:]}")
        compact = len(msgspec.json.encode(normalized.compact))
        raw = len(Path(path).read_text(errors="replace"))
        sizes.append((len(outline.text), compact, raw))
        assert len(outline.text) <= compact, path.name  # never larger than the compact JSON
    assert len(sizes) >= 60
    assert statistics.median(s[0] for s in sizes) < 2000
