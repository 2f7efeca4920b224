"""The media tools through ``mobridge mcp`` (a real subprocess) with the MCP SDK's own client,
against a real hub with the simulated device: a local package installed with the user's word,
the log read while another client acts, and a recording PyAV plays."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import av
import pytest

from bridge.client import connect
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub
from tests.mcp.mcpfixture import McpClient, stdio_mcp, text_of

pytestmark = pytest.mark.anyio
FAST = {"animations": False}


async def _confirmed(mcp: McpClient, tool: str, args: dict[str, object]) -> str:
    refused = await mcp.call(tool, args)
    text = text_of(refused)
    assert refused.isError and text.startswith("USER_CONFIRMATION_REQUIRED"), text
    objection = next(w for w in text.split() if w.startswith("obj_"))
    done = await mcp.call("confirm", {"objection": objection, "answer": "approve"})
    assert not done.isError, text_of(done)
    return text_of(done)


async def test_install_a_local_file_logs_and_record(tmp_path: Path) -> None:
    package = tmp_path / "notes.json"
    package.write_text(json.dumps({"appId": "com.example.notes", "name": "Notes"}))
    out = tmp_path / "clip.mp4"
    with anyio.fail_after(120):
        async with (
            running_hub(sim_options=FAST) as hub,
            stdio_mcp(hub.url, CONTROLLER) as mcp,
            stdio_mcp(hub.url, OBSERVER, name="watcher") as watcher,
        ):
            done = await _confirmed(mcp, "app", {"action": "install", "path": str(package)})
            assert "expect CONDITION_MET" in done.splitlines()[0]
            listed = await mcp.call("app", {"action": "list"})
            assert "com.example.notes" in text_of(listed)
            missing = await mcp.call("app", {"action": "install", "path": str(tmp_path / "x")})
            assert missing.isError and "no file" in text_of(missing)

            async def act_meanwhile() -> None:
                async with connect(hub.url, token=CONTROLLER, name="actor") as actor:
                    for _ in range(8):
                        await anyio.sleep(0.4)
                        await actor.device(hub.device_id).tap_at(540, 1200)

            async with anyio.create_task_group() as tg:
                tg.start_soon(act_meanwhile)
                read = await watcher.call("media", {"seconds": 4, "grep": "tap at"})
            assert not read.isError, text_of(read)
            assert "tap at 540,1200" in text_of(read)
            assert read.structuredContent is not None and read.structuredContent["lines"] >= 1
            bad = await watcher.call("media", {"seconds": 1, "grep": "(?=x)"})
            assert bad.isError and "lookahead" in text_of(bad)
            made = await watcher.call("media", {"kind": "record", "seconds": 2, "path": str(out)})
            assert not made.isError, text_of(made)
            assert made.structuredContent is not None
            frames = made.structuredContent["frames"]
    with av.open(str(out)) as container:
        assert sum(1 for _ in container.decode(video=0)) == frames >= 2
