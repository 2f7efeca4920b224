"""The simulated device over a real websocket on 127.0.0.1, driven as the hub drives it."""

from __future__ import annotations

import base64
import itertools
import struct
import zlib
from collections.abc import Callable

import anyio
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bridge.devices.sim import DEMO_PACKAGE, LAUNCHER_PACKAGE
from bridge.wire.agent_link import (
    AgentPing,
    AppCommand,
    CaptureCommand,
    ClipboardCommand,
    GestureCommand,
    GlobalCommand,
    KeyCommand,
    NodeIdentity,
    Point,
    ScreenshotCommand,
    TextCommand,
    TreePush,
)
from bridge.wire.codec import encode
from bridge.wire.enums import ActionMethod, ActionVerb, AppAction, GlobalAction, Platform
from bridge.wire.raw import RawNode, RawTree
from tests.devices.simlink import TOKEN, HubSide, find, find_all, running, screen_of

pytestmark = pytest.mark.anyio


def _centre(node: RawNode) -> Point:
    assert node.bounds is not None
    left, top, right, bottom = node.bounds
    return Point(x=(left + right) // 2, y=(top + bottom) // 2)


def _on(screen: str) -> Callable[[TreePush], bool]:
    return lambda push: push.stable and screen_of(push.tree) == screen


# ---- handshake ------------------------------------------------------------------------------


async def test_missing_or_wrong_token_is_refused_with_401() -> None:
    async with running() as sim:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
            with pytest.raises(InvalidStatus) as info:
                async with connect(sim.url, additional_headers=headers):
                    pass
            assert info.value.response.status_code == 401
        assert sim.statistics().refused_auth == 3


async def test_hello_exchange_then_initial_tree() -> None:
    async with running() as sim, HubSide.open(sim) as hub:
        hello = hub.hello
        assert hello is not None
        assert hello.platform is Platform.ANDROID
        assert hello.agent.name == "mobridge-sim"
        assert hello.device.id == "sim-android"
        assert {"tree", "node_action", "screenshot", "clipboard"} <= set(hello.capabilities)
        initial = hub.pushes[0]
        assert initial.reason == "initial" and initial.stable
        assert initial.tree.capture == 1
        assert initial.tree.package == DEMO_PACKAGE
        assert screen_of(initial.tree) == "menu"
        assert sim.url.startswith("ws://127.0.0.1:")


async def test_wrong_protocol_closes_with_a_reason() -> None:
    async with running() as sim:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with connect(sim.url, additional_headers=headers) as ws:
            await ws.send('{"type":"hello","protocol":99,"hub":"future"}')
            with pytest.raises(ConnectionClosed) as info:
                await ws.recv()
        assert info.value.rcvd is not None
        assert info.value.rcvd.code == 1002
        assert "protocol 99" in info.value.rcvd.reason


async def test_a_command_before_hello_closes_the_link() -> None:
    async with running() as sim:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with connect(sim.url, additional_headers=headers) as ws:
            await ws.send('{"type":"ping","id":1}')
            with pytest.raises(ConnectionClosed) as info:
                await ws.recv()
        assert info.value.rcvd is not None and "hello" in info.value.rcvd.reason


# ---- flows ----------------------------------------------------------------------------------


async def _login(hub: HubSide, user: str, password: str) -> None:
    tree = hub.tree
    assert tree is not None
    for ident, value in (("username", user), ("password", password)):
        reply = await hub.act(find(tree, automation_id=ident), ActionVerb.SET_TEXT, text=value)
        assert reply.ok and reply.method is ActionMethod.ACCESSIBILITY_ACTION
    reply = await hub.act(find(tree, automation_id="login"), ActionVerb.CLICK)
    assert reply.ok


async def test_login_success_opens_home() -> None:
    async with running(scene="login") as sim, HubSide.open(sim) as hub:
        await _login(hub, "demo", "hunter2")
        push = await hub.wait_push(_on("home"))
        assert push.tree.package == DEMO_PACKAGE
        assert find(push.tree, automation_id="clock").text is not None


async def test_login_failure_shows_invalid_credentials() -> None:
    async with running(scene="login") as sim, HubSide.open(sim) as hub:
        await _login(hub, "mallory", "hunter2")
        push = await hub.wait_push(
            lambda p: any(n.text == "Invalid credentials" for n in p.tree.nodes)
        )
        error = find(push.tree, text="Invalid credentials")
        assert error.automation_id is None
        assert screen_of(push.tree) == "login"


async def test_password_never_appears_in_any_frame() -> None:
    secret = "S3cr3t-Pw!"
    async with running(scene="login") as sim, HubSide.open(sim) as hub:
        tree = hub.tree
        assert tree is not None
        password = find(tree, automation_id="password")
        await hub.act(password, ActionVerb.SET_TEXT, text=secret[:4])
        await hub.command(lambda cid: TextCommand(id=cid, text=secret[4:]))
        await hub.settle()
        captured = await hub.command(lambda cid: CaptureCommand(id=cid))
        assert captured.tree is not None
        node = find(captured.tree, automation_id="password")
        assert node.password and node.text is None and node.value is None
        await hub.act(find(captured.tree, automation_id="username"), ActionVerb.SET_TEXT, text="x")
        await _login(hub, "demo", secret)
        await hub.wait_push(_on("home"))
        assert len(hub.frames) > 5
        for frame in hub.frames:
            assert secret.encode() not in frame
            assert secret[:4].encode() not in frame
            assert secret[4:].encode() not in frame


async def test_list_rows_are_recycled_views() -> None:
    async with running(scene="list") as sim, HubSide.open(sim) as hub:
        before = hub.tree
        assert before is not None
        rows = find_all(before, automation_id="row")
        assert len(rows) == 10
        assert [r.item_row for r in rows] == list(range(10))
        lst = find(before, automation_id="list")
        assert lst.collection_rows == 200 and lst.scrollable
        reply = await hub.act(lst, ActionVerb.SCROLL_FORWARD)
        assert reply.ok
        after = await hub.settle()
        rows_after = find_all(after, automation_id="row")
        assert [r.handle for r in rows_after] == [r.handle for r in rows]
        assert {r.automation_id for r in rows_after} == {r.automation_id for r in rows}
        assert [r.item_row for r in rows_after] == list(range(10, 20))
        titles = [n.text for n in find_all(after, automation_id="row_title")]
        assert titles[0] == "Item 11" and titles[-1] == "Item 20"


async def test_stale_handle_is_refused_as_identity_mismatch() -> None:
    async with running(scene="list") as sim, HubSide.open(sim) as hub:
        old = hub.tree
        assert old is not None
        first_row = find_all(old, automation_id="row")[0]
        first_title = find(old, text="Item 1")
        await hub.act(find(old, automation_id="list"), ActionVerb.SCROLL_FORWARD)
        new = await hub.settle()
        # the old capture's row handle is the same view, now showing item 11
        stale = await hub.act(first_row, ActionVerb.CLICK, capture=old.capture)
        assert not stale.ok and stale.code == "IDENTITY_MISMATCH"
        # the title view of the new capture still claims to be "Item 1" -> refused too
        claim = NodeIdentity(class_name=first_title.class_name, text="Item 1")
        wrong = await hub.act(first_title, ActionVerb.CLICK, identity=claim)
        assert not wrong.ok and wrong.code == "IDENTITY_MISMATCH"
        assert "Item 11" in (wrong.message or "")
        # the current capture's handle acts (on the row, through the title's ancestor)
        title = find(new, text="Item 11")
        ok = await hub.act(title, ActionVerb.CLICK)
        assert ok.ok and ok.method is ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR
        push = await hub.wait_push(
            lambda p: any(n.text == "Selected: Item 11" for n in p.tree.nodes)
        )
        assert push.stable
        unknown = await hub.act(first_row, ActionVerb.CLICK, capture=9999)
        assert not unknown.ok and unknown.code == "NOT_FOUND"


async def test_clock_pushes_a_tree_every_simulated_second() -> None:
    async with running(scene="home", time_scale=10.0) as sim, HubSide.open(sim) as hub:
        # four pushes (about 0.4 s here): waited for, never a fixed time (a loaded machine may
        # take longer; the ceiling only ends a run where the clock stopped)
        with anyio.fail_after(60):
            while len(hub.pushes) < 4 or not any(p.stable for p in hub.pushes[1:]):
                await hub.recv()
        clocks = [find(p.tree, automation_id="clock").text for p in hub.pushes]
        assert len(clocks) >= 4
        # a tick is pushed stable once the screen was quiet for the debounce (50 ms simulated);
        # a device descheduled past the next tick (a loaded machine) pushes at the cap
        # instead, unstable and saying it was not quiet
        assert all(p.stable or p.quiet_ms < 50 for p in hub.pushes)
        seconds = [int(c[-2:]) + 60 * int(c[-5:-3]) for c in clocks if c]
        # one push per simulated second the clock shows, never the same second twice (a loaded
        # machine may deschedule the device past a whole simulated second: it then shows the
        # time it is, so a step may be larger than 1)
        assert all(b > a for a, b in itertools.pairwise(seconds))


async def test_transition_frames_are_unstable_then_one_stable() -> None:
    async with running() as sim, HubSide.open(sim) as hub:
        tree = hub.tree
        assert tree is not None
        assert (await hub.act(find(tree, text="Login"), ActionVerb.CLICK)).ok
        final = await hub.wait_push(_on("login"))
        frames = [p for p in hub.pushes[1:] if not p.stable]
        # the slide's four frames are 40 ms of wall time each: a loaded machine that
        # deschedules the device past them sees fewer (one, in a CI-like run),
        # never none, and those it sees slide in order
        assert frames
        lefts = [find(p.tree, automation_id="__screen_login").bounds[0] for p in frames]  # type: ignore[index]
        assert lefts == sorted(lefts, reverse=True) and lefts[0] > 0
        assert all(p.quiet_ms == 0 for p in frames)
        root = find(final.tree, automation_id="__screen_login")
        assert root.bounds is not None and root.bounds[0] == 0
        assert final.quiet_ms >= 50
        assert hub.pushes[-1] is final


async def test_malformed_commands_get_bad_command_and_the_link_stays() -> None:
    async with running() as sim, HubSide.open(sim) as hub:
        await hub.send_raw("this is not json")
        await hub.send_raw("[1, 2, 3]")
        await hub.send_raw('{"type": "teleport", "id": 7}')
        await hub.send_raw('{"type": "node_action", "id": 8, "handle": "x"}')
        await hub.send_raw('{"type": "ping"}')
        for cid in (7, 8):
            reply = await hub.reply(cid)
            assert not reply.ok and reply.code == "BAD_COMMAND" and reply.message
        pong = await hub.command(lambda cid: AgentPing(id=cid))
        assert pong.ok
        assert sim.statistics().bad_commands == 5


async def test_screenshot_is_a_png_of_the_screen() -> None:
    async with running() as sim, HubSide.open(sim) as hub:
        reply = await hub.command(lambda cid: ScreenshotCommand(id=cid))
        assert reply.ok and reply.png_base64
        png = base64.b64decode(reply.png_base64)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        length, tag = struct.unpack(">I4s", png[8:16])
        assert tag == b"IHDR" and length == 13
        width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
        assert (width, height, depth, colour) == (1080, 2400, 8, 2)
        (crc,) = struct.unpack(">I", png[29:33])
        assert crc == zlib.crc32(png[12:29]) & 0xFFFFFFFF


async def test_ios_flavour_uses_xcuielement_types() -> None:
    async with running(platform=Platform.IOS, scene="login") as sim, HubSide.open(sim) as hub:
        assert hub.hello is not None and hub.hello.platform is Platform.IOS
        assert hub.hello.device.id == "sim-ios"
        tree = hub.tree
        assert tree is not None and tree.platform is Platform.IOS
        assert all((n.class_name or "").startswith("XCUIElementType") for n in tree.nodes)
        assert tree.nodes[0].class_name == "XCUIElementTypeApplication"
        password = find(tree, automation_id="password")
        assert password.class_name == "XCUIElementTypeSecureTextField"
        sign_in = find(tree, automation_id="login")
        assert sign_in.class_name == "XCUIElementTypeButton"
        assert sign_in.label == "Sign in" and sign_in.hittable
        assert find(tree, automation_id="__screen_login").class_name == "XCUIElementTypeOther"
        await _login(hub, "demo", "pw")
        home = await hub.wait_push(_on("home"))
        assert find(home.tree, automation_id="clock").label is not None


async def test_gestures_tap_the_deepest_clickable_and_swipe_scrolls() -> None:
    async with running() as sim, HubSide.open(sim) as hub:
        tree = hub.tree
        assert tree is not None
        point = _centre(find(tree, text="List"))
        tap = await hub.command(lambda cid: GestureCommand(id=cid, kind="tap", points=(point,)))
        assert tap.ok
        listed = (await hub.wait_push(_on("list"))).tree
        swipe = await hub.command(
            lambda cid: GestureCommand(
                id=cid,
                kind="swipe",
                points=(Point(x=540, y=2000), Point(x=540, y=800)),
                duration_ms=200,
            )
        )
        assert swipe.ok
        scrolled = await hub.settle()
        assert find_all(scrolled, automation_id="row")[0].item_row == 10
        row = find(scrolled, text="Item 12")
        await hub.command(lambda cid: GestureCommand(id=cid, kind="tap", points=(_centre(row),)))
        picked = await hub.settle()
        assert find(picked, automation_id="selection").text == "Selected: Item 12"
        assert listed.capture < picked.capture


async def test_back_home_launcher_and_app_commands() -> None:
    async with running(scene="list", animations=False) as sim, HubSide.open(sim) as hub:

        async def run(build: object) -> RawTree:
            reply = await hub.command(build)  # type: ignore[arg-type]
            assert reply.ok, reply
            return await hub.settle()

        assert (
            screen_of(await run(lambda c: GlobalCommand(id=c, action=GlobalAction.BACK))) == "menu"
        )
        launcher = await run(lambda c: GlobalCommand(id=c, action=GlobalAction.BACK))
        assert launcher.package == LAUNCHER_PACKAGE and screen_of(launcher) is None
        menu = await run(lambda c: AppCommand(id=c, action=AppAction.APP_BRING_TO_FRONT))
        assert screen_of(menu) == "menu"
        link = await run(
            lambda c: AppCommand(
                id=c,
                action=AppAction.APP_DEEP_LINK,
                app_id=DEMO_PACKAGE,
                uri="mobridge-demo://settings",
            )
        )
        assert screen_of(link) == "settings"
        closed = await run(
            lambda c: AppCommand(id=c, action=AppAction.APP_CLOSE_UI, app_id=DEMO_PACKAGE)
        )
        assert closed.package == LAUNCHER_PACKAGE
        opened = await run(
            lambda c: AppCommand(id=c, action=AppAction.APP_OPEN, app_id=DEMO_PACKAGE)
        )
        assert screen_of(opened) == "menu"
        missing = await hub.command(
            lambda c: AppCommand(id=c, action=AppAction.APP_OPEN, app_id="com.example.absent")
        )
        assert not missing.ok and missing.code == "NOT_FOUND"
        key_back = await hub.command(lambda c: KeyCommand(id=c, key="BACK"))
        assert key_back.ok


async def test_clipboard_and_copy_action() -> None:
    async with running(scene="home", animations=False) as sim, HubSide.open(sim) as hub:
        tree = hub.tree
        assert tree is not None
        clock = find(tree, automation_id="clock")
        assert (await hub.act(clock, ActionVerb.COPY)).ok
        got = await hub.command(lambda c: ClipboardCommand(id=c))
        assert got.ok and got.text == clock.text
        assert (await hub.command(lambda c: ClipboardCommand(id=c, set="ORDER-42"))).ok
        again = await hub.command(lambda c: ClipboardCommand(id=c))
        assert again.text == "ORDER-42"


async def test_capture_replies_number_captures_and_links_are_independent() -> None:
    async with running() as sim:
        async with HubSide.open(sim) as first, HubSide.open(sim) as second:
            reply = await first.command(lambda c: CaptureCommand(id=c))
            assert reply.tree is not None and reply.tree.capture == 2
            other = await second.command(lambda c: CaptureCommand(id=c))
            assert other.tree is not None and other.tree.capture == 2
            assert sim.statistics().links == 2
            await sim.drop_connections()
            with pytest.raises(ConnectionClosed):
                while True:
                    await first.recv()
        async with HubSide.open(sim) as again:
            assert again.pushes[0].tree.capture == 1
            assert isinstance(again.pushes[0], TreePush)


async def test_identity_in_a_command_uses_wire_spelling() -> None:
    # a raw JSON command as the Android fixture spells it, against the live sim
    async with running(scene="login") as sim, HubSide.open(sim) as hub:
        tree = hub.tree
        assert tree is not None
        node = find(tree, automation_id="login")
        cid = hub.next_id()
        raw = (
            f'{{"type":"node_action","id":{cid},"capture":{tree.capture},"handle":{node.handle},'
            f'"action":"CLICK","identity":{{"className":"android.widget.Button",'
            f'"automationId":"{node.automation_id}","text":"Sign in"}}}}'
        )
        await hub.send_raw(raw)
        reply = await hub.reply(cid)
        assert reply.ok and reply.method is ActionMethod.ACCESSIBILITY_ACTION
        assert encode(reply)  # re-encodes


async def test_an_injected_clock_drives_simulated_time() -> None:
    now = [100.0]
    async with (
        running(scene="home", clock=lambda: now[0], animations=False) as sim,
        HubSide.open(sim) as hub,
    ):
        assert hub.tree is not None
        assert find(hub.tree, automation_id="clock").text == "09:00:00"
        now[0] += 1.0
        sim.wake()
        with anyio.move_on_after(0.2):
            await hub.recv()
        assert len(hub.pushes) == 1, "not quiet yet in simulated time: nothing pushed"
        now[0] += 0.06
        sim.wake()
        push = await hub.wait_push(lambda p: p.reason == "event")
        assert push.stable and push.quiet_ms == 60
        assert find(push.tree, automation_id="clock").text == "09:00:01"


async def test_abrupt_agent_loss_and_a_wrong_token_in_hello() -> None:
    async with running() as sim:
        async with HubSide.open(sim) as hub:
            await sim.drop_connections(abrupt=True)
            with pytest.raises(ConnectionClosed):
                await hub.recv()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with connect(sim.url, additional_headers=headers) as ws:
            await ws.send('{"type":"hello","protocol":1,"hub":"h","token":"other"}')
            with pytest.raises(ConnectionClosed) as info:
                await ws.recv()
        assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        assert sim.statistics().refused_hello == 1
