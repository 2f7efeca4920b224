"""MCP's screen tool includes a WebView's page (marked by its ``#web:`` ids) and ``act`` on
their handles types and taps into the page. Real hub on the web scene (its page in a real
Chromium), ``mobridge mcp`` through the MCP SDK's client."""

from __future__ import annotations

import anyio
import pytest

from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.mcp.mcpfixture import handle_in, stdio_mcp, text_of
from tests.skips import need_web_chromium

pytestmark = [pytest.mark.anyio, need_web_chromium]


async def test_screen_lists_the_page_and_act_signs_in() -> None:
    with anyio.fail_after(120):
        async with (
            running_hub(sim_scene="web") as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
        ):
            waited = await mcp.call(
                "wait",
                {"condition": {"kind": "present", "query": "Sign in to Web Shop"},
                 "timeoutMs": 60_000},
            )  # fmt: skip
            assert "CONDITION_MET" in text_of(waited)
            outline = text_of(await mcp.call("screen", {}))
            assert '"Email"' in outline and "#web:#email" in outline
            assert 'button "Sign in" #web:#signin' in outline
            email = handle_in(outline, "#web:#email")
            password = handle_in(outline, "#web:#password")
            typed = await mcp.call(
                "act", {"target": email, "action": "SET_TEXT", "text": "demo@example.com"}
            )
            assert not typed.isError, text_of(typed)
            await mcp.call("act", {"target": password, "action": "SET_TEXT", "text": "pw"})
            acted = await mcp.call(
                "act",
                {"target": handle_in(outline, "#web:#signin"),
                 "expect": {"kind": "present", "query": "Welcome, demo@example.com"}},
            )  # fmt: skip
            assert not acted.isError, text_of(acted)
            after = text_of(await mcp.call("screen", {}))
            assert "Coffee beans" in after
