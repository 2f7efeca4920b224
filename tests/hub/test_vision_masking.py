"""Words vision reads off the picture go through the same secret masking as the agent's tree:
a typed secret drawn on a canvas never reaches a snapshot (the overlay is applied before the
mask, not after)."""

from __future__ import annotations

from bridge.core.secret_mask import MASK
from bridge.hub.device import DeviceRuntime
from bridge.vision.overlay import Overlay, VisionItem
from bridge.wire.agent_link import TreePush
from bridge.wire.enums import Platform, Role
from tests.vision.test_overlay import CANVAS, game_tree


def test_a_typed_secret_read_by_vision_is_masked_in_the_capture() -> None:
    dev = DeviceRuntime(
        "d", Platform.ANDROID, run_prefix="t", clock_ms=lambda: 0, takeover_after_ms=1000
    )
    dev.masker.typed("hunter2-pw")
    dev.vision_overlay = Overlay(
        ((CANVAS, (VisionItem("hunter2-pw", (100, 300, 500, 380), Role.TEXT, 0.9),)),)
    )
    capture = dev.ingest(TreePush(reason="initial", stable=True, tree=game_tree()))
    assert capture is not None
    texts = [n.text for n in capture.normalized.full.nodes if n.text]
    assert MASK in texts
    assert not any("hunter2" in t for t in texts)
