"""``mobridge record DEVICE -o FLOW.yaml`` against a real ``mobridge serve``: a person acts
with the CLI (each command its own session), the recorder writes steps from the hub's action
events with the semantic target each action was resolved from, and the recorded flow replays
(``mobridge test --url``) to the same end screen."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import yaml

from bridge.flows.record import Recorder, flow_target
from bridge.flows.report import decode_report
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.enums import ErrorCode, MatchMode, Role
from bridge.wire.query import SemanticQuery, TextMatch, Within
from tests.cli.hubproc import ROOT, mobridge_command, served_hub


def wait_for_line(process: subprocess.Popen[str], words: str, timeout: float = 20) -> str:
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if words in line:
            return line
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"no line with {words!r} from the recorder")


def test_a_recorded_flow_replays_to_the_same_end_screen(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.json"
    secrets.write_text(json.dumps({"password": "typed-at-replay"}))
    flow = tmp_path / "recorded.yaml"
    with served_hub(tmp_path, "--secrets-file", str(secrets)) as hub:
        recorder = subprocess.Popen(
            mobridge_command("record", "sim-android", "-o", str(flow), "--count", "5"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=hub.env(),
        )
        try:
            wait_for_line(recorder, "recording sim-android")
            steps = [
                ("tap", "sim-android", "--text", "Login"),
                ("type", "sim-android", "--text", "Username", "--value", "demo"),
                ("type", "sim-android", "--text", "Password", "--value", "pw-typed-live"),
                ("tap", "sim-android", "--text", "Nowhere"),  # refused: a comment, not a step
                ("tap", "sim-android", "--text", "Sign in", "--role", "BUTTON"),
                ("tap", "sim-android", "--text", "Settings"),
            ]
            for args in steps:
                done = hub.run(*args)
                assert done.returncode == (1 if "Nowhere" in args else 0), done.stderr
            out, err = recorder.communicate(timeout=30)
        finally:
            if recorder.poll() is None:
                recorder.kill()
                recorder.wait()
        assert recorder.returncode == 0, err
        assert out.splitlines()[0] == "- tap: Login"  # each step shown as it is recorded
        assert f"wrote {flow} (5 steps)" in err
        text = flow.read_text()
        assert "pw-typed-live" not in text  # a password field's value is never observable
        assert "bounds" not in text and "x:" not in text  # targets, not coordinates
        header, body = yaml.safe_load_all(text)
        assert header == {"appId": "dev.mobridge.demo"}
        assert body == [
            {"assertScreen": "menu"},
            {"tap": "Login"},
            {"inputText": {"into": "Username", "text": "demo"}},
            {"inputText": {"into": "Password", "secret": "secret://password"}},
            {"tap": {"text": "Sign in", "role": "BUTTON"}},
            {"tap": "Settings"},
            {"assertScreen": "settings"},
        ]
        assert "# refused, not recorded: CLICK Nowhere: NODE_NOT_FOUND" in text
        assert "# Needs secret://password on the hub" in text
        screen = json.loads(hub.run("screen", "sim-android", "--json").stdout)
        recorded_end = screen["snapshot"]["screenStateId"]
        # the device elsewhere, then the replay (it relaunches the app first)
        assert hub.run("press", "sim-android", "back").returncode == 0
        report_dir = tmp_path / "replay"
        replay = hub.run("test", str(flow), "--url", hub.url, "--report", str(report_dir))
        assert replay.returncode == 0, replay.stdout + replay.stderr
        report = decode_report((report_dir / "index.json").read_bytes())
        (test,) = report.tests
        assert test.status == "passed"
        assert test.end_screen is not None
        assert test.end_screen.markers == ["settings"]
        assert test.end_screen.screen_state_id == recorded_end


def test_targets_are_written_in_the_flow_short_form() -> None:
    q = SemanticQuery(
        role=Role.BUTTON,
        text=TextMatch(value="Continue"),
        within=Within(text=TextMatch(value="Pro plan")),
        nth=0,
    )
    assert flow_target(q) == {"text": "Continue", "role": "BUTTON", "within": "Pro plan", "nth": 0}
    contains = SemanticQuery(text=TextMatch(value="Item", match=MatchMode.CONTAINS))
    assert flow_target(contains) == {"text": "Item", "match": "CONTAINS"}
    assert flow_target(SemanticQuery(text=TextMatch(value="costs ${X}"))) == "costs $${X}"
    recorder = Recorder("sim-android", "dev.mobridge.demo")
    other = ActionEvent(device="sim-ios", session="s", client="c", verb="global", action="BACK")
    assert recorder.add(other) is None and recorder.steps == []
    refused = ActionEvent(
        device="sim-android",
        session="s",
        client="c",
        verb="global",
        action="HOME",
        error=ErrorCode.POLICY_BLOCKED,
        message="the device is leased by someone else",
    )
    line = recorder.add(refused)
    assert line == (
        "# refused, not recorded: HOME: POLICY_BLOCKED (the device is leased by someone else)"
    )
    assert recorder.steps == [("comment", line.removeprefix("# "))]


def _controlling_tty() -> None:
    """In the child (after setsid): make its stdin, the pty, the controlling terminal, so a
    Ctrl-C typed into the pty is a SIGINT to it, as in a shell."""
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _read_until(fd: int, words: bytes, seen: bytearray, timeout: float = 30) -> None:
    import select

    deadline = time.monotonic() + timeout
    while words not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {words!r} in {bytes(seen)!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen.extend(chunk)


def test_ctrl_c_in_a_terminal_ends_the_recording_with_exit_0_and_keeps_secret_names(
    tmp_path: Path,
) -> None:
    import pty

    secrets = tmp_path / "secrets.json"
    secrets.write_text(json.dumps({"pw": "typed-by-the-hub"}))
    flow = tmp_path / "ctrl_c.yaml"
    with served_hub(tmp_path, "--secrets-file", str(secrets)) as hub:
        main, side = pty.openpty()
        recorder = subprocess.Popen(
            mobridge_command("record", "sim-android", "-o", str(flow)),
            stdin=side,
            stdout=side,
            stderr=side,
            cwd=ROOT,
            env=hub.env(),
            start_new_session=True,
            preexec_fn=_controlling_tty,
        )
        os.close(side)
        seen = bytearray()
        try:
            _read_until(main, b"Ctrl-C to stop", seen)
            for args in (
                ("tap", "sim-android", "--text", "Login"),
                ("type", "sim-android", "--text", "Password", "--value-ref", "secret://pw"),
            ):
                done = hub.run(*args)
                assert done.returncode == 0, done.stderr
            _read_until(main, b"secret://pw", seen)
            os.write(main, b"\x03")  # Ctrl-C, typed: the terminal sends SIGINT
            _read_until(main, b"steps)", seen)
            assert recorder.wait(timeout=30) == 0, bytes(seen)
        finally:
            if recorder.poll() is None:
                recorder.kill()
                recorder.wait()
            os.close(main)
    said = bytes(seen).decode(errors="replace")
    assert f"wrote {flow} (2 steps)" in said
    assert "Traceback" not in said and "UnboundLocalError" not in said
    _, body = yaml.safe_load_all(flow.read_text())
    assert body[1:3] == [
        {"tap": "Login"},
        {"inputText": {"into": "Password", "secret": "secret://pw"}},
    ]
    assert "# Needs secret://pw on the hub" in flow.read_text()


def test_capability_events_are_recorded_as_their_steps(tmp_path: Path) -> None:
    import json

    import msgspec

    from bridge.flows.compile import load_suite
    from bridge.wire.action import ActionResult

    fixture = Path(__file__).resolve().parents[2] / "protocol/fixtures/hub-to-client"
    body = json.loads((fixture / "result.permission.json").read_text())["result"]
    result = msgspec.convert(body, ActionResult)
    recorder = Recorder("sim-android", "dev.mobridge.demo")
    for verb, action, message in (
        ("alert", "ACCEPT", "alert accept"),
        ("alert", "PRESS", "alert press 'Don't allow'"),
        ("permission", "PERMISSION_GRANT", "permission grant camera dev.mobridge.demo"),
        ("location", "LOCATION_SET", "location set to 48.85660,2.35220"),
        ("location", "LOCATION_CLEAR", "location cleared"),
        ("keyboard", "KEYBOARD_HIDE", "keyboard hidden"),
        ("clipboard", "CLIPBOARD_SET", "clipboard set (6 characters)"),
    ):
        event = ActionEvent(device="sim-android", session="s", client="c", verb=verb,
                            action=action, result=result, message=message)  # fmt: skip
        recorder.add(event)
    auto = ActionEvent(device="sim-android", session="s", client="c", verb="alert",
                       action="AUTO_ACCEPT", message="auto-accepted alert 'Allow?'")  # fmt: skip
    assert recorder.add(auto) == "# auto-accepted alert 'Allow?' (write alert: ... to replay it)"
    text = recorder.render()
    assert "- alert: accept" in text and "button: Don't allow" in text
    assert "approve: true" in text and "latitude: 48.8566" in text
    assert "- clearLocation" in text and "- hideKeyboard" in text
    assert "the text is never recorded" in text
    (tmp_path / "recorded.yaml").write_text(text)
    (flow,) = load_suite([str(tmp_path)], {}, {})
    kinds = [step.kind for step in flow.steps]
    assert kinds == ["alert", "alert", "setPermission", "setLocation", "clearLocation",
                     "hideKeyboard"]  # fmt: skip


def test_a_session_recorded_in_maestro_format_replays_here(tmp_path: Path) -> None:
    """``record --format maestro`` writes Maestro's format; ``mobridge test`` reads it back
    (as Maestro would) and reaches the same end screen; ``history --flow`` writes it too."""
    flow = tmp_path / "maestro.yaml"
    with served_hub(tmp_path) as hub:
        recorder = subprocess.Popen(
            mobridge_command("record", "sim-android", "-o", str(flow), "--count", "4",
                             "--format", "maestro"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=hub.env(),
        )  # fmt: skip
        try:
            wait_for_line(recorder, "recording sim-android")
            for args in (
                ("tap", "sim-android", "--text", "Login"),
                ("type", "sim-android", "--text", "Username", "--value", "demo"),
                ("type", "sim-android", "--text", "Password", "--value", "pw-typed-live"),
                ("tap", "sim-android", "--text", "Sign in", "--role", "BUTTON"),
            ):
                assert hub.run(*args).returncode == 0
            _, err = recorder.communicate(timeout=30)
        finally:
            if recorder.poll() is None:
                recorder.kill()
                recorder.wait()
        assert recorder.returncode == 0, err
        text = flow.read_text()
        assert "pw-typed-live" not in text
        header, body = yaml.safe_load_all(text)
        assert header == {"appId": "dev.mobridge.demo"}
        assert body == [
            "launchApp",
            {"assertVisible": {"id": ".*__screen_menu"}},
            {"tapOn": "Login"},
            {"tapOn": "Username"},
            {"inputText": "demo"},
            {"tapOn": "Password"},
            {"inputText": "${PASSWORD}"},
            {"tapOn": "Sign in"},
            {"assertVisible": {"id": ".*__screen_home"}},
        ]
        assert "# Needs ${PASSWORD}" in text
        replay = hub.run("test", str(flow), "--url", hub.url, "--env", "PASSWORD=at-replay",
                         "--report", str(tmp_path / "replay"))  # fmt: skip
        assert replay.returncode == 0, replay.stdout + replay.stderr
        report = decode_report((tmp_path / "replay" / "index.json").read_bytes())
        assert report.tests[0].end_screen is not None
        assert report.tests[0].end_screen.markers == ["home"]
        since = tmp_path / "since.yaml"
        got = hub.run("history", "sim-android", "--flow", str(since), "--since", "-5m",
                      "--flow-format", "maestro")  # fmt: skip
        assert got.returncode == 0, got.stderr
        history = list(yaml.safe_load_all(since.read_text()))[1]
        assert {"tapOn": "Login"} in history and history[0] == "launchApp"
