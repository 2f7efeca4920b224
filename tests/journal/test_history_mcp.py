"""The MCP ``history`` tool through ``mobridge mcp`` (a real subprocess, the SDK's client)
against a real hub with a journal: the screen at a past time, ``when``, the timeline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bridge.client import Stable, build_query, connect
from bridge.journal.records import iso
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.journal.test_journal_hub import flushed
from tests.mcp.mcpfixture import stdio_mcp, text_of

pytestmark = pytest.mark.anyio


async def test_history_tool_reads_the_journal(tmp_path: Path) -> None:
    async with running_hub(journal=tmp_path / "j.sqlite3", sim_options={"animations": False}) as rh:
        async with connect(rh.url, token=CONTROLLER, name="someone") as hub:
            dev = hub.device(rh.device_id)
            assert (await dev.wait(Stable(for_ms=200))).result.value == "CONDITION_MET"
            before = iso(time.time_ns() // 1_000_000)
            await dev.tap(build_query(text="Settings"))
            assert (await dev.wait(Stable(for_ms=200))).result.value == "CONDITION_MET"
            await flushed(rh.hub)
        async with stdio_mcp(rh.url, CONTROLLER) as mcp:
            listed = mcp.tools["history"]
            assert len(str(listed.inputSchema)) < 1500  # compact: one line per parameter
            past = await mcp.call("history", {"at": before})
            assert not past.isError, text_of(past)
            assert "as of" in text_of(past) and "Settings" in text_of(past)
            assert "Wi-Fi" not in text_of(past)  # the menu, before the tap
            when = await mcp.call("history", {"when": "Wi-Fi"})
            assert "first" in text_of(when)
            line = await mcp.call("history", {"since": before})
            assert "CLICK" in text_of(line) and "[someone]" in text_of(line)
