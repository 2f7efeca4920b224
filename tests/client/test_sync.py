"""The blocking facade: the same session, driven from plain (non-async) code, against the real
hub (in a thread of this process) with the simulated device."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from bridge.client import AmbiguousError, ProtocolFailure, build_query
from bridge.client.sync import connect_sync
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ProtocolErrorCode, VerificationResult


def test_the_sync_facade_drives_a_device() -> None:
    """The blocking facade against a real hub (in its own thread) with the simulated device:
    find, snapshot, tap, type, a refused ambiguity, waits, back, a lease, a screenshot, a
    watch that follows the screen's changes."""
    from anyio.from_thread import start_blocking_portal

    from tests.hub.hubfixture import CONTROLLER, running_hub

    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(running_hub(sim_scene="menu")) as rh,
        connect_sync(rh.url, token=CONTROLLER, name="script") as hub,
    ):
        assert hub.session is not None and hub.session.session
        assert [d.id for d in hub.devices()] == [rh.device_id]
        device = hub.device(rh.device_id)
        assert device.find(text="Login").count == 1
        first = device.snapshot().snapshot
        with device.watch() as watch:
            seen = next(iter(watch))
            assert seen.snapshot.snapshot_id == first.snapshot_id
            result = device.tap(build_query(text="Login"))
            assert result.target is not None and "Login" in (result.target.label or "")
            for update in watch:  # the watch follows the hub's deltas to the login screen
                if any(n.text == "Sign in" for n in update.snapshot.nodes):
                    break
        assert device.wait(ScreenShown(name="login")).result is VerificationResult.CONDITION_MET
        device.type_text(build_query(resource_id="username"), "demo")
        assert device.find(resource_id="username").matches[0].node.value == "demo"
        device.back()
        device.wait(ScreenShown(name="menu"))
        device.tap(build_query(text="Ambiguous"))
        with pytest.raises(AmbiguousError) as caught:
            device.tap(build_query(text="Continue"))
        assert len(caught.value.candidates) == 2
        assert device.back().dispatch.status.value == "DISPATCHED"
        with device.lease() as held:
            assert held.lease is not None and held.lease.holder_names == ("script",)
        with device.lease() as again:  # released at the end of the block: taken again at once
            assert again.lease is not None
        assert device.fetch_screenshot().startswith(b"\x89PNG")
        hub.ping()
        assert hub.statistics().pending == 0
    assert not [t for t in threading.enumerate() if t.name == "mobridge-client"]


def test_the_sync_facade_raises_the_same_errors() -> None:
    from anyio.from_thread import start_blocking_portal

    from tests.hub.hubfixture import running_hub

    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(running_hub()) as rh,
        pytest.raises(ProtocolFailure) as caught,
    ):
        with connect_sync(rh.url, token="wrong"):
            pass
    assert caught.value.code is ProtocolErrorCode.UNAUTHENTICATED


def test_the_sync_facade_controls_the_device_itself() -> None:
    """Gestures at points, keys, typing into the focused field, the orientation and the apps,
    from blocking code, against a real hub (in its own thread) with the simulated device."""
    from anyio.from_thread import start_blocking_portal

    from tests.hub.hubfixture import CONTROLLER, running_hub

    fast = {"animations": False}
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(running_hub(sim_scene="login", sim_options=fast)) as rh,
        connect_sync(rh.url, token=CONTROLLER, name="script") as hub,
    ):
        device = hub.device(rh.device_id)
        shown = device.display()
        assert (shown.width, shown.height) == (1080, 2400)
        user = device.find(resource_id="dev.mobridge.demo:id/username").matches[0].node
        assert user.bounds is not None
        left, top, right, bottom = user.bounds
        assert device.double_tap_at((left + right) // 2, (top + bottom) // 2).target is None
        device.type_focused("demo")
        device.press_key("DPAD_DOWN")
        device.type_focused("pw", submit=True)
        assert device.wait(ScreenShown(name="home")).result is VerificationResult.CONDITION_MET
        assert device.set_orientation("landscape").verification is not None
        assert device.display().width == 2400
        device.set_orientation("portrait")
        device.swipe_on_screen([(540, 1800), (540, 900)], 200)
        device.long_press_at(540, 1200, 900)
        assert {a.app_id for a in device.apps().apps} == {
            "dev.mobridge.demo",
            "dev.mobridge.launcher",
        }


def test_the_sync_facade_installs_a_file_reads_the_log_and_records(tmp_path: Path) -> None:
    """Device media from blocking code against a real hub with the simulated device: a local
    package streamed and installed after the user's word, the log lines an action wrote, and
    a recording's MP4."""
    import json

    from anyio.from_thread import start_blocking_portal

    from bridge.client import ConfirmationRequired
    from bridge.wire.client_protocol import Confirm
    from tests.hub.hubfixture import CONTROLLER, running_hub

    package = tmp_path / "notes.json"
    package.write_text(json.dumps({"appId": "com.example.notes", "name": "Notes"}))
    fast = {"animations": False}
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(running_hub(sim_options=fast)) as rh,
        connect_sync(rh.url, token=CONTROLLER, name="script") as hub,
    ):
        device = hub.device(rh.device_id)
        upload = device.upload_file(package)
        with pytest.raises(ConfirmationRequired) as asked:
            device.install_upload(upload)
        assert asked.value.objection is not None
        yes = Confirm(objection=asked.value.objection.id, answer="approve")
        assert device.install_upload(upload, confirm=yes).verification is not None
        assert "com.example.notes" in {a.app_id for a in device.apps().apps}

        def tap_soon() -> None:
            deadline = time.monotonic() + 30
            while not rh.hub.service.log_streams.active:  # until log_lines has subscribed
                assert time.monotonic() < deadline, "log_lines never subscribed"
                time.sleep(0.02)
            device.tap_at(540, 1200)

        tapper = threading.Thread(target=tap_soon)
        tapper.start()
        events, lost = device.log_lines(2.5, grep="tap at 540,1200")
        tapper.join()
        assert lost == 0 and any(
            line.text.endswith("tap at 540,1200") for e in events for line in e.lines
        )
        made, data = device.record(1, fps=4)
        assert made.frames >= 1 and len(data) == made.bytes > 0
