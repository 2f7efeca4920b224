"""Appium's official Python client and Selenium against ``serve --webdriver`` on the simulated
device, Android and iOS flavours: the Done-when list of issue 36, end to end."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from appium.webdriver.common.appiumby import AppiumBy
from lxml import etree
from selenium.common.exceptions import (
    InvalidSelectorException,
    NoSuchElementException,
    SessionNotCreatedException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

from bridge.wire.client_protocol import ActionEvent, LeaseEvent
from tests.webdriver.wdfixture import OBSERVER, WdHub, observer, session, wd_hub


@pytest.fixture(scope="module", params=["android", "ios"])
def wd(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WdHub]:
    with wd_hub(tmp_path_factory.mktemp(f"wd-{request.param}"), request.param) as hub:
        yield hub


def _xpath_field(wd: WdHub, password: bool) -> str:
    if wd.android:
        return f"//android.widget.EditText[@password='{str(password).lower()}']"
    return "//XCUIElementTypeSecureTextField" if password else "//XCUIElementTypeTextField"


def _sign_in(wd: WdHub, driver: Any) -> None:
    driver.implicitly_wait(10)
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
    driver.find_element(AppiumBy.ID, "username").send_keys("demo")
    driver.find_element(AppiumBy.XPATH, _xpath_field(wd, password=True)).send_keys("hunter2")
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Sign in").click()


def test_sign_in_with_xpath_id_and_accessibility_id(wd: WdHub) -> None:
    with session(wd) as driver:
        assert driver.capabilities["appium:automationName"] == (
            "UiAutomator2" if wd.android else "XCUITest"
        )
        assert "mobridge:token" not in driver.capabilities
        _sign_in(wd, driver)
        title = driver.find_element(AppiumBy.ID, "title")
        assert title.text == "Home"
        assert driver.find_elements(AppiumBy.ACCESSIBILITY_ID, "Sign in") == []


def test_page_source_parses_and_appium_style_xpath_finds_the_same_elements(wd: WdHub) -> None:
    with session(wd) as driver:
        root = etree.fromstring(driver.page_source.encode())
        if wd.android:
            assert root.tag == "hierarchy"
            xpath = "//android.widget.Button[@text='Login']"
            (button,) = root.xpath(xpath)
            assert button.get("resource-id") == "dev.mobridge.demo:id/open_login"
            assert button.get("clickable") == "true" and button.get("content-desc") == "Login"
            left, top, right, bottom = map(
                int, button.get("bounds")[1:-1].replace("][", ",").split(",")
            )
        else:
            assert root.tag == "AppiumAUT"
            xpath = "//XCUIElementTypeButton[@name='open_login']"
            (button,) = root.xpath(xpath)
            assert button.get("label") == "Login" and button.get("type") == "XCUIElementTypeButton"
            left, top = int(button.get("x")), int(button.get("y"))
            right, bottom = left + int(button.get("width")), top + int(button.get("height"))
        element = driver.find_element(AppiumBy.XPATH, xpath)
        assert element.rect == {"x": left, "y": top, "width": right - left, "height": bottom - top}
        assert element.is_displayed() and element.is_enabled()
        assert element.tag_name == (
            "android.widget.Button" if wd.android else "XCUIElementTypeButton"
        )


def test_platform_strategies_and_class_name(wd: WdHub) -> None:
    with session(wd) as driver:
        if wd.android:
            by_selector = driver.find_element(
                AppiumBy.ANDROID_UIAUTOMATOR,
                'new UiSelector().className("android.widget.Button").textContains("ogi")',
            )
            assert by_selector.text == "Login"
            rid = driver.find_element(
                AppiumBy.ANDROID_UIAUTOMATOR,
                'new UiSelector().resourceId("dev.mobridge.demo:id/open_list")',
            )
            assert rid.text == "List"
            assert len(driver.find_elements(AppiumBy.CLASS_NAME, "android.widget.Button")) >= 8
        else:
            by_predicate = driver.find_element(
                AppiumBy.IOS_PREDICATE,
                "type == 'XCUIElementTypeButton' AND label BEGINSWITH[c] 'log'",
            )
            assert by_predicate.get_attribute("name") == "open_login"
            chained = driver.find_element(
                AppiumBy.IOS_CLASS_CHAIN, '**/XCUIElementTypeButton[`label == "List"`]'
            )
            assert chained.get_attribute("label") == "List"
            assert len(driver.find_elements(AppiumBy.CLASS_NAME, "XCUIElementTypeButton")) >= 8
        with pytest.raises(InvalidSelectorException):
            driver.find_element(AppiumBy.XPATH, "//*[")


def test_w3c_swipe_scrolls_the_list_and_pinch_reaches_the_board(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "List").click()
        before = driver.page_source
        size = driver.get_window_size()
        x = size["width"] // 2
        finger = PointerInput(interaction.POINTER_TOUCH, "finger")
        actions = ActionChains(driver)
        actions.w3c_actions = ActionBuilder(driver, mouse=finger)
        actions.w3c_actions.pointer_action.move_to_location(x, int(size["height"] * 0.75))
        actions.w3c_actions.pointer_action.pointer_down()
        actions.w3c_actions.pointer_action.move_to_location(x, int(size["height"] * 0.3))
        actions.w3c_actions.pointer_action.release()
        actions.perform()
        assert driver.page_source != before  # the list moved (rows recycled)
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Game").click()
        cx, cy = size["width"] // 2, size["height"] // 2
        builder = ActionBuilder(driver)
        for name, (x0, x1) in (("f1", (cx - 60, cx - 200)), ("f2", (cx + 60, cx + 200))):
            pointer = builder.add_pointer_input(interaction.POINTER_TOUCH, name)
            pointer.create_pointer_move(x=x0, y=cy)
            pointer.create_pointer_down(button=0)
            pointer.create_pointer_move(duration=200, x=x1, y=cy)
            pointer.create_pointer_up(button=0)
        builder.perform()
        told = driver.find_element(
            AppiumBy.XPATH, "//*[starts-with(@text, 'Pinched') or starts-with(@label, 'Pinched')]"
        )
        assert "x3.333" in (told.text or told.get_attribute("label"))  # 400 px apart / 120


def test_screenshot_back_orientation_and_contexts(wd: WdHub) -> None:
    with session(wd) as driver:
        png = driver.get_screenshot_as_png()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        size = driver.get_window_size()
        assert size["width"] > 0 and size["height"] > size["width"]
        assert driver.orientation == "PORTRAIT"
        assert driver.contexts == ["NATIVE_APP"] and driver.current_context == "NATIVE_APP"
        login = driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")
        assert base64.b64decode(login.screenshot_as_base64).startswith(b"\x89PNG")
        login.click()
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ID, "username")
        driver.back()
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").is_displayed()


def test_app_terminate_and_activate(wd: WdHub) -> None:
    with session(wd) as driver:
        assert driver.query_app_state("dev.mobridge.demo") == 4
        assert driver.terminate_app("dev.mobridge.demo") is True
        assert driver.query_app_state("dev.mobridge.demo") == 1
        driver.activate_app("dev.mobridge.demo")
        assert driver.query_app_state("dev.mobridge.demo") == 4
        driver.implicitly_wait(10)
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")


def test_an_element_of_a_screen_that_is_gone_is_stale(wd: WdHub) -> None:
    with session(wd) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
        field = driver.find_element(AppiumBy.ID, "username")
        driver.back()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")  # the menu again
        with pytest.raises(StaleElementReferenceException) as caught:
            field.click()
        assert "STALE_NODE_REF" in caught.value.msg or "NODE_NOT_FOUND" in caught.value.msg
        with pytest.raises(StaleElementReferenceException):
            _ = field.text


def test_an_ambiguous_click_is_refused_and_strict_refuses_the_find(wd: WdHub) -> None:
    with observer(wd) as events, session(wd, **{"mobridge:name": "suite"}) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Ambiguous").click()
        first = driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Continue")  # reading is fine
        assert first.text == "Continue"
        with pytest.raises(InvalidSelectorException) as caught:
            first.click()
        assert caught.value.msg.startswith("AMBIGUOUS_MATCH")
        assert "mobridge:firstMatch" in caught.value.msg
        both = driver.find_elements(AppiumBy.ACCESSIBILITY_ID, "Continue")
        assert len(both) == 2
        both[1].click()  # an explicit choice is acted on
        chosen = "//*[@text='Chose Pro plan' or @label='Chose Pro plan']"
        assert driver.find_element(AppiumBy.XPATH, chosen)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            isinstance(e, ActionEvent) and e.error is not None for e in events
        ):
            time.sleep(0.05)  # waits for the observer's copy of the refusal
    refusals = [e for e in events if isinstance(e, ActionEvent) and e.error is not None]
    assert [(e.client.split()[0], e.error.value) for e in refusals] == [
        ("suite", "AMBIGUOUS_MATCH")
    ]  # the dashboard's timeline shows the refused click, and who tried it
    with session(wd, **{"mobridge:strict": True}) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Ambiguous").click()
        driver.find_element(AppiumBy.XPATH, "//*[@text='Basic plan' or @label='Basic plan']")
        with pytest.raises(InvalidSelectorException) as caught:
            driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Continue")
        assert "AMBIGUOUS_MATCH" in caught.value.msg and "strict" in caught.value.msg
    with session(wd, **{"mobridge:firstMatch": True}) as driver:
        driver.implicitly_wait(10)
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Ambiguous").click()
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Continue").click()  # Appium's way
        assert driver.find_element(
            AppiumBy.XPATH, "//*[@text='Chose Basic plan' or @label='Chose Basic plan']"
        )


def _queued(wd: WdHub) -> int:
    """How many acquires wait in the hub's queue (``devices.list`` names them)."""
    import anyio

    from bridge.client import connect
    from bridge.wire.client_protocol import DevicesList, DevicesListResult

    async def count() -> int:
        async with connect(wd.hub.url, token=OBSERVER, name="queue-watch") as hub:
            listed = await hub.call(DevicesList(id=hub.next_id()), DevicesListResult)
            return len(listed.waiting)

    return anyio.run(count)


def _in_thread(wd: WdHub, **caps: Any) -> tuple[threading.Thread, list[Any]]:
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(wd.driver(**caps)))
    thread.start()
    return thread, got


def test_two_sessions_on_one_device_follow_the_lease(wd: WdHub) -> None:
    first = wd.driver()
    with pytest.raises(SessionNotCreatedException) as refused:
        wd.driver()  # no leaseWait: refused at once, naming the holder
    assert "POLICY_BLOCKED" in refused.value.msg and "leaseWait" in refused.value.msg
    # by platform: the hub's FIFO queue; the waiter shows in devices.list until it is served
    queued, got = _in_thread(wd, **{"mobridge:leaseWait": 60})
    deadline = time.monotonic() + 30
    while _queued(wd) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _queued(wd) == 1 and not got
    assert first.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")  # the first still drives
    first.quit()
    queued.join(timeout=60)
    assert got, "the queued session never got the lease"
    second = got[0]
    # by udid: woken by the hub's lease event when the holder lets go
    named, got_named = _in_thread(wd, **{"mobridge:leaseWait": 60, "appium:udid": wd.device_id})
    assert second.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").text == "Login"
    second.quit()
    named.join(timeout=60)
    assert got_named, "the session waiting for the named device never got it"
    third = got_named[0]
    try:
        assert third.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").is_displayed()
    finally:
        third.quit()


def test_an_observer_sees_the_scripts_actions_and_the_lease_ends_on_timeout(wd: WdHub) -> None:
    with observer(wd) as events:
        driver = wd.driver(**{"mobridge:name": "appium-script", "appium:newCommandTimeout": 1})
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login").click()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            isinstance(e, LeaseEvent) and e.change == "released" for e in events
        ):
            time.sleep(0.05)  # waits for the observer's record of the release
        with pytest.raises(WebDriverException) as ended:
            driver.find_element(AppiumBy.ID, "username")
        assert "newCommandTimeout" in ended.value.msg
    clicks = [e for e in events if isinstance(e, ActionEvent) and e.result is not None]
    assert any("appium-script" in (e.client or "") for e in clicks), events
    changes = [e.change for e in events if isinstance(e, LeaseEvent)]
    assert "acquired" in changes and "released" in changes, changes


def test_a_token_is_required_and_may_come_in_the_url(wd: WdHub) -> None:
    options = wd.options()
    options.set_capability("mobridge:token", None)
    from appium import webdriver

    with pytest.raises(SessionNotCreatedException) as refused:
        webdriver.Remote(wd.url, options=options)
    assert "token" in refused.value.msg.lower()
    with_token = wd.url.replace("http://", "http://script:webdriver-test-controller@")
    driver = webdriver.Remote(with_token, options=options)
    try:
        assert driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Login")
    finally:
        driver.quit()


def test_unknown_element_and_missing_element(wd: WdHub) -> None:
    with session(wd) as driver:
        with pytest.raises(NoSuchElementException) as caught:
            driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Nothing like this")
        assert "NODE_NOT_FOUND" in caught.value.msg
        assert driver.execute_script("mobile: getCurrentPackage") == "dev.mobridge.demo"
        driver.set_clipboard_text("copied from a script")
        assert driver.get_clipboard_text() == "copied from a script"
