"""Agentless mode: the agent link served on 127.0.0.1 by the hub itself, over plain adb.

Nothing is installed on the phone. Trees come from ``uiautomator dump`` (imported with
``bridge.core.importers.import_dump``, so the hub normalizes them like any agent's), actions
are ``input tap/swipe/text/keyevent``, app control ``monkey`` / ``am start``, screenshots
``screencap -p``. It is slow: a dump takes about a second or more on a real phone, and changes
are found by polling the dump every ``poll_interval_s`` (pushed when its bytes change), so a
subscriber sees a change one to a few seconds late. The hello says so: agent name
``mobridge-android-agentless``, capability ``agentless``; every node action reports
``GESTURE_FALLBACK``.

Rules (as the simulated device's server): binds 127.0.0.1 only, port 0 picks a free one;
``Authorization: Bearer <token>`` checked in constant time (else HTTP 401); the hub's hello
must speak ``AGENT_PROTOCOL``; every command gets exactly one reply, except when the device
goes away mid-command: then the link is closed (1011) without a reply, ``serve`` returns and
``lost_reason`` says why. Commands that touch the device run one at a time; dumps one at a
time. ``prepare`` (device facts) must succeed before ``serve``.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge import __version__
from bridge.core.importers import ImportFailure, import_dump
from bridge.devices.agent_endpoint import check_hub_hello, refuse_unless_bearer
from bridge.devices.android.adb import (
    ADB_ERRORS,
    AdbDeviceLike,
    blocking,
    is_timeout,
    run_shell,
)
from bridge.devices.android.agentless_plan import Captures, Plan, apps_from, plan_command
from bridge.devices.android.capability_shell import network_state
from bridge.devices.android.shell_text import shell_command
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    AgentHello,
    AgentHubHello,
    AgentInfo,
    AgentStatus,
    CaptureCommand,
    DeviceInfo,
    HubToAgent,
    Reply,
    ScreenshotCommand,
    TreePush,
)
from bridge.wire.codec import HUB_TO_AGENT, DecodeFailure, encode
from bridge.wire.device_network import state_text
from bridge.wire.enums import Platform
from bridge.wire.raw import RawTree, ScreenSize

HOST = "127.0.0.1"
AGENT_NAME = "mobridge-android-agentless (uiautomator dump + adb input; slow)"
CAPABILITIES: tuple[str, ...] = (
    "agentless",
    "tree",
    "node_action",
    "gesture",
    "global",
    "key",
    "text",
    "app",
    "screenshot",
    "apps",
    "terminate",
    "clear",
    "permission",
    "location",
    "install",
    "uninstall",
    "orientation",
    "network",
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True, kw_only=True)
class AgentlessConfig:
    token: str
    port: int = 0
    poll_interval_s: float = 1.0
    dump_timeout_s: float = 30.0
    screenshot_timeout_s: float = 20.0
    degraded_after: int = 5
    """Consecutive failed dumps before the links are told ``degraded``."""

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("the agentless server needs a token")


@dataclass(slots=True)
class AgentlessStatistics:
    dumps: int = 0
    failed_dumps: int = 0
    captures: int = 0
    pushes: int = 0
    commands: int = 0
    shell_commands: int = 0
    refused_auth: int = 0


class _DeviceGone(Exception):
    pass


class _Timeout(Exception):
    pass


def extract_xml(output: bytes) -> bytes | None:
    """The XML document in a dump command's output, or None when there is none."""
    start = output.find(b"<?xml")
    if start < 0:
        start = output.find(b"<hierarchy")
    end = output.rfind(b"</hierarchy>")
    if start < 0 or end < start:
        return None
    return output[start : end + len(b"</hierarchy>")]


def parse_device_facts(text: str) -> tuple[str | None, str | None, ScreenSize | None]:
    """(model, Android release, screen size) from the ``prepare`` command's output."""
    lines = [line.strip() for line in text.splitlines()]
    props = [line for line in lines[:3]]
    while len(props) < 3:
        props.append("")
    maker, model, release = props
    screen = None
    for line in lines[3:]:
        label, _, size = line.partition(":")
        width, sep, height = size.strip().partition("x")
        if sep and width.isdigit() and height.isdigit() and "size" in label.lower():
            screen = ScreenSize(width=int(width), height=int(height))  # Override wins: last
    name = " ".join(p for p in (maker, model) if p) or None
    return name, release or None, screen


@dataclass(eq=False)
class _Link:
    ws: ServerConnection
    send_lock: anyio.Lock = field(default_factory=anyio.Lock)

    async def send(self, message: Any) -> None:
        data = encode(message)
        async with self.send_lock:
            await self.ws.send(data, text=True)


class AgentlessServer:
    """One phone's agentless agent-link server. ``await prepare()`` then, in a task group,
    ``port = await tg.start(server.serve)``; ``serve`` returns when the device is lost."""

    def __init__(self, device: AdbDeviceLike, serial: str, config: AgentlessConfig) -> None:
        self.device = device
        self.serial = serial
        self.config = config
        self.stats = AgentlessStatistics()
        self.captures = Captures()
        self.lost_reason: str | None = None
        self.port: int | None = None
        self._model: str | None = None
        self._release: str | None = None
        self._screen: ScreenSize | None = None
        self._dump_path = f"/data/local/tmp/mobridge-dump-{secrets.token_hex(6)}.xml"
        self._last_xml: bytes | None = None
        self._unstable = False
        self._failures = 0
        self._degraded = False
        self._links: set[_Link] = set()
        self._pending_status: list[AgentStatus] = []
        self._lost = anyio.Event()
        self._wake = anyio.Event()
        self._dump_lock = anyio.Lock()
        self._act_lock = anyio.Lock()

    # ---- adb ------------------------------------------------------------------------------

    async def _shell_bytes(self, argv_or_command: tuple[str, ...] | str, limit_s: float) -> bytes:
        command = (
            argv_or_command if isinstance(argv_or_command, str) else shell_command(argv_or_command)
        )
        self.stats.shell_commands += 1
        try:
            return await blocking(run_shell, self.device, command, limit_s)
        except ADB_ERRORS as exc:
            if is_timeout(exc):
                raise _Timeout(f"{command.split(' ')[0]} took over {limit_s:g} s") from exc
            self._mark_lost(f"adb: {exc}")
            raise _DeviceGone(str(exc)) from exc

    def _mark_lost(self, reason: str) -> None:
        if self.lost_reason is None:
            self.lost_reason = reason
        self._lost.set()

    async def prepare(self) -> None:
        """Read the device's model, Android release and screen size (adb errors propagate)."""
        command = (
            "getprop ro.product.manufacturer; getprop ro.product.model; "
            "getprop ro.build.version.release; wm size"
        )
        out = await blocking(run_shell, self.device, command, 15.0)
        self._model, self._release, self._screen = parse_device_facts(
            out.decode("utf-8", "replace")
        )

    # ---- captures ---------------------------------------------------------------------------

    async def _dump(self) -> bytes | None:
        path = self._dump_path
        command = (
            f"rm -f {path}; uiautomator dump {path} >/dev/null 2>&1 && cat {path}; rm -f {path}"
        )
        self.stats.dumps += 1
        try:
            out = await self._shell_bytes(command, self.config.dump_timeout_s)
        except _Timeout:
            return None
        return extract_xml(out)

    async def capture(self) -> tuple[RawTree | None, bool]:
        """Dump now: (latest tree, whether it changed). The tree is None only before any dump
        succeeded. Raises _DeviceGone."""
        async with self._dump_lock:
            xml = await self._dump()
            if xml is not None and xml == self._last_xml:
                self._dump_ok()
                return self.captures.latest, False
            imported: RawTree | ImportFailure | None = None
            if xml is not None:
                imported = await anyio.to_thread.run_sync(
                    import_dump, xml, f"uiautomator dump of {self.serial}"
                )
            if not isinstance(imported, RawTree):
                await self._dump_failed(
                    imported.reason if isinstance(imported, ImportFailure) else "no XML output"
                )
                return self.captures.latest, False
            self._last_xml = xml
            self._dump_ok()
            self.stats.captures += 1
            return self.captures.add(imported, self._screen), True

    def _dump_ok(self) -> None:
        self._failures = 0
        if self._degraded:
            self._degraded = False
            self._broadcast_soon(AgentStatus(state="ready"))

    async def _dump_failed(self, reason: str) -> None:
        self.stats.failed_dumps += 1
        self._failures += 1
        if self._failures >= self.config.degraded_after and not self._degraded:
            self._degraded = True
            self._broadcast_soon(
                AgentStatus(state="degraded", reason=f"uiautomator dump keeps failing: {reason}")
            )

    def _broadcast_soon(self, message: AgentStatus) -> None:
        self._pending_status.append(message)

    async def _flush_status(self) -> None:
        while self._pending_status:
            await self._broadcast(self._pending_status.pop(0))

    async def _broadcast(self, message: Any) -> None:
        for link in list(self._links):
            try:
                await link.send(message)
            except ConnectionClosed:
                self._links.discard(link)

    async def _push(self, tree: RawTree, reason: str, stable: bool) -> None:
        self.stats.pushes += 1
        quiet = int(self.config.poll_interval_s * 1000) if stable else 0
        await self._broadcast(TreePush(reason=reason, stable=stable, tree=tree, quiet_ms=quiet))

    async def _poll(self) -> None:
        """While a hub is linked, dump every ``poll_interval_s`` (or when woken after an
        action) and push changes: a changed dump is pushed as unstable, and again as stable
        once a dump shows no change."""
        while not self._lost.is_set():
            if self._links:  # nobody linked: no dumps (a new link captures afresh)
                try:
                    tree, changed = await self.capture()
                except _DeviceGone:
                    return
                await self._flush_status()
                if tree is not None and changed:
                    self._unstable = True
                    await self._push(tree, "timer", False)
                elif tree is not None and self._unstable:
                    self._unstable = False
                    await self._push(tree, "timer", True)
            with anyio.move_on_after(self.config.poll_interval_s):
                await self._wake.wait()
            if self._wake.is_set():
                self._wake = anyio.Event()

    # ---- serving ------------------------------------------------------------------------

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Serve until the device is lost (returns; see ``lost_reason``) or cancelled."""
        server: Server = await serve(
            self._handle,
            HOST,
            self.config.port,
            process_request=self._authorize,
            max_size=HUB_TO_AGENT.max_frame,
            ping_interval=20,
            ping_timeout=20,
        )
        try:
            self.port = int(server.sockets[0].getsockname()[1])
            task_status.started(self.port)
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._poll)
                await self._lost.wait()
                tg.cancel_scope.cancel()
        finally:
            server.close()
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await server.wait_closed()

    def _authorize(self, connection: ServerConnection, request: Request) -> Response | None:
        refusal = refuse_unless_bearer(connection, request, self.config.token, "mobridge-agentless")
        if refusal is not None:
            self.stats.refused_auth += 1
        return refusal

    async def _hello(self, ws: ServerConnection) -> bool:
        refusal = await check_hub_hello(ws, self.config.token)
        if refusal is not None:
            await ws.close(*refusal)
            return False
        screen = self._screen
        hello = AgentHello(
            protocol=AGENT_PROTOCOL,
            platform=Platform.ANDROID,
            agent=AgentInfo(name=AGENT_NAME, version=__version__),
            device=DeviceInfo(
                id=self.serial,
                model=self._model,
                os_version=self._release,
                width=screen.width if screen else None,
                height=screen.height if screen else None,
            ),
            capabilities=CAPABILITIES,
        )
        await ws.send(encode(hello), text=True)
        return True

    async def _handle(self, ws: ServerConnection) -> None:
        link = _Link(ws)
        try:
            if not await self._hello(ws):
                return
            tree, _ = await self.capture()
            if tree is not None:
                await link.send(
                    TreePush(reason="initial", stable=not self._unstable, tree=tree, quiet_ms=0)
                )
            self._links.add(link)
            async for frame in ws:
                await self._command(link, frame)
        except ConnectionClosed:
            pass
        except _DeviceGone as exc:
            with anyio.CancelScope(shield=True):
                await ws.close(1011, f"device {self.serial} lost: {exc}"[:120])
        finally:
            self._links.discard(link)

    async def _command(self, link: _Link, frame: str | bytes) -> None:
        message = HUB_TO_AGENT.decode(frame)
        self.stats.commands += 1
        if isinstance(message, DecodeFailure):
            if isinstance(message.request_id, int) and message.request_id >= 0:
                await link.send(
                    Reply(
                        id=message.request_id,
                        ok=False,
                        code="BAD_COMMAND",
                        message=f"{message.code.value}: {message.message}",
                    )
                )
            return
        reply = await self._execute(message)
        if reply is not None:
            await link.send(reply)

    async def _execute(self, command: HubToAgent) -> Reply | None:
        if isinstance(command, AgentHubHello):
            return None
        if isinstance(command, CaptureCommand):
            tree, changed = await self.capture()
            if tree is None:
                return Reply(id=command.id, ok=False, code="FAILED", message="no dump yet")
            if changed:
                self._unstable = True
                await self._push(tree, "event", False)
            return Reply(id=command.id, ok=True, tree=tree)
        if isinstance(command, ScreenshotCommand):
            return await self._screenshot(command.id)
        plan = plan_command(command, self.captures)
        if plan is None or isinstance(plan, Reply):
            return plan
        return await self._run(command.id, plan)

    async def _run(self, cid: int, plan: Plan) -> Reply:
        outputs: list[str] = []
        async with self._act_lock:
            try:
                for step in plan.steps:
                    out = await self._shell_bytes(step.argv, step.timeout_s)
                    text = out.decode("utf-8", "replace")
                    complaint = step.failure(text)
                    if complaint is not None:
                        return Reply(id=cid, ok=False, code="FAILED", message=complaint)
                    outputs.append(text)
            except _Timeout as exc:
                return Reply(id=cid, ok=False, code="FAILED", message=str(exc))
            finally:
                self._wake.set()
        if plan.lists_apps:
            return Reply(id=cid, ok=True, apps=apps_from(outputs))
        if plan.reads_network:
            return Reply(id=cid, ok=True, text=state_text(*network_state(outputs)))
        return Reply(id=cid, ok=True, method=plan.method)

    async def _screenshot(self, cid: int) -> Reply:
        try:
            png = await self._shell_bytes(("screencap", "-p"), self.config.screenshot_timeout_s)
        except _Timeout as exc:
            return Reply(id=cid, ok=False, code="FAILED", message=str(exc))
        if not png.startswith(PNG_MAGIC):
            return Reply(
                id=cid,
                ok=False,
                code="FAILED",
                message="screencap -p returned no PNG (secure window, or an old adb shell)",
            )
        return Reply(id=cid, ok=True, png_base64=base64.b64encode(png).decode("ascii"))
