"""The composition root: ``Hub`` wires the subscriber server, the agent links and the
built-in simulated device under one task group.

Every task has an owner: ``Hub.run`` starts the server (readiness via ``tg.start``), the
simulated device if enabled, and one ``_keep_linked`` loop per agent URL that reconnects with
exponential back-off (0.2 s doubling to 5 s) and marks the device offline while it is down.
"""

from __future__ import annotations

import functools
import secrets as random_ids
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.lowlevel

from bridge.devices.web.source import WebSource
from bridge.hub.alert_autoanswer import AutoAnswer
from bridge.hub.device import DeviceRuntime
from bridge.hub.device_layer import DeviceLayer
from bridge.hub.intents import Intents
from bridge.hub.logs import get_logger
from bridge.hub.malloc_tuning import return_large_buffers
from bridge.hub.media_sources import DeviceMedia
from bridge.hub.memory_bounds import share_history
from bridge.hub.packages import Stager
from bridge.hub.pixel_secrets import motion_begun
from bridge.hub.secrets_provider import SecretsProvider
from bridge.hub.service import HubService
from bridge.hub.settled import SettledFeed
from bridge.net.agent_link import AgentLink, AgentLost, AgentRefused, Changed
from bridge.net.auth import Authenticator, Principal
from bridge.net.client_server import ClientServer
from bridge.wire.agent_link import AgentStatus, TreePush
from bridge.wire.enums import Platform

if TYPE_CHECKING:
    from bridge.devices.android import AndroidConfig
    from bridge.devices.ios import IosConfig
    from bridge.farm.config import FarmConfig
    from bridge.hub.farm import Farm
    from bridge.journal.recorder import Journal


@dataclass
class AgentTarget:
    url: str
    token: str | None
    open_socket: Callable[[], Awaitable[socket.socket]] | None = None
    """Supplies the connected stream instead of dialling the URL (iPhones through usbmux)."""
    stage_package: Stager | None = None
    """Copies an app package onto the device for ``app.install`` (None: the hub cannot)."""
    media: DeviceMedia | None = None
    """The device layer's logs, recorder and crash reports (None: screenshots only)."""
    device_layer: DeviceLayer | None = None
    """Commands the driver answers beside the agent (``bridge.hub.device_layer``)."""
    web: WebSource | None = None
    """The device's WebView pages to merge (``bridge.hub.web``; None: none offered)."""


@dataclass
class HubConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    tokens: dict[str, Principal] = field(default_factory=dict)
    allow_anonymous: bool = False
    sim: bool = True
    sim_scene: str = "menu"
    sim_platform: Platform = Platform.ANDROID
    sim_device_id: str | None = None
    """The simulated device's id (default ``sim-android`` / ``sim-ios``); hubs of one farm
    each need their own."""
    sim_options: dict[str, Any] = field(default_factory=dict)
    """Extra ``SimConfig`` fields (tests: ``action_ms``, ``time_scale``, ``animations``)."""
    sim_count: int = 1
    """Simulated devices to run (with ``sim``): the first is ``sim-<platform>``, the others
    ``sim-<platform>-2``, ``-3``, ... (a test suite spread over several devices)."""
    sim_platforms: tuple[Platform, ...] = ()
    """The platform of each simulated device in turn (cycled; ``(ANDROID, IOS)`` with
    ``sim_count=2``: ``sim-android`` and ``sim-ios``); empty: ``sim_platform`` for all."""
    agents: list[AgentTarget] = field(default_factory=list)
    takeover_after_ms: int = 5 * 60 * 1000
    lease_priorities: dict[str, int] | None = None
    """Lease priority by declared client kind (None: ``bridge.hub.intents``' defaults)."""
    veto_window_ms: int = 0
    """How long announced mutating actions wait for a person's veto (0: not at all)."""
    secrets_file: Path | None = None
    name: str = "mobridge"
    """What clients see as this hub's name (``hello``'s ``hub``); empty: ``port-<port>``, once
    the port is bound (``mobridge serve`` without ``--name``)."""
    android: AndroidConfig | None = None
    ios: IosConfig | None = None
    """Real iPhones over usbmux, or a Simulator's runner on loopback; None: none."""
    """Real Android phones over adb (agent or agentless mode); None: none."""
    client_limits: dict[str, Any] = field(default_factory=dict)
    """Overrides of ``ClientServer``'s per-connection bounds (``outbound_soft_limit``,
    ``slow_client_grace_s``, ``auth_deadline_s``, ``max_per_peer``, ...); tests and
    ``scripts/soak`` shorten them."""
    agent_tree_deltas: bool = True
    """Ask agents that can for tree deltas (``tree_delta``); off: every tree comes whole."""
    install_dir: Path | None = None
    """Packages ``app.install`` may install, by file name (None: installing is disabled)."""
    dashboard: bytes | None = None
    """The dashboard page to serve at ``/dashboard`` (the CLI passes ``bridge.dashboard.page()``;
    the hub cannot import the layer above it)."""
    farm: FarmConfig | None = None
    """Join a farm of hubs over NATS (``docs/farm.md``); None: this hub alone."""
    journal: Path | None = None
    """The journal database (device history, restart-safe idempotency); None: no journal.
    ``mobridge serve`` turns it on by default (``bridge.journal.recorder.default_path``, one
    file per hub identity). Another live hub holding it makes ``Hub(...)`` raise
    ``bridge.journal.lock.JournalBusy``."""
    journal_at_port: Callable[[int], Path] | None = None
    """With ``journal`` None: the journal's path once the port is bound (``--port 0``: the
    default journal is keyed by the port the hub got). ``Hub.run`` raises ``JournalBusy``."""
    journal_max_age_s: float = 7 * 24 * 3600
    journal_max_bytes: int = 1 << 30
    device_tags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The operator's tags per device id (``devices.acquire`` selects on them)."""
    vision: bool = False
    """Read text where the accessibility tree is blind (``bridge.hub.vision``; the ``vision``
    extra). Off: a client asking for vision turns it on, when the extra is installed."""


THREAD_INGEST_NODES = 400
"""Captures with at least this many raw nodes are prepared in a worker thread..."""
INLINE_CHANGES = 64
"""...unless the agent's delta changed at most this many nodes of a capture of the same shape
and normalization will reuse the rest: that costs less than the hop to a thread."""


class _Mailbox:
    """The newest tree push of one link: a push that arrives before the previous one was
    ingested replaces it (ingest coalesces under a flood; the newest screen always wins).
    What changed since the last push taken is the union of what each replaced push changed
    (unknown as soon as one of them does not say)."""

    def __init__(self) -> None:
        self._push: TreePush | None = None
        self._changed: Changed = None
        self._event = anyio.Event()

    def put(self, push: TreePush, changed: Changed = None) -> None:
        if self._push is not None:
            if changed is not None and self._changed is not None:
                changed = tuple(sorted({*self._changed, *changed}))
            else:
                changed = None
        self._push, self._changed = push, changed
        self._event.set()

    def waiting(self) -> bool:
        """A push is here, not yet taken."""
        return self._push is not None

    def offer(self, push: TreePush) -> None:
        """``push`` again, unless a newer one already waits (vision's overlay changed)."""
        if self._push is None:
            self.put(push)

    async def take(self) -> tuple[TreePush, Changed]:
        while self._push is None:
            await self._event.wait()
            self._event = anyio.Event()
        push, changed = self._push, self._changed
        self._push = self._changed = None
        return push, changed


def monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class Hub:
    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self.log = get_logger(component="hub")
        self.run_prefix = random_ids.token_hex(2)
        self.generation_base = time.time_ns() // 1000
        """Generations of this run start here (wall-clock microseconds at start), so a
        generation from before a restart is never one of this run's."""
        self._owners: dict[str, str] = {}
        self._sim_urls: set[str] = set()
        """Agent URLs of the built-in simulated devices (they yield a shared id to an agent)."""
        self._auto_answers: dict[str, AutoAnswer] = {}
        """Device id -> URL of the agent link that serves it."""
        self.service = HubService(
            name=config.name,
            clock_ms=monotonic_ms,
            secrets=SecretsProvider(config.secrets_file),
            log=self.log,
            public_http=self._public_http,
        )
        self.service.intents = Intents(config.lease_priorities, config.veto_window_ms)
        if config.vision and (problem := self.service.enable_vision()) is not None:
            raise ValueError(problem)
        self.server = ClientServer(
            self.service,
            Authenticator(config.tokens, config.allow_anonymous),
            host=config.host,
            port=config.port,
            log=lambda event, **kw: self.log.warning(event, **kw),
            pages={"/dashboard": config.dashboard} if config.dashboard else None,
            capture_view=self.service.capture_view,
            sockets={"/v1/mirror": self.service.mirrors.serve},
            **config.client_limits,
        )
        self.service.connections = lambda: self.server.sessions
        self.service.install_dir = config.install_dir
        self.journal: Journal | None = None
        if config.journal is not None:
            from bridge.journal.recorder import Journal

            self.journal = Journal.open(
                config.journal,
                self._journal_log,
                max_age_s=config.journal_max_age_s,
                max_bytes=config.journal_max_bytes,
                holder={"hub": config.name},
            )
            self.service.journal = self.journal
            self.service.picture_feed.keep_all = self.journal.on
        self.port: int | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self.sim: Any = None
        """The built-in simulated device when enabled (tests reach it to drop links)."""
        self.sims: list[Any] = []
        """Every simulated device (``sim`` first)."""
        self._links: dict[str, anyio.CancelScope] = {}
        self.farm: Farm | None = None
        self.service.device_tags = dict(config.device_tags)
        if config.farm is not None:
            from bridge.hub.farm import Farm

            self.farm = Farm(
                config.farm,
                self.service,
                log=self.log,
                clock_ms=monotonic_ms,
                auth=self.server.auth,
            )
            self.service.remote = self.farm.remote
            self.service.owner_name = config.farm.hub
            self.service.farm_report = self.farm.report
            self.service.farm_link = self.farm.link_status

    def _open_journal_at_port(self, port: int) -> None:
        """The journal keyed by the bound port (``journal_at_port``), before any device
        attaches; then tell the lock file this hub's URL either way."""
        if not self.config.name:
            self.service.name = f"port-{port}"
        holder: dict[str, object] = {
            "hub": self.service.name,
            "url": f"ws://{self.config.host}:{port}/v1",
        }
        if self.journal is None and self.config.journal_at_port is not None:
            from bridge.journal.recorder import Journal

            self.journal = Journal.open(
                self.config.journal_at_port(port),
                self._journal_log,
                max_age_s=self.config.journal_max_age_s,
                max_bytes=self.config.journal_max_bytes,
                holder=holder,
            )
            self.service.journal = self.journal
        elif self.journal is not None:
            self.journal.describe(holder)

    def _journal_log(self, event: str, **fields: Any) -> None:
        (self.log.warning if event == "journal_off" else self.log.info)(event, **fields)

    def _public_http(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def statistics(self) -> dict[str, Any]:
        return self.service.statistics()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        return_large_buffers()
        try:
            await self._run(task_status)
        finally:
            if self.journal is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self.journal.close)

    async def _run(self, task_status: anyio.abc.TaskStatus[int]) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            self.service.screenshots.spawn = tg.start_soon
            self.service.mirrors.spawn = tg.start_soon
            self.service.mirrors.log = self.log
            self.service.picture_feed.log = self.log
            self.service.loop_lag.log = self.log
            tg.start_soon(self.service.loop_lag.run)
            self.port = await tg.start(self.server.serve)
            self._open_journal_at_port(self.port)
            targets = list(self.config.agents)
            if self.config.sim:
                from bridge.devices.sim import SimConfig, SimDevice
                from bridge.devices.sim.media import SimMedia

                sim_token = random_ids.token_urlsafe(24)
                sim = SimDevice(
                    SimConfig(
                        platform=(self.config.sim_platforms or (self.config.sim_platform,))[0],
                        scene=self.config.sim_scene,
                        token=sim_token,
                        port=0,
                        device_id=self.config.sim_device_id,
                        **self.config.sim_options,
                    )
                )
                self.sim = sim
                sim_port = await tg.start(sim.serve)
                self._sim_urls.add(f"ws://127.0.0.1:{sim_port}")
                targets.insert(
                    0,
                    AgentTarget(
                        f"ws://127.0.0.1:{sim_port}",
                        sim_token,
                        stage_package=sim.stage_package,
                        media=SimMedia(
                            sim.log,
                            scene=sim.current_scene,
                            recorder=sim.config.device_recorder,
                        ),
                        web=sim.webview,
                    ),
                )
                self.sims.append(sim)
                platforms = self.config.sim_platforms or (self.config.sim_platform,)
                counts = {platforms[0]: 1}
                for n in range(2, self.config.sim_count + 1):
                    platform = platforms[(n - 1) % len(platforms)]
                    counts[platform] = counts.get(platform, 0) + 1
                    base = (
                        sim.device_id
                        if platform is platforms[0]
                        else f"sim-{platform.value.lower()}"
                    )
                    extra_id = base if counts[platform] == 1 else f"{base}-{counts[platform]}"
                    extra_token = random_ids.token_urlsafe(24)
                    extra = SimDevice(
                        SimConfig(
                            platform=platform,
                            scene=self.config.sim_scene,
                            token=extra_token,
                            port=0,
                            device_id=extra_id,
                            **self.config.sim_options,
                        )
                    )
                    self.sims.append(extra)
                    extra_port = await tg.start(extra.serve)
                    self._sim_urls.add(f"ws://127.0.0.1:{extra_port}")
                    targets.insert(
                        n - 1,
                        AgentTarget(
                            f"ws://127.0.0.1:{extra_port}",
                            extra_token,
                            stage_package=extra.stage_package,
                            media=SimMedia(
                                extra.log,
                                scene=extra.current_scene,
                                recorder=extra.config.device_recorder,
                            ),
                            web=extra.webview,
                        ),
                    )
            if self.config.android is not None:
                from bridge.devices.android import run_android

                tg.start_soon(
                    self._guarded,
                    "android_driver",
                    run_android,
                    self.config.android,
                    lambda url, token, stage, media=None, web=None: self.attach(
                        AgentTarget(url, token, stage_package=stage, media=media, web=web)
                    ),
                    self.detach,
                )
            if self.config.ios is not None:
                from bridge.devices.ios import run_ios

                tg.start_soon(
                    self._guarded,
                    "ios_driver",
                    run_ios,
                    self.config.ios,
                    lambda url, token, opener, media=None, web=None: self.attach(
                        AgentTarget(
                            url,
                            token,
                            opener,
                            device_layer=self._ios_layer(url),
                            media=media,
                            web=web,
                        )
                    ),
                    self.detach,
                )
            ready = [self.attach(target) for target in targets]
            with anyio.move_on_after(10):
                for event in ready:
                    await event.wait()
            if self.farm is not None:
                tg.start_soon(self._guarded, "farm", self.farm.run)
            self.log.info("hub_ready", port=self.port, devices=list(self.service.devices))
            task_status.started(self.port)

    def _ios_layer(self, url: str) -> DeviceLayer | None:
        """The iOS driver's device layer for the runner at ``url`` (it registers it first)."""
        ios = self.config.ios
        layer: DeviceLayer | None = ios.layers.get(url) if ios is not None else None
        return layer

    async def _guarded(self, name: str, run: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run one long-lived hub task; an exception is logged once and ends that task only,
        never the hub (the other devices and every client keep being served)."""
        try:
            await run(*args)
        except Exception as exc:
            self.log.error("hub_task_crashed", task=name, error=repr(exc)[:300])

    def attach(self, target: AgentTarget) -> anyio.Event:
        """Link an agent by URL (a device driver calls this when a device appears). Returns an
        event set once the first attempt finished (linked with a tree, or failed). The link
        is kept (reconnecting with back-off) until ``detach``."""
        if self._tg is None:
            raise RuntimeError("the hub is not running")
        self.detach(target.url)
        scope = anyio.CancelScope()
        self._links[target.url] = scope
        first = anyio.Event()

        async def keep() -> None:
            with scope:
                await self._keep_linked(target, first)
            first.set()

        self._tg.start_soon(keep)
        return first

    def detach(self, url: str) -> None:
        """Stop linking ``url``; its device goes offline (subscribers see a device event)."""
        scope = self._links.pop(url, None)
        if scope is not None:
            scope.cancel()

    async def _keep_linked(self, target: AgentTarget, first_attempt: anyio.Event) -> None:
        backoff = 0.2
        while True:
            try:
                await self._link_once(target, first_attempt)
                backoff = 0.2
            except Exception as exc:  # one agent's fault never ends the hub
                lost = agent_lost_in(exc)
                if isinstance(lost, AgentRefused):
                    self.log.error("agent_refused", url=target.url, error=str(lost))
                    backoff = 5.0
                elif lost is not None:  # a normal disconnect: no stack, not an error
                    self.log.info("agent_lost", url=target.url, error=str(lost))
                else:
                    self.log.error("agent_task_crashed", url=target.url, error=repr(exc)[:300])
                    backoff = 5.0
            finally:
                first_attempt.set()
            await anyio.sleep(backoff)
            backoff = min(5.0, backoff * 2)

    async def _link_once(self, target: AgentTarget, first_attempt: anyio.Event) -> None:
        """One connection to an agent, from hello until it drops (raises AgentLost)."""
        holder: dict[str, DeviceRuntime] = {}
        mailbox = _Mailbox()

        def received(push: TreePush) -> None:
            dev = holder.get("device")
            if dev is not None:
                dev.received_capture = push.tree.capture  # a secret's hold ends after it
                if "frames" in dev.faults:  # a frame that decoded: the link is sound again
                    dev.set_fault("frames", None)

        async def on_tree(push: TreePush) -> None:
            received(push)
            mailbox.put(push)

        async def on_update(push: TreePush, changed: Changed) -> None:
            received(push)
            mailbox.put(push, changed)

        async def on_status(status: AgentStatus) -> None:
            dev = holder.get("device")
            if dev is not None:
                self.log.warning("agent_status", device=dev.id, state=status.state)
                said = f"agent reports {status.state}: {status.reason or 'no reason given'}"
                if status.state == "ready":
                    dev.set_fault("agent", None)
                    if dev.current is not None:
                        dev.set_online(True, None)
                elif status.state == "degraded":
                    dev.set_fault("agent", said)
                else:
                    dev.set_online(False, said)

        def on_bad_frame(reason: str) -> None:
            dev = holder.get("device")
            if dev is not None:
                dev.set_fault("frames", reason)

        link = AgentLink(
            target.url,
            target.token,
            on_tree=on_tree,
            on_status=on_status,
            on_bad_frame=on_bad_frame,
            on_update=on_update,
            tree_deltas=self.config.agent_tree_deltas,
            open_socket=target.open_socket,
        )
        device: DeviceRuntime | None = None
        try:
            hello = await link.connect()
            device = self._claim_device(hello.device.id, hello.platform, target.url)
            device.model = hello.device.model
            device.agent_name = f"{hello.agent.name} {hello.agent.version}"
            device.agent_version = hello.agent.version
            device.os_version = hello.device.os_version
            layer = target.device_layer
            extra = tuple(
                c for c in (layer.capabilities if layer else ()) if c not in hello.capabilities
            )
            device.capabilities = (*hello.capabilities, *extra)
            device.layer = layer
            device.link = link
            link.on_command = functools.partial(motion_begun, device)
            if target.stage_package is not None:
                self.service.stagers[device.id] = target.stage_package
            else:
                self.service.stagers.pop(device.id, None)
            if target.media is not None:
                self.service.media[device.id] = target.media
            else:
                self.service.media.pop(device.id, None)
            holder["device"] = device
            device.received_capture = 0
            device.current = None  # the first tree after (re)connecting resyncs everyone
            self.log.info("agent_linked", device=device.id, url=target.url)

            async def ingest_loop(dev: DeviceRuntime) -> None:
                while True:
                    push, changed = await mailbox.take()
                    started = time.monotonic()
                    try:
                        if changed is None:  # a whole tree: what differs from the last one
                            changed = dev.changed_since_last(push.tree)
                        if len(push.tree.nodes) >= THREAD_INGEST_NODES and not (
                            changed is not None
                            and len(changed) <= INLINE_CHANGES
                            and dev.engine.reuses(push.tree, changed)
                        ):
                            # Big trees normalize in a worker thread: the event loop keeps
                            # answering everyone else between the GIL's switch intervals.
                            prepared = await anyio.to_thread.run_sync(dev.prepare, push, changed)
                        else:
                            prepared = dev.prepare(push, changed)
                        dev.commit(push, prepared)
                    except Exception as exc:  # a tree that breaks ingest degrades, never kills
                        dev.set_fault(
                            "tree", f"the hub failed to ingest a tree ({type(exc).__name__})"
                        )
                        self.log.error("ingest_crashed", device=dev.id, error=repr(exc)[:300])
                        continue
                    feed = self.service.feeds.get(dev.id)
                    if feed is not None:
                        feed.poke()
                    if dev.id in self.service.alert_policies:  # a lease option (alerts)
                        self._auto_answer(dev).poke()
                    if not dev.online and dev.current is not None:
                        dev.set_online(True, None)
                        first_attempt.set()
                    # Ingest is CPU work on the event loop: after an expensive one, leave as
                    # much time to everyone else before the next (coalesced) tree.
                    spent = time.monotonic() - started
                    if spent > 0.02:
                        await anyio.sleep(min(0.2, spent))
                    elif mailbox.waiting():
                        await anyio.lowlevel.checkpoint()  # a push waits: others go first
                    # else ``take`` waits, which lets everyone else run

            def reingest(dev: DeviceRuntime = device) -> None:
                if dev.last_push is not None:
                    mailbox.offer(dev.last_push)

            async with anyio.create_task_group() as tg:
                tg.start_soon(ingest_loop, device)
                tg.start_soon(self.service.vision_watch, device, reingest)
                tg.start_soon(self.service.web_watch, device, reingest, target.web)
                try:
                    await link.run()
                finally:
                    tg.cancel_scope.cancel()
        finally:
            await link.close()
            if device is not None and device.link is link:
                device.link = None
                device.stats.reconnects += 1
                device.set_online(False, "agent link lost; reconnecting")
                self._owners.pop(device.id, None)

    def _auto_answer(self, device: DeviceRuntime) -> AutoAnswer:
        """The device's alert auto-answer, started the first time a lease asks for it."""
        auto = self._auto_answers.get(device.id)
        if auto is None:
            auto = AutoAnswer(device, self.service.alert_policies, self.log)
            self._auto_answers[device.id] = auto
            if self._tg is not None:
                self._tg.start_soon(self._guarded, f"auto_alerts {device.id}", auto.run)
        return auto

    def _claim_device(self, device_id: str, platform: Platform, url: str) -> DeviceRuntime:
        """The runtime for ``device_id``, owned by the agent at ``url``. A second agent
        announcing an id that a live link already serves is refused (never a silent takeover),
        except that a built-in simulated device always yields to a real agent with its id."""
        owner = self._owners.get(device_id)
        existing = self.service.devices.get(device_id)
        live = existing is not None and existing.link is not None
        if owner is not None and owner != url and live:
            # The built-in simulated device yields its id to any real agent announcing it,
            # whichever connected first, and is not linked again: no race between the two.
            if owner in self._sim_urls and url not in self._sim_urls:
                self.log.warning("sim_yields", device=device_id, agent=url, sim=owner)
                self.detach(owner)
                self._owners[device_id] = url
                return self._device_for(device_id, platform)
            if url in self._sim_urls:
                self.log.warning("sim_yields", device=device_id, agent=owner, sim=url)
                self.detach(url)
        if owner is not None and owner != url and live:
            self.log.error("device_id_conflict", device=device_id, url=url, owner=owner)
            raise AgentRefused(
                f"device id {device_id!r} is already served by the agent at {owner}; "
                "refusing a second agent with the same id"
            )
        self._owners[device_id] = url
        return self._device_for(device_id, platform)

    def _device_for(self, device_id: str, platform: Platform) -> DeviceRuntime:
        device = self.service.devices.get(device_id)
        if device is None:
            device = DeviceRuntime(
                device_id,
                platform,
                run_prefix=self.run_prefix,
                clock_ms=monotonic_ms,
                takeover_after_ms=self.config.takeover_after_ms,
                generation_base=self.generation_base,
                masker=self.service.masker,
            )
            self.service.devices[device_id] = device
            if self.journal is not None and self.journal.on:
                device.journal = self.journal
            share_history(self.service.devices.values())
            if self.farm is not None:
                device.on_event = self.farm.owner.on_device_event
            feed = SettledFeed(device)
            feed.on_settled = self.service.picture_feed.settled
            self.service.feeds[device_id] = feed
            if self._tg is not None:
                self._tg.start_soon(self._guarded, f"settled_feed {device_id}", feed.run)
                self._tg.start_soon(
                    self._guarded, f"pictures {device_id}", self.service.picture_feed.run, device
                )
        return device


def agent_lost_in(exc: BaseException) -> AgentLost | None:
    """The ``AgentLost`` that ended a link, also when a task group wrapped it (alone, or
    with nothing but other ``AgentLost``); None for any other fault."""
    if isinstance(exc, AgentLost):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        leaves = [agent_lost_in(e) for e in exc.exceptions]
        if leaves and all(leaf is not None for leaf in leaves):
            return leaves[0]
    return None
