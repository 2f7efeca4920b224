"""The hub side of a device's network state (issue 35): ``network.set`` (airplane mode, Wi-Fi,
mobile data) as a device action, ``network.get`` as a read.

``network.set`` runs through the device-action pipeline of ``bridge.hub.device_actions``
(controller role, lease, FIFO, cancel, policy, dispatch, observation, ``action`` event) with
one agent command, ``network``, and capability ``network``. Its mutation class is
SIDE_EFFECT: it changes what every app on the device can reach, and is switched back the same
way. A device without the capability is refused ACTION_UNSUPPORTED with one line saying why;
an iPhone's says that no test runner can switch its radios.

``network.get``: no lease, one ``network`` command with nothing to switch; the reply's text
(``bridge.wire.device_network.state_text``) becomes ``NetworkState``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from bridge.core.mutation import MutationVerdict
from bridge.hub.capability_actions import _read
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.device_actions import Plan, Planner, run_device_action
from bridge.hub.policy import action_subject
from bridge.net.client_server import Session
from bridge.wire.action import ActionResult
from bridge.wire.agent_link import HubToAgent, NetworkCommand
from bridge.wire.device_network import NetworkGet, NetworkSet, NetworkState, parse_state
from bridge.wire.enums import MutationClass, Platform

if TYPE_CHECKING:
    from bridge.hub.handler_context import HandlerContext

IOS_NO_NETWORK = (
    "an iPhone lets no test runner switch airplane mode, Wi-Fi or cellular data (Apple offers "
    "no API; the Network Link Conditioner is set by hand in Settings > Developer)"
)
OTHER_NO_NETWORK = (
    "its agent cannot switch the network (Android: run it agentless, or with adb reachable "
    "by the hub)"
)


def _said(msg: NetworkSet) -> str:
    parts = [
        f"{name} {'on' if value else 'off'}"
        for name, value in (
            ("airplane mode", msg.airplane),
            ("Wi-Fi", msg.wifi),
            ("data", msg.data),
        )
        if value is not None
    ]
    return ", ".join(parts)


def names(msg: NetworkSet) -> tuple[str, str]:
    """(event verb, event action): ``network`` and NETWORK_SET."""
    return "network", "NETWORK_SET"


def plan(svc: HandlerContext, device: DeviceRuntime, msg: NetworkSet, before: Capture) -> Plan:
    verb, action = names(msg)
    airplane, wifi, data = msg.airplane, msg.wifi, msg.data

    def make(cid: int) -> HubToAgent:
        return NetworkCommand(id=cid, airplane=airplane, wifi=wifi, data=data)

    said = _said(msg)
    return Plan(
        verb,
        action,
        said,
        ("network",),
        MutationVerdict(MutationClass.SIDE_EFFECT, financial=False),
        action_subject(device, "network", said, False),
        ((said, make),),
        lacking=IOS_NO_NETWORK if device.platform is Platform.IOS else OTHER_NO_NETWORK,
    )


NETWORK_PLANNER = Planner(names, plan)


async def run_network_action(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: NetworkSet
) -> ActionResult:
    """``network.set`` through the device-action pipeline (module rules)."""
    return await run_device_action(svc, session, device, cast(Any, msg), NETWORK_PLANNER)


async def read_network(
    svc: HandlerContext, session: Session, device: DeviceRuntime, msg: NetworkGet
) -> NetworkState:
    """``network.get``: the state the device reports (unknown parts null)."""
    what = (
        "read its network state (" + IOS_NO_NETWORK + ")"
        if device.platform is Platform.IOS
        else "read its network state"
    )
    reply = await _read(
        svc, session, msg.id, device, "network", what, lambda cid: NetworkCommand(id=cid)
    )
    airplane, wifi, data = parse_state(reply.text)
    return NetworkState(device=device.id, airplane=airplane, wifi=wifi, data=data)
