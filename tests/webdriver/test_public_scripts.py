"""The commands public Appium Python scripts use (``public_scripts.tsv``: repository,
revision, path, licence; none of their code is kept here), each run against ``serve
--webdriver`` with Appium's client on the simulated device of the script's platform. The
scripts drove other apps (ApiDemos, ContactManager, TestApp); the commands are replayed on
the demo app's equivalents. ``TouchAction`` (gone from Appium's client 3+) is replayed as
the W3C actions the current client sends for the same gesture."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from appium.webdriver.common.appiumby import AppiumBy
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

from tests.webdriver.wdfixture import WdHub, session, wd_hub

ROWS = list(csv.DictReader((Path(__file__).parent / "public_scripts.tsv").open(), delimiter="\t"))


def _login(wd: WdHub, d: Any) -> None:
    d.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()


def _swipe(d: Any, start: tuple[int, int], end: tuple[int, int], hold: float = 0) -> None:
    actions = ActionChains(d)
    actions.w3c_actions = ActionBuilder(d, mouse=PointerInput(interaction.POINTER_TOUCH, "f"))
    actions.w3c_actions.pointer_action.move_to_location(*start).pointer_down()
    if hold:
        actions.w3c_actions.pointer_action.pause(hold)
    actions.w3c_actions.pointer_action.move_to_location(*end).release()
    actions.perform()


COMMANDS: dict[str, Callable[[WdHub, Any], None]] = {
    "find_accessibility_id": lambda wd, d: d.find_element(AppiumBy.ACCESSIBILITY_ID, "Login"),
    "find_id": lambda wd, d: d.find_element(AppiumBy.ID, "open_login" if wd.android else "open_login"),
    "click": lambda wd, d: (_login(wd, d), d.find_element(AppiumBy.ID, "username")),
    "find_elements_class_name": lambda wd, d: (
        _login(wd, d),
        len(d.find_elements(AppiumBy.CLASS_NAME, "android.widget.EditText" if wd.android
                            else "XCUIElementTypeTextField")) >= 1 or pytest.fail("none"),
    ),  # fmt: skip
    "send_keys": lambda wd, d: (
        _login(wd, d),
        d.find_element(AppiumBy.ID, "username").send_keys("Appium User"),
    ),
    "text": lambda wd, d: (
        _login(wd, d),
        d.find_element(AppiumBy.ID, "username").send_keys("Appium User"),
        d.find_element(AppiumBy.ID, "username").text == "Appium User" or pytest.fail("text"),
    ),
    "uiautomator_clickable": lambda wd, d: d.find_element(
        AppiumBy.ANDROID_UIAUTOMATOR, "new UiSelector().clickable(true)"
    ),
    "press_keycode": lambda wd, d: d.press_keycode(3),
    "xpath_index": lambda wd, d: d.find_element(AppiumBy.XPATH, "//XCUIElementTypeButton[1]"),
    "location": lambda wd, d: d.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").location["y"] > 0
    or pytest.fail("location"),
    "swipe": lambda wd, d: (
        d.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click(),
        d.swipe(500, 1800, 500, 600, 400),
    ),
    "long_press_move_release": lambda wd, d: (
        d.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click(),
        _swipe(d, (500, 1800), (500, 700), hold=0.6),
    ),
}


@pytest.fixture(scope="module", params=["android", "ios"])
def wd(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WdHub]:
    with wd_hub(tmp_path_factory.mktemp(f"pub-{request.param}"), request.param) as hub:
        yield hub


def test_every_listed_script_names_its_source_and_licence() -> None:
    assert len(ROWS) >= 3
    for row in ROWS:
        assert len(row["revision"]) == 40 and row["licence"] and row["path"].endswith(".py")
        assert set(row["commands"].split(",")) <= set(COMMANDS)


@pytest.mark.parametrize(
    "command", sorted({c for r in ROWS for c in r["commands"].split(",")})
)
def test_the_commands_public_scripts_use_work(wd: WdHub, command: str) -> None:
    platforms = {r["platform"] for r in ROWS if command in r["commands"].split(",")}
    if wd.platform not in platforms:
        return  # the listed scripts use it on the other platform only
    with session(wd) as driver:
        driver.implicitly_wait(10)
        COMMANDS[command](wd, driver)
