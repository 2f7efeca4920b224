"""The simulated device's agent-link server: a real websocket server on 127.0.0.1.

It speaks the agent link exactly as the on-device agents do (``bridge.wire.agent_link``): the
hub connects with ``Authorization: Bearer <token>`` (anything else: HTTP 401), sends
``hello``, gets ``hello`` then an ``initial`` tree, then a tree whenever the screen changes
(``bridge.devices.sim.debounce``), and one ``reply`` per command. All behaviour lives in the
pure modules (``device``, ``session``, ``debounce``, ``png``); this module only moves frames.

Rules:
- binds 127.0.0.1 only; ``SimConfig.port`` 0 picks a free port, reported through
  ``task_status.started(port)`` and ``SimDevice.port``;
- tokens are compared in constant time over sha256 digests;
- a hello with another protocol version closes the link (1002) with a reason naming both;
- a frame that does not decode gets ``reply ok=false code=BAD_COMMAND`` when its id can be
  read, and the link stays up;
- tree deltas: the agent announces ``tree_delta``; once the hub asks for them (``options``)
  a change is pushed as its delta from the last tree sent on that link (a push or a capture
  reply: ``bridge.core.raw_delta``), or whole when a delta would not be smaller; a tree and
  what it is based on are sent under one lock, so a delta never follows a tree it was not
  computed from;
- commands that change the device run one at a time across every link, in arrival order,
  each after the configured simulated action latency;
- simulated time: ``(clock() - start) * time_scale`` seconds; waits are converted back to
  real seconds and capped at ``MAX_IDLE_S`` so an injected clock is looked at again (call
  ``wake()`` after moving a manual clock to be seen at once).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge import __version__
from bridge.core.raw_delta import raw_delta
from bridge.devices.agent_endpoint import check_hub_hello, refuse_unless_bearer
from bridge.devices.sim.capture import HandleRegistry
from bridge.devices.sim.debounce import PushDebouncer
from bridge.devices.sim.device import DemoDevice
from bridge.devices.sim.device_log import DeviceLog
from bridge.devices.sim.png import render_scene
from bridge.devices.sim.scenes import DEMO_PACKAGE, LAUNCHER_PACKAGE
from bridge.devices.sim.session import AgentSession
from bridge.devices.sim.views import Kind, Scene
from bridge.devices.sim.webview import SimWebView, compose
from bridge.wire.agent_link import (
    AGENT_PROTOCOL,
    TREE_DELTA,
    AgentHello,
    AgentHubHello,
    AgentInfo,
    AgentPing,
    AlertCommand,
    AppsCommand,
    CaptureCommand,
    ClipboardCommand,
    DeviceInfo,
    HubToAgent,
    InstallCommand,
    OptionsCommand,
    Reply,
    ScreenshotCommand,
    TreeDelta,
    TreePush,
)
from bridge.wire.codec import HUB_TO_AGENT, DecodeFailure, encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawTree

HOST = "127.0.0.1"
AGENT_NAME = "mobridge-sim"
CAPABILITIES: tuple[str, ...] = (
    "tree",
    "node_action",
    "gesture",
    "global",
    "key",
    "text",
    "app",
    "screenshot",
    "clipboard",
    TREE_DELTA,
    "apps",
    "terminate",
    "clear",
    "install",
    "uninstall",
    "orientation",
    "alerts",
    "permission",
    "location",
    "multi_touch",
    "keyboard",
    "network",
    "launch_arguments",
)
MAX_PACKAGE_READ = 1 << 20
"""A simulated package is tiny JSON; a larger staged file is refused unread."""
MAX_IDLE_S = 1.0
_OS_VERSIONS = {Platform.ANDROID: "14", Platform.IOS: "17.5"}


@dataclass(frozen=True, kw_only=True)
class SimConfig:
    """How to run the simulated device. ``token`` is required: the agent never runs open."""

    token: str
    platform: Platform = Platform.ANDROID
    scene: str = "menu"
    """Start screen: a demo screen id (menu, login, home, …) or ``launcher``."""
    port: int = 0
    clock: Callable[[], float] = time.monotonic
    time_scale: float = 1.0
    """Simulated seconds per clock second (10 makes the demo clock tick ten times faster)."""
    animations: bool = True
    device_id: str | None = None
    """Defaults to ``sim-android`` / ``sim-ios``."""
    action_ms: float = 30.0
    """Simulated time each device-changing command takes before it acts."""
    quiet_ms: float = 50.0
    cap_ms: float = 300.0
    screenshot_scale: int = 1
    """1: full device resolution; 2: half each side."""
    without: tuple[str, ...] = ()
    """Capabilities this simulated agent does not offer (tests: a real iPhone's agent has no
    ``network``)."""
    device_recorder: bool = False
    """Offer a device-side screen recorder (unmasked, like ``screenrecord``) instead of the
    hub's screenshot recording (``bridge.devices.sim.recorder``)."""

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("the simulated agent needs a token")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")


@dataclass(slots=True)
class SimStatistics:
    links: int = 0
    links_total: int = 0
    refused_auth: int = 0
    refused_hello: int = 0
    commands: int = 0
    bad_commands: int = 0
    failed_replies: int = 0
    pushes: int = 0
    unstable_pushes: int = 0
    screenshots: int = 0


_READ_ONLY = (
    AgentPing,
    CaptureCommand,
    ScreenshotCommand,
    AgentHubHello,
    AppsCommand,
    OptionsCommand,
)
"""Commands that do not change the device: answered at once, without the action lock."""


@dataclass(slots=True, eq=False)
class _Link:
    ws: ServerConnection
    session: AgentSession
    debouncer: PushDebouncer
    send_lock: anyio.Lock = field(default_factory=anyio.Lock)
    tree_deltas: bool = False
    """The hub asked for tree deltas (``options``)."""
    last_sent: RawTree | None = None
    """The last tree sent on this link (a push, a delta's result or a capture reply)."""
    deltas: int = 0

    async def send(self, message: Any) -> None:
        data = encode(message)
        async with self.send_lock:
            await self.ws.send(data, text=True)
            if isinstance(message, Reply) and message.tree is not None:
                self.last_sent = message.tree

    async def send_tree(self, tree: RawTree, reason: str, stable: bool, quiet_ms: int) -> None:
        """Push ``tree``: as its delta from the last tree sent when the hub asked for deltas
        and one is smaller, else whole."""
        async with self.send_lock:
            message: TreePush | TreeDelta = TreePush(
                reason=reason, stable=stable, tree=tree, quiet_ms=quiet_ms
            )
            if self.tree_deltas and self.last_sent is not None:
                body = raw_delta(self.last_sent, tree)
                if body is not None:
                    message = body.message(reason, stable, quiet_ms)
                    self.deltas += 1
            await self.ws.send(encode(message), text=True)
            self.last_sent = tree


class SimDevice:
    """The simulated phone and its agent-link server. Serve it inside a task group::

    port = await tg.start(SimDevice(SimConfig(token="t")).serve)
    """

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self._t0 = config.clock()
        self.device = DemoDevice(
            config.platform, now=0.0, start=config.scene, animations=config.animations
        )
        self.registry = HandleRegistry()
        self.stats = SimStatistics()
        self.log = DeviceLog()
        """The device's own log (``logs`` command): a line per command it performs."""
        self._port: int | None = None
        self._links: set[_Link] = set()
        self._changed: anyio.Event | None = None
        self._act_lock: anyio.Lock | None = None
        self.webview = SimWebView()
        """The page behind the ``web`` screen's WebView; also the hub's ``WebSource``."""

    # ---- public -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the simulated device is not serving yet")
        return self._port

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    @property
    def device_id(self) -> str:
        return self.config.device_id or f"sim-{self.config.platform.value.lower()}"

    def now(self) -> float:
        """Simulated seconds since the device started."""
        return (self.config.clock() - self._t0) * self.config.time_scale

    def current_scene(self) -> Scene:
        """What the screen shows now (the live mirror paints it)."""
        return self.device.scene(self.now())

    def statistics(self) -> SimStatistics:
        self.stats.links = len(self._links)
        return self.stats

    async def stage_package(self, path: Path) -> str:
        """Where the agent finds a package to install: the simulated device runs on this
        machine and reads it where the hub keeps it (a phone's device layer copies it)."""
        return str(path)

    def wake(self) -> None:
        """Look at the screen again now (after a change the device cannot see, e.g. a manual
        clock moved forward)."""
        if self._changed is not None:
            self._changed.set()
            self._changed = anyio.Event()

    async def drop_connections(self, *, abrupt: bool = False) -> None:
        """Simulate agent loss: close every link (``abrupt``: drop TCP without a close frame)."""
        for link in list(self._links):
            if abrupt:
                link.ws.transport.abort()
            else:
                await link.ws.close(1012, "simulated agent restart")

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Serve until cancelled; reports the bound port through ``task_status``."""
        self._changed = anyio.Event()
        self._act_lock = anyio.Lock()
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
            self._port = int(server.sockets[0].getsockname()[1])
            task_status.started(self._port)
            async with anyio.create_task_group() as tg:
                await self._keep_webview(tg)
        finally:
            self.webview.close()
            server.close()
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await server.wait_closed()

    async def _keep_webview(self, tg: anyio.abc.TaskGroup) -> None:
        """Start the WebView's browser the first time a WebView is on screen (never
        before: a hub whose device never shows the web screen starts no browser)."""
        while True:
            assert self._changed is not None
            changed = self._changed
            found = _webview_box(self.device.scene(self.now()))
            # its width is the screen's (a sliding screen's views are clipped while it moves)
            box = None if found is None else (0, found[1], self.device.frame.width, found[3])
            if box is not None and not self.webview.ready and self.webview.status is None:
                self.device.web_status = "Starting the browser…"
                self.wake()
                await self.webview.ensure(box, tg)
                self.device.web_status = self.webview.status
                self.wake()
            elif box is not None and self.webview.ready and box != self.webview.box:
                await self.webview.resize(box)
            if box is not None and self.webview.ready:  # the screen's other WebViews
                for ident, other in _webviews(self.device.scene(self.now()))[1:]:
                    await self.webview.ensure_extra(ident, other, tg)
            await changed.wait()

    # ---- handshake ----------------------------------------------------------------------

    def _authorize(self, connection: ServerConnection, request: Request) -> Response | None:
        refusal = refuse_unless_bearer(connection, request, self.config.token, "mobridge-sim")
        if refusal is not None:
            self.stats.refused_auth += 1
        return refusal

    async def _hello(self, ws: ServerConnection) -> bool:
        refusal = await check_hub_hello(ws, self.config.token)
        if refusal is not None:
            self.stats.refused_hello += 1
            await ws.close(*refusal)
            return False
        frame = self.device.frame
        hello = AgentHello(
            protocol=AGENT_PROTOCOL,
            platform=self.config.platform,
            agent=AgentInfo(name=AGENT_NAME, version=__version__),
            device=DeviceInfo(
                id=self.device_id,
                model=AGENT_NAME,
                os_version=_OS_VERSIONS[self.config.platform],
                width=frame.width,
                height=frame.height,
            ),
            capabilities=tuple(c for c in CAPABILITIES if c not in self.config.without),
        )
        await ws.send(encode(hello), text=True)
        return True

    # ---- per link -----------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        try:
            if not await self._hello(ws):
                return
            link = _Link(
                ws=ws,
                session=AgentSession(self.device, self.registry),
                debouncer=PushDebouncer(self.config.quiet_ms / 1000, self.config.cap_ms / 1000),
            )
            self._links.add(link)
            self.stats.links_total += 1
            try:
                await self._push_initial(link)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._pusher, link)
                    await self._receive(link)
                    tg.cancel_scope.cancel()
            finally:
                self._links.discard(link)
        except ConnectionClosed:
            pass

    async def _push_initial(self, link: _Link) -> None:
        now = self.now()
        flat = link.session.observe(now)
        animating = self.device.animating(now)
        link.debouncer.pushed(encode(flat.tree(0)), animating, now)
        quiet = max(0.0, now - self.device.last_change_at(now))
        await self._push(link, flat, "initial", not animating, int(quiet * 1000))

    async def _push(self, link: _Link, flat: Any, reason: str, stable: bool, quiet_ms: int) -> None:
        tree = link.session.register(flat)
        self.stats.pushes += 1
        if not stable:
            self.stats.unstable_pushes += 1
        await link.send_tree(tree, reason, stable, quiet_ms)

    async def _pusher(self, link: _Link) -> None:
        """Push changed screens until the link closes."""
        try:
            await self._push_changes(link)
        except ConnectionClosed:
            return

    async def _push_changes(self, link: _Link) -> None:
        scale = self.config.time_scale
        while True:
            assert self._changed is not None
            changed = self._changed
            now = self.now()
            flat = link.session.observe(now)
            animating = self.device.animating(now)
            decision = link.debouncer.observe(now, encode(flat.tree(0)), animating)
            if decision is not None:
                await self._push(link, flat, "event", decision.stable, decision.quiet_ms)
            wakes = [t for t in (self.device.next_change_at(now), link.debouncer.wake_at()) if t]
            delay = MAX_IDLE_S
            if wakes:
                delay = min(delay, max(0.0, (min(wakes) - now) / scale) + 0.0005)
            with anyio.move_on_after(delay):
                await changed.wait()

    async def _receive(self, link: _Link) -> None:
        """Answer commands until the link closes (normally or not)."""
        try:
            await self._receive_frames(link)
        except ConnectionClosed:
            return

    async def _receive_frames(self, link: _Link) -> None:
        async for frame in link.ws:
            message = HUB_TO_AGENT.decode(frame)
            self.stats.commands += 1
            if isinstance(message, DecodeFailure):
                self.stats.bad_commands += 1
                if isinstance(message.request_id, int) and message.request_id >= 0:
                    await link.send(
                        Reply(
                            id=message.request_id,
                            ok=False,
                            code="BAD_COMMAND",
                            message=f"{message.code.value}: {message.message}",
                        )
                    )
                continue
            reply = await self._execute(link, message)
            if reply is not None:
                if not reply.ok:
                    self.stats.failed_replies += 1
                await link.send(reply)

    async def _execute(self, link: _Link, command: HubToAgent) -> Reply | None:
        if isinstance(command, OptionsCommand):
            link.tree_deltas = command.tree_delta
            return Reply(id=command.id, ok=True)
        if isinstance(command, ScreenshotCommand):
            return await self._screenshot(command)
        if isinstance(command, InstallCommand):
            installed = await self._install(link, command)
            self.log.performed(command, installed, self._front())
            return installed
        if (
            isinstance(command, _READ_ONLY)
            or (isinstance(command, ClipboardCommand) and command.set is None)
            or (isinstance(command, AlertCommand) and command.action == "list")
        ):
            return link.session.handle(command, self.now())
        assert self._act_lock is not None
        async with self._act_lock:
            await anyio.sleep(self.config.action_ms / 1000 / self.config.time_scale)
            reply = link.session.handle(command, self.now())
            touches = self.device.web_touches
            if touches:  # the WebView's share of the command: its page gets the touches
                self.device.web_touches = []
                await self.webview.deliver(touches)
            self.log.performed(command, reply, self._front())
            self.wake()
        return reply

    def _front(self) -> str:
        """The app in front, for log lines."""
        return DEMO_PACKAGE if self.device.foreground else LAUNCHER_PACKAGE

    async def _install(self, link: _Link, command: InstallCommand) -> Reply:
        package, problem = await anyio.to_thread.run_sync(_read_package, command.path)
        assert self._act_lock is not None
        async with self._act_lock:
            await anyio.sleep(self.config.action_ms / 1000 / self.config.time_scale)
            reply = link.session.install(command.id, package, problem, self.now())
            self.wake()
        return reply

    async def _screenshot(self, command: ScreenshotCommand) -> Reply:
        scene = self.device.scene(self.now())
        png = await anyio.to_thread.run_sync(render_scene, scene, self.config.screenshot_scale)
        for i, (ident, box) in enumerate(_webviews(scene)):
            page = await self.webview.picture(None if i == 0 else ident)
            if page is not None:
                png = await anyio.to_thread.run_sync(
                    compose, png, box, page, self.config.screenshot_scale
                )
        self.stats.screenshots += 1
        return Reply(id=command.id, ok=True, png_base64=base64.b64encode(png).decode("ascii"))


def _webviews(scene: Scene) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The WebViews on screen (the top window's first), by ident and bounds."""
    out: list[tuple[str, tuple[int, int, int, int]]] = []
    for window in reversed(scene.windows):
        out.extend(
            (view.ident or "webview", view.bounds)
            for view in window.root.walk()
            if view.kind is Kind.WEBVIEW
        )
    return out[:8]


def _webview_box(scene: Scene) -> tuple[int, int, int, int] | None:
    """The bounds of the WebView on screen (the top window's), if any."""
    for window in reversed(scene.windows):
        for view in window.root.walk():
            if view.kind is Kind.WEBVIEW:
                return view.bounds
    return None


def _read_package(path: str) -> tuple[bytes | None, str | None]:
    """The staged package's bytes, or why they cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PACKAGE_READ + 1)
    except OSError as exc:
        return None, f"cannot read the package: {exc.strerror or exc}"
    if len(data) > MAX_PACKAGE_READ:
        return None, "not a simulated package: too large"
    return data, None
