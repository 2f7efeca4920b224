"""MCP's screen tool shows the text vision read on a canvas, each line marked
``vision=<confidence>``, and ``act`` on its handle taps it (a coordinate tap): the score the
game draws moves to 130. Real hub with vision, ``mobridge mcp`` through the MCP SDK's client."""

from __future__ import annotations

import re

import anyio
import pytest

from bridge.mcp.outline import render_line
from bridge.wire.enums import ActionVerb, Role, Source
from bridge.wire.node import NodeState, SemanticNode
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.mcp.mcpfixture import handle_in, stdio_mcp, text_of
from tests.skips import need_vision


def test_a_vision_line_is_marked_with_its_confidence() -> None:
    node = SemanticNode(
        node_id="n5",
        role=Role.BUTTON,
        text="PLAY",
        state=NodeState(clickable=True),
        actions=(ActionVerb.CLICK,),
        source=Source.VISION,
        confidence=0.968,
    )
    assert render_line(node, "e3") == 'e3 button "PLAY" vision=0.97'
    plain = SemanticNode(node_id="n6", role=Role.BUTTON, text="PLAY")
    assert render_line(plain, "e4") == 'e4 button "PLAY"'


@need_vision
@pytest.mark.anyio
async def test_screen_lists_vision_lines_and_act_taps_them() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="game", vision=True) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
        ):
            waited = await mcp.call(
                "wait",
                {"condition": {"kind": "present", "query": "PLAY"}, "timeoutMs": 20_000},
            )
            assert "CONDITION_MET" in text_of(waited)
            outline = text_of(await mcp.call("screen", {}))
            # the engine's confidence, two decimals (1.00 when it is sure)
            assert re.search(r'button "PLAY" vision=[01]\.\d\d', outline), outline
            assert re.search(r'text "SCORE 120" vision=[01]\.\d\d', outline), outline
            play = handle_in(outline, '"PLAY"')
            acted = await mcp.call(
                "act",
                {"target": play, "expect": {"kind": "present", "query": "SCORE 130"}},
            )
            assert "VISION_COORDINATE" in text_of(acted) or "SCORE 130" in text_of(acted)
            again = await mcp.call(
                "wait",
                {"condition": {"kind": "present", "query": "SCORE 130"}, "timeoutMs": 20_000},
            )
            assert "CONDITION_MET" in text_of(again)
