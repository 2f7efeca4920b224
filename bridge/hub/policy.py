"""The policy step of the action pipeline: who may act, and what needs the user's word.

- observers never act (FORBIDDEN); a lease held by another session blocks (POLICY_BLOCKED
  naming the holder and how long it has been idle);
- an answer to an objection is checked first, by id, and reported when it is blank, unknown,
  another session's, or for an unanswerable objection;
- DISPATCH_ONLY is refused for destructive, external or financial actions (unanswerable);
- a destructive action needs an approved objection raised for the very same action
  (``action_subject``), used once; so does any action the caller marks ``always_confirm``
  (installing an app).
"""

from __future__ import annotations

import hashlib
import secrets as random_ids
from typing import TYPE_CHECKING, Any

from bridge.core import mutation
from bridge.core.objections import AnswerProblem, Approved, Objection, Rejected
from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, Refusal, refusal
from bridge.net.client_server import Session
from bridge.wire.client_protocol import Objection as WireObjection
from bridge.wire.enums import ErrorCode, MutationClass, ProtocolErrorCode, VerificationPolicy
from bridge.wire.errors import ErrorEnvelope

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext


def require_controller(session: Session) -> None:
    if session.role != "controller":
        raise BadRequest(ProtocolErrorCode.FORBIDDEN, "observer sessions cannot act")


def lease_check(svc: HandlerContext, session: Session, device: DeviceRuntime) -> None:
    blocked = device.leases.may_act(session.id, svc.clock_ms())
    if blocked is not None:
        raise refusal(
            ErrorCode.POLICY_BLOCKED,
            blocked.message(),
            (
                "wait for the lease event 'released' and retry",
                "ask the holder to release the lease (lease.release)",
                f"acquire the lease after {blocked.takeover_in_ms} ms idle to take it over",
            ),
        )


def action_subject(device: DeviceRuntime, what: str, fingerprint: str, has_value: bool) -> str:
    raw = f"{device.id}|{what}|{fingerprint}|{has_value}".encode()
    return hashlib.sha256(raw).hexdigest()[:24]


def objection_refusal(
    svc: HandlerContext,
    session: Session,
    code: ErrorCode,
    reason: str,
    subject: str,
    answerable: bool,
) -> Refusal:
    obj = svc.objections.raise_objection(
        Objection(
            id=f"obj_{random_ids.token_hex(6)}",
            session=session.id,
            subject=subject,
            reason=reason,
            answerable=answerable,
        )
    )
    recovery = (
        (
            f"ask the user, then repeat the same request with confirm "
            f"{{objection: '{obj.id}', answer: 'approve'}}",
            "choose a different, non-destructive action",
        )
        if answerable
        else ("use a verification policy other than DISPATCH_ONLY", "do not retry as is")
    )
    return Refusal(
        ErrorEnvelope(error=code, message=reason, recovery=recovery),
        WireObjection(id=obj.id, answerable=answerable, reason=reason),
    )


def check_policy(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    cls: MutationClass,
    financial: bool,
    policy: VerificationPolicy | None,
    subject: str,
    confirm: Any,
    *,
    always_confirm: bool = False,
    confirm_reason: str | None = None,
) -> None:
    approved = False
    if confirm is not None:  # an answer is checked (and reported) before anything else
        answer = svc.objections.answer(confirm.objection, confirm.answer, session.id, subject)
        match answer:
            case Approved():
                approved = True
            case Rejected():
                raise refusal(
                    ErrorCode.POLICY_BLOCKED,
                    f"the user rejected objection {confirm.objection}",
                    ("do not retry this action",),
                )
            case AnswerProblem(message=message):
                raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, message)
    if policy is VerificationPolicy.DISPATCH_ONLY and not mutation.dispatch_only_allowed(
        cls, financial
    ):
        raise objection_refusal(
            svc,
            session,
            ErrorCode.POLICY_BLOCKED,
            f"DISPATCH_ONLY is not allowed for a {cls.value} action",
            subject,
            answerable=False,
        )
    if (cls is MutationClass.DESTRUCTIVE or always_confirm) and not approved:
        reason = (
            "this action looks destructive and needs the user's confirmation"
            if cls is MutationClass.DESTRUCTIVE
            else "this action always needs the user's confirmation "
            f"({confirm_reason or 'it changes what is installed'})"
        )
        raise objection_refusal(
            svc, session, ErrorCode.USER_CONFIRMATION_REQUIRED, reason, subject, answerable=True
        )
