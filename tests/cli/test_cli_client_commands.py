"""The client commands of the CLI against a real ``mobridge serve`` (the simulated device), piped
(JSON on stdout): what each prints, its exit status and its one-line refusals.

These used to run against a canned fake hub (issue 42.3: a test about behaviour talks to the
real hub). What no hub can be made to do for real stays without one: nothing listening, and
usage errors refused before connecting.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from bridge.cli.client import add_client_commands
from bridge.wire.action import ActionResult
from bridge.wire.client_protocol import DeviceSummary, FindResult, SnapshotResult, WaitResult
from bridge.wire.enums import ErrorCode
from bridge.wire.errors import ErrorEnvelope
from tests.cli.hubproc import ROOT, clean_env, mobridge_command, served_hub

DEV = "sim-android"
TOKEN = "cli-client-commands-token"


def one_line(out: str) -> bytes:
    lines = out.splitlines()
    assert len(lines) == 1, out
    return lines[0].encode()


def test_devices(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--token", TOKEN) as hub:
        run = hub.run("devices", "--token", TOKEN)
        assert run.returncode == 0, run.stderr
        listed = msgspec.json.decode(one_line(run.stdout), type=dict[str, list[DeviceSummary]])
        assert [d.id for d in listed["devices"]] == [DEV]
        assert listed["devices"][0].online


def test_find_with_inline_json_and_a_file(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "login") as hub:
        run = hub.run("find", DEV, "--query", '{"role": "BUTTON"}')
        assert run.returncode == 0, run.stderr
        buttons = msgspec.json.decode(one_line(run.stdout), type=FindResult)
        assert buttons.count >= 1 and all(m.node.role.value == "BUTTON" for m in buttons.matches)
        assert "Sign in" in [m.node.text or m.node.label for m in buttons.matches]
        query = tmp_path / "q.json"
        query.write_text('{"resourceId": "username"}')
        run = hub.run("find", DEV, "--query", f"@{query}")
        found = msgspec.json.decode(one_line(run.stdout), type=FindResult)
        assert found.count == 1 and found.matches[0].node.resource_id is not None
        assert found.matches[0].node.resource_id.endswith("username")


def test_tap_by_text_acts_on_the_single_match_and_the_screen_changes(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "menu") as hub:
        run = hub.run("tap", DEV, "--text", "Login")
        assert run.returncode == 0, run.stderr
        result = msgspec.json.decode(one_line(run.stdout), type=ActionResult)
        assert result.target is not None and "Login" in (result.target.label or "")
        assert result.dispatch.status.value == "DISPATCHED"
        waited = hub.run("wait", DEV, "--screen", "login", "--timeout-ms", "10000")
        assert waited.returncode == 0, waited.stderr


def test_tap_refuses_ambiguity_and_lists_the_candidates(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "ambiguous") as hub:
        run = hub.run("tap", DEV, "--text", "Continue")
        assert run.returncode == 1
        envelope = msgspec.json.decode(one_line(run.stdout), type=ErrorEnvelope)
        assert envelope.error is ErrorCode.AMBIGUOUS_MATCH
        assert len(envelope.candidates) == 2
        lines = run.stderr.splitlines()
        assert lines[0].startswith("mobridge: refused: AMBIGUOUS_MATCH")
        for i, (line, ref) in enumerate(zip(lines[1:3], envelope.candidates, strict=True)):
            assert line.startswith(f"  --nth {i}:") and "Continue" in line, (line, ref)
        # nothing was tapped: the screen still shows both
        still = hub.run("find", DEV, "--text", "Continue")
        assert msgspec.json.decode(one_line(still.stdout), type=FindResult).count == 2


def test_tap_by_ref_inline_or_from_a_find_match_file(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "ambiguous") as hub:
        found = msgspec.json.decode(
            one_line(hub.run("find", DEV, "--text", "Continue").stdout), type=FindResult
        )
        second = found.matches[1]
        run = hub.run("tap", DEV, "--ref", msgspec.json.encode(second.ref).decode())
        assert run.returncode == 0, run.stderr
        assert hub.run("wait", DEV, "--present", "Chose Pro plan").returncode == 0
        match_file = tmp_path / "match.json"
        match_file.write_bytes(msgspec.json.encode(found.matches[0]))
        run = hub.run("tap", DEV, "--ref", f"@{match_file}")
        assert run.returncode == 0, run.stderr
        assert hub.run("wait", DEV, "--present", "Chose Basic plan").returncode == 0
        bad = hub.run("tap", DEV, "--ref", '{"nodeId": "n1"}')
        assert bad.returncode == 2 and "invalid --ref (a NodeRef)" in bad.stderr


def test_an_action_needing_the_users_word_names_the_objection(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "home") as hub:
        run = hub.run("app", DEV, "terminate", "dev.mobridge.demo")
        assert run.returncode == 1
        envelope = msgspec.json.decode(one_line(run.stdout), type=ErrorEnvelope)
        assert envelope.error is ErrorCode.USER_CONFIRMATION_REQUIRED
        assert "--approve" in run.stderr
        run = hub.run("app", DEV, "terminate", "dev.mobridge.demo", "--approve")
        assert run.returncode == 0, run.stderr


def test_type_a_value_or_a_secret_reference(tmp_path: Path) -> None:
    with served_hub(
        tmp_path, "--sim-scene", "login", hub_env={"MOBRIDGE_SECRET_PW": "s3cret-pw-value"}
    ) as hub:
        assert hub.run("type", DEV, "--id", "username", "--value", "demo").returncode == 0
        run = hub.run("type", DEV, "--id", "password", "--value-ref", "secret://pw")
        assert run.returncode == 0, run.stderr
        assert "s3cret-pw-value" not in run.stdout + run.stderr
        snap = msgspec.json.decode(
            hub.run("snapshot", DEV, "--json").stdout or hub.run("screen", DEV, "--json").stdout,
            type=SnapshotResult,
        )
        values = {n.resource_id: n.value for n in snap.snapshot.nodes if n.resource_id}
        assert any(k.endswith("username") and v == "demo" for k, v in values.items()), values
        assert "s3cret-pw-value" not in json.dumps(values)
        run = hub.run("type", DEV, "--id", "password", "--value-ref", "hunter2")
        assert run.returncode == 2 and "secret://" in run.stderr and "hunter2" not in run.stdout


def test_back_goes_back(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "menu") as hub:
        assert hub.run("tap", DEV, "Login").returncode == 0
        assert hub.run("wait", DEV, "--screen", "login").returncode == 0
        run = hub.run("back", DEV)
        assert run.returncode == 0, run.stderr
        msgspec.json.decode(one_line(run.stdout), type=ActionResult)
        assert hub.run("wait", DEV, "--screen", "menu").returncode == 0


def test_wait_exit_status_says_met_or_not(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "login") as hub:
        met = hub.run("wait", DEV, "--condition", '{"kind": "screen", "name": "login"}')
        assert met.returncode == 0, met.stderr
        assert msgspec.json.decode(one_line(met.stdout), type=WaitResult).result.value == (
            "CONDITION_MET"
        )
        condition = '{"kind": "screen", "name": "home"}'
        missed = hub.run("wait", DEV, "--condition", condition, "--timeout-ms", "50")
        assert missed.returncode == 1
        waited = msgspec.json.decode(one_line(missed.stdout), type=WaitResult)
        assert waited.result.value != "CONDITION_MET" and waited.elapsed_ms >= 50
        (line,) = missed.stderr.splitlines()  # once, in one line
        assert re.fullmatch(r"wait: not met after \d+ms; showing: login", line), line


def test_watch_prints_one_line_per_change_with_the_screens_name_and_texts(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "menu") as hub:
        watcher = subprocess.Popen(
            mobridge_command("watch", DEV, "--count", "2"),
            env=hub.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        try:
            assert watcher.stdout is not None
            first = watcher.stdout.readline()  # subscribed: the screen now
            assert first.split()[1] == "menu", first
            assert hub.run("tap", DEV, "Login").returncode == 0
            rest, _ = watcher.communicate(timeout=60)
        finally:
            if watcher.poll() is None:
                watcher.kill()
        (second,) = rest.splitlines()
        assert second.split()[1] == "login" and "'Username'" in second, second
        assert re.search(r"\+\d+ -\d+ ~\d+", second), second


def test_url_and_token_come_from_the_environment(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--token", TOKEN) as hub:
        env = clean_env(tmp_path / "elsewhere", MOBRIDGE_URL=hub.url, MOBRIDGE_TOKEN=TOKEN)
        run = subprocess.run(
            mobridge_command("devices"), capture_output=True, text=True, cwd=ROOT, env=env
        )
        assert run.returncode == 0, run.stderr
        env["MOBRIDGE_TOKEN"] = "wrong"
        run = subprocess.run(
            mobridge_command("devices"), capture_output=True, text=True, cwd=ROOT, env=env
        )
        assert run.returncode == 2


def test_a_wrong_token_is_one_line_naming_the_token_options(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--token", TOKEN) as hub:
        run = hub.run("devices", "--token", "wrong")
        assert run.returncode == 2 and run.stdout == ""
        (line,) = run.stderr.splitlines()
        assert "refused the token" in line and "MOBRIDGE_TOKEN" in line and "--token" in line


def test_no_hub_is_a_connection_error_with_exit_2() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = subprocess.run(
        [*mobridge_command("devices"), "--url", f"ws://127.0.0.1:{port}/v1", "--token", "t"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=clean_env(Path("/nonexistent")),
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("mobridge: ") and len(run.stderr.splitlines()) == 1


def test_usage_errors_exit_2_before_connecting() -> None:
    nowhere = ["--url", "ws://127.0.0.1:9/v1", "--token", "t"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*mobridge_command(*args), *nowhere],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=clean_env(Path("/nonexistent")),
        )

    got = run("find", DEV, "--query", "{not json")
    assert got.returncode == 2 and "--query is not JSON" in got.stderr
    got = run("find", DEV, "--query", "{}")
    assert got.returncode == 2 and "at least one field" in got.stderr
    got = run("wait", DEV, "--condition", '{"kind": "nope"}')
    assert got.returncode == 2 and "invalid --condition" in got.stderr
    got = run("tap", DEV)
    assert got.returncode == 2 and "what to act on?" in got.stderr
    for got in (run("find", DEV, "--query", "{}"), run("tap", DEV)):
        assert len(got.stderr.splitlines()) == 1 and "Traceback" not in got.stderr


@pytest.mark.requires_shared
def test_the_printed_envelope_conforms_to_the_reference(tmp_path: Path, shared_dir: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "ambiguous") as hub:
        run = hub.run("tap", DEV, "--text", "Continue")
    printed = tmp_path / "envelope.json"
    printed.write_text(run.stdout)
    check = subprocess.run(
        [sys.executable, str(shared_dir / "tools" / "conform.py"), "error", str(printed)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_taken_command_name_is_registered_with_a_hub_prefix() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("find")  # e.g. the offline find on dump files
    add_client_commands(sub)
    args = parser.parse_args(["hub-find", DEV, "--query", "{}"])
    assert args.client_command == "find" and args.device == DEV
    assert parser.parse_args(["tap", DEV, "--id", "x"]).client_command == "tap"
