"""The pipeline of device actions: ``gesture``, ``key``, ``type``, ``orientation.set``,
``app.terminate``, ``app.clear``, ``app.install``, ``app.uninstall`` — actions on the device,
not on a node.

Order (each step may refuse; nothing after a refusal runs; every refusal is announced once as
an ``action`` event):
role (controller) -> online -> lease -> request checks (durations and point counts are capped
by decoding; verify policies that need a node are INVALID_PARAMS; an install package is found
and hashed) -> [per-device FIFO lock, lease checked again, cancellable] -> the agent announced
the capability (else ACTION_UNSUPPORTED) -> points on the screen of the newest capture (else
INVALID_PARAMS) -> critical apps (POLICY_BLOCKED, unanswerable) -> mutation class and policy
(``bridge.core.device_control``: a gesture is classified by the node it lands on; destructive
actions and every install need an approved objection) -> secret resolution (``type`` with
``valueRef``: registered with the device's masker before dispatch) -> staging (install) ->
dispatch (one or two agent commands) -> observation -> verification -> ActionResult + event.

Results: a coordinate gesture is dispatched with no semantic target: ``dispatch.method`` is
GESTURE_FALLBACK with ``fallbackType`` GESTURE and ``target`` is absent. An agent that answers
UNSUPPORTED is refused ACTION_UNSUPPORTED with its reason; any other failed reply is refused
ACTION_REJECTED with the device's reason (what was dispatched before is named). Intrinsic
verifications: ``app.terminate`` and ``app.clear`` — the app is not in the foreground afterwards;
``orientation.set`` — the newest capture has that orientation; ``app.install`` /
``app.uninstall`` — the device's app list has / lacks the app (when the agent lists apps).
When the agent does not announce ``terminate`` (or answers it UNSUPPORTED), the device
layer's process control (an iPhone's DVT) terminates instead (``bridge.hub.app_processes``),
inside the same plan.
Typed text and secrets never reach an event, a log or a result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bridge.core import device_control as rules
from bridge.core.mutation import MutationVerdict
from bridge.core.verification import PolicyRejected, check_verify_request, verify
from bridge.hub.action_queue import ActionSlot, with_concurrent
from bridge.hub.actions import (
    COMMAND_TIMEOUT_S,
    DEFAULT_OBSERVE_MS,
    DEFAULT_STABLE_MS,
    MAX_VERIFY_STABLE_MS,
    MAX_VERIFY_TIMEOUT_MS,
    Progress,
    cancellable,
)
from bridge.hub.actions import _agent_trouble as agent_trouble
from bridge.hub.actions import _emit as emit
from bridge.hub.actions import _trouble_reason as trouble_reason
from bridge.hub.app_processes import device_processes, hub_processes, terminate_on_hub
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.errors import BadRequest, Refusal, offline, refusal
from bridge.hub.media_sources import AppManager
from bridge.hub.observation import observation, observe, observed
from bridge.hub.packages import Package, find_package
from bridge.hub.pixel_secrets import secret_sent, secret_typed
from bridge.hub.policy import (
    action_subject,
    check_policy,
    lease_check,
    require_controller,
)
from bridge.net.agent_link import AgentLost
from bridge.net.client_server import Session
from bridge.wire.action import (
    ActionResult,
    Dispatch,
    Evidence,
    Predicate,
    Verification,
    Verify,
)
from bridge.wire.agent_link import (
    AppsCommand,
    ClearCommand,
    GestureCommand,
    HubToAgent,
    InstallCommand,
    KeyCommand,
    OrientationCommand,
    Point,
    Reply,
    TerminateCommand,
    TextCommand,
    UninstallCommand,
)
from bridge.wire.conditions import AppForeground, Not
from bridge.wire.device_capabilities import CapabilityAction
from bridge.wire.device_control import (
    AppClear,
    AppInstall,
    AppTerminate,
    AppUninstall,
    Gesture,
    KeyPress,
    OrientationSet,
    TypeText,
)
from bridge.wire.enums import (
    ActionMethod,
    DispatchStatus,
    ErrorCode,
    FallbackType,
    GestureKind,
    KeyName,
    MutationClass,
    Platform,
    PredicateSource,
    ProtocolErrorCode,
    VerificationPolicy,
    VerificationResult,
)

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext

DeviceAction = (
    Gesture
    | KeyPress
    | TypeText
    | OrientationSet
    | AppTerminate
    | AppClear
    | AppInstall
    | AppUninstall
)
AnyDeviceAction = DeviceAction | CapabilityAction
"""What the pipeline runs: this module's actions and ``bridge.hub.capability_actions``'."""
IOS_CANNOT_CLEAR = (
    "an iPhone cannot clear one app's data; reinstall the app (app uninstall + install)"
)
"""Why ``app.clear`` is refused on iOS (its agents do not offer ``clear``)."""
_APP_STOPS: dict[type[DeviceAction], tuple[str, str, type[TerminateCommand | ClearCommand]]] = {
    AppTerminate: ("terminate", "APP_TERMINATE", TerminateCommand),
    AppClear: ("clear", "APP_CLEAR", ClearCommand),
}
"""The app verbs that leave the app stopped (verified: not in the foreground afterwards), one
row each: (capability and agent command word, the plan's title, the agent command)."""
DEFAULT_LONG_PRESS_MS = 800
DEFAULT_SWIPE_MS = 300
INSTALL_TIMEOUT_S = 120.0
"""How long the agent may take to install a package (pm install of a large APK)."""
APPS_TIMEOUT_S = 15.0

Command = Callable[[int], HubToAgent]


@dataclass
class Plan:
    """What one device action will do, decided under the device lock on the newest capture."""

    verb: str
    action: str
    message: str
    capabilities: tuple[str, ...]
    verdict: MutationVerdict
    subject: str
    commands: tuple[tuple[str, Command], ...]
    """(what it is, for messages; the command) in dispatch order."""
    always_confirm: bool = False
    gesture: bool = False
    verify: Verify | None = None
    intrinsic: Callable[[Capture], Verification | None] | None = None
    installed: tuple[str, bool] | None = None
    """(app id, expected presence) checked with an ``apps`` command after the dispatch."""
    timeout_s: float = COMMAND_TIMEOUT_S
    secret: str | None = field(default=None, repr=False)
    lacking: str | None = None
    """Why the device cannot, when it lacks ``capabilities`` (default: its agent lacks them)."""
    confirm_reason: str | None = None
    """Why ``always_confirm`` asks (default: it changes what is installed)."""


@dataclass(frozen=True)
class Planner:
    """How a family of requests is named in events and planned under the device lock (the
    device actions of this module; ``bridge.hub.capability_actions`` brings its own)."""

    names: Callable[[Any], tuple[str, str]]
    plan: Callable[[HandlerContext, DeviceRuntime, Any, Capture], Plan]


def _names(msg: DeviceAction) -> tuple[str, str]:
    """(event verb, event action) of a request."""
    match msg:
        case Gesture():
            return "gesture", msg.kind.value
        case KeyPress():
            return "key", msg.key.value
        case TypeText():
            return "type", "TYPE"
        case OrientationSet():
            return "orientation", msg.orientation.value
        case AppTerminate():
            return "app", "APP_TERMINATE"
        case AppClear():
            return "app", "APP_CLEAR"
        case AppInstall():
            return "app", "APP_INSTALL"
        case AppUninstall():
            return "app", "APP_UNINSTALL"


async def run_device_action(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: AnyDeviceAction,
    planner: Planner | None = None,
) -> ActionResult:
    """One device action (module order); every refusal is announced once. ``planner``
    names and plans requests of another family (default: this module's)."""
    started = svc.clock_ms()
    chosen = planner if planner is not None else DEFAULT_PLANNER
    try:
        return await _run(svc, session, device, msg, started, chosen)
    except Refusal as refused:
        if not refused.announced:
            refused.announced = True
            verb, action = chosen.names(msg)
            env = refused.envelope
            emit(svc, session, device, msg.id, verb, action, None, None, env.error, started,
                 message=env.message)  # fmt: skip
        raise


def _check_request(msg: AnyDeviceAction) -> None:
    if not isinstance(msg, Gesture):
        return
    count = len(msg.points)
    if msg.kind is GestureKind.SWIPE and count < 2:
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, "a swipe needs 2 to 64 points")
    if msg.kind is not GestureKind.SWIPE and count != 1:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS, f"a {msg.kind.value} takes exactly one point"
        )
    if msg.duration_ms is not None and msg.kind in (GestureKind.TAP, GestureKind.DOUBLE_TAP):
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            "durationMs applies to long_press and swipe only",
        )
    if msg.verify is not None:
        if msg.verify.timeout_ms > MAX_VERIFY_TIMEOUT_MS:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                f"verify.timeoutMs {msg.verify.timeout_ms} exceeds the cap of "
                f"{MAX_VERIFY_TIMEOUT_MS} ms (use wait for longer conditions)",
            )
        if msg.verify.stable_for_ms > MAX_VERIFY_STABLE_MS:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                f"verify.stableForMs {msg.verify.stable_for_ms} exceeds the cap of "
                f"{MAX_VERIFY_STABLE_MS} ms",
            )
        problem = check_verify_request(msg.verify, has_target=False)
        if problem is not None:
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, problem)


async def _run(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: AnyDeviceAction,
    started: int,
    planner: Planner,
) -> ActionResult:
    require_controller(session)
    if not device.online:
        raise offline(device.id, device.offline_reason)
    lease_check(svc, session, device)
    _check_request(msg)
    package: Package | None = None
    if isinstance(msg, AppInstall) and msg.upload is not None:
        package, _ = svc.uploads.package(session.id, msg.upload)
    elif isinstance(msg, AppInstall) and msg.package is not None:
        package = await find_package(svc.install_dir, msg.package, msg.sha256)

    def attempt(progress: Progress) -> Awaitable[ActionResult]:
        return _locked(svc, session, device, msg, package, progress, started, planner)

    upload = msg.upload if isinstance(msg, AppInstall) else None
    try:
        result = await cancellable(svc, session, device, msg.id, attempt)
    except Refusal as refused:
        # an upload waiting for the user's word stays for the confirmed retry
        if upload is not None and (refused.objection is None or not refused.objection.answerable):
            svc.uploads.done(upload)
        raise
    if upload is not None:
        svc.uploads.done(upload)
    return result


async def _locked(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: AnyDeviceAction,
    package: Package | None,
    progress: Progress,
    started: int,
    planner: Planner,
) -> ActionResult:
    async with ActionSlot(device.action_lock) as slot:
        lease_check(svc, session, device)  # the lease may have changed hands while queued
        before = device.current
        if before is None or device.link is None or not device.online:
            raise offline(device.id, device.offline_reason)
        plan = planner.plan(svc, device, msg, before)
        missing = [c for c in plan.capabilities if c not in device.capabilities]
        manager = _hub_side_manager(svc, device, msg) if missing else None
        processes = (
            hub_processes(svc, device, "terminate") if isinstance(msg, AppTerminate) else None
        )
        if missing and manager is None and processes is None:
            lacking = plan.lacking or f"its agent does not offer {', '.join(missing)}"
            if isinstance(msg, AppClear) and device.platform is Platform.IOS:
                lacking = IOS_CANNOT_CLEAR
            raise refusal(
                ErrorCode.ACTION_UNSUPPORTED,
                f"device {device.id} cannot do {plan.verb} {plan.action}: {lacking}",
                ("list the device's capabilities (devices.list)", "use another device"),
            )
        app_id = getattr(msg, "app_id", None)
        if app_id is not None and (why := rules.critical_app(app_id)) is not None:
            raise refusal(ErrorCode.POLICY_BLOCKED, why, ("choose another app",))
        policy = plan.verify.policy if plan.verify is not None else None
        check_policy(
            svc,
            session,
            device,
            plan.verdict.mutation_class,
            plan.verdict.financial,
            policy,
            plan.subject,
            getattr(msg, "confirm", None),
            always_confirm=plan.always_confirm,
            confirm_reason=plan.confirm_reason,
        )
        await svc.intents.announce(
            session, device, plan.verb, plan.action, None, plan.verdict.mutation_class, plan.message
        )
        value_ref = getattr(msg, "value_ref", None)  # type, clipboard.set
        if value_ref is not None:
            secret = svc.secrets.resolve(value_ref)
            if secret is None:
                raise BadRequest(
                    ProtocolErrorCode.INVALID_PARAMS,
                    svc.secrets.missing(value_ref),
                )
            secret_typed(device, secret)  # before dispatch: the next capture is already masked
            plan.secret = secret
        try:
            if processes is not None and isinstance(msg, AppTerminate):
                reply = await terminate_on_hub(device, processes, msg.app_id)
                progress.dispatched = f"{plan.verb} {plan.action} by the hub"
            elif manager is not None:
                reply = await _manage_on_hub(device, manager, msg, package)
                progress.dispatched = f"{plan.verb} {plan.action} by the hub"
            else:
                if package is not None:
                    plan.commands = await _staged(svc, device, package)
                try:
                    reply = await _dispatch(device, plan, progress)
                except Refusal as refused:  # the agent answered UNSUPPORTED: the layer does it
                    fallback = (
                        device_processes(svc, device)
                        if isinstance(msg, AppTerminate)
                        and refused.envelope.error is ErrorCode.ACTION_UNSUPPORTED
                        else None
                    )
                    if fallback is None or not isinstance(msg, AppTerminate):
                        raise
                    reply = await terminate_on_hub(device, fallback, msg.app_id)
                    progress.dispatched = f"{plan.verb} {plan.action} by the hub"
        finally:
            if plan.secret is not None:  # never dispatched: the hold ends here
                secret_sent(device)
                plan.secret = None
        mark = device.dispatch_log.note(session.id, session.client_name, plan.verb, plan.action)
        if plan.installed is None and not isinstance(msg, AppInstall):  # those ask the agent again
            slot.release_for_observe(leased=device.leases.lease is not None)
        return await _observe_and_report(
            svc, session, device, msg, plan, before, reply, started, mark
        )


def _plan(svc: HandlerContext, device: DeviceRuntime, msg: DeviceAction, before: Capture) -> Plan:
    snapshot = before.normalized.full
    verb, action = _names(msg)
    match msg:
        case Gesture():
            rect = rules.screen_rect(snapshot)
            points = [(p.x, p.y) for p in msg.points]
            if rect is None:
                raise offline(device.id, "the newest capture shows no screen")
            outside = rules.off_screen(points, rect)
            if outside is not None:
                raise BadRequest(
                    ProtocolErrorCode.INVALID_PARAMS,
                    f"point ({outside[0]}, {outside[1]}) is off the screen "
                    f"({rect[0]}, {rect[1]})-({rect[2]}, {rect[3]}) of the newest capture",
                )
            node = rules.node_at(snapshot, *points[0])
            verdict = rules.assess_gesture(msg.kind, node)
            duration = msg.duration_ms
            if duration is None and msg.kind is GestureKind.LONG_PRESS:
                duration = DEFAULT_LONG_PRESS_MS
            if duration is None and msg.kind is GestureKind.SWIPE:
                duration = DEFAULT_SWIPE_MS
            wire_points = tuple(Point(x=x, y=y) for x, y in points)
            kind, ms = msg.kind.value, duration or 0
            where = f"({points[0][0]}, {points[0][1]})"
            if len(points) > 1:
                where += f" to ({points[-1][0]}, {points[-1][1]})"
            what = f"{kind} at {where}" + (f" for {ms} ms" if ms else "")
            on = f"{node.node_id}" if node is not None else f"{points[0]}"
            return Plan(
                verb,
                action,
                what,
                ("gesture",),
                verdict,
                action_subject(device, f"gesture:{kind}", on, False),
                (
                    (
                        what,
                        lambda cid: GestureCommand(
                            id=cid, kind=kind, points=wire_points, duration_ms=ms
                        ),
                    ),
                ),
                gesture=True,
                verify=msg.verify,
            )
        case KeyPress():
            focused = rules.focused_node(snapshot)
            key = msg.key.value
            on = focused.node_id if focused is not None else "-"
            return Plan(
                verb,
                action,
                f"key {key}",
                ("key",),
                rules.assess_key(msg.key, focused),
                action_subject(device, f"key:{key}", on, False),
                ((f"key {key}", lambda cid: KeyCommand(id=cid, key=key)),),
            )
        case TypeText():
            focused = rules.focused_node(snapshot)
            on = focused.node_id if focused is not None else "-"
            what = "typed into the focused input" + (", then ENTER" if msg.submit else "")
            plan = Plan(
                verb,
                action,
                what,
                ("text", "key") if msg.submit else ("text",),
                rules.assess_typing(msg.submit, focused),
                action_subject(device, f"type:{msg.submit}", on, True),
                (),
            )
            literal = msg.text

            def typing(cid: int) -> HubToAgent:
                text = plan.secret if plan.secret is not None else literal
                assert text is not None
                return TextCommand(id=cid, text=text)

            enter = KeyName.ENTER.value
            plan.commands = (("text", typing),) + (
                (("key ENTER", lambda cid: KeyCommand(id=cid, key=enter)),) if msg.submit else ()
            )
            return plan
        case OrientationSet():
            wanted = msg.orientation

            def turned(cap: Capture) -> Verification:
                seen = cap.normalized.full.orientation
                return Verification(
                    predicate=Predicate(source=PredicateSource.INTRINSIC),
                    result=VerificationResult.CONDITION_MET
                    if seen is wanted
                    else VerificationResult.CONDITION_NOT_MET,
                    evidence=(
                        Evidence(
                            what="orientation",
                            snapshot_id=cap.normalized.full.snapshot_id,
                            observed=seen.value,
                            expected=wanted.value,
                        ),
                    ),
                )

            return Plan(
                verb,
                action,
                f"orientation {wanted.value}",
                ("orientation",),
                MutationVerdict(MutationClass.REVERSIBLE, financial=False),
                action_subject(device, f"orientation:{wanted.value}", "-", False),
                (
                    (
                        f"orientation {wanted.value}",
                        lambda cid: OrientationCommand(id=cid, orientation=wanted),
                    ),
                ),
                intrinsic=turned,
            )
        case AppTerminate() | AppClear():
            app_id = msg.app_id
            gone = Not(condition=AppForeground(app_id=app_id))

            def stopped(cap: Capture) -> Verification | None:
                got = verify(
                    VerificationPolicy.EXPLICIT_CONDITION,
                    gone,
                    before=observed(device, before, before.received_ms),
                    after=observed(device, cap, svc.clock_ms()),
                    target_id=None,
                    source=PredicateSource.INTRINSIC,
                )
                return None if isinstance(got, PolicyRejected) else got

            word, title, command = _APP_STOPS[type(msg)]
            return Plan(
                verb,
                action,
                f"{title} {app_id}",
                (word,),
                MutationVerdict(MutationClass.DESTRUCTIVE, financial=False),
                action_subject(device, f"app.{word}", app_id, False),
                ((f"{word} {app_id}", lambda cid: command(id=cid, app_id=app_id)),),
                intrinsic=stopped,
            )
        case AppUninstall():
            app_id = msg.app_id
            return Plan(
                verb,
                action,
                f"APP_UNINSTALL {app_id}",
                ("uninstall",),
                MutationVerdict(MutationClass.DESTRUCTIVE, financial=False),
                action_subject(device, "app.uninstall", app_id, False),
                ((f"uninstall {app_id}", lambda cid: UninstallCommand(id=cid, app_id=app_id)),),
                installed=(app_id, False),
            )
        case AppInstall():
            named = msg.package or svc.uploads.describe(msg.upload or "")
            return Plan(
                verb,
                action,
                f"APP_INSTALL {named}",
                ("install",),
                MutationVerdict(MutationClass.EXTERNAL_SIDE_EFFECT, financial=False),
                action_subject(device, "app.install", named, False),
                (),  # filled in once the package is staged (after the policy step)
                always_confirm=True,
                timeout_s=INSTALL_TIMEOUT_S,
            )


def _hub_side_manager(
    svc: HandlerContext, device: DeviceRuntime, msg: AnyDeviceAction
) -> AppManager | None:
    """The device layer's app manager when it does what the agent cannot (install and
    uninstall on an iPhone or a Simulator), else None."""
    if not isinstance(msg, AppInstall | AppUninstall):
        return None
    media = svc.media.get(device.id)
    return media.app_manager() if media is not None else None


async def _manage_on_hub(
    device: DeviceRuntime, manager: AppManager, msg: AnyDeviceAction, package: Package | None
) -> Reply:
    """Install or uninstall through the device layer; its failure is ACTION_REJECTED."""
    try:
        if isinstance(msg, AppUninstall):
            await manager.uninstall(msg.app_id)
            return Reply(id=0, ok=True)
        assert package is not None
        return Reply(id=0, ok=True, app_id=await manager.install(package.path))
    except (OSError, RuntimeError, ValueError) as exc:
        raise refusal(
            ErrorCode.ACTION_REJECTED,
            f"device {device.id} did not do it: {exc}",
            ("check the package and the device", "retry"),
        ) from exc


DEFAULT_PLANNER = Planner(_names, _plan)


async def _staged(
    svc: HandlerContext, device: DeviceRuntime, package: Package
) -> tuple[tuple[str, Command], ...]:
    stager = svc.stagers.get(device.id)
    if stager is None:
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"the hub cannot copy a package to {device.id}: its agent is attached by URL, "
            "without a device layer that reaches the device's storage",
            ("install the app with the platform's own tools", "use a device the hub drives"),
        )
    try:
        path = await stager(package.path)
    except OSError as exc:
        raise refusal(
            ErrorCode.ACTION_REJECTED,
            f"copying the package to {device.id} failed: {exc}",
            ("retry", "check the device's free storage"),
        ) from exc
    digest = package.sha256
    return ((f"install {package.path.name}", lambda cid: InstallCommand(
        id=cid, path=path, sha256=digest)),)  # fmt: skip


async def _command(device: DeviceRuntime, make: Command, timeout_s: float) -> Reply:
    if device.layer is not None:  # the driver may answer it beside the agent
        answered = await device.layer.answer(make(0))
        if answered is not None:
            return answered
    link = device.link
    if link is None:
        raise offline(device.id, device.offline_reason)
    try:
        return await link.command(make, timeout_s=timeout_s)
    except (AgentLost, TimeoutError) as exc:
        agent_trouble(device, exc)
        raise offline(device.id, trouble_reason(exc)) from exc


async def _dispatch(device: DeviceRuntime, plan: Plan, progress: Progress) -> Reply:
    """Send the plan's commands in order; the last reply (the first failure refuses)."""
    done: list[str] = []
    reply: Reply | None = None
    try:
        for what, make in plan.commands:
            reply = await _command(device, make, plan.timeout_s)
            if not reply.ok:
                before = f" (already dispatched: {', '.join(done)})" if done else ""
                reason = reply.message or "no reason given"
                if reply.code == "UNSUPPORTED":
                    raise refusal(
                        ErrorCode.ACTION_UNSUPPORTED,
                        f"device {device.id} cannot do {what}: {reason}{before}",
                        ("use another way to reach the same screen", "use another device"),
                    )
                raise refusal(
                    ErrorCode.ACTION_REJECTED,
                    f"device {device.id} did not do {what} ({reply.code}): {reason}{before}",
                    ("look at the screen and retry", "check the request's arguments"),
                )
            done.append(what)
            progress.dispatched = ", ".join(done)
    finally:
        if plan.secret is not None:
            secret_sent(device)  # pictures wait for a capture taken after it
        plan.secret = None  # drop the plaintext as soon as it was sent
    device.set_fault("commands", None)
    assert reply is not None
    return reply


async def _observe_and_report(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: AnyDeviceAction,
    plan: Plan,
    before: Capture,
    reply: Reply,
    started: int,
    mark: int,
) -> ActionResult:
    caller = plan.verify
    wants = caller is not None and caller.policy is not VerificationPolicy.DISPATCH_ONLY
    before_view = observed(device, before, before.received_ms)

    def verdict(cap: Capture) -> Verification | None:
        if wants and caller is not None:
            got = verify(
                caller.policy,
                caller.expected,
                before=before_view,
                after=observed(device, cap, svc.clock_ms()),
                target_id=None,
            )
            if isinstance(got, PolicyRejected):
                raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, got.reason)
            return got
        return plan.intrinsic(cap) if plan.intrinsic is not None else None

    def holds(cap: Capture) -> bool:
        got = verdict(cap)
        return got is not None and got.result is VerificationResult.CONDITION_MET

    checking = wants or plan.intrinsic is not None
    after, stability = await observe(
        svc,
        device,
        before,
        timeout_ms=caller.timeout_ms if wants and caller is not None else DEFAULT_OBSERVE_MS,
        stable_for_ms=caller.stable_for_ms if wants and caller is not None else DEFAULT_STABLE_MS,
        met=holds if checking else None,
    )
    verification = with_concurrent(verdict(after), device.dispatch_log, mark, session.id)
    if plan.installed is not None or isinstance(msg, AppInstall):
        verification = await _installed_check(device, plan, reply)
    dispatch = (
        Dispatch(
            status=DispatchStatus.DISPATCHED,
            method=ActionMethod.GESTURE_FALLBACK,
            fallback_used=True,
            fallback_type=FallbackType.GESTURE,
        )
        if plan.gesture
        else Dispatch(status=DispatchStatus.DISPATCHED)
    )
    result = ActionResult(
        dispatch=dispatch,
        observation=observation(before, after, stability),
        mutation_class=plan.verdict.mutation_class,
        verification=verification,
    )  # fmt: skip
    device.leases.touch(session.id, svc.clock_ms())
    message = plan.message
    if isinstance(msg, AppInstall) and reply.app_id:
        message += f" ({reply.app_id})"
    emit(svc, session, device, msg.id, plan.verb, plan.action, None, result, None, started,
         message=message)  # fmt: skip
    return result


async def _installed_check(device: DeviceRuntime, plan: Plan, reply: Reply) -> Verification | None:
    """Whether the device's app list has (install) or lacks (uninstall) the app, when the
    agent lists apps and the app id is known."""
    if plan.installed is not None:
        app_id, expected = plan.installed
    elif reply.app_id:
        app_id, expected = reply.app_id, True
    else:
        return None
    if "apps" not in device.capabilities:
        return None
    listed = await _command(device, lambda cid: AppsCommand(id=cid), APPS_TIMEOUT_S)
    if not listed.ok or listed.apps is None:
        return Verification(
            predicate=Predicate(source=PredicateSource.INTRINSIC),
            result=VerificationResult.CONDITION_UNKNOWN,
            evidence=(Evidence(what=f"installed {app_id}", expected=expected),),
        )
    present = any(a.app_id == app_id for a in listed.apps)
    return Verification(
        predicate=Predicate(source=PredicateSource.INTRINSIC),
        result=VerificationResult.CONDITION_MET
        if present is expected
        else VerificationResult.CONDITION_NOT_MET,
        evidence=(Evidence(what=f"installed {app_id}", observed=present, expected=expected),),
    )
