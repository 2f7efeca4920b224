"""``scripts/bench`` installs the ``fast`` extra only: its ``mcp`` section, run where the MCP
SDK is missing, says which extra to add and how, instead of failing the whole run with an
import traceback (seen on a fresh clone: ``ModuleNotFoundError: No module named 'mcp'``)."""

from __future__ import annotations

import sys

import pytest

from bridge.bench import mcp as section


def test_without_the_sdk_the_section_names_the_extra_and_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` raises ImportError
    lines = section.run(True)
    assert len(lines) == 1
    assert lines[0].startswith("mcp: skipped")
    assert "MOBRIDGE_EXTRAS=mcp scripts/bench --only mcp" in lines[0]
