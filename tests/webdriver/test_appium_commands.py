"""More of the endpoint through Appium's Python client, both simulated flavours: choosing a
device by udid, /status, implicit waits that end when the hub pushes the awaited screen,
scrolling into view, selection state, clear, key actions, alerts and orientation."""

from __future__ import annotations

import datetime
import json
import time
import urllib.request
from collections.abc import Iterator

import pytest
from appium.webdriver.common.appiumby import AppiumBy
from selenium.common.exceptions import (
    NoSuchElementException,
    SessionNotCreatedException,
    WebDriverException,
)
from selenium.webdriver.common.action_chains import ActionChains

from tests.webdriver.wdfixture import WdHub, session, wd_hub


@pytest.fixture(scope="module", params=["android", "ios"])
def wd(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WdHub]:
    with wd_hub(tmp_path_factory.mktemp(f"cmd-{request.param}"), request.param) as hub:
        yield hub


def _text_xpath(text: str) -> str:
    return f"//*[@text='{text}' or @label='{text}' or @value='{text}']"


def test_status_and_choosing_the_device_by_udid(wd: WdHub) -> None:
    with urllib.request.urlopen(f"{wd.url}/status", timeout=10) as answer:
        status = json.load(answer)["value"]
    assert status["ready"] is True and "mobridge" in status["message"]
    with session(wd, **{"appium:udid": wd.device_id}) as driver:
        assert driver.capabilities["appium:udid"] == wd.device_id
    with pytest.raises(SessionNotCreatedException) as unknown:
        wd.driver(**{"appium:udid": "emulator-5554"})
    assert f"devices: {wd.device_id}" in unknown.value.msg
    other = "iOS" if wd.android else "Android"
    with pytest.raises(SessionNotCreatedException) as mismatch:
        wd.driver(**{"appium:udid": wd.device_id, "platformName": other})
    assert "not" in mismatch.value.msg and wd.device_id in mismatch.value.msg


def test_an_implicit_wait_ends_when_the_awaited_screen_is_pushed(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Home").click()
        now = driver.find_element(AppiumBy.ID, "clock").text
        shown = datetime.datetime.strptime(now, "%H:%M:%S")
        later = (shown + datetime.timedelta(seconds=2)).strftime("%H:%M:%S")
        driver.implicitly_wait(0)
        with pytest.raises(NoSuchElementException):
            driver.find_element(AppiumBy.XPATH, _text_xpath(later))
        driver.implicitly_wait(10)
        started = time.monotonic()
        assert driver.find_element(AppiumBy.XPATH, _text_xpath(later)).text == later
        assert time.monotonic() - started < 9  # found when the clock got there, not at the end
        assert driver.timeouts.implicit_wait == 10


def test_scrolling_a_list_until_a_row_shows(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
        if wd.android:
            row = driver.find_element(
                AppiumBy.ANDROID_UIAUTOMATOR,
                "new UiScrollable(new UiSelector().scrollable(true))"
                '.scrollIntoView(new UiSelector().text("Item 30"))',
            )
            assert row.text == "Item 30"
            driver.execute_script(
                "mobile: scroll", {"strategy": "accessibility id", "selector": "Item 60"}
            )
        else:
            driver.execute_script("mobile: scroll", {"direction": "down", "name": "Item 30"})
            assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Item 30").is_displayed()
            driver.execute_script(
                "mobile: scroll", {"direction": "down", "predicateString": "label == 'Item 60'"}
            )
        driver.implicitly_wait(0)
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Item 60").is_displayed()


def test_selection_state_clear_and_key_actions(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Settings").click()
        toggle = driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Bluetooth")
        before = toggle.is_selected()
        toggle.click()
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Bluetooth").is_selected() != before
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
        field = driver.find_element(AppiumBy.ID, "username")
        field.send_keys("someone")
        assert field.text == "someone"
        field.clear()
        assert field.text == "Username"  # the hint shows again, as UiAutomator2 and WDA say
        field.click()  # the focus: key actions type into it
        ActionChains(driver).send_keys("typed").perform()
        assert driver.find_element(AppiumBy.ID, "username").text == "typed"
        assert driver.switch_to.active_element.text == "typed"


def test_alerts_and_orientation(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Dialog").click()
        driver.find_element(AppiumBy.XPATH, _text_xpath("Discard draft?"))
        driver.execute_script("mobile: dismissAlert", {})
        driver.implicitly_wait(0)
        assert driver.find_elements(AppiumBy.XPATH, _text_xpath("Discard draft?")) == []
        portrait = driver.get_window_size()
        driver.orientation = "LANDSCAPE"
        assert driver.orientation == "LANDSCAPE"
        turned = driver.get_window_size()
        assert turned["width"] == portrait["height"] and turned["height"] == portrait["width"]
        driver.orientation = "PORTRAIT"
        assert driver.orientation == "PORTRAIT"


def test_mobile_gestures_keys_and_app_lifecycle_refusals(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Game").click()
        size = driver.get_window_size()
        area = {"left": 0, "top": size["height"] // 4, "width": size["width"],
                "height": size["height"] // 2, "percent": 0.5}  # fmt: skip
        driver.execute_script("mobile: pinchOpenGesture", area)
        told = driver.find_element(AppiumBy.XPATH, "//*[starts-with(@text, 'Pinched') or "
                                   "starts-with(@label, 'Pinched')]")  # fmt: skip
        assert "x2 " in (told.text or told.get_attribute("label"))
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
        before = driver.page_source
        driver.execute_script("mobile: swipeGesture", {**area, "direction": "up", "percent": 0.8})
        assert driver.page_source != before
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
        driver.find_element(AppiumBy.ID, "username").click()
        driver.execute_script("mobile: hideKeyboard")
        if wd.android:
            driver.press_keycode(4)  # BACK through mobile: pressKey
            assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")
        assert driver.is_app_installed("dev.mobridge.demo")
        assert not driver.is_app_installed("dev.not.there")
        with pytest.raises(WebDriverException) as refused:
            driver.execute_script("mobile: shell", {"command": "ls"})
        assert "not served" in refused.value.msg and "terminateApp" in refused.value.msg
        with pytest.raises(WebDriverException) as script:
            driver.execute_script("return 1")
        assert "JavaScript" in script.value.msg


def test_the_appium_clients_gesture_helpers(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        login = driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")
        rect = login.rect
        driver.tap([(rect["x"] + 20, rect["y"] + 20)])  # W3C touch pointer, no element
        assert driver.find_element(AppiumBy.ID, "username")
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
        rows = driver.find_elements(
            AppiumBy.XPATH, _text_xpath("Item 8") + " | " + _text_xpath("Item 2")
        )
        far, near = rows[-1], rows[0]
        before = driver.page_source
        driver.scroll(far, near, duration=300)  # origin elements: press on one, move to the other
        assert driver.page_source != before


def test_deep_links_background_and_start_activity(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.get("mobridge-demo://settings")  # a deep link, as Appium's drivers take it
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Bluetooth")
        driver.background_app(1)  # HOME, a second away, then back in front
        assert driver.query_app_state("dev.mobridge.demo") == 4
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Bluetooth")
        driver.background_app(-1)  # stays away
        assert driver.execute_script("mobile: getCurrentPackage") == "dev.mobridge.launcher"
        if wd.android:
            driver.execute_script(
                "mobile: startActivity",
                {"appPackage": "dev.mobridge.demo", "appActivity": ".MainActivity"},
            )
        else:
            driver.activate_app("dev.mobridge.demo")
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")
