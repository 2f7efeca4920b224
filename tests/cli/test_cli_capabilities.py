"""The device-capability commands of issue 21 against a real ``mobridge serve`` (simulated
device, camera screen): ``alert`` on the permission dialog changes the screen,
``permission`` (a grant needs --approve), ``location``, ``pinch``, ``two-finger-tap``,
``clipboard`` and ``keyboard hide``; bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.hubproc import served_hub
from tests.cli.test_cli_hub import DEV, ok


def test_alert_accept_on_the_permission_dialog_changes_the_screen(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "camera") as hub:
        before = ok(hub.run("screen", DEV))
        assert "Allow Mobridge Demo to take pictures" in before
        listed = json.loads(ok(hub.run("alert", DEV)))
        assert listed["alerts"][0]["buttons"] == ["Don't allow", "Allow"]
        done = json.loads(ok(hub.run("alert", DEV, "accept")))
        assert done["observation"]["screenChanged"]
        after = ok(hub.run("screen", DEV))
        assert "take pictures" not in after and "Camera: granted" in after
        assert json.loads(ok(hub.run("alert", DEV))) == {"device": DEV}
        none = hub.run("alert", DEV, "dismiss")
        assert none.returncode == 1 and "no alert is on screen" in none.stderr
        assert hub.run("alert", DEV, "accept", "--button", "OK").returncode == 2


def test_permission_location_pinch_clipboard_keyboard(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "camera") as hub:
        pressed = hub.run("alert", DEV, "--button", "don't allow")
        ok(pressed)
        assert "Camera: denied" in ok(hub.run("screen", DEV))
        asked = hub.run("permission", DEV, "grant", "dev.mobridge.demo", "camera")
        assert asked.returncode == 1 and "USER_CONFIRMATION_REQUIRED" in asked.stdout
        ok(hub.run("permission", DEV, "grant", "dev.mobridge.demo", "camera", "--approve"))
        assert "Camera: granted" in ok(hub.run("screen", DEV))
        ok(hub.run("permission", DEV, "reset", "dev.mobridge.demo", "camera"))
        assert "Camera: not asked" in ok(hub.run("screen", DEV))
        bad = hub.run("permission", DEV, "grant", "dev.mobridge.demo", "teleport")
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
        ok(hub.run("location", DEV, "--", "-33.8688,151.2093"))
        assert "Location: -33.86880, 151.20930" in ok(hub.run("screen", DEV))
        far = hub.run("location", DEV, "200,0")
        assert far.returncode == 2 and "latitude 200 is outside -90..90" in far.stderr
        assert len(far.stderr.strip().splitlines()) == 1
        ok(hub.run("location", DEV, "--clear"))
        assert "Location: not set" in ok(hub.run("screen", DEV))
        ok(hub.run("pinch", DEV, "--id", "photo", "--scale", "2"))
        assert "Photo zoom 2.00x" in ok(hub.run("screen", DEV))
        for scale in ("0", "1000"):
            wrong = hub.run("pinch", DEV, "--id", "photo", "--scale", scale)
            assert wrong.returncode == 2 and "--scale" in wrong.stderr, wrong.stderr
        ok(hub.run("two-finger-tap", DEV, "--at", "540,700"))
        assert "Two-finger tap at (540, 700)" in ok(hub.run("screen", DEV))
        ok(hub.run("clipboard", DEV, "set", "hello clipboard"))
        assert json.loads(ok(hub.run("clipboard", DEV)))["text"] == "hello clipboard"
        ok(hub.run("tap", DEV, "Caption"))
        assert "focused" in ok(hub.run("screen", DEV))
        ok(hub.run("keyboard", DEV, "hide"))
        assert "focused" not in ok(hub.run("screen", DEV))
