"""Actions on nodes read by vision (``bridge.hub.vision``, pure parts): a CLICK or LONG_CLICK
is a coordinate gesture at the node's centre, reported as a VISION_COORDINATE fallback;
another verb is refused; an accessibility node is left to the agent's node action."""

from __future__ import annotations

import pytest

from bridge.hub.errors import Refusal
from bridge.hub.vision import as_vision_dispatch, vision_command
from bridge.wire.action import Dispatch
from bridge.wire.agent_link import Point
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    DispatchStatus,
    ErrorCode,
    FallbackType,
    Role,
    Source,
)
from bridge.wire.node import SemanticNode

PLAY = SemanticNode(
    node_id="n5", role=Role.BUTTON, text="PLAY", bounds=(452, 1193, 636, 1249),
    source=Source.VISION, confidence=0.97,
)  # fmt: skip


def test_click_and_long_click_are_gestures_at_the_centre() -> None:
    for verb, kind in ((ActionVerb.CLICK, "tap"), (ActionVerb.LONG_CLICK, "long_press")):
        build = vision_command(PLAY, verb)
        assert build is not None
        command = build(7)
        assert (command.id, command.kind, command.points) == (7, kind, (Point(x=544, y=1221),))


def test_other_verbs_are_refused_and_accessibility_nodes_untouched() -> None:
    with pytest.raises(Refusal) as refused:
        vision_command(PLAY, ActionVerb.SET_TEXT)
    assert refused.value.envelope.error is ErrorCode.ACTION_UNSUPPORTED
    plain = SemanticNode(node_id="n6", role=Role.BUTTON, text="PLAY", bounds=(0, 0, 10, 10))
    assert vision_command(plain, ActionVerb.CLICK) is None


def test_a_dispatched_tap_is_reported_as_a_vision_coordinate_fallback() -> None:
    sent = as_vision_dispatch(Dispatch(status=DispatchStatus.DISPATCHED))
    assert sent.method is ActionMethod.GESTURE_FALLBACK and sent.fallback_used
    assert sent.fallback_type is FallbackType.VISION_COORDINATE
    failed = Dispatch(status=DispatchStatus.FAILED)
    assert as_vision_dispatch(failed) is failed
