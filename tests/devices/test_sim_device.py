"""The simulated device's pure model: screens, navigation, actions, time — no sockets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.devices.sim.capture import HandleRegistry, flatten
from bridge.devices.sim.device import FRAME_S, FRAMES_PER_TRANSITION, SEARCH_DELAY_S, DemoDevice
from bridge.devices.sim.scenes import DEMO_PACKAGE, LAUNCHER_PACKAGE, SCREENS
from bridge.devices.sim.session import AgentSession
from bridge.wire.agent_link import (
    AgentPing,
    ClipboardCommand,
    GestureCommand,
    KeyCommand,
    NodeActionCommand,
    NodeIdentity,
    Point,
    Reply,
    TextCommand,
)
from bridge.wire.codec import encode
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    AppAction,
    GlobalAction,
    Orientation,
    Platform,
)
from bridge.wire.raw import RawNode, RawTree
from tests.devices.simlink import find, find_all, screen_of

SETTLED = FRAMES_PER_TRANSITION * FRAME_S + 0.01


class Driver:
    """A session over a device with a manual clock (no animation unless asked)."""

    def __init__(
        self,
        start: str = "menu",
        *,
        platform: Platform = Platform.ANDROID,
        animations: bool = False,
    ) -> None:
        self.now = 0.0
        self.device = DemoDevice(platform, now=0.0, start=start, animations=animations)
        self.session = AgentSession(self.device, HandleRegistry())
        self.ids = 0
        self.tree = self.session.capture(self.now)

    def tick(self, seconds: float) -> RawTree:
        self.now += seconds
        self.tree = self.session.capture(self.now)
        return self.tree

    def send(self, command: object) -> Reply:
        reply = self.session.handle(command, self.now)  # type: ignore[arg-type]
        assert reply is not None
        return reply

    def next_id(self) -> int:
        self.ids += 1
        return self.ids

    def act(
        self,
        node: RawNode,
        verb: ActionVerb,
        text: str | None = None,
        *,
        capture: int | None = None,
        identity: NodeIdentity | None = None,
        allow_gesture: bool = False,
        allow_ancestor: bool = True,
    ) -> Reply:
        reply = self.send(
            NodeActionCommand(
                id=self.next_id(),
                capture=capture if capture is not None else self.tree.capture,
                handle=node.handle,
                action=verb,
                identity=identity or NodeIdentity(class_name=node.class_name),
                text=text,
                allow_ancestor=allow_ancestor,
                allow_gesture=allow_gesture,
            )
        )
        self.tick(SETTLED)
        return reply


def test_every_start_scene_shows_its_marker() -> None:
    for platform in Platform:
        for screen in SCREENS:
            tree = Driver(screen, platform=platform).tree
            assert screen_of(tree) == screen
            assert tree.package == DEMO_PACKAGE
    launcher = Driver("launcher").tree
    assert launcher.package == LAUNCHER_PACKAGE and screen_of(launcher) is None
    with pytest.raises(ValueError, match="unknown start scene"):
        DemoDevice(Platform.ANDROID, now=0.0, start="nowhere")


def test_raw_tree_invariants_hold_on_every_screen() -> None:
    for platform in Platform:
        for screen in SCREENS:
            tree = Driver(screen, platform=platform).tree
            handles = [n.handle for n in tree.nodes]
            assert len(set(handles)) == len(handles)
            for i, node in enumerate(tree.nodes):
                assert -1 <= node.parent < i
            roots = [n for n in tree.nodes if n.parent == -1]
            assert len(roots) == len(tree.windows) if platform is Platform.ANDROID else 1


def test_login_success_and_failure() -> None:
    d = Driver("login")
    d.act(find(d.tree, automation_id="username"), ActionVerb.SET_TEXT, "someone")
    d.act(find(d.tree, automation_id="password"), ActionVerb.SET_TEXT, "pw")
    assert d.act(find(d.tree, automation_id="login"), ActionVerb.CLICK).ok
    error = find(d.tree, text="Invalid credentials")
    assert error.automation_id is None and screen_of(d.tree) == "login"
    d.act(find(d.tree, automation_id="username"), ActionVerb.SET_TEXT, "demo")
    d.act(find(d.tree, automation_id="login"), ActionVerb.CLICK)
    assert screen_of(d.tree) == "home"
    # login replaced itself: BACK from home goes to the menu
    d.send(_global(GlobalAction.BACK))
    assert screen_of(d.tick(SETTLED)) == "menu"


def test_login_needs_a_password() -> None:
    d = Driver("login")
    d.act(find(d.tree, automation_id="username"), ActionVerb.SET_TEXT, "demo")
    d.act(find(d.tree, automation_id="login"), ActionVerb.CLICK)
    assert find_all(d.tree, text="Invalid credentials")


@settings(max_examples=40, deadline=None)
@given(secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789!#%", min_size=1, max_size=12))
def test_password_never_reaches_a_tree(secret: str) -> None:
    marked = "pw~" + secret
    d = Driver("login")
    password = find(d.tree, automation_id="password")
    d.act(password, ActionVerb.SET_TEXT, marked[:2])
    d.act(password, ActionVerb.FOCUS)
    d.send(TextCommand(id=d.next_id(), text=marked[2:]))
    d.send(KeyCommand(id=d.next_id(), key="DEL"))
    d.send(TextCommand(id=d.next_id(), text=marked[-1]))
    copy = d.act(find(d.tree, automation_id="password"), ActionVerb.COPY)
    assert not copy.ok
    trees = [d.tick(0.01)]
    d.act(find(d.tree, automation_id="username"), ActionVerb.SET_TEXT, "demo")
    d.act(find(d.tree, automation_id="login"), ActionVerb.CLICK)
    trees.append(d.tree)
    assert screen_of(d.tree) == "home"  # the password was accepted, so it was typed
    for tree in trees:
        assert marked.encode() not in encode(tree)
    assert marked.encode() not in encode(d.send(ClipboardCommand(id=d.next_id())))


def test_navigation_stack_back_home_and_app_actions() -> None:
    d = Driver("menu")
    d.act(find(d.tree, text="Dialog"), ActionVerb.CLICK)
    assert screen_of(d.tree) == "dialog"
    d.act(find(d.tree, automation_id="android:id/button1"), ActionVerb.CLICK)
    assert screen_of(d.tree) == "menu"
    d.act(find(d.tree, text="Dialog"), ActionVerb.CLICK)
    d.act(find(d.tree, text="Cancel"), ActionVerb.CLICK)
    assert screen_of(d.tree) == "menu"
    d.act(find(d.tree, text="Settings"), ActionVerb.CLICK)
    d.send(_global(GlobalAction.HOME))
    assert d.tick(SETTLED).package == LAUNCHER_PACKAGE
    d.act(find(d.tree, text="Mobridge Demo"), ActionVerb.CLICK)  # the launcher icon
    assert screen_of(d.tree) == "settings"  # the stack survived HOME
    d.send(_global(GlobalAction.BACK))
    d.send(_global(GlobalAction.BACK))
    assert d.tick(SETTLED).package == LAUNCHER_PACKAGE
    assert d.send(_global(GlobalAction.RECENTS)).code == "UNSUPPORTED"
    assert d.device.app(AppAction.APP_DEEP_LINK, None, "mobridge-demo://search", d.now).ok
    assert screen_of(d.tick(SETTLED)) == "search"
    bad = d.device.app(AppAction.APP_DEEP_LINK, None, "mobridge-demo://nowhere", d.now)
    assert not bad.ok and bad.code == "NOT_FOUND"
    assert d.device.app(AppAction.APP_OPEN, DEMO_PACKAGE, None, d.now).ok
    assert screen_of(d.tick(SETTLED)) == "menu"


def test_reopened_screen_is_a_new_instance_with_new_handles() -> None:
    d = Driver("menu")
    d.act(find(d.tree, text="Login"), ActionVerb.CLICK)
    first = d.tree
    old_button = find(first, automation_id="login")
    d.send(_global(GlobalAction.BACK))
    d.tick(SETTLED)
    d.act(find(d.tree, text="Login"), ActionVerb.CLICK)
    assert find(d.tree, automation_id="login").handle != old_button.handle
    stale = d.act(old_button, ActionVerb.CLICK, capture=first.capture)
    assert not stale.ok and stale.code == "NOT_FOUND"


def test_list_scrolls_by_pages_and_clamps() -> None:
    d = Driver("list")
    lst = find(d.tree, automation_id="list")
    assert "scrollBackward" not in lst.actions and "scrollForward" in lst.actions
    assert not d.act(lst, ActionVerb.SCROLL_BACKWARD).ok
    for _ in range(25):
        d.act(find(d.tree, automation_id="list"), ActionVerb.SCROLL_FORWARD)
    rows = find_all(d.tree, automation_id="row")
    assert [r.item_row for r in rows] == list(range(190, 200))
    assert find_all(d.tree, automation_id="row_title")[-1].text == "Item 200"
    end = find(d.tree, automation_id="list")
    assert "scrollForward" not in end.actions
    assert d.act(end, ActionVerb.SCROLL_FORWARD).code == "FAILED"


def test_action_fallbacks_report_their_method() -> None:
    d = Driver("list")
    title = find(d.tree, text="Item 3")
    via_ancestor = d.act(title, ActionVerb.CLICK)
    assert via_ancestor.method is ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR
    assert find(d.tree, automation_id="selection").text == "Selected: Item 3"
    refused = d.act(find(d.tree, text="Item 4"), ActionVerb.CLICK, allow_ancestor=False)
    assert not refused.ok and refused.code == "UNSUPPORTED"
    by_gesture = d.act(
        find(d.tree, text="Item 5"), ActionVerb.CLICK, allow_ancestor=False, allow_gesture=True
    )
    assert by_gesture.ok and by_gesture.method is ActionMethod.GESTURE_FALLBACK
    assert find(d.tree, automation_id="selection").text == "Selected: Item 5"
    scroll_up_from_row = d.act(find(d.tree, text="Item 6"), ActionVerb.SCROLL_FORWARD)
    assert scroll_up_from_row.method is ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR
    g = Driver("game")
    surface = find(g.tree, class_name="android.view.SurfaceView")
    assert g.act(surface, ActionVerb.CLICK).code == "UNSUPPORTED"
    tapped = g.act(surface, ActionVerb.CLICK, allow_gesture=True)
    assert tapped.ok and tapped.method is ActionMethod.GESTURE_FALLBACK
    assert screen_of(g.tree) == "game"


def test_identity_must_match_the_live_node() -> None:
    d = Driver("login")
    button = find(d.tree, automation_id="login")
    wrong_class = NodeIdentity(class_name="android.widget.TextView")
    assert d.act(button, ActionVerb.CLICK, identity=wrong_class).code == "IDENTITY_MISMATCH"
    wrong_text = NodeIdentity(class_name=button.class_name, text="Cancel")
    assert d.act(button, ActionVerb.CLICK, identity=wrong_text).code == "IDENTITY_MISMATCH"
    wrong_id = NodeIdentity(automation_id="dev.mobridge.demo:id/other")
    assert d.act(button, ActionVerb.CLICK, identity=wrong_id).code == "IDENTITY_MISMATCH"
    name = find(d.tree, automation_id="username")
    d.act(name, ActionVerb.SET_TEXT, "a")
    # an input's text is its value, not its identity
    typed = NodeIdentity(class_name=name.class_name, text="something else")
    assert d.act(name, ActionVerb.SET_TEXT, "b", identity=typed).ok
    assert d.act(button, ActionVerb.CLICK, identity=NodeIdentity(label="Sign in")).ok


def test_old_captures_are_forgotten() -> None:
    d = Driver("menu")
    first = d.tree
    for _ in range(70):
        d.tick(0.001)
    stale = d.act(find(first, text="List"), ActionVerb.CLICK, capture=first.capture)
    assert not stale.ok and stale.code == "NOT_FOUND"
    assert screen_of(d.tree) == "menu"


def test_search_results_arrive_after_the_delay() -> None:
    d = Driver("search")
    d.act(find(d.tree, automation_id="query"), ActionVerb.SET_TEXT, "an")
    assert find_all(d.tree, automation_id="progress")
    assert d.device.next_change_at(d.now) == pytest.approx(d.device.changed_at + SEARCH_DELAY_S)
    tree = d.tick(SEARCH_DELAY_S)
    names = [n.text for n in find_all(tree, automation_id="result_title")]
    assert names and all("an" in (n or "").lower() for n in names)
    assert "Banana" in names and "Apple" not in names
    d.act(find(d.tree, automation_id="query"), ActionVerb.SET_TEXT, "zzz")
    assert find_all(d.tick(SEARCH_DELAY_S), text="No results")


def test_settings_toggles_flip_and_persist() -> None:
    d = Driver("settings")
    toggles = find_all(d.tree, checkable=True)
    assert [t.class_name for t in toggles] == ["android.view.View"] * 3
    assert all(
        n.automation_id is None for n in d.tree.nodes if "__screen_" not in (n.automation_id or "")
    )
    bluetooth = toggles[1]
    assert not bluetooth.checked
    d.act(bluetooth, ActionVerb.CLICK)
    assert find_all(d.tree, checkable=True)[1].checked
    ios = Driver("settings", platform=Platform.IOS)
    switches = find_all(ios.tree, class_name="XCUIElementTypeSwitch")
    assert [s.label for s in switches] == ["Wi-Fi", "Bluetooth", "Dark mode"]
    assert [s.value for s in switches] == ["1", "0", "0"]


def test_ambiguous_screen_has_two_anonymous_continue_buttons() -> None:
    d = Driver("ambiguous")
    buttons = find_all(d.tree, text="Continue")
    assert len(buttons) == 2 and all(b.automation_id is None for b in buttons)
    parents = [d.tree.nodes[b.parent] for b in buttons]
    assert parents[0].handle != parents[1].handle
    assert all(
        p.automation_id is None and p.class_name == "android.widget.LinearLayout" for p in parents
    )
    d.act(buttons[1], ActionVerb.CLICK)
    assert find_all(d.tree, text="Chose Pro plan")


def test_clock_ticks_each_simulated_second() -> None:
    d = Driver("home")
    assert find(d.tree, automation_id="clock").text == "09:00:00"
    assert d.device.next_change_at(0.2) == pytest.approx(1.0)
    assert find(d.tick(1.0), automation_id="clock").text == "09:00:01"
    assert find(d.tick(60.0), automation_id="clock").text == "09:01:01"
    assert d.device.last_change_at(61.5) == pytest.approx(61.0)


def test_transition_slides_in_over_frames() -> None:
    d = Driver("menu", animations=True)
    d.send(_global(GlobalAction.BACK))  # to the launcher, animated
    start = d.now
    lefts: list[int] = []
    for frame in range(FRAMES_PER_TRANSITION):
        t = start + frame * FRAME_S + 0.001
        assert d.device.animating(t)
        scene = d.device.scene(t)
        lefts.append(scene.windows[-1].root.children[0].bounds[0])
    assert lefts == sorted(lefts, reverse=True) and lefts[0] > 0
    end = start + FRAMES_PER_TRANSITION * FRAME_S
    assert not d.device.animating(end)
    assert d.device.scene(end).windows[-1].root.children[0].bounds[0] == 0
    assert d.device.next_change_at(start + 0.001) == pytest.approx(start + FRAME_S)


def test_gestures_and_keys() -> None:
    d = Driver("login")
    username = find(d.tree, automation_id="username")
    assert username.bounds is not None
    x, y = (
        (username.bounds[0] + username.bounds[2]) // 2,
        (username.bounds[1] + username.bounds[3]) // 2,
    )
    d.send(GestureCommand(id=d.next_id(), kind="tap", points=(Point(x=x, y=y),)))
    assert d.tick(0.01).focus == username.handle
    d.send(TextCommand(id=d.next_id(), text="demo"))
    d.send(KeyCommand(id=d.next_id(), key="TAB"))
    d.send(TextCommand(id=d.next_id(), text="pw"))
    d.send(KeyCommand(id=d.next_id(), key="KEYCODE_ENTER"))
    assert screen_of(d.tick(SETTLED)) == "home"
    assert d.send(KeyCommand(id=d.next_id(), key="F13")).code == "UNSUPPORTED"
    assert (
        d.send(GestureCommand(id=d.next_id(), kind="pinch", points=(Point(x=1, y=1),))).code
        == "UNSUPPORTED"
    )
    assert d.send(AgentPing(id=d.next_id())).ok


def test_taps_outside_a_dialog_do_nothing() -> None:
    d = Driver("dialog")
    d.send(GestureCommand(id=d.next_id(), kind="tap", points=(Point(x=10, y=100),)))
    assert screen_of(d.tick(SETTLED)) == "dialog"
    ok = find(d.tree, text="OK")
    assert d.tree.windows[-1].layer == 1
    assert d.tree.nodes[0].window != ok.window


def test_paste_and_copy_use_the_clipboard() -> None:
    d = Driver("search")
    d.send(ClipboardCommand(id=d.next_id(), set="Lis"))
    query = find(d.tree, automation_id="query")
    d.act(query, ActionVerb.PASTE)
    d.act(find(d.tree, automation_id="query"), ActionVerb.PASTE)
    assert find(d.tree, automation_id="query").text == "LisLis"
    d.act(find(d.tree, automation_id="query"), ActionVerb.CLEAR_TEXT)
    assert find(d.tree, automation_id="query").text is None
    d.act(find(d.tree, automation_id="title"), ActionVerb.COPY)
    assert d.send(ClipboardCommand(id=d.next_id())).text == "Find anything"


def test_same_state_gives_the_same_tree() -> None:
    a = Driver("list")
    b = Driver("list")
    assert encode(a.tree) == encode(b.tree)
    registry = HandleRegistry()
    scene = a.device.scene(3.0)
    assert flatten(scene, registry, Platform.ANDROID) == flatten(scene, registry, Platform.ANDROID)


def _global(action: GlobalAction) -> object:
    from bridge.wire.agent_link import GlobalCommand

    return GlobalCommand(id=0, action=action)


# ---- device control: the board, orientation, apps ----------------------------------------


def test_touches_on_the_game_board_are_told_apart() -> None:
    device = DemoDevice(Platform.ANDROID, now=0.0, start="game", animations=False)
    assert device.double_tap(500, 1500, 1.0).ok
    session = AgentSession(device, HandleRegistry())
    assert find(session.capture(1.0), text="Double-tapped at (500, 1500)")
    device.long_press(100, 1700, 1.0, duration_ms=900)
    assert find(session.capture(1.0), text="Long-pressed at (100, 1700) for 900 ms")
    device.swipe(100, 2000, 900, 1000, 1.0)
    assert find(session.capture(1.0), text="Swiped from (100, 2000) to (900, 1000)")


def test_a_double_tap_elsewhere_is_two_taps() -> None:
    device = DemoDevice(Platform.ANDROID, now=0.0, start="settings", animations=False)
    session = AgentSession(device, HandleRegistry())
    wifi = find(session.capture(1.0), text="Wi-Fi")
    assert wifi.bounds is not None
    x, y = (wifi.bounds[0] + wifi.bounds[2]) // 2, (wifi.bounds[1] + wifi.bounds[3]) // 2
    device.double_tap(x, y, 1.0)
    assert device.toggles["wifi"] is True  # toggled twice, as a finger would
    device.tap(x, y, 1.0)
    assert device.toggles["wifi"] is False


@pytest.mark.parametrize("platform", list(Platform))
def test_landscape_turns_the_frame_and_the_capture(platform: Platform) -> None:
    device = DemoDevice(platform, now=0.0, start="menu", animations=False)
    portrait = flatten(device.scene(1.0), HandleRegistry(), platform).tree(1)
    assert device.rotate(Orientation.LANDSCAPE, 1.0).ok
    turned = flatten(device.scene(1.0), HandleRegistry(), platform).tree(2)
    assert portrait.screen is not None and turned.screen is not None
    assert (turned.screen.width, turned.screen.height) == (
        portrait.screen.height,
        portrait.screen.width,
    )
    assert turned.rotation == 90 and portrait.rotation == 0
    root = turned.nodes[0].bounds
    assert root is not None and root[2] == turned.screen.width


def test_apps_install_uninstall_and_terminate() -> None:
    device = DemoDevice(Platform.ANDROID, now=0.0, start="login", animations=False)
    assert {a.app_id for a in device.installed()} == {DEMO_PACKAGE, LAUNCHER_PACKAGE}
    added = device.install(b'{"appId": "com.example.notes", "name": "Notes"}', 1.0)
    assert added.ok and added.text == "com.example.notes"
    for bad in (b"not json", b'{"appId": "nodot"}', b'{"appId": "a.b", "extra": 1}', b"x" * 5000):
        assert device.install(bad, 1.0).code == "FAILED"
    system = device.install(b'{"appId": "dev.mobridge.demo"}', 1.0)
    assert system.code == "FAILED" and "system app" in (system.message or "")
    assert device.uninstall("com.example.notes", 1.0).ok
    assert device.uninstall("com.example.notes", 1.0).code == "NOT_FOUND"
    assert device.uninstall(DEMO_PACKAGE, 1.0).code == "FAILED"
    assert device.terminate(DEMO_PACKAGE, 1.0).ok
    assert device.top is None and device.stack == []  # the process and its back stack died
    device.app(AppAction.APP_BRING_TO_FRONT, DEMO_PACKAGE, None, 1.0)
    assert device.top is not None and device.top.screen == "menu"
    assert device.terminate("com.example.absent", 1.0).code == "NOT_FOUND"


def test_terminate_loses_the_demo_apps_settings_and_relaunch_keeps_them() -> None:
    device = DemoDevice(Platform.ANDROID, now=0.0, start="settings", animations=False)
    device.toggles["bluetooth"] = True  # as a tap on the switch leaves it
    device.app(AppAction.APP_OPEN, DEMO_PACKAGE, None, 1.0)
    assert device.toggles["bluetooth"] is True  # a relaunch keeps what the process holds
    assert device.terminate(DEMO_PACKAGE, 2.0).ok
    assert device.toggles == {"wifi": True, "bluetooth": False, "dark": False}


def test_clear_wipes_the_signed_in_session_and_the_settings() -> None:
    device = DemoDevice(Platform.ANDROID, now=0.0, start="home", animations=False)
    assert device.top is not None and device.top.screen == "home"  # signed in
    device.toggles["dark"] = True
    assert device.clear(DEMO_PACKAGE, 1.0).ok
    assert device.stack == [] and not device.foreground  # stopped, its screens gone
    assert device.toggles == {"wifi": True, "bluetooth": False, "dark": False}
    device.app(AppAction.APP_OPEN, DEMO_PACKAGE, None, 2.0)
    assert device.top is not None and device.top.screen == "menu"  # a first start
    assert device.clear("com.example.absent", 3.0).code == "NOT_FOUND"


def test_the_camera_screen_asks_for_the_camera_and_shows_what_changed() -> None:
    from bridge.devices.sim.device import DemoDevice
    from bridge.wire.enums import Platform

    dev = DemoDevice(Platform.ANDROID, now=0.0, start="camera", animations=False)
    (alert,) = dev.alerts(0.0)
    assert alert.system and alert.buttons == ("Don't allow", "Allow")
    assert dev.scene(0.0).windows[-1].package == "com.android.permissioncontroller"
    assert not dev.answer_alert("press", "Maybe", 0.0).ok
    assert dev.answer_alert("dismiss", None, 0.1).ok and dev.alerts(0.1) == ()
    assert dev.set_permission("reset", "dev.mobridge.demo", "camera", 0.2).ok
    assert not dev.set_permission("grant", "dev.mobridge.demo", "teleport", 0.2).ok
    assert not dev.set_location(200.0, 0.0, 0.3).ok
    assert dev.set_location(1.5, 2.5, 0.3).ok and dev.location == (1.5, 2.5)
    assert dev.multi_touch("pinch", 540, 1200, 2.0, 0.4).ok and dev.touch is not None
    ios = DemoDevice(Platform.IOS, now=0.0, start="camera", animations=False)
    assert ios.scene(0.0).windows[-1].package == "com.apple.springboard"
