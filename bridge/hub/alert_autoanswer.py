"""Auto-accept / auto-dismiss of system alerts, a lease option (``lease.acquire`` with
``alerts``): while the session that asked holds the device's lease, every alert that shows is
answered the way it asked, and observers see each answer as an ``action`` event (verb
``alert``, action ``AUTO_ACCEPT`` / ``AUTO_DISMISS``, the alert's title in ``message``).

Rules:
- one ``AutoAnswer`` per device, woken by every ingested capture (``poke``); it looks only
  when the screen's ``screenStateId`` changed since it last looked (one agent ``alert list``
  per distinct screen while the option is on, none when it is off);
- it takes the device's action lock for the list and the answer, so it never interleaves
  with an action; a device whose agent does not offer ``alerts`` is never asked;
- the option ends with the lease: when the session no longer holds it (released, preempted,
  disconnected) the policy is dropped before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio

from bridge.hub.action_queue import ActionSlot
from bridge.hub.device import DeviceRuntime
from bridge.net.agent_link import AgentLost
from bridge.wire.agent_link import AlertCommand
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.enums import ErrorCode

COMMAND_TIMEOUT_S = 5.0
MIN_GAP_S = 0.05


@dataclass(frozen=True)
class AlertPolicy:
    """``choice`` (accept / dismiss) asked by ``session`` (``client``) with its lease."""

    choice: str
    session: str
    client: str


class AutoAnswer:
    def __init__(self, device: DeviceRuntime, policies: dict[str, AlertPolicy], log: Any) -> None:
        self.device = device
        self.policies = policies
        self.log = log
        self.answered = 0
        self._wake = anyio.Event()
        self._looked_at: str | None = None

    def poke(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            try:
                await self._check()
            except (AgentLost, TimeoutError) as exc:
                self.log.warning("auto_alert_failed", device=self.device.id, error=str(exc))
            await anyio.sleep(MIN_GAP_S)

    def _policy(self) -> AlertPolicy | None:
        device = self.device
        policy = self.policies.get(device.id)
        if policy is None:
            return None
        lease = device.leases.lease
        if lease is None or policy.session not in lease.holders:
            self.policies.pop(device.id, None)  # the option ended with the lease
            return None
        return policy

    async def _check(self) -> None:
        device = self.device
        policy = self._policy()
        cap = device.current
        if policy is None or cap is None or "alerts" not in device.capabilities:
            self._looked_at = None
            return
        state = cap.normalized.full.screen_state_id
        if state == self._looked_at:
            return
        self._looked_at = state
        async with ActionSlot(device.action_lock):
            link = device.link
            if link is None or self._policy() is None:
                return
            listed = await link.command(
                lambda cid: AlertCommand(id=cid, action="list"), timeout_s=COMMAND_TIMEOUT_S
            )
            if not listed.ok or not listed.alerts:
                return
            title = listed.alerts[0].title
            choice = policy.choice
            reply = await link.command(
                lambda cid: AlertCommand(id=cid, action=choice), timeout_s=COMMAND_TIMEOUT_S
            )
        self.answered += reply.ok
        self._looked_at = None  # the next alert may share this screen's structure
        done = "accepted" if choice == "accept" else "dismissed"
        message = f"auto-{done} alert {title!r} (lease option of {policy.client})"
        if not reply.ok:
            message = f"could not auto-{choice} alert {title!r}: {reply.message or reply.code}"
        device.broadcast_event(
            ActionEvent(
                device=device.id,
                session=policy.session,
                client=policy.client,
                verb="alert",
                action=f"AUTO_{choice.upper()}",
                error=None if reply.ok else ErrorCode.ACTION_REJECTED,
                message=message,
            )
        )
        outcome = "DISPATCHED" if reply.ok else "REJECTED"
        self.log.info("action", device=device.id, verb="alert", action=f"AUTO_{choice.upper()}",
                      client=policy.client, outcome=outcome)  # fmt: skip
