"""``mobridge mcp --http`` (a real subprocess) with the SDK's streamable HTTP client: bearer
tokens checked by the hub, two agents sharing one device through a lease, roles."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest

from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, OBSERVER, running_hub
from tests.mcp.mcpfixture import SECRET, handle_in, http_mcp, http_server, stdio_mcp, text_of

pytestmark = pytest.mark.anyio


def _post(url: str, token: str | None) -> int:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


async def test_http_needs_a_token_the_hub_accepts_and_logs_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_DEMO_PASSWORD", SECRET)
    with anyio.fail_after(90):
        async with running_hub(sim_scene="login") as hub:
            with http_server(hub.url) as url:
                assert url.startswith("http://127.0.0.1:")
                assert await anyio.to_thread.run_sync(_post, url, None) == 401
                assert await anyio.to_thread.run_sync(_post, url, "not-a-hub-token") == 401
                async with http_mcp(url, CONTROLLER, name="remote-agent", version="0.9") as mcp:
                    outline = text_of(await mcp.call("screen", {}))
                    steps: list[dict[str, Any]] = [
                        {
                            "action": "SET_TEXT",
                            "target": handle_in(outline, "#username"),
                            "text": "demo",
                        },
                        {
                            "action": "SET_TEXT",
                            "target": handle_in(outline, "#password"),
                            "valueRef": "secret://demo_password",
                        },
                        {"target": "Sign in", "expect": {"kind": "screen", "name": "home"}},
                    ]
                    texts = []
                    for step in steps:
                        result = await mcp.call("act", step)
                        assert not result.isError, text_of(result)
                        texts.append(result.model_dump_json())
                    assert "expect CONDITION_MET" in text_of(result).splitlines()[0]
                    home = await mcp.call("wait", {"condition": {"kind": "screen", "name": "home"}})
                    assert home.structuredContent["met"]
                    assert SECRET not in "".join(texts)
                    # while the MCP session is open, the hub names its session after the client
                    names = {s["client"] for s in hub.hub.statistics()["sessions"].values()}
                    assert "remote-agent 0.9" in names


async def test_an_observer_token_reads_but_acting_is_refused_in_a_tool_result() -> None:
    with anyio.fail_after(60):
        async with running_hub(sim_scene="login") as hub:
            with http_server(hub.url) as url:
                async with http_mcp(url, OBSERVER) as mcp:
                    screen = await mcp.call("screen", {})
                    assert not screen.isError
                    button = handle_in(text_of(screen), '"Sign in"')
                    refused = await mcp.call("act", {"target": button})
                    assert refused.isError and text_of(refused).startswith("FORBIDDEN")


async def test_two_agents_share_a_device_through_an_exclusive_lease() -> None:
    with anyio.fail_after(120):
        async with running_hub(sim_scene="menu") as hub:
            with http_server(hub.url) as url:
                async with (
                    http_mcp(url, CONTROLLER, name="agent-one", version="1") as one,
                    stdio_mcp(hub.url, CONTROLLER_2, name="agent-two", version="2") as two,
                ):
                    outline = text_of(await two.call("screen", {}))
                    settings = handle_in(outline, '"Settings"')
                    await one.call("screen", {})
                    taken = await one.call("lease", {"action": "acquire", "mode": "exclusive"})
                    assert not taken.isError
                    assert "agent-one 1" in taken.structuredContent["lease"]["holderNames"]
                    refused = await two.call("act", {"target": settings})
                    assert refused.isError
                    text = text_of(refused)
                    assert text.startswith("POLICY_BLOCKED") and "agent-one 1" in text
                    assert "next: call activity" in text
                    moved = await one.call("act", {"target": "List"})
                    assert not moved.isError, text_of(moved)
                    await one.call("press", {"button": "BACK"})
                    released = await one.call("lease", {"action": "release"})
                    assert released.structuredContent.get("lease") is None
                    outline = text_of(await two.call("screen", {}))
                    done = await two.call("act", {"target": handle_in(outline, '"Settings"')})
                    assert not done.isError, text_of(done)
                    seen_by_one = (await one.call("activity", {})).structuredContent["entries"]
                    seen_by_two = (await two.call("activity", {})).structuredContent["entries"]

    def summary(entries: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
        return {(e.get("client"), e.get("action"), e.get("outcome")) for e in entries}

    # each agent sees the other's actions (and refusals) and lease changes, under its name
    assert ("agent-two 2", "CLICK", "POLICY_BLOCKED") in summary(seen_by_one)
    assert ("agent-two 2", "CLICK", "DISPATCHED") in summary(seen_by_one)
    assert ("agent-one 1", "CLICK", "DISPATCHED") in summary(seen_by_two)
    assert ("agent-one 1", None, "acquired") in summary(seen_by_two)
    assert ("agent-one 1", None, "released") in summary(seen_by_two)
    assert any(e.get("mine") for e in seen_by_one) and any(e.get("mine") for e in seen_by_two)
