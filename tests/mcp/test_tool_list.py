"""What a model reads before its first step: ``tools/list`` through the SDK's own client stays
under 10 KB, every parameter has a one-line description, and the prompts teach the loop."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.mcp.lean import TOOL_LIST_CAP
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.mcp.mcpfixture import stdio_mcp

pytestmark = pytest.mark.anyio


def _undescribed(schema: dict[str, Any], path: str) -> list[str]:
    missing = []
    for name, prop in schema.get("properties", {}).items():
        doc = prop.get("description")
        if not isinstance(doc, str) or not doc.strip() or "\n" in doc:
            missing.append(f"{path}.{name}")
        missing.extend(_undescribed(prop, f"{path}.{name}"))
    return missing


async def test_the_tool_list_is_under_10_kb_and_every_parameter_is_described() -> None:
    with anyio.fail_after(60):
        async with running_hub(sim_scene="login") as hub, stdio_mcp(hub.url, CONTROLLER) as mcp:
            listed = await mcp.session.list_tools()
            wire = listed.model_dump_json(by_alias=True, exclude_none=True)
            print(f"tools/list: {len(wire)} bytes of JSON, {len(listed.tools)} tools")
            assert len(wire.encode()) <= TOOL_LIST_CAP
            assert len(listed.tools) >= 24
            missing: list[str] = []
            for tool in listed.tools:
                assert tool.description and "\n" not in tool.description, tool.name
                assert tool.outputSchema is None, tool.name
                missing.extend(_undescribed(tool.inputSchema, tool.name))
            assert missing == []
            prompts = await mcp.session.list_prompts()
            assert {p.name for p in prompts.prompts} == {"drive_phone", "fill_form", "wait_for"}
            loop = await mcp.session.get_prompt("drive_phone", {"task": "log in as demo"})
            text = loop.messages[0].content
            assert text.type == "text" and "log in as demo" in text.text
            for step in ("screen", "act", "wait", "next:"):
                assert step in text.text
