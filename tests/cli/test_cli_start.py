"""What the ``mobridge`` command imports before it does anything (``python -X importtime``,
real subprocesses): ``--help`` nothing but argparse and the CLI's own modules; a client
command no hub, simulator, normalizer, flow or MCP module. Start-up time itself is measured
by ``scripts/bench --only cli``, never by a test. Also: the table ``build_parser`` lists the
command groups from says exactly what their modules add."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from bridge.cli.main import COMMAND_GROUPS, build_parser
from tests.cli.hubproc import ROOT

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.M)
HEAVY = ("asyncio", "msgspec", "websockets", "anyio", "yaml", "PIL")
NEVER_FOR_A_CLIENT = (
    "bridge.hub",
    "bridge.devices",
    "bridge.core",
    "bridge.flows",
    "bridge.mcp",
    "bridge.farm",
    "bridge.dashboard",
    "PIL",
    "yaml",
)


def _imports(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bridge.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    return set(IMPORTED.findall(proc.stderr))


def _under(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


def test_help_imports_nothing_heavy() -> None:
    modules = _imports("--help")
    assert "argparse" in modules and "bridge.cli.main" in modules
    assert _under(modules, (*HEAVY, "bridge.wire", "bridge.client", *NEVER_FOR_A_CLIENT)) == []


def test_a_client_command_imports_no_hub_simulator_flow_or_mcp_module() -> None:
    modules = _imports("devices", "--url", "ws://127.0.0.1:1/v1")
    assert "bridge.client" in modules  # it did get as far as connecting
    assert _under(modules, NEVER_FOR_A_CLIENT) == []


def test_a_one_shot_command_runs_without_an_event_loop() -> None:
    """``devices``, ``screen``, ``tap`` ... use the blocking one-shot session: no asyncio,
    anyio, websockets or ssl to import (most of what a command used to cost)."""
    for argv in (("devices",), ("screen", "sim-android"), ("tap", "sim-android", "--at", "1,2")):
        modules = _imports(*argv, "--url", "ws://127.0.0.1:1/v1")
        assert "bridge.client.oneshot" in modules
        assert _under(modules, ("asyncio", "anyio", "websockets", "ssl")) == [], argv


def _commands(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    listed = {c.dest: c.help for c in sub._choices_actions}
    return {name: listed.get(name) for name in sub.choices}


def test_the_command_table_matches_what_the_modules_add() -> None:
    real = _commands(build_parser([], every_group=True))
    table: dict[str, str | None] = {}
    for _, _, commands in COMMAND_GROUPS:
        table.update(commands)
    assert {k: v for k, v in real.items() if k != "serve"} == table
    # and the stubs list the same commands, with the same help, as the real parsers
    assert _commands(build_parser(["--help"])) == real


def test_a_command_gets_its_full_parser_and_the_others_stay_stubs() -> None:
    parser = build_parser(["wait", "sim-android"])
    args = parser.parse_args(["wait", "sim-android", "--screen", "menu", "--timeout", "2s"])
    assert args.timeout_ms == 2000 and args.screen == "menu"
