"""``is_meaningful``: what a compact snapshot keeps. Each reason alone keeps a node; a layout
wrapper (UNKNOWN, under a parent, nothing to read, do or mark) is the only thing dropped."""

from __future__ import annotations

import pytest

from bridge.core.compact import SCREEN_MARKER_PREFIX, is_meaningful
from bridge.wire.enums import ActionVerb, Role
from bridge.wire.node import NodeState, SemanticNode

WRAPPER = SemanticNode(node_id="n2", role=Role.UNKNOWN, parent_id="n1")


def test_a_layout_wrapper_is_dropped_ids_or_not() -> None:
    assert not is_meaningful(WRAPPER)
    assert not is_meaningful(SemanticNode(node_id="n2", role=Role.UNKNOWN, parent_id="n1",
                                          automation_id="row_container",
                                          resource_id="app:id/frame"))  # fmt: skip
    assert not is_meaningful(
        SemanticNode(node_id="n2", role=Role.UNKNOWN, parent_id="n1", state=NodeState())
    )


@pytest.mark.parametrize(
    "reason",
    [
        {"parent_id": None},
        {"label": "Name"},
        {"text": "Hello"},
        {"value": "42"},
        {"hint": "Search"},
        {"automation_id": f"{SCREEN_MARKER_PREFIX}login"},
        {"resource_id": f"app:id/{SCREEN_MARKER_PREFIX}login"},
        {"actions": (ActionVerb.CLICK,)},
        {"state": NodeState(clickable=True)},
        {"state": NodeState(focused=True)},
        {"role": Role.BUTTON},
        {"role": Role.TEXT},
    ],
    ids=lambda r: next(iter(r)),
)
def test_each_reason_alone_keeps_a_node(reason: dict[str, object]) -> None:
    fields: dict[str, object] = {"node_id": "n2", "role": Role.UNKNOWN, "parent_id": "n1"}
    fields.update(reason)
    assert is_meaningful(SemanticNode(**fields))  # type: ignore[arg-type]
