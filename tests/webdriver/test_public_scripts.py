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


def _edit_class(wd: WdHub) -> str:
    return "android.widget.EditText" if wd.android else "XCUIElementTypeTextField"


def find_accessibility_id(wd: WdHub, d: Any) -> None:
    assert d.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").text == "Login"


def find_id(wd: WdHub, d: Any) -> None:
    assert d.find_element(AppiumBy.ID, "open_login").is_displayed()


def click(wd: WdHub, d: Any) -> None:
    _login(wd, d)
    assert d.find_element(AppiumBy.ID, "username")


def find_elements_class_name(wd: WdHub, d: Any) -> None:
    _login(wd, d)
    assert len(d.find_elements(AppiumBy.CLASS_NAME, _edit_class(wd))) >= 1


def send_keys(wd: WdHub, d: Any) -> None:
    _login(wd, d)
    d.find_element(AppiumBy.ID, "username").send_keys("Appium User")


def text(wd: WdHub, d: Any) -> None:
    send_keys(wd, d)
    assert d.find_element(AppiumBy.ID, "username").text == "Appium User"


def uiautomator_clickable(wd: WdHub, d: Any) -> None:
    found = d.find_element(AppiumBy.ANDROID_UIAUTOMATOR, "new UiSelector().clickable(true)")
    assert found.get_attribute("clickable") == "true"


def press_keycode(wd: WdHub, d: Any) -> None:
    d.press_keycode(3)  # HOME: the launcher comes to the front
    assert d.execute_script("mobile: getCurrentPackage") == "dev.mobridge.launcher"


def xpath_index(wd: WdHub, d: Any) -> None:
    assert d.find_element(AppiumBy.XPATH, "//XCUIElementTypeButton[1]").text == "Login"


def location(wd: WdHub, d: Any) -> None:
    assert d.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").location["y"] > 0


def swipe(wd: WdHub, d: Any) -> None:
    d.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
    before = d.page_source
    d.swipe(500, 1800, 500, 600, 400)
    assert d.page_source != before


def long_press_move_release(wd: WdHub, d: Any) -> None:
    d.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
    before = d.page_source
    _swipe(d, (500, 1800), (500, 700), hold=0.6)
    assert d.page_source != before


COMMANDS: dict[str, Callable[[WdHub, Any], None]] = {
    f.__name__: f
    for f in (
        find_accessibility_id, find_id, click, find_elements_class_name, send_keys, text,
        uiautomator_clickable, press_keycode, xpath_index, location, swipe,
        long_press_move_release,
    )
}  # fmt: skip


@pytest.fixture(scope="module", params=["android", "ios"])
def wd(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WdHub]:
    with wd_hub(tmp_path_factory.mktemp(f"pub-{request.param}"), request.param) as hub:
        yield hub


def test_every_listed_script_names_its_source_and_licence() -> None:
    assert len(ROWS) >= 3
    for row in ROWS:
        assert len(row["revision"]) == 40 and row["licence"] and row["path"].endswith(".py")
        assert set(row["commands"].split(",")) <= set(COMMANDS)


@pytest.mark.parametrize("command", sorted({c for r in ROWS for c in r["commands"].split(",")}))
def test_the_commands_public_scripts_use_work(wd: WdHub, command: str) -> None:
    platforms = {r["platform"] for r in ROWS if command in r["commands"].split(",")}
    if wd.platform not in platforms:
        return  # the listed scripts use it on the other platform only
    with session(wd) as driver:
        driver.implicitly_wait(10)
        COMMANDS[command](wd, driver)
