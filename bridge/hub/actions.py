"""The action pipeline for ``act``, ``global`` and ``app`` (APP_OPEN by the device layer
when the agent does not announce ``app``: ``bridge.hub.app_processes``).

Order (each step may refuse; nothing after a refusal runs):
role -> lease -> request validation (duration caps) -> idempotency -> [per-device FIFO lock,
lease checked again] -> resolve the NodeRef against the newest snapshot (generation check) ->
mutation class and policy
(DISPATCH_ONLY refused for destructive/financial/external actions; destructive actions need
a confirmed objection) -> secret resolution -> dispatch -> observe (stability, diff) ->
verify -> ActionResult + ``action`` event. Secrets and typed values never reach a log, an
event or a result; a typed secret is registered with the device's masker before dispatch.

Every act / global / app runs in its own cancel scope, registered under (session, request id)
so ``cancel`` stops it (answered CANCELLED, saying what was already dispatched), and under the
device so a lease that changes hands cancels the actions of sessions that no longer hold it
(queued or running). An act with an ``idempotencyKey`` is shielded from its client's
disconnect: it runs to its (capped) end and its outcome waits for the retry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import anyio
import msgspec

from bridge.core import mutation
from bridge.core.identity import fingerprint
from bridge.core.noderef import Resolved
from bridge.core.verification import PolicyRejected, check_verify_request, verify
from bridge.core.web_tree import is_web_node
from bridge.hub.action_queue import ActionSlot, with_concurrent
from bridge.hub.app_processes import device_processes, hub_processes, launch_on_hub
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.errors import BadRequest, Refusal, offline, refusal
from bridge.hub.handler_context import Pending
from bridge.hub.journal_service import KeyNotRecorded, keyed_end, keyed_start, recorded_outcome
from bridge.hub.observation import (
    dispatch_from_reply,
    observation,
    observe,
    observed,
    unobserved,
)
from bridge.hub.pixel_secrets import secret_sent, secret_typed
from bridge.hub.policy import action_subject, check_policy, lease_check, require_controller
from bridge.hub.targeting import describe_query, resolve_target
from bridge.hub.vision import as_vision_dispatch, vision_command
from bridge.net.agent_link import AgentLost, AgentTimeout
from bridge.net.client_server import Session
from bridge.wire.action import (
    ActionRequest,
    ActionResult,
    ActionTarget,
    Dispatch,
    Verification,
)
from bridge.wire.agent_link import (
    AppCommand,
    GlobalCommand,
    NodeActionCommand,
    NodeIdentity,
)
from bridge.wire.client_protocol import Act, ActionEvent, App, Global
from bridge.wire.conditions import AllOf, AnyOf, AppForeground, Condition, Not, Stable
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    DispatchStatus,
    ErrorCode,
    MutationClass,
    PredicateSource,
    ProtocolErrorCode,
    Role,
    Stability,
    VerificationPolicy,
    VerificationResult,
)
from bridge.wire.query import SemanticQuery

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext


NODE_VERBS_NEEDING_VALUE = frozenset({ActionVerb.SET_TEXT})
LAUNCH_ARGUMENTS = "launch_arguments"
"""The agent capability that says APP_OPEN may carry launch arguments."""
DEFAULT_OBSERVE_MS = 3000
DEFAULT_STABLE_MS = 300
MAX_VERIFY_TIMEOUT_MS = 60_000
"""Cap on ``verify.timeoutMs``: how long one action may hold the device's queue observing."""
MAX_VERIFY_STABLE_MS = 10_000
"""Cap on ``verify.stableForMs``."""
COMMAND_TIMEOUT_S = 10.0
"""How long the hub waits for the agent to answer one command."""
TYPING_S_PER_CHAR = 0.12
"""Extra wait per character a SET_TEXT types: a phone types at most ~40 characters a second with
pauses (the iOS agent's pace) plus XCTest's own ~60 a second, and the agent may type twice (its
verified retry); without it a long text outlasts the wait and the agent is taken for lost."""
CLEAR_S_PER_CHAR = 0.04
"""Extra wait per character of the old value the agent deletes first (one key each, twice)."""
MAX_COMMAND_TIMEOUT_S = 600.0


def command_timeout_s(text: str | None, old_value: str | None = None) -> float:
    """How long the hub waits for a node action's reply: the base, plus typing and clearing time
    for a text, capped at ``MAX_COMMAND_TIMEOUT_S``."""
    extra = TYPING_S_PER_CHAR * len(text or "") + CLEAR_S_PER_CHAR * len(old_value or "")
    return min(MAX_COMMAND_TIMEOUT_S, COMMAND_TIMEOUT_S + (extra if text is not None else 0.0))


T = TypeVar("T")


@dataclass
class Progress:
    """How far one action got (reported when it is cancelled)."""

    dispatched: str | None = None
    cancel_reason: str | None = None
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)


def request_digest(req: ActionRequest, query: SemanticQuery | None = None) -> str:
    """What an idempotency key stands for: the request and, when it has one, its query."""
    return hashlib.sha256(msgspec.json.encode((req, query))).hexdigest()


def check_caps(req: ActionRequest) -> None:
    """Refuse caller-supplied durations above the documented caps (never clamp silently)."""
    if req.verify is None:
        return
    if req.verify.timeout_ms > MAX_VERIFY_TIMEOUT_MS:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"verify.timeoutMs {req.verify.timeout_ms} exceeds the cap of "
            f"{MAX_VERIFY_TIMEOUT_MS} ms (use wait for longer conditions)",
        )
    if req.verify.stable_for_ms > MAX_VERIFY_STABLE_MS:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"verify.stableForMs {req.verify.stable_for_ms} exceeds the cap of "
            f"{MAX_VERIFY_STABLE_MS} ms",
        )


async def cancellable(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    request_id: object,
    run: Callable[[Progress], Awaitable[T]],
) -> T:
    """Run one action under a scope that ``cancel`` (by request id) and a lease change (by
    device) can stop; a stopped action is answered CANCELLED with what was dispatched."""
    progress = Progress()
    key = (session.id, request_id)
    svc.cancels[key] = progress.scope
    device.actions[id(progress)] = (session.id, progress)
    try:
        with progress.scope:
            return await run(progress)
    finally:
        svc.cancels.pop(key, None)
        device.actions.pop(id(progress), None)
    # Only reached when the scope swallowed a cancel (by request or by a lease change).
    what = (
        f"it was already dispatched ({progress.dispatched}); its effect was not observed"
        if progress.dispatched
        else "nothing was dispatched"
    )
    why = progress.cancel_reason or "cancelled by request"
    raise BadRequest(ProtocolErrorCode.CANCELLED, f"the action was cancelled ({why}): {what}")


def _emit(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    request_id: object,
    verb: str,
    action: str,
    target: ActionTarget | None,
    result: ActionResult | None,
    error: ErrorCode | None,
    started_ms: int,
    *,
    query: SemanticQuery | None = None,
    message: str | None = None,
    intent: str | None = None,
    value_ref: str | None = None,
) -> None:
    elapsed = max(0, svc.clock_ms() - started_ms)
    device.stats.action_ms.append(float(elapsed))
    del device.stats.action_ms[:-512]
    device.broadcast_event(
        ActionEvent(
            device=device.id,
            session=session.id,
            client=session.client_name,
            verb=verb,
            action=action,
            target=target,
            result=result,
            error=error,
            duration_ms=elapsed,
            query=query,
            message=message,
            intent=intent,
            value_ref=value_ref,
        )
    )
    svc.log.info(
        "action",
        device=device.id,
        session=session.id,
        request=request_id,
        client=session.client_name,
        verb=verb,
        action=action,
        target=target.label if target else None,
        query=describe_query(query) if query is not None else None,
        outcome=error.value if error else (result.dispatch.status.value if result else None),
        reason=message,
        ms=elapsed,
    )


def _announce(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: Act | Global | App,
    refused: Refusal,
    started_ms: int,
) -> None:
    """Report a refusal not reported yet as an ``action`` event (and a log line)."""
    if refused.announced:
        return
    refused.announced = True
    if isinstance(msg, Act):
        verb, name, query = "act", msg.request.action.value, msg.query
    else:
        verb, name, query = ("app" if isinstance(msg, App) else "global"), msg.action.value, None
    env = refused.envelope
    _emit(
        svc,
        session,
        device,
        msg.id,
        verb,
        name,
        None,
        None,
        env.error,
        started_ms,
        query=query,
        message=env.message,
    )


async def run_act(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: Act
) -> ActionResult:
    """The ``act`` pipeline; every refusal is announced once as an ``action`` event."""
    started = svc.clock_ms()
    try:
        return await _run_act(svc, session, device, msg)
    except Refusal as refused:
        _announce(svc, session, device, msg, refused, started)
        raise


async def _run_act(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: Act
) -> ActionResult:
    require_controller(session)
    req = msg.request
    if not device.online:
        raise offline(device.id, device.offline_reason)
    lease_check(svc, session, device)
    if req.target is None and msg.query is None:
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            f"{req.action.value} needs a target: request.target (a NodeRef) or query",
        )
    if req.target is not None and msg.query is not None:
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, "give request.target or query, not both")
    if req.action in NODE_VERBS_NEEDING_VALUE and req.value is None and req.value_ref is None:
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, "SET_TEXT needs value or valueRef")
    check_caps(req)
    if req.verify is not None:
        problem = check_verify_request(req.verify, has_target=True)
        if problem is not None:
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, problem)
    if (
        msg.observe == "none"
        and req.verify is not None
        and req.verify.policy is not VerificationPolicy.DISPATCH_ONLY
    ):
        raise BadRequest(
            ProtocolErrorCode.INVALID_PARAMS,
            "observe none answers at dispatch: it verifies nothing "
            "(drop verify, or use DISPATCH_ONLY)",
        )

    def attempt(progress: Progress) -> Awaitable[ActionResult]:
        return _act_locked(svc, session, device, msg, req, progress)

    key = req.idempotency_key
    if not key:
        return await cancellable(svc, session, device, msg.id, attempt)
    digest = request_digest(req, msg.query)
    pending: Pending | None = svc.idempotency.get(device.id, key, svc.clock_ms())
    if pending is not None:
        if pending.digest != digest:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                "idempotency key reused with a different request "
                "(keys are per device; use a new key for a new action)",
            )
        await pending.done.wait()
        if pending.error is not None:
            raise pending.error
        assert pending.result is not None
        return pending.result
    recorded = recorded_outcome(svc, device.id, key, digest)  # an earlier run's (journal)
    if recorded is not None:
        return recorded
    pending = Pending(anyio.Event(), digest)
    svc.idempotency.put(device.id, key, pending, svc.clock_ms())
    try:
        # A keyed action survives its client's disconnect (bounded by the duration caps), so
        # the retry gets its real outcome; ``cancel`` and lease changes still stop it.
        with anyio.CancelScope(shield=True):
            await keyed_start(svc, device.id, key, digest)
            result = await cancellable(svc, session, device, msg.id, attempt)
        pending.result = result
    except Exception as exc:
        pending.error = exc
        if isinstance(exc, KeyNotRecorded):  # it never ran: a retry may run it
            svc.idempotency.forget(device.id, key)
        raise
    finally:
        if pending.result is None and pending.error is None:
            pending.error = BadRequest(
                ProtocolErrorCode.CANCELLED, "the first attempt with this key was cancelled"
            )
        if not isinstance(pending.error, KeyNotRecorded):
            with anyio.CancelScope(shield=True):
                await keyed_end(svc, device.id, key, pending.result, pending.error)
        pending.done.set()
    return result


async def _act_locked(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: Act,
    req: ActionRequest,
    progress: Progress,
) -> ActionResult:
    started = svc.clock_ms()
    async with ActionSlot(device.action_lock) as slot:
        lease_check(svc, session, device)  # the lease may have changed hands while queued
        before = device.current
        if before is None or not device.online:
            raise offline(device.id, device.offline_reason)
        outcome = resolve_target(msg, device, before)
        if not isinstance(outcome, Resolved):
            raise Refusal(outcome)
        node = outcome.node
        target = ActionTarget(role=node.role, label=node.label or node.text or node.hint)
        if node.role is Role.CANVAS and not req.allow_gesture_fallback:
            raise refusal(
                ErrorCode.VISION_REQUIRED,
                "the target is a canvas with no accessibility semantics",
                (
                    "take a screenshot and locate the spot visually",
                    "retry with allowGestureFallback=true to tap the canvas at a point",
                ),
            )
        verdict = mutation.assess_action(
            req.action, node.role, node.label or node.text, node.value is not None
        )
        cls, financial = verdict.mutation_class, verdict.financial
        policy = req.verify.policy if req.verify else None
        subject = action_subject(device, req.action.value, fingerprint(node), req.value is not None)
        check_policy(svc, session, device, cls, financial, policy, subject, msg.confirm)
        intent = await svc.intents.announce(session, device, "act", req.action.value, target, cls)
        text = req.value
        if req.value_ref is not None:
            text = svc.secrets.resolve(req.value_ref)
            if text is None:
                raise BadRequest(
                    ProtocolErrorCode.INVALID_PARAMS,
                    svc.secrets.missing(req.value_ref),
                )
        handle = before.normalized.handles.get(node.node_id)
        if handle is None or device.link is None:
            raise offline(device.id, "no capture to act on")
        identity = NodeIdentity(
            class_name=node.class_name or node.native_type, automation_id=node.automation_id
        )
        capture_no = before.capture_no
        seen = vision_command(node, req.action)  # a node read by vision: a coordinate tap
        dispatched_ms = svc.clock_ms()
        if req.value_ref is not None and text is not None:
            secret_typed(device, text)  # before dispatch: the next capture is already masked
        try:
            if is_web_node(node.automation_id):  # a page's element: bridge.hub.web
                reply = await svc.web.act(device, node, req.action, text)
            else:
                reply = await device.link.command(
                    seen
                    if seen is not None
                    else lambda cid: NodeActionCommand(
                        id=cid,
                        capture=capture_no,
                        handle=handle,
                        action=req.action,
                        identity=identity,
                        text=text,
                        allow_ancestor=True,
                        allow_gesture=req.allow_gesture_fallback,
                    ),
                    timeout_s=command_timeout_s(text, node.value),
                )
        except (AgentLost, TimeoutError) as exc:
            _agent_trouble(device, exc)
            lost = offline(device.id, _trouble_reason(exc))
            lost.announced = True
            _emit(
                svc,
                session,
                device,
                msg.id,
                "act",
                req.action.value,
                target,
                None,
                ErrorCode.DEVICE_OFFLINE,
                started,
                query=msg.query,
                message=lost.envelope.message,
            )
            raise lost from exc
        finally:
            if req.value_ref is not None:
                secret_sent(device)  # pictures wait for a capture taken after it
            text = None  # drop the plaintext as soon as it was sent
        device.set_fault("commands", None)
        dispatch, stale = dispatch_from_reply(reply)
        if seen is not None:
            dispatch = as_vision_dispatch(dispatch)
        progress.dispatched = _dispatch_text(dispatch)
        if stale is not None:
            refused = Refusal(stale)
            refused.announced = True
            _emit(
                svc,
                session,
                device,
                msg.id,
                "act",
                req.action.value,
                target,
                None,
                stale.error,
                started,
                query=msg.query,
                message=stale.message,
            )
            raise refused
        mark = device.dispatch_log.seq
        if dispatch.status is DispatchStatus.DISPATCHED:
            mark = device.dispatch_log.note(
                session.id, session.client_name, "act", req.action.value
            )
        slot.release_for_observe(leased=device.leases.lease is not None)
        verify_req = req.verify
        timeout_ms = verify_req.timeout_ms if verify_req else DEFAULT_OBSERVE_MS
        stable_ms = verify_req.stable_for_ms if verify_req else DEFAULT_STABLE_MS
        before_view = observed(device, before, before.received_ms)

        last: list[tuple[Capture, Verification | None]] = []
        timeless = verify_req is None or not _reads_the_clock(verify_req.expected)

        def verdict_on(cap: Capture) -> Verification | None:
            if verify_req is None or verify_req.policy is VerificationPolicy.DISPATCH_ONLY:
                return None
            if timeless and last and last[0][0] is cap:
                return last[0][1]  # measured on this very capture already
            got = verify(
                verify_req.policy,
                verify_req.expected,
                before=before_view,
                after=observed(device, cap, svc.clock_ms()),
                target_id=node.node_id,
            )
            if isinstance(got, PolicyRejected):
                raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, got.reason)
            last[:] = [(cap, got)]
            return got

        def holds(cap: Capture) -> bool:
            got = verdict_on(cap)
            return got is not None and got.result is VerificationResult.CONDITION_MET

        if msg.observe == "none":  # answered at dispatch: no wait, no diff, no verdict
            result = ActionResult(
                dispatch=dispatch,
                observation=unobserved(before),
                target=target,
                mutation_class=cls,
            )
        else:
            if dispatch.status is DispatchStatus.DISPATCHED:
                wants = verify_req is not None and verify_req.policy is not (
                    VerificationPolicy.DISPATCH_ONLY
                )
                after, stability = await observe(
                    svc,
                    device,
                    before,
                    timeout_ms=timeout_ms,
                    stable_for_ms=stable_ms,
                    met=holds if wants else None,
                    dispatched_ms=dispatched_ms,
                )
            else:
                after, stability = device.current or before, Stability.UNKNOWN
            checked = with_concurrent(verdict_on(after), device.dispatch_log, mark, session.id)
            result = ActionResult(
                dispatch=dispatch,
                observation=observation(before, after, stability),
                target=target,
                mutation_class=cls,
                verification=checked,
            )
        device.leases.touch(session.id, svc.clock_ms())
        _emit(
            svc,
            session,
            device,
            msg.id,
            "act",
            req.action.value,
            target,
            result,
            None,
            started,
            query=msg.query,
            intent=intent,
            value_ref=req.value_ref,
        )
        return result


async def run_global_or_app(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: Global | App
) -> ActionResult:
    """``global`` / ``app``; every refusal is announced once as an ``action`` event."""
    started = svc.clock_ms()
    try:
        return await _run_global_or_app(svc, session, device, msg)
    except Refusal as refused:
        _announce(svc, session, device, msg, refused, started)
        raise


async def _run_global_or_app(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: Global | App
) -> ActionResult:
    require_controller(session)
    if not device.online:
        raise offline(device.id, device.offline_reason)
    lease_check(svc, session, device)
    started = svc.clock_ms()
    if isinstance(msg, App):
        if msg.action is AppAction.APP_DEEP_LINK and not msg.uri:
            raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, "APP_DEEP_LINK needs uri")
        if msg.arguments is not None:
            if msg.action is not AppAction.APP_OPEN:
                raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, "arguments go with APP_OPEN")
            if LAUNCH_ARGUMENTS not in device.capabilities:
                raise refusal(
                    ErrorCode.ACTION_UNSUPPORTED,
                    f"device {device.id}'s agent takes no launch arguments",
                    ("open the app without arguments",),
                )
        cls = mutation.assess_app(msg.action, msg.uri).mutation_class
        verb, name = "app", msg.action.value
    else:
        cls = mutation.classify_global(msg.action)
        verb, name = "global", msg.action.value
    return await cancellable(
        svc,
        session,
        device,
        msg.id,
        lambda progress: _global_or_app_locked(
            svc, session, device, msg, cls, verb, name, started, progress
        ),
    )


async def _global_or_app_locked(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    msg: Global | App,
    cls: MutationClass,
    verb: str,
    name: str,
    started: int,
    progress: Progress,
) -> ActionResult:
    async with ActionSlot(device.action_lock) as slot:
        lease_check(svc, session, device)  # the lease may have changed hands while queued
        before = device.current
        if before is None or device.link is None:
            raise offline(device.id, device.offline_reason)
        what = f"{name} {msg.app_id or msg.uri or ''}".strip() if isinstance(msg, App) else name
        intent = await svc.intents.announce(session, device, verb, name, None, cls, what)
        try:
            processes = (
                hub_processes(svc, device, "app")
                if isinstance(msg, App)
                and msg.action is AppAction.APP_OPEN
                and msg.app_id
                and msg.arguments is None  # the device layer launches without arguments
                else None
            )
            if processes is not None and isinstance(msg, App) and msg.app_id:
                reply = await launch_on_hub(device, processes, msg.app_id)
            elif isinstance(msg, App):
                app_msg = msg
                reply = await device.link.command(
                    lambda cid: AppCommand(
                        id=cid,
                        action=app_msg.action,
                        app_id=app_msg.app_id,
                        uri=app_msg.uri,
                        arguments=dict(app_msg.arguments) if app_msg.arguments else None,
                    ),
                    timeout_s=COMMAND_TIMEOUT_S,
                )
                fallback = (
                    device_processes(svc, device)
                    if reply.code == "UNSUPPORTED"
                    and app_msg.action is AppAction.APP_OPEN
                    and app_msg.app_id
                    else None
                )
                if fallback is not None and app_msg.app_id:  # the agent cannot: the layer does
                    reply = await launch_on_hub(device, fallback, app_msg.app_id)
            else:
                glob = msg
                reply = await device.link.command(
                    lambda cid: GlobalCommand(id=cid, action=glob.action),
                    timeout_s=COMMAND_TIMEOUT_S,
                )
        except (AgentLost, TimeoutError) as exc:
            _agent_trouble(device, exc)
            raise offline(device.id, _trouble_reason(exc)) from exc
        device.set_fault("commands", None)
        dispatch, _ = dispatch_from_reply(reply)
        progress.dispatched = _dispatch_text(dispatch)
        mark = device.dispatch_log.seq
        if dispatch.status is DispatchStatus.DISPATCHED:
            mark = device.dispatch_log.note(session.id, session.client_name, verb, name)
        slot.release_for_observe(leased=device.leases.lease is not None)
        # Opening or foregrounding a named app has an intrinsic postcondition: that app is in
        # the foreground afterwards. Nothing else here has one (BACK, HOME, deep links).
        foreground = (
            AppForeground(app_id=msg.app_id)
            if isinstance(msg, App)
            and msg.app_id
            and msg.action in (AppAction.APP_OPEN, AppAction.APP_BRING_TO_FRONT)
            else None
        )
        before_view = observed(device, before, before.received_ms)

        def intrinsic(cap: Capture) -> Verification | None:
            if foreground is None:
                return None
            got = verify(
                VerificationPolicy.EXPLICIT_CONDITION,
                foreground,
                before=before_view,
                after=observed(device, cap, svc.clock_ms()),
                target_id=None,
                source=PredicateSource.INTRINSIC,
            )
            return None if isinstance(got, PolicyRejected) else got

        def holds(cap: Capture) -> bool:
            got = intrinsic(cap)
            return got is not None and got.result is VerificationResult.CONDITION_MET

        if dispatch.status is DispatchStatus.DISPATCHED:
            after, stability = await observe(
                svc,
                device,
                before,
                timeout_ms=DEFAULT_OBSERVE_MS,
                stable_for_ms=DEFAULT_STABLE_MS,
                met=holds if foreground is not None else None,
            )
        else:
            after, stability = device.current or before, Stability.UNKNOWN
        result = ActionResult(
            dispatch=dispatch,
            observation=observation(before, after, stability),
            mutation_class=cls,
            verification=with_concurrent(intrinsic(after), device.dispatch_log, mark, session.id),
        )
        device.leases.touch(session.id, svc.clock_ms())
        _emit(svc, session, device, msg.id, verb, name, None, result, None, started, intent=intent)
        return result


def _reads_the_clock(condition: Condition | None) -> bool:
    """Whether the condition's answer can change with time alone (a ``stable`` leaf)."""
    match condition:
        case Stable():
            return True
        case AllOf(conditions=subs) | AnyOf(conditions=subs):
            return any(_reads_the_clock(sub) for sub in subs)
        case Not(condition=sub):
            return _reads_the_clock(sub)
        case _:
            return False


def _trouble_reason(exc: BaseException) -> str:
    if isinstance(exc, AgentTimeout):
        return f"the agent is not answering: {exc}"
    return f"the agent was lost during the action: {exc or type(exc).__name__}"


def _agent_trouble(device: DeviceRuntime, exc: BaseException) -> None:
    """An agent that misses a command deadline degrades its device (visible to everyone)."""
    if isinstance(exc, AgentTimeout):
        device.set_fault("commands", f"the agent missed a command deadline: {exc}")


def _dispatch_text(dispatch: Dispatch) -> str:
    method = f" via {dispatch.method.value}" if dispatch.method is not None else ""
    return f"{dispatch.status.value}{method}"
