"""The sans-I/O parts: page source shapes, every locator strategy and its parser, W3C
actions as gestures, HTTP parsing and routes. No socket, no hub."""

from __future__ import annotations

import pytest
from lxml import etree

from bridge.webdriver import locators, pointer_actions
from bridge.webdriver.capabilities import parse, token_from_header
from bridge.webdriver.errors import WebDriverError
from bridge.webdriver.http import HttpError, RequestParser
from bridge.webdriver.page_source import build
from bridge.webdriver.routes import route
from bridge.webdriver.uiselector import ScrollIntoView
from bridge.wire.enums import ActionVerb, Orientation, Platform, Role
from bridge.wire.node import NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot


def _snapshot(platform: Platform) -> ScreenSnapshot:
    ios = platform is Platform.IOS
    nodes = (
        SemanticNode(
            node_id="n1",
            role=Role.SCREEN,
            bounds=(0, 0, 1080, 2400),
            native_type="XCUIElementTypeApplication" if ios else None,
            class_name=None if ios else "android.widget.FrameLayout",
        ),
        SemanticNode(
            node_id="n2",
            role=Role.LIST,
            parent_id="n1",
            bounds=(0, 100, 1080, 2000),
            actions=(ActionVerb.SCROLL_FORWARD,),
            resource_id=None if ios else "app:id/list",
        ),
        SemanticNode(
            node_id="n3",
            role=Role.BUTTON,
            parent_id="n2",
            label="Continue",
            text="Continue",
            bounds=(10, 110, 500, 200),
            state=NodeState(clickable=True),
            automation_id="go" if ios else None,
            resource_id=None if ios else "app:id/go",
        ),
        SemanticNode(
            node_id="n4",
            role=Role.BUTTON,
            parent_id="n2",
            label="Continue",
            text="Continue",
            bounds=(10, 210, 500, 300),
            state=NodeState(clickable=True),
        ),
        SemanticNode(
            node_id="n5",
            role=Role.INPUT,
            parent_id="n1",
            hint="Email",
            bounds=(10, 2010, 1070, 2100),
            state=NodeState(clickable=True),
        ),
        SemanticNode(
            node_id="n6",
            role=Role.SWITCH,
            parent_id="n1",
            label="Wi-Fi",
            bounds=(10, 2110, 1070, 2200),
            state=NodeState(checked=True),
        ),
    )
    return ScreenSnapshot(
        schema_version=1,
        device_id="d",
        snapshot_id="s_1",
        timestamp=1,
        package_name="app",
        window_id=1,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x",
        compact=False,
        nodes=nodes,
        tree_hash="0" * 16,
        platform=platform,
    )


def _ids(platform: Platform, using: str, value: str) -> list[str]:
    source = build(_snapshot(platform))
    found = locators.find(source, using, value)
    assert isinstance(found, list)
    return [source.node_id_of(e) or "?" for e in found]


def test_android_page_source_has_uiautomator2_attributes() -> None:
    source = build(_snapshot(Platform.ANDROID))
    root = etree.fromstring(source.xml().encode())
    assert root.tag == "hierarchy" and root.get("width") == "1080"
    (field,) = root.xpath("//android.widget.EditText")
    assert field.get("text") == "Email" and field.get("hint") == "Email"  # hint shows as text
    assert field.get("bounds") == "[10,2010][1070,2100]"
    (switch,) = root.xpath("//*[@checkable='true']")
    assert switch.get("checked") == "true" and switch.get("class") == "android.widget.Switch"
    assert root.xpath("//*[@scrollable='true']/@resource-id") == ["app:id/list"]


def test_ios_page_source_has_xcuitest_attributes() -> None:
    source = build(_snapshot(Platform.IOS))
    root = etree.fromstring(source.xml().encode())
    assert root.tag == "AppiumAUT"
    (first,) = root.xpath("//XCUIElementTypeButton[@name='go']")
    assert first.get("label") == "Continue" and first.get("width") == "490"
    assert root.xpath("//XCUIElementTypeSwitch/@value") == ["1"]
    assert root.xpath("//XCUIElementTypeTextField/@value") == ["Email"]  # the placeholder


@pytest.mark.parametrize(
    ("platform", "using", "value", "expected"),
    [
        (Platform.ANDROID, "accessibility id", "Continue", ["n3", "n4"]),
        (Platform.ANDROID, "id", "go", ["n3"]),
        (Platform.ANDROID, "id", "app:id/go", ["n3"]),
        (Platform.ANDROID, "css selector", '[id="go"]', ["n3"]),
        (Platform.ANDROID, "class name", "android.widget.Button", ["n3", "n4"]),
        (Platform.ANDROID, "xpath", "(//android.widget.Button)[2]", ["n4"]),
        (
            Platform.ANDROID,
            "-android uiautomator",
            'new UiSelector().text("Continue").instance(1)',
            ["n4"],
        ),
        (
            Platform.ANDROID,
            "-android uiautomator",
            'new UiSelector().resourceIdMatches(".*:id/g.")',
            ["n3"],
        ),
        (
            Platform.ANDROID,
            "-android uiautomator",
            "new UiSelector().scrollable(true).childSelector(new UiSelector().index(1))",
            ["n4"],
        ),
        (
            Platform.ANDROID,
            "-android uiautomator",
            'new UiSelector().checked(true); new UiSelector().description("Continue")',
            ["n6", "n3", "n4"],
        ),
        (Platform.IOS, "accessibility id", "go", ["n3"]),
        (Platform.IOS, "accessibility id", "Continue", ["n3", "n4"]),
        (Platform.IOS, "id", "go", ["n3"]),
        (Platform.IOS, "class name", "XCUIElementTypeSwitch", ["n6"]),
        (Platform.IOS, "-ios predicate string", "label == 'Continue' AND name != 'go'", ["n4"]),
        (
            Platform.IOS,
            "-ios predicate string",
            "type IN {'XCUIElementTypeSwitch', 'XCUIElementTypeTextField'}",
            ["n5", "n6"],
        ),
        (
            Platform.IOS,
            "-ios predicate string",
            "label LIKE[c] 'wi-*' OR value MATCHES 'Em.il'",
            ["n5", "n6"],
        ),
        (
            Platform.IOS,
            "-ios predicate string",
            "NOT (enabled == false) AND visible == 1 AND label CONTAINS 'tinu'",
            ["n3", "n4"],
        ),
        (
            Platform.IOS,
            "-ios class chain",
            '**/XCUIElementTypeButton[`label == "Continue"`][-1]',
            ["n4"],
        ),
        (Platform.IOS, "-ios class chain", "XCUIElementTypeTable/XCUIElementTypeButton[1]", ["n3"]),
        (Platform.IOS, "-ios class chain", "**/*[$name == 'go'$]", ["n2"]),
    ],
)
def test_strategies_find_what_appium_finds(
    platform: Platform, using: str, value: str, expected: list[str]
) -> None:
    assert _ids(platform, using, value) == expected


@pytest.mark.parametrize(
    ("platform", "using", "value"),
    [
        (Platform.ANDROID, "xpath", "//*["),
        (Platform.ANDROID, "xpath", "count(//*)"),
        (Platform.ANDROID, "-android uiautomator", "new UiSelector().text(1)"),
        (Platform.ANDROID, "-android uiautomator", 'new UiSelector().textMatches("(a)\\\\1")'),
        (Platform.ANDROID, "-android uiautomator", "new UiObject2()"),
        (Platform.IOS, "-ios predicate string", "label =="),
        (Platform.IOS, "-ios predicate string", "rect.x > 3"),
        (Platform.IOS, "-ios class chain", "**/"),
        (Platform.IOS, "-android uiautomator", "new UiSelector()"),
        (Platform.ANDROID, "-image", "abc"),
    ],
)
def test_bad_locators_are_invalid_selectors(platform: Platform, using: str, value: str) -> None:
    with pytest.raises(WebDriverError) as caught:
        _ids(platform, using, value)
    assert caught.value.code == "invalid selector"


def test_scroll_into_view_is_returned_to_the_session() -> None:
    source = build(_snapshot(Platform.ANDROID))
    found = locators.find(
        source,
        "-android uiautomator",
        "new UiScrollable(new UiSelector().scrollable(true)).setAsVerticalList()"
        '.scrollIntoView(new UiSelector().text("Far away"))',
    )
    assert isinstance(found, ScrollIntoView)
    assert found.scrollable.select(source.elements[1:])[0].get("resource-id") == "app:id/list"


def _pointer(name: str, moves: list[tuple[int, int, int]], hold_ms: int = 0) -> dict[str, object]:
    (x0, y0, _), rest = moves[0], moves[1:]
    actions: list[dict[str, object]] = [
        {"type": "pointerMove", "duration": 0, "x": x0, "y": y0},
        {"type": "pointerDown", "button": 0},
    ]
    if hold_ms:
        actions.append({"type": "pause", "duration": hold_ms})
    actions += [{"type": "pointerMove", "duration": d, "x": x, "y": y} for x, y, d in rest]
    actions.append({"type": "pointerUp", "button": 0})
    return {
        "type": "pointer",
        "id": name,
        "parameters": {"pointerType": "touch"},
        "actions": actions,
    }


def _center(_: str) -> tuple[int, int]:
    return (100, 100)


def test_w3c_actions_become_gestures() -> None:
    plan = pointer_actions.plan
    assert plan({"actions": [_pointer("f", [(5, 5, 0)])]}, _center) == [pointer_actions.Tap(5, 5)]
    assert plan({"actions": [_pointer("f", [(5, 5, 0)], hold_ms=900)]}, _center) == [
        pointer_actions.LongPress(5, 5, 900)
    ]
    swipe = plan({"actions": [_pointer("f", [(500, 1500, 0), (500, 500, 250)])]}, _center)
    assert swipe == [pointer_actions.Swipe(((500, 1500), (500, 500)), 250)]
    pinch = plan(
        {
            "actions": [
                _pointer("a", [(400, 1000, 0), (300, 1000, 200)]),
                _pointer("b", [(600, 1000, 0), (700, 1000, 200)]),
            ]
        },
        _center,
    )
    assert pinch == [pointer_actions.Pinch(500, 1000, 2.0)]
    double = {
        "actions": [
            {
                "type": "pointer",
                "id": "f",
                "actions": [
                    {"type": "pointerMove", "x": 9, "y": 9},
                    {"type": "pointerDown"},
                    {"type": "pointerUp"},
                    {"type": "pause", "duration": 50},
                    {"type": "pointerDown"},
                    {"type": "pointerUp"},
                ],
            }
        ]
    }
    assert plan(double, _center) == [pointer_actions.Tap(9, 9, 2)]
    origin = {
        "actions": [
            {
                "type": "pointer",
                "id": "f",
                "actions": [
                    {
                        "type": "pointerMove",
                        "x": 3,
                        "y": -3,
                        "origin": {pointer_actions.ELEMENT_KEY: "e1"},
                    },
                    {"type": "pointerDown"},
                    {"type": "pointerUp"},
                ],
            }
        ]
    }
    assert plan(origin, _center) == [pointer_actions.Tap(103, 97)]
    keys = {
        "actions": [
            {
                "type": "key",
                "id": "k",
                "actions": [
                    {"type": "keyDown", "value": "h"},
                    {"type": "keyUp", "value": "h"},
                    {"type": "keyDown", "value": "i"},
                    {"type": "keyDown", "value": "\ue007"},
                ],
            }
        ]
    }
    assert plan(keys, _center) == [
        pointer_actions.TypeKeys("hi"),
        pointer_actions.PressKey("ENTER"),
    ]
    with pytest.raises(WebDriverError):
        plan(
            {"actions": [{"type": "pointer", "actions": [{"type": "pointerMove", "x": "a"}]}]},
            _center,
        )


def test_http_parser_reads_pipelined_requests_and_refuses_what_it_cannot_bound() -> None:
    parser = RequestParser()
    body = b'{"using":"id","value":"x"}'
    raw = (
        b"POST /wd/hub/session/abc/element HTTP/1.1\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\nHost: x\r\n\r\n"
        + body
        + b"GET /status HTTP/1.1\r\nConnection: close\r\n\r\n"
    )
    first = parser.feed(raw[:30])
    assert first == []
    done = parser.feed(raw[30:])
    assert [(r.method, r.path) for r in done] == [
        ("POST", "/wd/hub/session/abc/element"),
        ("GET", "/status"),
    ]
    assert done[0].body == body and done[0].keep_alive and not done[1].keep_alive
    with pytest.raises(HttpError) as big:
        RequestParser().feed(b"POST / HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n")
    assert big.value.status == 413
    with pytest.raises(HttpError) as chunked:
        RequestParser().feed(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert chunked.value.status == 411
    with pytest.raises(HttpError):
        RequestParser().feed(b"x" * 20000)


def test_routes_and_capabilities() -> None:
    assert route("POST", ["wd", "hub", "session", "s1", "element", "e1", "click"]) == (
        "element_click",
        {"session": "s1", "element": "e1"},
    )
    assert route("GET", ["session", "s1", "element", "active"])[0] == "active_element"
    with pytest.raises(WebDriverError) as method:
        route("PUT", ["session", "s1", "source"])
    assert method.value.code == "unknown method"
    with pytest.raises(WebDriverError) as unknown:
        route("GET", ["nothing"])
    assert unknown.value.code == "unknown command"
    caps = parse(
        {
            "capabilities": {
                "alwaysMatch": {
                    "platformName": "iOS",
                    "appium:udid": "sim-ios",
                    "mobridge:token": "t",
                    "appium:newCommandTimeout": 5,
                },
                "firstMatch": [{"appium:bundleId": "dev.app"}],
            }
        }
    )
    assert (caps.platform, caps.device, caps.app_id, caps.token) == (
        "IOS",
        "sim-ios",
        "dev.app",
        "t",
    )
    assert caps.new_command_timeout_s == 5 and "mobridge:token" not in caps.echo
    with pytest.raises(WebDriverError):
        parse({"capabilities": {"alwaysMatch": {"mobridge:strict": "yes"}}})
    assert token_from_header("Bearer abc") == "abc"
    assert token_from_header("Basic dXNlcjpzZWNyZXQ=") == "secret"
    assert token_from_header("Basic !!!") is None


def test_every_route_has_a_handler() -> None:
    from bridge.webdriver.routes import ROUTES
    from bridge.webdriver.server import HANDLERS

    served_by_the_server = {"status", "new_session", "list_sessions", "delete_session"}
    assert {name for _, _, name in ROUTES} - served_by_the_server <= set(HANDLERS)
