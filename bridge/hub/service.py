"""HubService: answers every client request; the single place refusals become messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from bridge.core.conditions import (
    ConditionOutcome,
    ConditionRejected,
    ConditionView,
    evaluate,
    validate_condition,
)
from bridge.core.idempotency import IdempotencyTable
from bridge.core.leases import Blocked
from bridge.core.noderef import GenerationCheck, Resolved, build_ref, resolution_error, resolve_ref
from bridge.core.objections import ObjectionBook
from bridge.core.pixel_mask import MaskPlan
from bridge.core.query import QueryRejected, run_query
from bridge.core.secret_mask import SecretMasker
from bridge.devices.web.source import WebSource
from bridge.hub import collector
from bridge.hub.actions import run_act, run_global_or_app
from bridge.hub.alert_autoanswer import AlertPolicy
from bridge.hub.allocation import Allocator
from bridge.hub.app_install import UploadStore
from bridge.hub.capability_actions import read_capability, run_capability_action
from bridge.hub.capture_store import CaptureStore
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.device_actions import run_device_action
from bridge.hub.device_reads import apps, display
from bridge.hub.errors import BadRequest, Refusal, offline, refusal
from bridge.hub.fresh_capture import fresh_capture
from bridge.hub.handler_context import Pending
from bridge.hub.intents import Intents
from bridge.hub.journal_service import answer as answer_journal
from bridge.hub.log_stream import LogStreams
from bridge.hub.loop_lag import LoopLag
from bridge.hub.media_handlers import answer_media
from bridge.hub.media_sources import DeviceMedia
from bridge.hub.memory_bounds import capture_memory, keep_screenshot
from bridge.hub.mirror import Mirrors
from bridge.hub.network_actions import read_network, run_network_action
from bridge.hub.packages import Stager
from bridge.hub.picture_feed import PictureFeed
from bridge.hub.picture_views import PictureViews, ViewFormat
from bridge.hub.pixel_secrets import hold_over, mask_picture, mask_plan
from bridge.hub.recording import Recordings
from bridge.hub.request_roles import refused_for
from bridge.hub.resources import BOUNDS, HISTORY_QUERIES, SUBSCRIPTIONS, hold, new_ledger, take
from bridge.hub.screenshot_cache import ScreenshotCache, Shot
from bridge.hub.secrets_provider import SecretsProvider
from bridge.hub.settled import SettledFeed
from bridge.hub.vision import VisionService
from bridge.hub.web import WebService
from bridge.net.agent_link import AgentLost, decode_reply_png
from bridge.net.client_server import Session
from bridge.wire.acquire import DevicesAcquire
from bridge.wire.agent_link import ScreenshotCommand
from bridge.wire.client_protocol import (
    PROTOCOL_VERSION,
    Act,
    App,
    Cancel,
    ClientToHub,
    DevicesList,
    DevicesListResult,
    DeviceSummary,
    ErrorMessage,
    FarmLinkStatus,
    Find,
    FindMatch,
    FindResult,
    Global,
    Hello,
    HelloResult,
    History,
    HistoryEntry,
    HistoryResult,
    LeaseAcquire,
    LeaseEvent,
    LeaseInfo,
    LeaseMode,
    LeaseRelease,
    LeaseResult,
    Ping,
    PongResult,
    ProtocolError,
    Resolve,
    ResolveResult,
    ResultMessage,
    Screenshot,
    ScreenshotResult,
    SnapshotGet,
    SnapshotResult,
    Subscribe,
    SubscribeResult,
    Unsubscribe,
    UnsubscribeResult,
    Veto,
    Wait,
    WaitResult,
)
from bridge.wire.conditions import AllOf, AnyOf, Condition, Not, ScreenShown, Stable
from bridge.wire.device_capabilities import (
    AlertChoice,
    AlertList,
    AlertRespond,
    ClipboardGet,
    ClipboardSet,
    KeyboardHide,
    LocationSet,
    PermissionSet,
    Pinch,
    TwoFingerTap,
)
from bridge.wire.device_control import (
    AppClear,
    AppInstall,
    AppsList,
    AppTerminate,
    AppUninstall,
    DisplayGet,
    Gesture,
    KeyPress,
    OrientationSet,
    TypeText,
)
from bridge.wire.device_media import (
    AppUpload,
    CrashesList,
    LogsSubscribe,
    LogsUnsubscribe,
    RecordRead,
    RecordStart,
    RecordStop,
)
from bridge.wire.device_network import NetworkGet, NetworkSet
from bridge.wire.enums import ErrorCode, ProtocolErrorCode, Source, VerificationResult
from bridge.wire.journal import JournalAt, JournalDiff, JournalTimeline, JournalWhen

if TYPE_CHECKING:
    from bridge.journal.recorder import Journal

SCREEN_WAIT_DEFAULT_MS = 10_000
WAIT_DEFAULT_MS = 5_000


class RemoteService(Protocol):
    """Devices other hubs of a farm own (``bridge.hub.farm_remote.RemoteDevices``): the
    service hands it every request it ``claims`` and merges its summaries and resyncs."""

    def claims(self, session: Session, request: ClientToHub) -> bool: ...
    async def handle(self, session: Session, request: ClientToHub) -> None: ...
    def summaries(self) -> Sequence[DeviceSummary]: ...
    def resync(self, session: Session, stream_id: str) -> Any | None: ...
    async def session_closed(self, session: Session) -> None: ...


class HubService:
    def __init__(
        self,
        *,
        name: str,
        clock_ms: Callable[[], int],
        secrets: SecretsProvider,
        log: Any,
        public_http: Callable[[], str],
    ) -> None:
        self.name = name
        self.clock_ms = clock_ms
        self.secrets = secrets
        self.log = log
        self.public_http = public_http
        self.devices: dict[str, DeviceRuntime] = {}
        self.feeds: dict[str, SettledFeed] = {}
        self.alert_policies: dict[str, AlertPolicy] = {}
        """Device id -> the auto-answer a lease holder asked for (``alert_autoanswer``)."""
        """The settled-stream feed of each device (the composition root creates and runs it)."""
        self.objections = ObjectionBook()
        self.idempotency: IdempotencyTable[Pending] = IdempotencyTable()
        self.captures = CaptureStore()
        """Screenshots kept for clients to fetch, bounded in bytes per device and hub."""
        self.screenshots = ScreenshotCache(
            self.take_screenshot, lambda capture: self.captures.get(capture) is not None
        )
        """One device screenshot per screen generation (``bridge.hub.screenshot_cache``)."""
        self.picture_views = PictureViews()
        """Viewer-sized images of captures, derived once (``bridge.hub.picture_views``)."""
        self.picture_feed = PictureFeed(self.screenshots, self.capture_url)
        """``picture`` events of settled streams (``bridge.hub.picture_feed``)."""
        self.sessions: dict[str, Session] = {}
        """Sessions that said hello (the server's table has every connection)."""
        self.connections: Callable[[], dict[str, Session]] = lambda: self.sessions
        """Every open connection, authenticated or not (the composition root wires it)."""
        self.masker = SecretMasker()
        """Secrets the hub typed, masked in every device's captures (one table for all)."""
        self.loop_lag = LoopLag()
        """How late the event loop runs (``/v1/stats`` ``event_loop``; the composition root
        runs it)."""
        self.cancels: dict[tuple[str, object], anyio.CancelScope] = {}
        self.install_dir: Path | None = None
        """Where ``app.install`` packages are taken from (None: installing is disabled)."""
        self.stagers: dict[str, Stager] = {}
        self.resources = new_ledger()
        """Every client-started resource, bounded per session and per hub (``resources``)."""
        self.uploads = UploadStore(ledger=self.resources)
        """Packages clients streamed for ``app.install`` (``bridge.hub.app_install``)."""
        self.log_streams = LogStreams(self.masker, self.resources)
        self.recordings = Recordings(self.resources)
        self.media: dict[str, DeviceMedia] = {}
        """Device id -> its device layer's logs, recorder and crash reports (set at linking)."""
        """Device id -> how its device layer copies a package onto it (set at linking)."""
        self.mirrors = Mirrors(self.devices, self.media)
        """The live mirror of each device (``bridge.hub.mirror``, socket ``/v1/mirror``)."""
        self.remote: RemoteService | None = None
        """In a farm: the devices of other hubs (the composition root wires it)."""
        self.intents = Intents()
        """Lease priorities, intent announcements and vetoes (``bridge.hub.intents``)."""
        self.owner_name: str | None = None
        """In a farm: this hub's name, the ``owner`` of its devices in ``devices.list``."""
        self.journal: Journal | None = None
        """The device history on disk (the composition root opens it; None: --no-journal)."""
        self.device_tags: dict[str, tuple[str, ...]] = {}
        """The operator's tags per device id (``serve --device-tag``), for selectors."""
        self.allocator = Allocator(
            clock_ms=clock_ms, local=self.local_summaries, lease_local=self._lease_if_free
        )
        """``devices.acquire``: the FIFO queue for any free matching device."""
        self.farm_link: Callable[[], FarmLinkStatus] | None = None
        """In a farm: the link's state for ``devices.list`` and ``/healthz``."""
        self.vision: VisionService | None = None
        """OCR where the tree is blind, once enabled (``serve --vision`` or a client's ask)."""
        self._vision_on: anyio.Event | None = None
        self.web = WebService(log)
        """Devices' WebView pages, merged into their snapshots (``bridge.hub.web``)."""
        self.farm_report: Callable[[bool], dict[str, Any]] | None = None
        """In a farm: the farm's state, short for ``/healthz`` (False), detailed for
        ``statistics`` (True)."""

    # ---- vision ------------------------------------------------------------------------------

    def enable_vision(self) -> str | None:
        """Turn vision on for every device (None), or the one line saying how to enable it
        when the ``vision`` extra is missing. Idempotent."""
        if self.vision is None:
            got = VisionService.load(self.log)
            if isinstance(got, str):
                return got
            self.vision = got
            got.ledger = self.resources
            self.log.info("vision_enabled", engine=got.reader.engine.name)
        if self._vision_on is not None:
            self._vision_on.set()
        return None

    async def web_watch(
        self, device: DeviceRuntime, reingest: Callable[[], None], source: WebSource | None
    ) -> None:
        """Per device, beside its ingest: merge its WebView's page (nothing without a
        source: a device whose driver offers no page debugging)."""
        if source is not None:
            await self.web.watch(device, reingest, source)

    async def vision_watch(self, device: DeviceRuntime, reingest: Callable[[], None]) -> None:
        """Per device, beside its ingest: idle until vision is enabled, then keep its blind
        regions read (``VisionService.watch``)."""
        if self.vision is None:
            if self._vision_on is None:
                self._vision_on = anyio.Event()
            await self._vision_on.wait()
        assert self.vision is not None
        await self.vision.watch(device, reingest)

    # ---- RequestHandler ---------------------------------------------------------------------

    async def handle(self, session: Session, request: ClientToHub) -> None:
        refused = refused_for(session.role, type(request).__struct_config__.tag)  # type: ignore[arg-type]
        if refused is not None:  # the token's role, checked before anything (request_roles)
            session.respond(
                ProtocolError(code=ProtocolErrorCode.FORBIDDEN, message=refused, id=request.id)
            )
            return
        if self.remote is not None and self.remote.claims(session, request):
            await self.remote.handle(session, request)
            return
        try:
            result = await self._dispatch(session, request)
        except Refusal as exc:
            session.respond(
                ErrorMessage(id=request.id, error=exc.envelope, objection=exc.objection)
            )
            return
        except BadRequest as exc:
            session.respond(ProtocolError(code=exc.code, message=exc.message, id=request.id))
            return
        if result is not None:
            session.respond(ResultMessage(id=request.id, result=result))

    async def session_closed(self, session: Session) -> None:
        self.sessions.pop(session.id, None)
        self.objections.drop_session(session.id)
        self.uploads.drop_session(session.id)
        self.log_streams.drop_session(session)
        self.recordings.drop_session(session)
        self.screenshots.drop_session(session.id)
        self.resources.drop_session(session.id)
        for device in self.devices.values():
            for stream in device.all_streams():
                stream.leave(session)
            if device.leases.release(session.id):
                self._lease_event(device, session, "released")
        if self.remote is not None:
            await self.remote.session_closed(session)

    def resync(self, session: Session, stream_id: str) -> Any | None:
        device = self.devices.get(stream_id.split(":", 1)[0])
        if device is None:
            return self.remote.resync(session, stream_id) if self.remote is not None else None
        stream = device.stream_by_id(stream_id)
        return device.resync_event(stream) if stream is not None else None

    def health(self) -> dict[str, Any]:
        health: dict[str, Any] = {
            "status": "ok",
            "devices": {d.id: d.health for d in self.devices.values()},
        }
        if self.farm_report is not None:
            health["farm"] = self.farm_report(False)
        if self.farm_link is not None and self.farm_link().state != "connected":
            health["status"] = "degraded"  # serving its own devices, not the farm's
        return health

    def statistics(self) -> dict[str, Any]:
        devices: dict[str, Any] = {}
        for d in self.devices.values():
            lat = sorted(d.stats.action_ms)
            devices[d.id] = {
                "online": d.online,
                "health": d.health,
                "reason": d.health_reason,
                "truncated_captures": d.stats.truncated_captures,
                "capture_warnings": list(d.capture_warnings),
                "generation": d.generation,
                "captures": d.stats.captures,
                "deltas": d.stats.deltas,
                "normalize_failures": d.stats.normalize_failures,
                "reconnects": d.stats.reconnects,
                "subscribers": {s.id: len(s.members) for s in d.all_streams()},
                "action_ms_p50": lat[len(lat) // 2] if lat else None,
                "action_ms_max": lat[-1] if lat else None,
                "link": vars(d.link.stats) if d.link else None,
                "web": self.web.device_state(d.id),
            }
        sessions = {
            s.id: {
                "client": s.client_name,
                "role": s.role,
                "hello": s.id in self.sessions,
                "queue_depth": s.queue_depth(),
                "queued_bytes": s.queued_bytes(),
                "resources": self.resources.of_session(s.id),
                **vars(s.stats),
            }
            for s in list(self.connections().values())
        }
        stats = {
            "hub": self.name,
            "devices": devices,
            "sessions": sessions,
            "memory": capture_memory(self.devices.values(), self.captures),
            "pictures": {
                "screenshots": self.screenshots.statistics(),
                "views": self.picture_views.statistics(),
                "feed": self.picture_feed.statistics(),
            },
            "mirror": self.mirrors.statistics(),
            "event_loop": self.loop_lag.statistics(),
            "collector": collector.statistics(),
            "resources": self.resources.statistics(),
            "media": {
                "logs": self.log_streams.statistics(),
                "recordings": self.recordings.statistics(),
                "upload_bytes": self.uploads.held_bytes(),
                "uploads": self.uploads.statistics(),
            },
        }
        if self.journal is not None:
            stats["journal"] = self.journal.statistics()
        if self.vision is not None:
            stats["vision"] = self.vision.statistics()
        if self.web.counts.attaches or self.web.problems:
            stats["web"] = self.web.statistics()
        if self.farm_report is not None:
            stats["farm"] = self.farm_report(True)
        return stats

    def capture(self, capture_id: str) -> bytes | None:
        if capture_id.startswith("j_") and self.journal is not None:
            file = self.journal.capture_file(capture_id[2:] + ".png")
            return file.read_bytes() if file is not None else None
        return self.captures.get(capture_id)

    async def capture_view(self, capture_id: str, width: int, fmt: ViewFormat) -> bytes | None:
        """A viewer-sized image of a capture (``bridge.hub.picture_views``), derived from what
        ``capture`` serves."""

        async def source(capture: str) -> bytes | None:
            if capture.startswith("j_"):  # a file of the journal's: read off the event loop
                return await anyio.to_thread.run_sync(self.capture, capture)
            return self.capture(capture)

        return await self.picture_views.view(capture_id, width, fmt, source)

    # ---- helpers ----------------------------------------------------------------------------

    def device(self, device_id: str) -> DeviceRuntime:
        device = self.devices.get(device_id)
        if device is None:
            raise BadRequest(ProtocolErrorCode.UNKNOWN_DEVICE, f"no device {device_id!r}")
        return device

    def current(self, device: DeviceRuntime) -> Capture:
        if device.current is None or not device.online:
            raise offline(device.id, device.offline_reason)
        return device.current

    def condition_view(
        self, device: DeviceRuntime, capture: Capture, now_ms: int, target_id: str | None
    ) -> ConditionView:
        return ConditionView(
            snapshot=capture.normalized.full,
            tree=capture.tree,
            now_ms=now_ms,
            stable_since_ms=device.last_change_ms if device.agent_stable else None,
            clipboard=None,
            target_id=target_id,
            viewport=capture.normalized.full.nodes[0].bounds,
        )

    def _lease_info(self, device: DeviceRuntime) -> LeaseInfo | None:
        lease = device.leases.lease
        if lease is None:
            return None
        return LeaseInfo(
            mode=lease.mode,
            holders=tuple(lease.holders),
            holder_names=tuple(lease.holders.values()),
            idle_ms=lease.idle_ms(self.clock_ms()),
            alerts=_alert_choice(self.alert_policies.get(device.id), lease.holders),
        )

    def _lease_event(
        self,
        device: DeviceRuntime,
        session: Session,
        change: str,
        displaced: tuple[str, ...] = (),
    ) -> None:
        """A lease change to the device's watchers; a preemption also to the sessions that
        lost the lease (whether or not they watch), saying who outranked them."""
        reason = None
        if displaced:
            reason = (
                f"{session.client_name} ({session.client_kind or 'client'}) outranks the "
                "previous holder and took the lease"
            )
        event = LeaseEvent(
            device=device.id,
            change=change,
            session=session.id,
            client=session.client_name,
            lease=self._lease_info(device),
            displaced=displaced,
            reason=reason,
        )
        device.broadcast_event(event)
        told = device.watchers()
        losers = {self.sessions[s] for s in displaced if s in self.sessions} - told
        if losers:
            device._broadcast(losers, None, event)
        self.allocator.wake()

    # ---- verbs ------------------------------------------------------------------------------

    async def _dispatch(self, session: Session, request: ClientToHub) -> Any:
        match request:
            case Hello(client=client):
                session.client_name = client.name
                session.client_kind = client.kind
                self.sessions[session.id] = session
                if request.protocol not in (None, PROTOCOL_VERSION):
                    raise BadRequest(
                        ProtocolErrorCode.UNSUPPORTED_PROTOCOL,
                        f"this hub speaks {PROTOCOL_VERSION}, not {request.protocol}",
                    )
                return HelloResult(
                    protocol=PROTOCOL_VERSION,
                    session=session.id,
                    role=session.role or "observer",  # type: ignore[arg-type]
                    hub=self.name,
                    formats=("json", "msgpack"),
                    previous_close=session.previous_close,
                )
            case DevicesList():
                farm_wide = session.principal is not None and session.principal.scope == "farm"
                remote = self.remote.summaries() if self.remote is not None and farm_wide else ()
                return DevicesListResult(
                    devices=(*self.local_summaries(), *remote),
                    farm=self.farm_link() if self.farm_link is not None else None,
                    waiting=self.allocator.waiting(),
                )
            case Subscribe(pictures=True, settled=False):
                raise BadRequest(
                    ProtocolErrorCode.INVALID_PARAMS,
                    "subscribe: 'pictures' needs 'settled' (one picture per settled screen)",
                )
            case Subscribe(device=device_id, compact=compact, settled=True, patches=patches):
                device = self.device(device_id)
                self.current(device)
                with self._counted_subscription(session):
                    joined = self.feeds[device.id].join(session, compact, patches)
                if request.pictures:
                    self.picture_feed.join(session, device, compact)
                return joined
            case Subscribe(device=device_id, compact=compact, patches=patches):
                device = self.device(device_id)
                cap = self.current(device)
                stream = device.streams[compact]
                with self._counted_subscription(session):
                    stream.join(session, patches)
                return SubscribeResult(
                    subscription=stream.id,
                    seq=stream.seq,
                    generation=cap.generation,
                    snapshot=cap.snapshot(compact),
                )
            case Unsubscribe(subscription=sub):
                device = self.device(sub.split(":", 1)[0])
                found = device.stream_by_id(sub)
                if found is None or session not in found.members:
                    raise BadRequest(
                        ProtocolErrorCode.UNKNOWN_SUBSCRIPTION, f"not subscribed to {sub!r}"
                    )
                found.leave(session)
                if sub in session.streams:
                    self.resources.give(SUBSCRIPTIONS, session.id)
                session.forget_stream(sub)
                return UnsubscribeResult(subscription=sub)
            case SnapshotGet(at=at, fresh=True) if at is not None:
                raise BadRequest(
                    ProtocolErrorCode.INVALID_PARAMS,
                    "snapshot.get: 'fresh' and 'at' exclude each other (a past screen "
                    "cannot be captured anew); drop one",
                )
            case SnapshotGet(at=at) if at is not None:
                with hold(self.resources, HISTORY_QUERIES, session.id):
                    return await answer_journal(self, request)
            case JournalAt() | JournalDiff() | JournalTimeline() | JournalWhen():
                with hold(self.resources, HISTORY_QUERIES, session.id):
                    return await answer_journal(self, request)
            case SnapshotGet(device=device_id, compact=compact, fresh=fresh):
                device = self.device(device_id)
                cap = await fresh_capture(device) if fresh else self.current(device)
                return SnapshotResult(generation=cap.generation, snapshot=cap.snapshot(compact))
            case Find(device=device_id, query=query, sources=sources):
                if sources is not None and Source.VISION in sources:
                    problem = self.enable_vision()
                    if problem is not None:
                        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, problem)
                return self._find(self.device(device_id), query, sources)
            case Resolve(device=device_id, ref=ref, generation=generation):
                device = self.device(device_id)
                cap = self.current(device)
                check = (
                    GenerationCheck(generation, cap.generation, device.snapshot_at(generation))
                    if generation is not None
                    else None
                )
                outcome = resolve_ref(
                    ref,
                    cap.normalized.full,
                    cap.tree,
                    same_id_space=device.owns_snapshot(ref.snapshot_id),
                    generation=check,
                )
                if not isinstance(outcome, Resolved):
                    raise Refusal(resolution_error(outcome, cap.normalized.full, cap.tree))
                return ResolveResult(
                    status="RESOLVED",
                    node_id=outcome.node.node_id,
                    snapshot_id=cap.normalized.full.snapshot_id,
                    generation=cap.generation,
                    node=outcome.node,
                    locator=outcome.locator,
                )
            case Act(device=device_id):
                return await run_act(self, session, self.device(device_id), request)
            case Global(device=device_id) | App(device=device_id):
                return await run_global_or_app(self, session, self.device(device_id), request)
            case (
                Gesture(device=device_id)
                | KeyPress(device=device_id)
                | TypeText(device=device_id)
                | OrientationSet(device=device_id)
                | AppTerminate(device=device_id)
                | AppClear(device=device_id)
                | AppInstall(device=device_id)
                | AppUninstall(device=device_id)
            ):
                return await run_device_action(self, session, self.device(device_id), request)
            case DisplayGet(device=device_id):
                return display(self, self.device(device_id))
            case AlertList(device=device_id) | ClipboardGet(device=device_id):
                return await read_capability(self, session, self.device(device_id), request)
            case (
                AlertRespond(device=device_id)
                | PermissionSet(device=device_id)
                | LocationSet(device=device_id)
                | Pinch(device=device_id)
                | TwoFingerTap(device=device_id)
                | ClipboardSet(device=device_id)
                | KeyboardHide(device=device_id)
            ):
                return await run_capability_action(self, session, self.device(device_id), request)
            case NetworkSet(device=device_id):
                return await run_network_action(self, session, self.device(device_id), request)
            case NetworkGet(device=device_id):
                return await read_network(self, session, self.device(device_id), request)
            case AppsList(device=device_id):
                return await apps(self, session, request.id, self.device(device_id))
            case (
                AppUpload()
                | LogsSubscribe()
                | LogsUnsubscribe()
                | CrashesList()
                | RecordStart()
                | RecordStop()
                | RecordRead()
            ):
                return await answer_media(self, session, request)
            case Wait():
                return await self._wait(session, request)
            case LeaseAcquire(device=device_id, mode=mode):
                return self.lease(session, device_id, mode, request.alerts)
            case DevicesAcquire():
                got = None
                with anyio.CancelScope() as in_line:  # `cancel` takes the waiter out of line
                    self.cancels[(session.id, request.id)] = in_line
                    try:
                        got = await self.allocator.acquire(session, request)
                    finally:
                        self.cancels.pop((session.id, request.id), None)
                if got is None:
                    raise BadRequest(ProtocolErrorCode.CANCELLED, "the acquire was cancelled")
                return got
            case LeaseRelease(device=device_id):
                device = self.device(device_id)
                if device.leases.release(session.id):
                    had = self.alert_policies.get(device.id)
                    if had is not None and had.session == session.id:
                        del self.alert_policies[device.id]
                    self._lease_event(device, session, "released")
                return LeaseResult(device=device.id, lease=self._lease_info(device))
            case Screenshot(device=device_id, fresh=fresh):
                return await self._screenshot(session, request.id, self.device(device_id), fresh)
            case Cancel(request=target):
                scope = self.cancels.get((session.id, target))
                if scope is not None:
                    scope.cancel()
                return PongResult()
            case Ping():
                return PongResult()
            case Veto():
                self.device(request.device)
                return self.intents.veto(session, request)
            case History(device=device_id, limit=limit):
                device = self.device(device_id)
                now = self.clock_ms()
                recent = list(device.recent)[-limit:]
                return HistoryResult(
                    device=device.id,
                    entries=tuple(
                        HistoryEntry(age_ms=max(0, now - at), event=event) for at, event in recent
                    ),
                )
        raise BadRequest(
            ProtocolErrorCode.UNKNOWN_TYPE, f"unhandled request {type(request).__name__}"
        )

    @contextmanager
    def _counted_subscription(self, session: Session) -> Iterator[None]:
        """Count a stream the session joins in the body (``SUBSCRIPTIONS``; a stream it
        was already in is not counted twice); refused RATE_LIMITED past the bounds."""
        before = set(session.streams)
        bound = BOUNDS[SUBSCRIPTIONS]
        ledger = self.resources
        if (
            ledger.held(SUBSCRIPTIONS, session.id) >= bound.per_session
            or ledger.held(SUBSCRIPTIONS) >= bound.per_hub
        ):
            take(ledger, SUBSCRIPTIONS, session.id)  # raises RATE_LIMITED, counts the refusal
        yield
        for _ in set(session.streams) - before:
            take(self.resources, SUBSCRIPTIONS, session.id)

    def lease(
        self,
        session: Session,
        device_id: str,
        mode: LeaseMode,
        alerts: AlertChoice | None = None,
    ) -> LeaseResult:
        """``lease.acquire``: grant, take over or refuse (raises BadRequest / Refusal);
        ``alerts``: the holder's auto-answer of alerts (``bridge.hub.alert_autoanswer``)."""
        if session.role != "controller":
            raise BadRequest(ProtocolErrorCode.FORBIDDEN, "observers never need a lease")
        device = self.device(device_id)
        granted = device.leases.acquire(
            session.id,
            session.client_name,
            mode,
            self.clock_ms(),
            self.intents.priority(session),
        )
        if isinstance(granted, Blocked):
            raise refusal(
                ErrorCode.POLICY_BLOCKED,
                granted.message(),
                (
                    "wait for the lease event 'released' and retry",
                    f"retry after {granted.takeover_in_ms} ms to take over the idle lease",
                ),
            )
        lease = device.leases.lease
        if lease is not None:
            # The queue is released when the lease changes hands: actions of sessions
            # that no longer hold it are cancelled, queued or running.
            device.cancel_actions_not_of(
                set(lease.holders),
                f"the device's lease passed to {session.client_name} ({session.id})",
            )
        if alerts is not None:
            self.alert_policies[device.id] = AlertPolicy(
                alerts.value, session.id, session.client_name
            )
        elif (had := self.alert_policies.get(device.id)) and had.session == session.id:
            del self.alert_policies[device.id]
        displaced = granted.previous_holders if granted.change == "preempted" else ()
        self._lease_event(device, session, granted.change, displaced)
        return LeaseResult(device=device.id, lease=self._lease_info(device))

    def _lease_if_free(self, session: Session, device_id: str) -> str | None:
        """The allocator's local lease: only a free device (never a takeover); None when
        granted, else why not."""
        device = self.devices.get(device_id)
        if device is None or device.leases.lease is not None or not device.online:
            return f"device {device_id} is not free"
        try:
            self.lease(session, device_id, "exclusive")
        except Refusal as exc:
            return exc.envelope.message
        except BadRequest as exc:
            return exc.message
        return None

    def local_summaries(self) -> tuple[DeviceSummary, ...]:
        """This hub's own devices (``owner`` is this hub's farm name, if any)."""
        return tuple(
            DeviceSummary(
                id=d.id,
                platform=d.platform,
                online=d.online,
                model=d.model,
                agent=d.agent_name,
                capabilities=d.capabilities,
                lease=self._lease_info(d),
                health=d.health,
                reason=d.health_reason,
                owner=self.owner_name,
                agent_version=d.agent_version,
                os_version=d.os_version,
                tags=self.device_tags.get(d.id, ()),
            )
            for d in self.devices.values()
        )

    def _find(
        self, device: DeviceRuntime, query: Any, sources: tuple[Source, ...] | None = None
    ) -> FindResult:
        cap = self.current(device)
        snapshot = cap.normalized.full
        root = snapshot.nodes[0].bounds if snapshot.nodes else None
        outcome = run_query(cap.tree, query, viewport=root)
        if isinstance(outcome, QueryRejected):
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, outcome.reason)
        matches = []
        for item in outcome.items:
            if sources is not None and item.node.source not in sources:
                continue
            ref = build_ref(snapshot, cap.tree, item.node.node_id)
            if ref is not None:
                matches.append(
                    FindMatch(
                        ref=ref, node=item.node, reason=item.reason, confidence=item.confidence
                    )
                )
        return FindResult(
            count=len(matches),
            generation=cap.generation,
            snapshot_id=snapshot.snapshot_id,
            matches=tuple(matches),
        )

    async def _wait(self, session: Session, request: Wait) -> WaitResult:
        device = self.device(request.device)
        problem = validate_condition(request.condition)
        if problem is not None:
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, problem)
        timeout = request.timeout_ms
        if timeout is None:
            timeout = (
                SCREEN_WAIT_DEFAULT_MS
                if isinstance(request.condition, ScreenShown)
                else WAIT_DEFAULT_MS
            )
        start = self.clock_ms()
        last: ConditionOutcome | None = None
        snapshot_id: str | None = None
        with anyio.CancelScope() as scope:
            self.cancels[(session.id, request.id)] = scope
            try:
                while True:
                    now = self.clock_ms()
                    cap = device.current
                    if cap is not None and device.online:
                        outcome = evaluate(
                            request.condition, self.condition_view(device, cap, now, None)
                        )
                        if isinstance(outcome, ConditionRejected):
                            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, outcome.reason)
                        last = outcome
                        snapshot_id = cap.normalized.full.snapshot_id
                        if outcome.result is VerificationResult.CONDITION_MET:
                            break
                    if now - start >= timeout:
                        break
                    # Evaluate again on a capture change, at the deadline, or when a `stable`
                    # leaf could turn true by the clock alone; never on a fixed tick.
                    wake_ms = timeout - (now - start)
                    since = device.last_change_ms if device.agent_stable else None
                    if since is not None and cap is not None:
                        for for_ms in _stable_thresholds(request.condition):
                            due = since + for_ms - now
                            if due >= 0:
                                wake_ms = min(wake_ms, due + 1)
                    with anyio.move_on_after(wake_ms / 1000):
                        await device.changed.wait()
            finally:
                self.cancels.pop((session.id, request.id), None)
        if scope.cancelled_caught:
            raise BadRequest(ProtocolErrorCode.CANCELLED, "the wait was cancelled")
        if last is None:
            raise offline(device.id, device.offline_reason)
        return WaitResult(
            result=last.result,
            snapshot_id=snapshot_id,
            elapsed_ms=max(0, self.clock_ms() - start),
            evidence=last.evidence,
        )

    async def _screenshot(
        self, session: Session, rid: object, device: DeviceRuntime, fresh: bool = False
    ) -> ScreenshotResult:
        """One picture per screen generation, shared (``bridge.hub.screenshot_cache``)."""
        if device.link is None or not device.online:
            raise offline(device.id, device.offline_reason)
        got = None
        with anyio.CancelScope() as scope:
            self.cancels[(session.id, rid)] = scope
            try:
                got = await self.screenshots.screenshot(device, fresh=fresh, session=session.id)
            finally:
                self.cancels.pop((session.id, rid), None)
        if got is None:
            raise BadRequest(ProtocolErrorCode.CANCELLED, "the screenshot was cancelled")
        shot, shared = got
        return ScreenshotResult(
            capture=shot.capture,
            url=self.capture_url(shot.capture),
            width=shot.width,
            height=shot.height,
            bytes=shot.size,
            generation=shot.generation,
            shared=shared,
        )

    def capture_url(self, capture_id: str) -> str:
        return f"{self.public_http()}/v1/captures/{capture_id}.png"

    async def take_screenshot(self, device: DeviceRuntime) -> Shot:
        """One device screenshot, stored (``CaptureStore``) and journaled; raises refusals."""
        for _ in range(2):  # a secret typed meanwhile: once more, after its hold
            if device.link is None or not device.online:
                raise offline(device.id, device.offline_reason)
            if not await hold_over(device):
                break
            link = device.link
            if link is None or not device.online:
                raise offline(device.id, device.offline_reason)
            before = mask_plan(device)
            shot = await self._one_screenshot(device, link, before)
            if shot is not None:
                return shot
        raise refusal(
            ErrorCode.WINDOW_UNAVAILABLE,
            "a secret is being typed on the device and no capture shows where it went yet",
            ("retry in a moment",),
        )

    async def _one_screenshot(
        self, device: DeviceRuntime, link: Any, before: MaskPlan
    ) -> Shot | None:
        """One screenshot, masked, kept and journaled; None when a secret was being typed
        while it was taken (it is not kept)."""
        try:
            reply = await link.command(lambda cid: ScreenshotCommand(id=cid), timeout_s=15.0)
        except (AgentLost, TimeoutError) as exc:
            raise offline(device.id, str(exc)) from exc
        if not reply.ok:
            code = (
                ErrorCode.SECURE_WINDOW if reply.code == "SECURE" else ErrorCode.WINDOW_UNAVAILABLE
            )
            raise refusal(
                code,
                reply.message or "the device could not capture the screen",
                ("retry when the screen no longer shows secure content",),
            )
        png = decode_reply_png(reply)
        del reply  # the base64 text (a third larger than the image) goes at once
        if png is not None and mask_plan(device).union(before).hold:
            return None
        png = await mask_picture(device, png, before)  # secrets blacked out before it is kept
        kept = keep_screenshot(self.captures, device, png)
        if isinstance(kept, str):
            del png
            raise refusal(
                ErrorCode.WINDOW_UNAVAILABLE, f"the screenshot was refused: {kept}", ("retry",)
            )
        if self.journal is not None and png is not None:  # kept: png was a valid image
            self.journal.screenshot(device.id, png)
        del png
        capture_id, info, size = kept
        return Shot(capture_id, info.width, info.height, size, None)


def _stable_thresholds(condition: Condition) -> list[int]:
    """``forMs`` of every ``stable`` leaf: the only conditions the clock alone can change."""
    match condition:
        case Stable(for_ms=for_ms):
            return [for_ms]
        case AllOf(conditions=subs) | AnyOf(conditions=subs):
            return [t for sub in subs for t in _stable_thresholds(sub)]
        case Not(condition=sub):
            return _stable_thresholds(sub)
        case _:
            return []


def _alert_choice(policy: AlertPolicy | None, holders: Any) -> AlertChoice | None:
    """The auto-answer in force: a policy whose session still holds the lease."""
    if policy is None or policy.session not in holders:
        return None
    return AlertChoice(policy.choice)
