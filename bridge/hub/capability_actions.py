"""The hub side of the device capabilities of issue 21: system alerts, app permissions, the
simulated location, multi-touch, the clipboard and hiding the keyboard.

Actions (``alert.respond``, ``permission``, ``location.set``, ``pinch``, ``two_finger_tap``,
``clipboard.set``, ``keyboard.hide``) run through the device-action pipeline of
``bridge.hub.device_actions`` (role, lease, FIFO, cancel, capability, policy, secret
resolution, dispatch, observation, ``action`` event) with the plans of this module:

=================  =========================  ==================  =========================
request            agent command              capability          mutation class
=================  =========================  ==================  =========================
alert.respond      ``alert`` accept/dismiss/   ``alerts``          REVERSIBLE (dismiss),
                   press                                           SIDE_EFFECT (otherwise)
permission         ``permission``              ``permission``      grant: EXTERNAL_SIDE_EFFECT
                                                                   and always confirmed;
                                                                   revoke/reset: SIDE_EFFECT
location.set       ``location``                ``location``        REVERSIBLE
pinch              ``multi_touch`` pinch       ``multi_touch``     REVERSIBLE
two_finger_tap     ``multi_touch`` tap         ``multi_touch``     REVERSIBLE
clipboard.set      ``clipboard`` set           ``clipboard``       REVERSIBLE
keyboard.hide      ``keyboard`` hide           ``keyboard``        REVERSIBLE
=================  =========================  ==================  =========================

A device without the capability is refused ACTION_UNSUPPORTED with one line saying what to
do instead (an iPhone and ``permission``: answer the app's alert). A pinch target is resolved
on the newest capture under the device lock (exactly one match, like ``act``). Clipboard text
and secrets never reach an event: the event says how many characters were set, nothing else.

Reads (``alert.list``, ``clipboard.get``): no lease, one agent command, cancellable; a
clipboard that holds a secret the hub typed reads back masked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from bridge.core import device_control as rules
from bridge.core.alert_screen import alert_answered, alert_words
from bridge.core.mutation import MutationVerdict
from bridge.core.noderef import Resolved
from bridge.core.secret_mask import MASK
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.device_actions import Plan, Planner, run_device_action
from bridge.hub.errors import BadRequest, Refusal, offline, refusal
from bridge.hub.policy import action_subject
from bridge.hub.targeting import describe_query, resolve_query
from bridge.net.agent_link import AgentLost
from bridge.net.client_server import Session
from bridge.wire.action import ActionResult, Evidence, Predicate, Verification
from bridge.wire.agent_link import (
    AlertCommand,
    ClipboardCommand,
    HubToAgent,
    KeyboardCommand,
    LocationCommand,
    MultiTouchCommand,
    PermissionCommand,
    Point,
    Reply,
)
from bridge.wire.device_capabilities import (
    AlertChoice,
    AlertList,
    AlertListResult,
    AlertRespond,
    CapabilityAction,
    ClipboardGet,
    ClipboardResult,
    ClipboardSet,
    KeyboardHide,
    LocationSet,
    PermissionAction,
    PermissionSet,
    Pinch,
    TwoFingerTap,
)
from bridge.wire.enums import (
    ErrorCode,
    MutationClass,
    Platform,
    PredicateSource,
    ProtocolErrorCode,
    VerificationResult,
)

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext

READ_TIMEOUT_S = 15.0
PINCH_MS = 400
MIN_SPAN = 80
IOS_NO_PERMISSIONS = (
    "an iPhone lets no one outside the app change its permissions; answer the app's "
    "permission alert instead (mobridge alert DEVICE accept|dismiss, or alert.respond)"
)
"""Why ``permission`` is refused on an iOS device (a Simulator offers ``permission``)."""
_REVERSIBLE = MutationVerdict(MutationClass.REVERSIBLE, financial=False)
_SIDE_EFFECT = MutationVerdict(MutationClass.SIDE_EFFECT, financial=False)


def names(msg: CapabilityAction) -> tuple[str, str]:
    """(event verb, event action) of a capability request."""
    match msg:
        case AlertRespond():
            return "alert", (msg.choice.value if msg.choice is not None else "press").upper()
        case PermissionSet():
            return "permission", f"PERMISSION_{msg.action.value.upper()}"
        case LocationSet():
            return "location", "LOCATION_CLEAR" if msg.clear else "LOCATION_SET"
        case Pinch():
            return "gesture", "pinch"
        case TwoFingerTap():
            return "gesture", "two_finger_tap"
        case ClipboardSet():
            return "clipboard", "CLIPBOARD_SET"
        case KeyboardHide():
            return "keyboard", "KEYBOARD_HIDE"


def _one(
    message: str,
    capability: str,
    verdict: MutationVerdict,
    subject: str,
    make: Callable[[int], HubToAgent],
    **extra: Any,
) -> Callable[[str, str], Plan]:
    def build(verb: str, action: str) -> Plan:
        commands = ((message, make),)
        return Plan(verb, action, message, (capability,), verdict, subject, commands, **extra)

    return build


def plan(
    svc: HandlerContext, device: DeviceRuntime, msg: CapabilityAction, before: Capture
) -> Plan:
    """The plan of one capability action on the newest capture ``before`` (module table)."""
    verb, action = names(msg)
    match msg:
        case AlertRespond():
            if msg.choice is not None:
                said, what, button = msg.choice.value, msg.choice.value, None
            else:
                said, what, button = f"press {msg.button!r}", "press", msg.button
            verdict = _REVERSIBLE if msg.choice is AlertChoice.DISMISS else _SIDE_EFFECT
            return _one(
                f"alert {said}",
                "alerts",
                verdict,
                action_subject(device, f"alert:{what}", button or "-", False),
                lambda cid: AlertCommand(id=cid, action=what, button=button),
                intrinsic=_answered(before),
            )(verb, action)
        case PermissionSet():
            act, perm, app_id = msg.action.value, msg.permission.value, msg.app_id
            grant = msg.action is PermissionAction.GRANT
            return _one(
                f"permission {act} {perm} {app_id}",
                "permission",
                MutationVerdict(MutationClass.EXTERNAL_SIDE_EFFECT, financial=False)
                if grant
                else _SIDE_EFFECT,
                action_subject(device, f"permission:{act}:{perm}", app_id, False),
                lambda cid: PermissionCommand(id=cid, action=act, app_id=app_id, permission=perm),
                always_confirm=grant,
                confirm_reason="it lets an app reach what the permission guards",
                lacking=IOS_NO_PERMISSIONS if device.platform is Platform.IOS else None,
            )(verb, action)
        case LocationSet():
            lat, lon = msg.latitude, msg.longitude
            said = "location cleared" if msg.clear else f"location set to {lat:.5f},{lon:.5f}"
            return _one(
                said,
                "location",
                _REVERSIBLE,
                action_subject(device, "location", "-", False),
                lambda cid: LocationCommand(id=cid, latitude=lat, longitude=lon),
            )(verb, action)
        case Pinch() | TwoFingerTap():
            (x, y), span, on = _touch_point(device, msg, before)
            if isinstance(msg, Pinch):
                scale = msg.scale
                said = f"pinch x{scale:g} at ({x}, {y})"

                def make(cid: int) -> HubToAgent:
                    centre = Point(x=x, y=y)
                    return MultiTouchCommand(
                        id=cid, kind="pinch", center=centre, scale=scale, span=span,
                        duration_ms=PINCH_MS,
                    )  # fmt: skip
            else:
                said = f"two-finger tap at ({x}, {y})"

                def make(cid: int) -> HubToAgent:
                    return MultiTouchCommand(id=cid, kind="two_finger_tap",
                                             center=Point(x=x, y=y), span=span)  # fmt: skip

            return _one(
                said,
                "multi_touch",
                _REVERSIBLE,
                action_subject(device, f"gesture:{verb}:{action}", on, False),
                make,
            )(verb, action)
        case ClipboardSet():
            literal = msg.text
            said = (
                "clipboard set (a secret)"
                if msg.value_ref is not None
                else f"clipboard set ({len(literal or '')} characters)"
            )
            built = Plan(verb, action, said, ("clipboard",), _REVERSIBLE,
                         action_subject(device, "clipboard.set", "-", True), ())  # fmt: skip

            def setting(cid: int) -> HubToAgent:
                text = built.secret if built.secret is not None else literal
                assert text is not None
                return ClipboardCommand(id=cid, set=text)

            built.commands = ((said, setting),)
            return built
        case KeyboardHide():
            return _one(
                "keyboard hidden",
                "keyboard",
                _REVERSIBLE,
                action_subject(device, "keyboard.hide", "-", False),
                lambda cid: KeyboardCommand(id=cid),
            )(verb, action)


def _answered(before: Capture) -> Callable[[Capture], Verification | None] | None:
    """The intrinsic check of an alert's answer when ``before`` shows the alert in its tree
    (``bridge.core.alert_screen``): the action settles once it is gone, however late the
    agent's next capture comes; None (the agent's word) when the tree shows no alert."""
    shown = alert_words(before.normalized.full)
    if shown is None:
        return None

    def gone(cap: Capture) -> Verification:
        after = cap.normalized.full
        answered = alert_answered(shown, after)
        return Verification(
            predicate=Predicate(source=PredicateSource.INTRINSIC),
            result=VerificationResult.CONDITION_MET
            if answered
            else VerificationResult.CONDITION_NOT_MET,
            evidence=(
                Evidence(
                    what="alert",
                    snapshot_id=after.snapshot_id,
                    observed="gone" if answered else "shown",
                    expected="gone",
                ),
            ),
        )

    return gone


def _touch_point(
    device: DeviceRuntime, msg: Pinch | TwoFingerTap, before: Capture
) -> tuple[tuple[int, int], int, str]:
    """(centre, finger span in pixels, what it lands on) of a multi-touch request."""
    snapshot = before.normalized.full
    rect = rules.screen_rect(snapshot)
    if rect is None:
        raise offline(device.id, "the newest capture shows no screen")
    box = rect
    on = "screen"
    if msg.query is not None:
        got = resolve_query(msg.query, before)
        if not isinstance(got, Resolved):
            raise Refusal(got)
        if got.node.bounds is None:
            raise refusal(
                ErrorCode.ACTION_REJECTED,
                f"{describe_query(msg.query)} has no bounds on screen to pinch",
                ("scroll the element into view",),
            )
        box, on = got.node.bounds, got.node.node_id
    elif msg.at is not None:
        box = (msg.at.x, msg.at.y, msg.at.x + 1, msg.at.y + 1)
        on = f"({msg.at.x}, {msg.at.y})"
        if rules.off_screen([(msg.at.x, msg.at.y)], rect) is not None:
            raise BadRequest(
                ProtocolErrorCode.INVALID_PARAMS,
                f"point ({msg.at.x}, {msg.at.y}) is off the screen ({rect[0]}, {rect[1]})-"
                f"({rect[2]}, {rect[3]}) of the newest capture",
            )
    x, y = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    width, height = box[2] - box[0], box[3] - box[1]
    if width <= 1:  # a point: the span is a share of the screen
        width, height = rect[2] - rect[0], rect[3] - rect[1]
    span = max(MIN_SPAN, min(width, height) // 2)
    return (x, y), span, on


CAPABILITY_PLANNER = Planner(names, plan)


async def run_capability_action(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: CapabilityAction
) -> ActionResult:
    """One capability action through the device-action pipeline (module table)."""
    return await run_device_action(svc, session, device, msg, CAPABILITY_PLANNER)


# ---- reads --------------------------------------------------------------------------------


async def _read(
    svc: HandlerContext,
    session: Session,
    request_id: object,
    device: DeviceRuntime,
    capability: str,
    what: str,
    make: Callable[[int], HubToAgent],
) -> Reply:
    if device.link is None or not device.online:
        raise offline(device.id, device.offline_reason)
    if capability not in device.capabilities:
        raise refusal(
            ErrorCode.ACTION_UNSUPPORTED,
            f"device {device.id} cannot {what}: its agent does not offer {capability}",
            ("look at the screen (snapshot.get) instead", "use another device"),
        )
    if device.layer is not None:  # the driver may answer it beside the agent
        answered = await device.layer.answer(make(0))
        if answered is not None:
            return _checked_read(device, what, answered)
    link = device.link
    reply: Reply | None = None
    with anyio.CancelScope() as scope:
        svc.cancels[(session.id, request_id)] = scope
        try:
            reply = await link.command(make, timeout_s=READ_TIMEOUT_S)
        except (AgentLost, TimeoutError) as exc:
            raise offline(device.id, str(exc)) from exc
        finally:
            svc.cancels.pop((session.id, request_id), None)
    if reply is None:
        raise BadRequest(ProtocolErrorCode.CANCELLED, f"{what} was cancelled")
    return _checked_read(device, what, reply)


def _checked_read(device: DeviceRuntime, what: str, reply: Reply) -> Reply:
    if not reply.ok:
        code = ErrorCode.ACTION_UNSUPPORTED if reply.code == "UNSUPPORTED" else None
        raise refusal(
            code or ErrorCode.ACTION_REJECTED,
            f"device {device.id} could not {what}: {reply.message or reply.code}",
            ("retry",),
        )
    return reply


async def read_capability(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: AlertList | ClipboardGet
) -> AlertListResult | ClipboardResult:
    """``alert.list`` or ``clipboard.get`` (module rules)."""
    if isinstance(msg, AlertList):
        reply = await _read(svc, session, msg.id, device, "alerts", "list its alerts",
                            lambda cid: AlertCommand(id=cid, action="list"))  # fmt: skip
        return AlertListResult(device=device.id, alerts=reply.alerts or ())
    reply = await _read(svc, session, msg.id, device, "clipboard", "read its clipboard",
                        lambda cid: ClipboardCommand(id=cid))  # fmt: skip
    text = reply.text or ""
    return ClipboardResult(device=device.id, text=MASK if device.masker.is_secret(text) else text)
