"""The CLI against a real ``mobridge serve`` (simulated device), as a person types it: the live
screen, acting by text, handle, hint, --nth / --within, gestures, keys, apps, leases,
screenshots, waits and watch, with token discovery and pretty JSON on a terminal."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import msgspec

from bridge.wire.client_protocol import FindResult, SnapshotResult
from bridge.wire.errors import ErrorEnvelope
from tests.cli.hubproc import mobridge_command, served_hub

DEV = "sim-android"


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return proc.stdout


def handle_of(outline: str, words: str) -> str:
    """The handle (first column) of the outline line containing ``words``."""
    for line in outline.splitlines()[1:]:
        if words in line:
            return line.split()[0]
    raise AssertionError(f"{words!r} not in\n{outline}")


def test_screen_outline_then_act_by_handle_text_and_hint(tmp_path: Path) -> None:
    with served_hub(tmp_path) as hub:
        assert any(line.startswith("dashboard: ") and "#token=" in line for line in hub.lines)
        token_file = hub.runtime_dir / "mobridge" / f"hub-{hub.port}.token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        menu = ok(hub.run("screen", DEV))
        header, *nodes = menu.splitlines()
        assert header.startswith(f"{DEV}  menu  (dev.mobridge.demo, ")
        assert re.fullmatch(r"n\d+ +BUTTON \"Login\" #open_login", handle_of_line(nodes, "Login"))
        login_button = handle_of(menu, '"Login"')
        # by handle, found with no token given; answered at dispatch, the effect waited for
        ok(hub.run("tap", DEV, login_button, "--observe", "none"))
        assert "CONDITION_MET" in ok(hub.run("wait", DEV, "--screen", "login"))
        login = ok(hub.run("screen", DEV))
        assert 'INPUT hint "Username" #username' in login
        assert 'INPUT hint "Password" #password password' in login
        ok(hub.run("type", DEV, "Username", "--value", "demo"))  # found by its hint
        ok(hub.run("type", DEV, "--text", "Password", "--value", "pw"))
        ok(hub.run("tap", DEV, "Sign in"))
        ok(hub.run("wait", DEV, "--screen", "home"))
        as_json = msgspec.json.decode(ok(hub.run("screen", DEV, "--json")), type=SnapshotResult)
        assert any(n.text == "Home" for n in as_json.snapshot.nodes)
    assert not token_file.exists(), "the hub removes its token file when it stops"


def handle_of_line(lines: list[str], words: str) -> str:
    return next(line for line in lines if words in line)


def test_look_alikes_are_refused_with_the_ways_to_pick_one(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "ambiguous") as hub:
        refused = hub.run("tap", DEV, "Continue")
        assert refused.returncode == 1
        envelope = msgspec.json.decode(refused.stdout, type=ErrorEnvelope)
        assert envelope.error.value == "AMBIGUOUS_MATCH" and len(envelope.candidates) == 2
        lines = refused.stderr.splitlines()
        assert lines[0].startswith("mobridge: refused: AMBIGUOUS_MATCH: 2 elements match")
        assert lines[1].startswith("  --nth 0: BUTTON 'Continue'")
        assert lines[2].startswith("  --nth 1: BUTTON 'Continue'")
        assert "--within TEXT" in lines[3] and f"mobridge tap {DEV} n" in lines[3]
        ok(hub.run("tap", DEV, "Continue", "--within", "Pro plan"))
        ok(hub.run("wait", DEV, "--present", "Chose Pro plan", "--timeout-ms", "3000"))
        ok(hub.run("tap", DEV, "Continue", "--nth", "0"))
        ok(hub.run("wait", DEV, "--present", "Chose Basic plan", "--timeout-ms", "3000"))
        found = msgspec.json.decode(
            ok(hub.run("find", DEV, "--text", "plan", "--contains")), type=FindResult
        )
        texts = [m.node.text for m in found.matches]
        assert texts == ["Choose a plan", "Basic plan", "Pro plan", "Chose Basic plan"]


def test_swipe_scroll_long_press_press_and_app(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "list") as hub:
        before = ok(hub.run("screen", DEV))
        ok(hub.run("swipe", DEV, "up"))  # the only scrollable container
        after = ok(hub.run("screen", DEV))
        assert '"Item 1"' in before and '"Item 1"' not in after
        ok(hub.run("scroll", DEV, "--back", "--role", "LIST"))
        assert '"Item 1"' in ok(hub.run("screen", DEV))
        pressed = json.loads(ok(hub.run("long-press", DEV, "Item 2")))
        assert pressed["dispatch"]["status"] == "DISPATCHED"
        ok(hub.run("press", DEV, "home"))
        assert "launcher" in ok(hub.run("screen", DEV)).splitlines()[0]
        opened = json.loads(ok(hub.run("app", DEV, "open", "dev.mobridge.demo")))
        assert opened["verification"]["result"] == "CONDITION_MET"
        ok(hub.run("app", DEV, "url", "mobridge-demo://settings"))
        ok(hub.run("wait", DEV, "--screen", "settings"))
        ok(hub.run("press", DEV, "back"))
        assert hub.run("press", DEV, "sideways").returncode == 2
        assert hub.run("app", DEV, "open").returncode == 2


def test_leases_screenshots_and_pretty_json_on_a_terminal(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "login") as hub:
        shown = json.loads(ok(hub.run("lease", DEV)))
        assert shown == {"device": DEV, "lease": None}
        holder = subprocess.Popen(
            [*mobridge_command("lease", DEV, "--hold", "20", "--name", "holder-bot")],
            env=hub.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stderr is not None
            assert "holding the exclusive lease" in holder.stderr.readline()
            held = json.loads(ok(hub.run("lease", DEV)))
            assert held["lease"]["holderNames"] == ["holder-bot"]
            blocked = hub.run("tap", DEV, "Sign in")
            assert blocked.returncode == 1 and "POLICY_BLOCKED" in blocked.stderr
            assert "holder-bot" in blocked.stderr
        finally:
            holder.terminate()
            holder.wait(timeout=10)
        png = tmp_path / "screen.png"
        saved = json.loads(ok(hub.run("screenshot", DEV, "-o", str(png))))
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert saved["bytes"] == png.stat().st_size and saved["width"] > 0
        fresh = json.loads(ok(hub.run("screenshot", DEV, "-o", str(png), "--fresh")))
        assert fresh["width"] == saved["width"]
        piped = ok(hub.run("devices"))
        assert len(piped.splitlines()) == 1  # one JSON line for scripts
        status, tty = hub.run_tty("devices", "--json")
        assert status == 0 and tty.startswith('{\n  "devices": [\n')  # indented for people
        status, human = hub.run_tty("tap", DEV, "Sign in")
        assert status == 0 and human.startswith("tap BUTTON 'Sign in': DISPATCHED")


def test_watch_prints_settled_screens_and_all_frames_on_request(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "menu") as hub:
        settled = subprocess.Popen(
            mobridge_command("watch", DEV, "--count", "3"),
            env=hub.env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        frames = subprocess.Popen(
            mobridge_command("watch", DEV, "--all", "--count", "6"),
            env=hub.env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert settled.stdout is not None and frames.stdout is not None
        # Each watcher prints the screen it subscribed to first: once both have, both are
        # subscribed (no fixed wait: under load subscribing can take seconds).
        first = settled.stdout.readline()
        first_all = frames.stdout.readline()
        ok(hub.run("tap", DEV, "Login"))
        # The settled watcher's next line is the login screen, settled: now go back.
        second = settled.stdout.readline()
        assert second.split()[1] == "login", second
        ok(hub.run("press", DEV, "back"))
        rest, _ = settled.communicate(timeout=60)
        rest_all, _ = frames.communicate(timeout=60)
    out = first + second + rest
    all_out = first_all + rest_all
    lines = out.splitlines()
    assert [line.split()[1] for line in lines] == ["menu", "login", "menu"]
    assert "'Welcome', 'Username', 'Password', 'Sign in'" in lines[1]
    # --all shows the animation frames in between: more lines for the same two changes
    assert len(all_out.splitlines()) == 6
    assert [line.split()[1] for line in all_out.splitlines()][:2] == ["menu", "login"]


def test_coordinates_keys_focused_typing_apps_and_orientation(tmp_path: Path) -> None:
    packages = tmp_path / "packages"
    packages.mkdir()
    (packages / "notes.json").write_text('{"appId": "com.example.notes", "name": "Notes"}')
    with served_hub(tmp_path, "--sim-scene", "login", "--install-dir", str(packages)) as hub:
        shown = json.loads(ok(hub.run("orientation", DEV)))
        assert (shown["width"], shown["height"], shown["orientation"]) == (1080, 2400, "portrait")
        found = json.loads(ok(hub.run("find", DEV, "--id", "dev.mobridge.demo:id/username")))
        left, top, right, bottom = found["matches"][0]["node"]["bounds"]
        at = f"{(left + right) // 2},{(top + bottom) // 2}"
        tapped = json.loads(ok(hub.run("tap", DEV, "--at", at)))
        assert tapped["dispatch"]["method"] == "GESTURE_FALLBACK" and "target" not in tapped
        ok(hub.run("type", DEV, "--value", "demo"))  # no target: the focused field
        assert '"demo"' in ok(hub.run("screen", DEV))
        ok(hub.run("key", DEV, "dpad_down"))
        ok(hub.run("type", DEV, "--value", "pw", "--submit"))
        ok(hub.run("wait", DEV, "--screen", "home"))
        refused = hub.run("key", DEV, "media_play_pause")
        assert refused.returncode == 1 and "ACTION_UNSUPPORTED" in refused.stderr
        assert hub.run("key", DEV, "sideways").returncode == 2
        assert hub.run("tap", DEV, "--at", "12").returncode == 2
        assert hub.run("tap", DEV, "--at", "5000,5").returncode == 2  # off the screen
        turned = json.loads(ok(hub.run("orientation", DEV, "landscape")))
        assert (turned["width"], turned["orientation"]) == (2400, "landscape")
        ok(hub.run("orientation", DEV, "portrait"))
        listed = json.loads(ok(hub.run("apps", DEV)))
        assert listed["foreground"] == "dev.mobridge.demo"
        asked = hub.run("app", DEV, "install", "notes.json")
        assert asked.returncode == 1 and "USER_CONFIRMATION_REQUIRED" in asked.stdout
        assert re.search(r"objection obj_[0-9a-f]+: .*rerun with --approve", asked.stderr)
        installed = json.loads(ok(hub.run("app", DEV, "install", "notes.json", "--approve")))
        assert installed["verification"]["result"] == "CONDITION_MET"
        assert "com.example.notes" in ok(hub.run("apps", DEV))
        unasked = hub.run("app", DEV, "clear", "dev.mobridge.demo")
        assert unasked.returncode == 1 and "USER_CONFIRMATION_REQUIRED" in unasked.stdout
        assert hub.run("app", DEV, "clear").returncode == 2  # no APP_ID
        cleared = json.loads(ok(hub.run("app", DEV, "clear", "dev.mobridge.demo", "--approve")))
        assert cleared["mutationClass"] == "DESTRUCTIVE"
        assert cleared["verification"]["result"] == "CONDITION_MET"
        x, y = 540, 1600
        ok(hub.run("app", DEV, "url", "mobridge-demo://game"))
        ok(hub.run("tap", DEV, "--at", f"{x},{y}", "--double"))
        assert f"Double-tapped at ({x}, {y})" in ok(hub.run("screen", DEV))
        ok(hub.run("long-press", DEV, "--at", f"{x},{y}", "--hold-ms", "900"))
        assert "for 900 ms" in ok(hub.run("screen", DEV))
        ok(hub.run("swipe", DEV, "up", "--at", f"{x},{y}", "--distance", "500"))
        assert f"Swiped from ({x}, {y}) to ({x}, {y - 500})" in ok(hub.run("screen", DEV))
