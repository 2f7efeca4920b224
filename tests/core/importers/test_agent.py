"""Our own agent JSON: RawTree objects and agent-link tree pushes."""

from __future__ import annotations

import msgspec
import pytest

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.core.importers.agent import check_raw_tree
from bridge.core.importers.failure import DumpError
from bridge.wire.agent_link import TreePush
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize

TREE = RawTree(
    capture=7,
    platform=Platform.ANDROID,
    nodes=(
        RawNode(handle=100, parent=-1, class_name="android.widget.FrameLayout"),
        RawNode(
            handle=205,
            parent=0,
            class_name="android.widget.ListView",
            collection_rows=12,
            collection_cols=1,
            scrollable=True,
            actions=("scrollForward",),
        ),
        RawNode(handle=206, parent=1, window=1, text="Row 1", item_row=0, item_col=0),
    ),
    windows=(RawWindow(id=0), RawWindow(id=1, type="system", layer=3)),
    package="com.example",
    focus=205,
    rotation=180,
    screen=ScreenSize(width=1080, height=2400),
    secure=True,
)


def test_raw_tree_json_imports_unchanged() -> None:
    data = msgspec.json.encode(TREE)
    assert detect_format(data) == "agent-raw-tree"
    assert import_dump(data, "agent.json") == TREE


def test_tree_push_imports_its_tree() -> None:
    data = msgspec.json.encode(TreePush(reason="initial", stable=True, tree=TREE, quiet_ms=250))
    assert data.startswith(b'{"type":"tree"')
    assert detect_format(data) == "agent-tree-push"
    assert import_dump(data, "push.json") == TREE


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        (
            msgspec.structs.replace(
                TREE, nodes=(RawNode(handle=1, parent=0), RawNode(handle=2, parent=-1))
            ),
            "node 0 has parent 0; expected -1 or an earlier node (pre-order)",
        ),
        (
            msgspec.structs.replace(
                TREE, nodes=(RawNode(handle=1, parent=-1), RawNode(handle=1, parent=0))
            ),
            "node 1 repeats handle 1",
        ),
        (msgspec.structs.replace(TREE, focus=9), "focus 9 is not the handle of any node"),
        (
            msgspec.structs.replace(TREE, windows=(RawWindow(id=0),)),
            "node 2 is in window 1, which is not listed",
        ),
        (msgspec.structs.replace(TREE, rotation=45), "rotation 45 is not 0, 90, 180 or 270"),
    ],
)
def test_invariants_decoding_cannot_see(tree: RawTree, message: str) -> None:
    with pytest.raises(DumpError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        check_raw_tree(tree)
    failure = import_dump(msgspec.json.encode(tree), "agent.json")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "agent-raw-tree"
    assert failure.reason == "agent.json: " + message


def test_strict_decoding_errors_name_the_path() -> None:
    data = b'{"capture": 1, "platform": "ANDROID", "nodes": [{"handle": "x", "parent": -1}]}'
    failure = import_dump(data, "agent.json")
    assert isinstance(failure, ImportFailure)
    assert "Expected `int`, got `str` - at `$.nodes[0].handle`" in failure.reason
    unknown = b'{"capture": 1, "platform": "ANDROID", "nodes": [], "colour": 1}'
    failure = import_dump(unknown, "agent.json")
    assert isinstance(failure, ImportFailure)
    assert "unknown field `colour`" in failure.reason
    too_long = msgspec.json.encode(
        msgspec.structs.replace(TREE, nodes=(RawNode(handle=0, parent=-1, text="x" * 9000),))
    )
    failure = import_dump(too_long, "agent.json")
    assert isinstance(failure, ImportFailure)
    assert "length <= 8192" in failure.reason
