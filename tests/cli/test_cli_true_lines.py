"""Every misleading line of issue 40, made true: each test runs the command a new user ran
against a real ``mobridge serve`` and checks the line now says what happened and what to do.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bridge.vision import ENABLE_HINT, RESTART_HINT, engine
from tests.cli.hubproc import ServedHub, served_hub

DEV = "sim-android"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedHub]:
    with served_hub(tmp_path_factory.mktemp("true-lines")) as served:
        yield served


def one_line(text: str) -> str:
    assert "Traceback" not in text
    return text.strip()


def test_request_timeout_zero_is_a_usage_error_not_an_unreachable_hub(hub: ServedHub) -> None:
    got = hub.run("devices", "--request-timeout", "0")
    assert got.returncode == 2
    line = one_line(got.stderr)
    assert "--request-timeout" in line and "out of range" in line
    assert "cannot reach" not in line and "no hub" not in line


def test_an_unknown_option_is_named_with_the_closest_one_and_the_commands_help(
    hub: ServedHub,
) -> None:
    got = hub.run("wait", DEV, "--scr", "home")
    assert got.returncode == 2
    line = one_line(got.stderr)
    assert "unrecognized option --scr; did you mean --screen?" in line
    assert "(see mobridge wait --help)" in line and "is required" not in line
    other = hub.run("tap", DEV, "Login", "--bogus")
    assert other.returncode == 2
    assert "mobridge tap: unrecognized option --bogus (see mobridge tap --help)" in other.stderr


def test_a_mistyped_tap_target_names_the_closest_text(hub: ServedHub) -> None:
    assert hub.run("app", DEV, "open", "dev.mobridge.demo").returncode == 0
    assert hub.run("wait", DEV, "--present", "Login").returncode == 0
    got = hub.run("tap", DEV, "Logn")
    assert got.returncode == 1
    assert "closest: 'Login'" in got.stderr


def test_acquire_with_no_possible_device_is_refused_at_once_in_cli_words(hub: ServedHub) -> None:
    start = time.monotonic()
    got = hub.run("acquire", "--platform", "ios", "--timeout", "2m")
    took = time.monotonic() - start
    assert got.returncode == 1
    assert took < 60  # not the whole two minutes (a generous ceiling: the machine may be loaded)
    assert "no device of this hub matches platform=IOS" in got.stderr
    assert "sim-android (android)" in got.stderr and "timeoutMs" not in got.stderr


def test_acquire_without_hold_says_the_lease_ends_with_the_command(hub: ServedHub) -> None:
    got = hub.run("acquire")
    assert got.returncode == 0, got.stderr
    assert "released now, as this command ends (--hold S keeps it)" in got.stderr
    # ... and it did: another client may lease at once
    assert hub.run("lease", DEV).returncode == 0


def test_find_without_a_match_says_vision_would_read_drawn_text(hub: ServedHub) -> None:
    got = hub.run("find", DEV, "--text", "PLAY")
    assert got.returncode == 0
    assert f"mobridge find {DEV} --text PLAY --source vision" in got.stderr


def test_logs_with_no_lines_says_so(hub: ServedHub) -> None:
    got = hub.run("logs", DEV, "--seconds", "1", "--grep", "nothing-logs-this-zq")
    assert got.returncode == 0, got.stderr
    assert got.stdout == ""
    assert f"no log lines from {DEV} in 1 s matching --grep nothing-logs-this-zq" in got.stderr


def test_a_missing_secret_names_the_variable_to_set(hub: ServedHub) -> None:
    assert hub.run("app", DEV, "open", "dev.mobridge.demo").returncode == 0
    assert hub.run("tap", DEV, "Login").returncode == 0
    assert hub.run("wait", DEV, "--screen", "login").returncode == 0
    got = hub.run("type", DEV, "Password", "--value-ref", "secret://password")
    assert got.returncode != 0
    assert "set MOBRIDGE_SECRET_PASSWORD in the hub's environment" in got.stderr
    assert "--secrets-file" in got.stderr


def test_tap_at_a_point_refuses_observe_none_instead_of_ignoring_it(hub: ServedHub) -> None:
    got = hub.run("tap", DEV, "--at", "10,10", "--observe", "none")
    assert got.returncode == 2
    assert "--observe none applies to element targets" in got.stderr


def test_the_vision_hint_names_the_checkout_command_and_a_restart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "MOBRIDGE_EXTRAS=vision scripts/run --vision" in ENABLE_HINT
    monkeypatch.setattr(engine, "_loaded", ENABLE_HINT)  # looked before the extra was there
    monkeypatch.setattr(engine, "_absent_at_load", True)
    monkeypatch.setattr(engine, "_ocr_installed", lambda: False)
    assert engine.load_engine() == ENABLE_HINT
    monkeypatch.setattr(engine, "_ocr_installed", lambda: True)  # ... and now it is there
    assert engine.load_engine() == RESTART_HINT
    assert "restart the hub" in RESTART_HINT
