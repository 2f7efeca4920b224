"""The agentless server for real on 127.0.0.1, with a real ``bridge.net.agent_link.AgentLink``
connected to it and the fake of adbutils serving real ``uiautomator dump`` XML from ../shared:
hello, capture, tap, text, back, screenshot, pushes on change, degraded dumps, wrong token,
and the phone unplugged in the middle of a command."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.devices.android import AndroidConfig
from bridge.devices.android.agentless import PNG_MAGIC, AgentlessConfig, AgentlessServer
from bridge.devices.android.driver import AgentlessRunner, AndroidDriver
from bridge.devices.android.shell_text import decode_input_text
from bridge.net.agent_link import AgentLink, AgentLost, AgentRefused, decode_reply_png
from bridge.wire.agent_link import (
    AgentHello,
    AgentStatus,
    CaptureCommand,
    GlobalCommand,
    NodeActionCommand,
    NodeIdentity,
    Reply,
    ScreenshotCommand,
    TreePush,
)
from bridge.wire.enums import ActionMethod, ActionVerb, GlobalAction
from bridge.wire.raw import RawTree
from tests.devices.android_fakes.fake_adbutils import FakeAdbClient, FakeDevice
from tests.devices.android_fakes.hub_double import HubDouble, SleepRecorder, eventually

pytestmark = pytest.mark.anyio

TOKEN = "agentless-test-token"
DIALOG = "android/droidmate__com.rhmsoft.fm_new_dir_popup.xml"
BUTTONS = "android/droidmate__f_tsa_mainAct_4Jan14.xml"
PNG = PNG_MAGIC + b"\x00\x00\x00\rIHDR fake but passed through byte for byte \xff\x00\r\n"


def real_dump(shared_dir: Path, name: str) -> bytes:
    return (shared_dir / "data" / "real-dumps" / name).read_bytes()


class HubSide:
    """What the hub holds: a real AgentLink and what it received."""

    def __init__(self) -> None:
        self.pushes: list[TreePush] = []
        self.statuses: list[AgentStatus] = []
        self.lost: AgentLost | None = None
        self.link: AgentLink | None = None
        self.hello: AgentHello | None = None

    async def on_tree(self, push: TreePush) -> None:
        self.pushes.append(push)

    async def on_status(self, status: AgentStatus) -> None:
        self.statuses.append(status)

    async def run(self, link: AgentLink) -> None:
        try:
            await link.run()
        except AgentLost as exc:
            self.lost = exc

    @property
    def tree(self) -> RawTree:
        return self.pushes[-1].tree

    async def act(self, command: object) -> Reply:
        assert self.link is not None
        return await self.link.command(lambda cid: _with_id(command, cid), 5.0)


def _with_id(command: object, cid: int) -> object:
    import msgspec

    return msgspec.structs.replace(command, id=cid)  # type: ignore[type-var]


@asynccontextmanager
async def serving(device: FakeDevice, **overrides: object) -> AsyncIterator[AgentlessServer]:
    config = AgentlessConfig(token=TOKEN, poll_interval_s=0.05, **overrides)  # type: ignore[arg-type]
    server = AgentlessServer(device, device.serial, config)
    await server.prepare()
    async with anyio.create_task_group() as tg:
        await tg.start(server.serve)
        try:
            yield server
        finally:
            tg.cancel_scope.cancel()


@asynccontextmanager
async def linked(url: str, token: str = TOKEN) -> AsyncIterator[HubSide]:
    side = HubSide()
    link = AgentLink(url, token, on_tree=side.on_tree, on_status=side.on_status)
    side.link = link
    side.hello = await link.connect()
    async with anyio.create_task_group() as tg:
        tg.start_soon(side.run, link)
        try:
            await eventually(lambda: side.pushes)
            yield side
        finally:
            tg.cancel_scope.cancel()
    await link.close()


def _url(server: AgentlessServer) -> str:
    return f"ws://127.0.0.1:{server.port}"


def _node_command(tree: RawTree, text: str, verb: ActionVerb, typed: str | None = None) -> object:
    (node,) = [n for n in tree.nodes if n.text == text]
    return NodeActionCommand(
        id=0,
        capture=tree.capture,
        handle=node.handle,
        action=verb,
        identity=NodeIdentity(
            class_name=node.class_name, automation_id=node.automation_id, text=node.text
        ),
        text=typed,
    )


async def test_hello_and_initial_tree_say_agentless_and_normalize(shared_dir: Path) -> None:
    dev = FakeDevice("R58M123", screen_xml=real_dump(shared_dir, DIALOG))
    async with serving(dev) as server, linked(_url(server)) as hub:
        assert hub.hello is not None
        assert "agentless" in hub.hello.capabilities
        assert "agentless" in hub.hello.agent.name and "slow" in hub.hello.agent.name
        assert "clipboard" not in hub.hello.capabilities
        assert hub.hello.device.id == "R58M123"
        assert hub.hello.device.model == "Google Pixel 7"
        assert (hub.hello.device.width, hub.hello.device.height) == (1080, 2400)
        first = hub.pushes[0]
        assert first.reason == "initial" and first.tree.capture >= 1
        result = normalize(first.tree, SnapshotContext("R58M123", "s_1", 0))
        assert isinstance(result, Normalized)
        assert any(n.label == "OK" for n in result.full.nodes)
        reply = await hub.act(CaptureCommand(id=0))
        assert reply.ok and reply.tree is not None
        assert [n.text for n in reply.tree.nodes] == [n.text for n in first.tree.nodes]


async def test_click_set_text_back_and_screenshot_reach_adb_as_expected(shared_dir: Path) -> None:
    dev = FakeDevice("s1", screen_xml=real_dump(shared_dir, DIALOG), png=PNG)
    async with serving(dev) as server, linked(_url(server)) as hub:
        tapped = await hub.act(_node_command(hub.tree, "OK", ActionVerb.CLICK))
        assert tapped.ok and tapped.method is ActionMethod.GESTURE_FALLBACK
        assert dev.argvs("input")[-1] == ["input", "tap", "236", "484"]

        text = "it's a 'dir' && $(reboot) 50%s"
        typed = await hub.act(_node_command(hub.tree, "New File Name", ActionVerb.SET_TEXT, text))
        assert typed.ok and typed.method is ActionMethod.GESTURE_FALLBACK
        sent = dev.argvs("input")
        commands = sent[sent.index(["input", "tap", "399", "407"]) :]  # bounds [78,381][721,434]
        assert commands[1][:3] == ["input", "keyevent", "KEYCODE_MOVE_END"]
        assert all(c[:2] == ["input", "text"] for c in commands[2:])
        chunks = [c[2] for c in commands[2:]]
        assert "".join(decode_input_text(c) for c in chunks) == text

        back = await hub.act(GlobalCommand(id=0, action=GlobalAction.BACK))
        assert back.ok and dev.argvs("input")[-1] == ["input", "keyevent", "4"]

        shot = await hub.act(ScreenshotCommand(id=0))
        assert shot.ok and decode_reply_png(shot) == PNG


async def test_screen_changes_are_pushed_unstable_then_stable(shared_dir: Path) -> None:
    dev = FakeDevice("s1", screen_xml=real_dump(shared_dir, DIALOG))
    async with serving(dev) as server, linked(_url(server)) as hub:
        before = len(hub.pushes)
        dev.screen_xml = real_dump(shared_dir, BUTTONS)
        await eventually(lambda: any(p.stable for p in hub.pushes[before + 1 :]))
        changed = hub.pushes[before]
        assert not changed.stable and changed.tree.capture > hub.pushes[0].tree.capture
        assert any(n.text == "OK" for n in hub.pushes[0].tree.nodes)
        assert not any(n.text == "OK" for n in changed.tree.nodes)
        # The hub's handle from the old screen is refused, nothing is tapped.
        taps = len(dev.argvs("input"))
        stale = await hub.act(_node_command(hub.pushes[0].tree, "OK", ActionVerb.CLICK))
        assert not stale.ok and stale.code in ("IDENTITY_MISMATCH", "NOT_FOUND")
        assert len(dev.argvs("input")) == taps


async def test_failing_dumps_report_degraded_then_ready(shared_dir: Path) -> None:
    dev = FakeDevice("s1", screen_xml=real_dump(shared_dir, DIALOG))
    async with serving(dev, degraded_after=2) as server, linked(_url(server)) as hub:
        dev.dump_fails = True
        await eventually(lambda: any(s.state == "degraded" for s in hub.statuses))
        assert "uiautomator dump keeps failing" in (hub.statuses[-1].reason or "")
        dev.dump_fails = False
        await eventually(lambda: hub.statuses[-1].state == "ready")


async def test_wrong_token_is_refused(shared_dir: Path) -> None:
    dev = FakeDevice("s1", screen_xml=real_dump(shared_dir, DIALOG))
    async with serving(dev) as server:
        link = AgentLink(_url(server), "wrong", on_tree=_ignore, on_status=_ignore)
        with pytest.raises(AgentRefused):
            await link.connect()
        assert server.stats.refused_auth == 1


async def _ignore(_: object) -> None:
    return None


async def test_unplugged_mid_command_the_hub_sees_the_link_drop(shared_dir: Path) -> None:
    dev = FakeDevice("s1", screen_xml=real_dump(shared_dir, DIALOG))
    dev.hold_input = threading.Event()
    async with serving(dev) as server, linked(_url(server)) as hub:
        outcome: list[object] = []

        async def click() -> None:
            try:
                outcome.append(await hub.act(_node_command(hub.tree, "OK", ActionVerb.CLICK)))
            except AgentLost as exc:
                outcome.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(click)
            await eventually(dev.input_started.is_set)
            dev.unplug()
        (result,) = outcome
        assert isinstance(result, AgentLost)
        await eventually(lambda: hub.lost is not None)
        await eventually(lambda: server.lost_reason is not None)
        assert "not found" in (server.lost_reason or "")


async def test_run_android_agentless_attaches_and_detaches_on_unplug(shared_dir: Path) -> None:
    client = FakeAdbClient()
    dev = client.add(FakeDevice("emulator-5554", screen_xml=real_dump(shared_dir, DIALOG)))
    config = AndroidConfig(
        agentless=True, adb_factory=lambda: client, sleep=SleepRecorder(), poll_interval_s=0.05
    )
    hub = HubDouble()
    driver = AndroidDriver(config, hub.attach, hub.detach)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(driver.run)
            await eventually(lambda: hub.attached)
            url, token = hub.attached[0]
            assert token is not None
            async with linked(url, token) as side:
                assert side.hello is not None and "agentless" in side.hello.capabilities
                assert dev.calls and all("instrument" not in c for c in dev.calls)
                client.unplug("emulator-5554")
                await eventually(lambda: side.lost is not None)
            await eventually(lambda: hub.detached == [url])
            runner = driver.runners["emulator-5554"]
            assert isinstance(runner, AgentlessRunner)
            tg.cancel_scope.cancel()
    finally:
        client.stop()


async def test_network_switches_through_adb_and_reads_back(shared_dir: Path) -> None:
    from bridge.wire.agent_link import NetworkCommand
    from bridge.wire.device_network import parse_state

    dev = FakeDevice("n1", screen_xml=real_dump(shared_dir, DIALOG))
    async with serving(dev) as server, linked(_url(server)) as hub:
        assert hub.hello is not None and "network" in hub.hello.capabilities
        read = await hub.act(NetworkCommand(id=0))
        assert read.ok and parse_state(read.text) == (False, True, True)
        flight = await hub.act(NetworkCommand(id=0, airplane=True))
        assert flight.ok and parse_state(flight.text) == (True, False, False)
        assert ["cmd", "connectivity", "airplane-mode", "enable"] in dev.argvs("cmd")
        back = await hub.act(NetworkCommand(id=0, airplane=False, wifi=True, data=False))
        assert back.ok and parse_state(back.text) == (False, True, False)
        assert dev.argvs("svc")[-2:] == [["svc", "wifi", "enable"], ["svc", "data", "disable"]]
