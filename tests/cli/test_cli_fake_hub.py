"""The client CLI commands, run as real subprocesses against the client-only FakeHub: what
the CLI sends and prints (piped: JSON on stdout). Behaviour that needs the real hub is in
``test_cli_hub.py``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from bridge.cli.client import add_client_commands
from bridge.wire.action import ActionResult
from bridge.wire.client_protocol import (
    Act,
    DeviceSummary,
    FindResult,
    Global,
    WaitResult,
)
from bridge.wire.enums import ErrorCode, GlobalAction
from bridge.wire.errors import ErrorEnvelope
from tests.client.fake_hub import DEVICE, TOKEN, FakeHub

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def served() -> Iterator[tuple[FakeHub, str]]:
    fake = FakeHub()
    with fake.in_thread() as url:
        yield fake, url


def mobridge(
    *args: str, url: str | None = None, token: str | None = TOKEN, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bridge.cli.client", *args]
    if url is not None:
        command += ["--url", url]
    if token is not None:
        command += ["--token", token]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**clean, **(env or {})},
        timeout=60,
        check=False,
    )


def one_line(out: str) -> bytes:
    lines = out.splitlines()
    assert len(lines) == 1, out
    return lines[0].encode()


def acts(fake: FakeHub) -> list[Act]:
    return [m for m in fake.received if isinstance(m, Act)]


def test_devices(served: tuple[FakeHub, str]) -> None:
    _, url = served
    run = mobridge("devices", url=url)
    assert run.returncode == 0, run.stderr
    listed = msgspec.json.decode(one_line(run.stdout), type=dict[str, list[DeviceSummary]])
    assert [d.id for d in listed["devices"]] == [DEVICE]


def test_find_with_inline_json_and_a_file(served: tuple[FakeHub, str], tmp_path: Path) -> None:
    _, url = served
    run = mobridge("find", DEVICE, "--query", '{"role": "BUTTON"}', url=url)
    assert run.returncode == 0, run.stderr
    assert msgspec.json.decode(one_line(run.stdout), type=FindResult).count == 4
    query = tmp_path / "q.json"
    query.write_text('{"resourceId": "login"}')
    run = mobridge("find", DEVICE, "--query", f"@{query}", url=url)
    found = msgspec.json.decode(one_line(run.stdout), type=FindResult)
    assert found.matches[0].node.node_id == "n4"


def test_tap_by_text_acts_on_the_single_match(served: tuple[FakeHub, str]) -> None:
    fake, url = served
    run = mobridge("tap", DEVICE, "--text", "Sign in", url=url)
    assert run.returncode == 0, run.stderr
    result = msgspec.json.decode(one_line(run.stdout), type=ActionResult)
    assert result.target is not None and result.target.label == "Sign in"
    (act,) = acts(fake)
    assert act.request.target is None  # the hub resolves the query
    assert act.query is not None and act.query.text is not None
    assert act.query.text.value == "Sign in"


def test_tap_refuses_ambiguity_and_lists_the_candidates(served: tuple[FakeHub, str]) -> None:
    fake, url = served
    run = mobridge("tap", DEVICE, "--label", "Continue", url=url)
    assert run.returncode == 1
    envelope = msgspec.json.decode(one_line(run.stdout), type=ErrorEnvelope)
    assert envelope.error is ErrorCode.AMBIGUOUS_MATCH
    assert [c.node_id for c in envelope.candidates] == ["n5", "n6"]
    lines = run.stderr.splitlines()
    assert lines[0].startswith("mobridge: refused: AMBIGUOUS_MATCH")
    assert len(lines) == 4
    for i, (line, ref) in enumerate(zip(lines[1:3], envelope.candidates, strict=True)):
        assert line.startswith(f"  --nth {i}:") and f"({ref.node_id})" in line
    assert f"mobridge tap {DEVICE} n5" in lines[3]
    (act,) = acts(fake)  # sent once; the hub refused it
    assert act.query is not None


def test_tap_by_ref_inline_or_from_a_find_match_file(
    served: tuple[FakeHub, str], tmp_path: Path
) -> None:
    fake, url = served
    found = msgspec.json.decode(
        one_line(
            mobridge("find", DEVICE, "--query", '{"label": {"value": "Continue"}}', url=url).stdout
        ),
        type=FindResult,
    )
    second = found.matches[1]
    run = mobridge("tap", DEVICE, "--ref", msgspec.json.encode(second.ref).decode(), url=url)
    assert run.returncode == 0, run.stderr
    match_file = tmp_path / "match.json"
    match_file.write_bytes(msgspec.json.encode(found.matches[0]))
    run = mobridge("tap", DEVICE, "--ref", f"@{match_file}", url=url)
    assert run.returncode == 0, run.stderr
    assert [a.request.target for a in acts(fake)] == [second.ref, found.matches[0].ref]
    bad = mobridge("tap", DEVICE, "--ref", '{"nodeId": "n1"}', url=url)
    assert bad.returncode == 2 and "invalid --ref (a NodeRef)" in bad.stderr


def test_tap_needing_confirmation_names_the_objection(served: tuple[FakeHub, str]) -> None:
    _, url = served
    run = mobridge("tap", DEVICE, "--label", "Delete", url=url)
    assert run.returncode == 1
    envelope = msgspec.json.decode(one_line(run.stdout), type=ErrorEnvelope)
    assert envelope.error is ErrorCode.USER_CONFIRMATION_REQUIRED
    assert "--confirm obj-delete" in run.stderr
    run = mobridge("tap", DEVICE, "--label", "Delete", "--confirm", "obj-delete", url=url)
    assert run.returncode == 0, run.stderr


def test_type_a_value_or_a_secret_reference(served: tuple[FakeHub, str]) -> None:
    fake, url = served
    assert mobridge("type", DEVICE, "--id", "username", "--value", "demo", url=url).returncode == 0
    run = mobridge("type", DEVICE, "--id", "password", "--value-ref", "secret://pw", url=url)
    assert run.returncode == 0, run.stderr
    user, password = (a.request for a in acts(fake))
    assert (user.value, user.value_ref) == ("demo", None)
    assert (password.value, password.value_ref) == (None, "secret://pw")
    run = mobridge("type", DEVICE, "--id", "password", "--value-ref", "hunter2", url=url)
    assert run.returncode == 2 and "secret://" in run.stderr and "hunter2" not in run.stdout


def test_back(served: tuple[FakeHub, str]) -> None:
    fake, url = served
    run = mobridge("back", DEVICE, url=url)
    assert run.returncode == 0, run.stderr
    msgspec.json.decode(one_line(run.stdout), type=ActionResult)
    assert [m.action for m in fake.received if isinstance(m, Global)] == [GlobalAction.BACK]


def test_wait_exit_status_says_met_or_not(served: tuple[FakeHub, str]) -> None:
    _, url = served
    met = mobridge("wait", DEVICE, "--condition", '{"kind": "screen", "name": "login"}', url=url)
    assert met.returncode == 0, met.stderr
    assert msgspec.json.decode(one_line(met.stdout), type=WaitResult).result.value == (
        "CONDITION_MET"
    )
    condition = '{"kind": "screen", "name": "home"}'
    missed = mobridge("wait", DEVICE, "--condition", condition, "--timeout-ms", "50", url=url)
    assert missed.returncode == 1
    assert msgspec.json.decode(one_line(missed.stdout), type=WaitResult).elapsed_ms == 50
    assert missed.stderr.splitlines() == ["wait: not met after 50ms"]  # once, in one line


def test_watch_prints_one_line_per_change_with_the_screens_name_and_texts(
    served: tuple[FakeHub, str],
) -> None:
    fake, url = served
    run = mobridge("watch", DEVICE, "--count", "3", url=url)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0][8:].startswith("  login      7 nodes")
    assert lines[1][8:].startswith("  login      +0 -0 ~1")
    assert lines[2][8:].startswith("  home       +3 -7 ~0") and "'12:00'" in lines[2]
    (subscribe,) = [m for m in fake.received if type(m).__name__ == "Subscribe"]
    assert subscribe.settled is True  # settled screens by default
    as_json = mobridge("watch", DEVICE, "--count", "2", "--json", "--all", url=url)
    updates = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [(u["seq"], u["resync"], u["changed"]) for u in updates] == [
        (0, True, []),
        (1, False, ["n2"]),
    ]
    assert [m.settled for m in fake.received if type(m).__name__ == "Subscribe"] == [True, False]


def test_url_and_token_come_from_the_environment(served: tuple[FakeHub, str]) -> None:
    fake, url = served
    run = mobridge("devices", token=None, env={"MOBRIDGE_URL": url, "MOBRIDGE_TOKEN": TOKEN})
    assert run.returncode == 0, run.stderr
    assert fake.auth_headers == [f"Bearer {TOKEN}"]


def test_a_wrong_token_is_one_line_naming_the_token_options(served: tuple[FakeHub, str]) -> None:
    _, url = served
    run = mobridge("devices", url=url, token="wrong")
    assert run.returncode == 2 and run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert "refused the token" in line and "MOBRIDGE_TOKEN" in line and "--token" in line


def test_no_hub_is_a_connection_error_with_exit_2() -> None:
    fake = FakeHub()
    with fake.in_thread() as url:
        pass  # now nothing listens there
    run = mobridge("devices", url=url)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("mobridge: ") and len(run.stderr.splitlines()) == 1


def test_usage_errors_exit_2_before_connecting() -> None:
    nowhere = "ws://127.0.0.1:9/v1"
    run = mobridge("find", DEVICE, "--query", "{not json", url=nowhere)
    assert run.returncode == 2 and "--query is not JSON" in run.stderr
    run = mobridge("find", DEVICE, "--query", "{}", url=nowhere)
    assert run.returncode == 2 and "at least one field" in run.stderr
    run = mobridge("wait", DEVICE, "--condition", '{"kind": "nope"}', url=nowhere)
    assert run.returncode == 2 and "invalid --condition" in run.stderr
    run = mobridge("tap", DEVICE, url=nowhere)
    assert run.returncode == 2 and "what to act on?" in run.stderr
    for run in (
        mobridge("find", DEVICE, "--query", "{}", url=nowhere),
        mobridge("tap", DEVICE, url=nowhere),
    ):
        assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr


@pytest.mark.requires_shared
def test_the_printed_envelope_conforms_to_the_reference(
    served: tuple[FakeHub, str], shared_dir: Path, tmp_path: Path
) -> None:
    _, url = served
    run = mobridge("tap", DEVICE, "--label", "Continue", url=url)
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
    args = parser.parse_args(["hub-find", DEVICE, "--query", "{}"])
    assert args.client_command == "find" and args.device == DEVICE
    assert parser.parse_args(["tap", DEVICE, "--id", "x"]).client_command == "tap"
