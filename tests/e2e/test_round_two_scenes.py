"""Issue 34 across languages: the new pathology scenes of both host agents (Swift:
scripts/run-ios-agent-host, Java: scripts/run-android-agent-host) <- a real hub <- the Python
client. A localized alert (German and Japanese words) is accepted and dismissed by the right
button; a tab bar covering a row never takes the row's tap; the keyboard of a multi-line text
view is hidden without typing into it; the iOS agent's clipboard works; the Plus scene's
screenshot is 1080 pixels wide and the tree's pixels are the screenshot's."""

from __future__ import annotations

import pytest

from bridge.client import ActionResult, Device, build_query
from bridge.wire.conditions import Present
from tests.devices.test_ios_swift_pathologies import scene as swift_scene
from tests.e2e.test_java_pathologies import scene as java_scene
from tests.skips import need_jdk

pytestmark = pytest.mark.anyio


def _gone(answered: ActionResult) -> None:
    """The alert was in the tree: the answer settled once it had left (intrinsic check)."""
    got = answered.verification
    assert got is not None, answered
    assert got.result.value == "CONDITION_MET", got
    assert [(e.what, e.observed) for e in got.evidence] == [("alert", "gone")]


async def _shows(dev: Device, text: str) -> None:
    met = await dev.wait(Present(query=build_query(text=text)), 5000)
    assert met.result.value == "CONDITION_MET", text


@pytest.mark.parametrize(
    ("name", "action", "status"),
    [
        ("alert-de", "accept", "Location allowed"),
        ("alert-de", "dismiss", "Location denied"),
        ("alert-ja", "accept", "Location allowed"),
        ("alert-ja", "dismiss", "Location denied"),
    ],
)
async def test_swift_localized_alert(name: str, action: str, status: str) -> None:
    async with swift_scene(name) as (_hub, dev):
        listed = await dev.alerts()
        assert listed.alerts and listed.alerts[0].system
        answered = await dev.answer_alert(action)
        _gone(answered)
        await _shows(dev, status)


@need_jdk
@pytest.mark.parametrize(
    ("name", "action", "status"),
    [
        ("alert-de", "accept", "Photos allowed"),
        ("alert-ja", "dismiss", "Photos denied"),
    ],
)
async def test_java_localized_photo_prompt(name: str, action: str, status: str) -> None:
    async with java_scene(name) as (_hub, dev):
        _gone(await dev.answer_alert(action))
        await _shows(dev, status)


async def test_swift_tab_bar_never_takes_the_rows_tap() -> None:
    async with swift_scene("tab-bar") as (_hub, dev):
        for row in ("Row 14", "Row 15"):
            await dev.tap(build_query(text=row))
            await _shows(dev, f"Opened {row}")


@need_jdk
async def test_java_tab_bar_never_takes_the_rows_tap() -> None:
    async with java_scene("tab-bar") as (_hub, dev):
        await dev.tap(build_query(text="Row 12"))
        await _shows(dev, "Opened Row 12")


async def test_swift_notes_keyboard_hides_without_a_newline() -> None:
    async with swift_scene("notes") as (_hub, dev):
        await dev.hide_keyboard()
        snap = (await dev.snapshot(compact=False)).snapshot
        notes = [n for n in snap.nodes if (n.value or "").startswith("First line")]
        assert notes and notes[0].value == "First line"
        assert not [n for n in snap.nodes if n.label == "return"], "the keyboard left"


@need_jdk
async def test_java_notes_keyboard_hides_with_escape() -> None:
    async with java_scene("notes") as (_hub, dev):
        before = (await dev.snapshot(compact=False)).snapshot
        assert [n for n in before.nodes if n.label == "Keyboard"], "the keyboard shows"
        await dev.hide_keyboard()
        snap = (await dev.snapshot(compact=True, fresh=True)).snapshot
        assert not [n for n in snap.nodes if n.label == "Keyboard"], "the keyboard left"
        assert [n for n in snap.nodes if "First line" in (n.text or n.value or "")], "same screen"


async def test_swift_clipboard_and_plus_scale() -> None:
    async with swift_scene("plus") as (_hub, dev):
        await dev.set_clipboard("from the hub")
        assert await dev.clipboard() == "from the hub"
        shot = await dev.screenshot()
        assert shot.width == 1080
        snap = (await dev.snapshot(compact=False)).snapshot
        (button,) = [n for n in snap.nodes if n.label == "Tap me" or n.text == "Tap me"]
        assert button.bounds is not None
        # 40..190 points at 1080/414 pixels a point (UIScreen.scale 3 would give 120..570)
        assert abs(button.bounds[0] - 104) <= 2 and abs(button.bounds[2] - 496) <= 2, button.bounds
        await dev.tap_at(
            (button.bounds[0] + button.bounds[2]) // 2, (button.bounds[1] + button.bounds[3]) // 2
        )
        await _shows(dev, "Tapped")
