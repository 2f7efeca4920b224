"""The CLI on the ``web`` scene, as a person types it: the page's form in ``mobridge screen``
(marked by its ``#web:`` ids), typing and tapping into it, ``wait --present`` for what the
page shows next, and a "Continue" on both sides refused with both listed."""

from __future__ import annotations

from pathlib import Path

from tests.cli.hubproc import served_hub
from tests.cli.test_cli_hub import handle_of, ok
from tests.skips import need_web_chromium

pytestmark = need_web_chromium
DEV = "sim-android"


def test_the_web_form_through_the_cli(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "web") as hub:
        ok(hub.run("wait", DEV, "--present", "Sign in to Web Shop", "--timeout", "60s"))
        screen = ok(hub.run("screen", DEV))
        assert "WEB_VIEW #webview" in screen
        assert 'INPUT label "Email" hint "you@example.com" #web:#email [web]' in screen
        assert 'INPUT label "Password" #web:#password password' in screen
        assert 'BUTTON "Sign in" #web:#signin [web]' in screen
        assert 'BUTTON "Continue" #native_continue\n' in screen  # native: no mark
        refused = hub.run("tap", DEV, "Continue")
        assert refused.returncode != 0
        assert "AMBIGUOUS_MATCH" in refused.stderr
        assert handle_of(screen, "#native_continue") in refused.stderr
        assert handle_of(screen, "#web:#continue") in refused.stderr
        ok(hub.run("type", DEV, "--label", "Email", "--value", "demo@example.com"))
        ok(hub.run("type", DEV, handle_of(screen, "#web:#password"), "--value", "pw"))
        assert "demo@example.com" in ok(hub.run("screen", DEV))
        ok(hub.run("tap", DEV, "Sign in"))
        met = ok(hub.run("wait", DEV, "--present", "Welcome, demo@example.com", "--timeout", "20s"))
        assert "CONDITION_MET" in met
        assert "Coffee beans" in ok(hub.run("screen", DEV))
