"""People and agents on one phone: lease priorities by client kind, intent announcements, vetoes.

Rules:

- a session's priority is its declared client kind's (``hello.client.kind``) in the hub's
  table (``HubConfig.lease_priorities``; default: ``person`` and ``dashboard`` 30, ``agent``
  10, every other kind — scripts, tests, the CLI — ``DEFAULT_PRIORITY`` 20). The lease book
  lets a higher priority take a lower one's lease at once (``bridge.core.leases``);
- every action, once its policy checks passed and right before it is dispatched, is announced
  to every session watching the device as an ``intent`` event ("agent-2 will CLICK button
  'Pay'"); its ``action`` event later carries the same intent id. Intents are not kept in the
  device's history (``history`` answers action, lease and device events only);
- with a veto window (``HubConfig.veto_window_ms`` > 0, capped at ``MAX_VETO_MS``) an action
  of a mutating class (``WAITING_CLASSES``) waits that long before dispatch; a session with a
  controller token whose priority is above the actor's may ``veto`` it meanwhile (an
  observer token never may, whatever kind it declares), and the action is then refused
  POLICY_BLOCKED naming who vetoed it (client, kind, session and token). Nothing else
  waits; with no window nothing waits;
- the table of waiting intents is bounded (``MAX_WAITING``): past it an intent is announced
  without a window (never refused for a full table).
"""

from __future__ import annotations

import secrets as random_ids
from dataclasses import dataclass, field

import anyio

from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, refusal
from bridge.net.client_server import Session
from bridge.wire.action import ActionTarget
from bridge.wire.client_protocol import IntentEvent, Veto, VetoResult
from bridge.wire.enums import ErrorCode, MutationClass, ProtocolErrorCode

DEFAULT_PRIORITIES: dict[str, int] = {"person": 30, "dashboard": 30, "agent": 10}
DEFAULT_PRIORITY = 20
MAX_VETO_MS = 30_000
MAX_WAITING = 256
WAITING_CLASSES = frozenset(
    {MutationClass.SIDE_EFFECT, MutationClass.EXTERNAL_SIDE_EFFECT, MutationClass.DESTRUCTIVE}
)


@dataclass
class _Waiting:
    device: str
    priority: int
    done: anyio.Event = field(default_factory=anyio.Event)
    vetoed_by: str | None = None
    vetoed_how: str = ""


class Intents:
    """The hub's intent announcements and veto windows (one per hub)."""

    def __init__(self, priorities: dict[str, int] | None = None, veto_window_ms: int = 0) -> None:
        self.priorities = dict(DEFAULT_PRIORITIES if priorities is None else priorities)
        self.veto_window_ms = max(0, min(MAX_VETO_MS, veto_window_ms))
        self.waiting: dict[str, _Waiting] = {}

    def priority(self, session: Session) -> int:
        kind = (session.client_kind or "").lower()
        return self.priorities.get(kind, DEFAULT_PRIORITY)

    async def announce(
        self,
        session: Session,
        device: DeviceRuntime,
        verb: str,
        action: str,
        target: ActionTarget | None,
        cls: MutationClass | None,
        what: str | None = None,
    ) -> str:
        """Announce the action to the device's watchers, then wait out the veto window when
        it applies; returns the intent id, or raises the POLICY_BLOCKED refusal of a veto."""
        intent = f"int_{random_ids.token_hex(6)}"
        window = self.veto_window_ms if cls in WAITING_CLASSES else 0
        if len(self.waiting) >= MAX_WAITING:
            window = 0
        if what is None:
            what = action
            if target is not None:
                role = target.role.value.lower() if target.role else "element"
                what += f" {role}" + (f" '{target.label}'" if target.label else "")
        event = IntentEvent(
            device=device.id,
            intent=intent,
            session=session.id,
            client=session.client_name,
            kind=session.client_kind,
            verb=verb,
            action=action,
            target=target,
            mutation_class=cls,
            veto_ms=window,
            message=f"{session.client_name} will {what}",
        )
        device._broadcast(device.watchers(), None, event)
        if window <= 0:
            return intent
        waiting = _Waiting(device.id, self.priority(session))
        self.waiting[intent] = waiting
        try:
            with anyio.move_on_after(window / 1000):
                await waiting.done.wait()
        finally:
            self.waiting.pop(intent, None)
        if waiting.vetoed_by is not None:
            raise refusal(
                ErrorCode.POLICY_BLOCKED,
                f"{waiting.vetoed_by} vetoed this action before it was dispatched "
                f"({waiting.vetoed_how})",
                ("do not retry it as is", "ask the person what to do instead"),
            )
        return intent

    def veto(self, session: Session, request: Veto) -> VetoResult:
        """``request``'s veto, by ``session``: only a controller token (``request_roles``;
        checked here too), whose declared kind outranks the actor's."""
        if session.role != "controller":
            raise BadRequest(
                ProtocolErrorCode.FORBIDDEN,
                "veto needs a controller token: an observer cannot stop another session's "
                "action, whatever kind it declares",
            )
        waiting = self.waiting.get(request.intent)
        if waiting is None or waiting.device != request.device:
            return VetoResult(intent=request.intent, vetoed=False)
        if self.priority(session) <= waiting.priority:
            raise BadRequest(
                ProtocolErrorCode.FORBIDDEN,
                "only a session that outranks the actor (a person over a script or an agent) "
                "may veto its action",
            )
        principal = session.principal.name if session.principal is not None else "?"
        waiting.vetoed_by = session.client_name or session.id
        waiting.vetoed_how = (
            f"{session.client_kind or 'client'}, session {session.id}, controller token {principal}"
        )
        waiting.done.set()
        return VetoResult(intent=request.intent, vetoed=True)
