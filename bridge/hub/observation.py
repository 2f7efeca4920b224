"""Observation after a dispatch: waiting for a quiet screen (and a verification predicate),
turning an agent reply into the Dispatch layer, and the Observation layer with its diff."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

from bridge.core.screendiff import screen_diff
from bridge.core.settle import settle_window_ms
from bridge.core.verification import Observed
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.errors import Refusal
from bridge.hub.fresh_capture import fresh_capture
from bridge.wire.action import Dispatch, Observation
from bridge.wire.agent_link import Reply
from bridge.wire.enums import ActionMethod, DispatchStatus, ErrorCode, FallbackType, Stability
from bridge.wire.errors import ErrorEnvelope

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext

TICK_S = 0.05
CONFIRM_CAPTURE_S = 3.0
"""How long an action with nothing to verify waits for the capture that confirms its screen
did not change (``confirmed_unchanged``)."""


async def wait_change(device: DeviceRuntime, timeout_s: float) -> None:
    with anyio.move_on_after(max(0.0, timeout_s)):
        await device.changed.wait()


async def observe(
    svc: HandlerContext,
    device: DeviceRuntime,
    before: Capture,
    *,
    timeout_ms: int,
    stable_for_ms: int,
    met: Callable[[Capture], bool] | None,
    dispatched_ms: int | None = None,
) -> tuple[Capture, Stability]:
    """Wait after a dispatch, at most ``timeout_ms``, for a settled screen (the rule is
    ``bridge.core.settle``): once the expected effect is seen — ``met`` holds when given (a
    verification predicate), else a new generation received at or after ``dispatched_ms``
    (when the command was sent) — a quiet window derived from the device's push cadence;
    before that, ``stable_for_ms`` of quiet (and ``met`` holding, when given). At the
    deadline the newest capture is returned as it is, TRANSITIONING when it was not quiet.

    Without ``met`` (an action with nothing to verify), a screen that settles with no capture
    after ``before`` is confirmed by one capture the agent makes then (``confirmed_unchanged``):
    "unchanged" is said of a screen captured after the action, however late the agent's own
    next capture would have come."""
    start = svc.clock_ms()
    deadline = start + timeout_ms
    sent = start if dispatched_ms is None else dispatched_ms
    while True:
        now = svc.clock_ms()
        cur = device.current or before
        if met is not None:
            seen = met(cur)
        else:
            seen = cur.generation != before.generation and cur.received_ms >= sent
        since = max(device.quiet_since_ms, start)
        window = settle_window_ms(stable_for_ms, device.cadence.quiet_ms, seen)
        quiet = device.agent_stable and now - since >= window
        if quiet and met is None:
            return await confirmed_unchanged(device, before, cur), Stability.STABLE
        if quiet and seen:
            return cur, Stability.STABLE
        if now >= deadline:
            return cur, Stability.STABLE if quiet else Stability.TRANSITIONING
        if not device.online:
            return cur, Stability.UNKNOWN
        due = since + window  # settled then if nothing changes (and the agent says stable)
        wake = due if device.agent_stable and now < due < deadline else deadline
        await wait_change(device, min(TICK_S, (wake - now) / 1000))


async def confirmed_unchanged(device: DeviceRuntime, before: Capture, after: Capture) -> Capture:
    """``after``, or a capture the agent makes now when ``after`` is still ``before``'s
    generation. An action with nothing to verify settles on quiet; when no capture came after
    it the screen may not have changed, or the agent's next capture is late (a loaded
    machine): one capture made now (``fresh_capture``, at most ``CONFIRM_CAPTURE_S``)
    decides. A device that cannot capture now keeps the answer it had. ``observe`` calls this
    when it settles without ``met`` (a check waits for its own condition)."""
    if after.generation != before.generation:
        return after
    try:
        await fresh_capture(device, timeout_s=CONFIRM_CAPTURE_S)
    except Refusal:
        return after
    return device.current or after


def dispatch_from_reply(reply: Reply) -> tuple[Dispatch, ErrorEnvelope | None]:
    if reply.ok:
        method = reply.method or ActionMethod.ACCESSIBILITY_ACTION
        gesture = method is ActionMethod.GESTURE_FALLBACK
        return (
            Dispatch(
                status=DispatchStatus.DISPATCHED,
                method=method,
                fallback_used=gesture or method is ActionMethod.ACCESSIBILITY_ACTION_ANCESTOR,
                fallback_type=FallbackType.GESTURE if gesture else None,
            ),
            None,
        )
    if reply.code in ("IDENTITY_MISMATCH", "NOT_FOUND"):
        return Dispatch(status=DispatchStatus.REJECTED), ErrorEnvelope(
            error=ErrorCode.STALE_NODE_REF,
            message=f"the device no longer shows that element ({reply.code})",
            recovery=("find the element again on the current screen",),
        )
    if (
        reply.code == "NOT_VISIBLE"
    ):  # off screen or covered, and not scrolled into view: nothing tapped
        return Dispatch(status=DispatchStatus.REJECTED), ErrorEnvelope(
            error=ErrorCode.ACTION_REJECTED,
            message=f"the element is not visible ({reply.message or 'NOT_VISIBLE'})",
            recovery=(
                "scroll the element into view or dismiss what covers it (keyboard, alert)",
                "find the element again, then retry",
            ),
        )
    if reply.code in ("UNSUPPORTED", "SECURE", "BAD_COMMAND"):
        return Dispatch(status=DispatchStatus.REJECTED), None
    return Dispatch(status=DispatchStatus.FAILED), None


def observation(before: Capture, after: Capture, stability: Stability) -> Observation:
    b, a = before.normalized.compact, after.normalized.compact
    changed_gen = before.generation != after.generation
    return Observation(
        before_snapshot_id=b.snapshot_id,
        after_snapshot_id=a.snapshot_id,
        stability=stability,
        screen_changed=b.tree_hash != a.tree_hash,
        window_changed=(b.window_id != a.window_id) or (b.package_name != a.package_name),
        diff=screen_diff(b, a) if changed_gen else None,
        diff_ref=f"{b.snapshot_id}:{a.snapshot_id}",
    )


def unobserved(before: Capture) -> Observation:
    """The Observation of an action answered at dispatch (``observe: none``): nothing was
    measured, so ``stability`` is UNKNOWN, there is no after snapshot and no diff, and the
    two ``changed`` flags are false (not measured, not "unchanged")."""
    return Observation(
        before_snapshot_id=before.normalized.compact.snapshot_id,
        stability=Stability.UNKNOWN,
        screen_changed=False,
        window_changed=False,
    )


def observed(device: DeviceRuntime, capture: Capture, at_ms: int) -> Observed:
    full = capture.normalized.full
    return Observed(
        snapshot=full,
        tree=capture.tree,
        at_ms=at_ms,
        stable_since_ms=device.last_change_ms,
        viewport=full.nodes[0].bounds if full.nodes else None,
    )
