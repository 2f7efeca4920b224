"""Client requests for a device's network state (issue 35): airplane mode, Wi-Fi and mobile
data — what Maestro's ``setAirplaneMode`` / ``toggleAirplaneMode`` need.

``network.set`` is a device action (controller role, lease, the device's FIFO, an ``action``
event; answered with the reference ActionResult): each of ``airplane``, ``wifi`` and ``data``
given is switched on (true) or off (false); at least one must be given. ``network.get`` is a
read (an observer may send it) answered with ``NetworkState``; a part the device cannot read
is null.

Where it works: the simulated device (all three); Android through adb, agentless or beside
the agent (``cmd connectivity airplane-mode``, ``svc wifi``, ``svc data``); an iPhone refuses
both with ACTION_UNSUPPORTED (no test runner may switch its radios; Apple offers no API).

Over the agent link the hub sends ``NetworkCommand`` (``bridge.wire.agent_link``); its reply's
``text`` carries the state after the command as ``airplane=on wifi=off data=on`` (``?`` for a
part unknown) — ``state_text`` writes it, ``parse_state`` reads it.
"""

from __future__ import annotations

import re

from bridge.wire.base import DeviceId, WireStruct
from bridge.wire.request_parts import Confirm, Request

_PART = re.compile(r"\b(airplane|wifi|data)=(on|off|\?)")


class NetworkSet(Request, tag="network.set", frozen=True):
    """Switch airplane mode, Wi-Fi and/or mobile data on (true) or off (false)."""

    device: DeviceId
    airplane: bool | None = None
    wifi: bool | None = None
    data: bool | None = None
    confirm: Confirm | None = None

    def __post_init__(self) -> None:
        if self.airplane is None and self.wifi is None and self.data is None:
            raise ValueError("give airplane, wifi or data (true or false)")


class NetworkGet(Request, tag="network.get", frozen=True):
    """The device's network state (a read)."""

    device: DeviceId


class NetworkState(WireStruct, frozen=True):
    """Airplane mode, Wi-Fi and mobile data: on (true), off (false) or unknown (null)."""

    device: DeviceId
    airplane: bool | None = None
    wifi: bool | None = None
    data: bool | None = None


NetworkRequest = NetworkSet | NetworkGet
NETWORK_RESULTS: dict[str, type[WireStruct]] = {
    "network.get": NetworkState,
}
"""Result bodies of the network requests beside ActionResult (``network.set``)."""


def state_text(airplane: bool | None, wifi: bool | None, data: bool | None) -> str:
    """The agent reply's form of a network state (``airplane=on wifi=off data=?``)."""

    def word(v: bool | None) -> str:
        return "?" if v is None else ("on" if v else "off")

    return f"airplane={word(airplane)} wifi={word(wifi)} data={word(data)}"


def parse_state(text: str | None) -> tuple[bool | None, bool | None, bool | None]:
    """(airplane, wifi, data) from ``state_text``'s form; unknown parts are None."""
    found = {m.group(1): m.group(2) for m in _PART.finditer(text or "")}

    def value(name: str) -> bool | None:
        said = found.get(name, "?")
        return None if said == "?" else said == "on"

    return value("airplane"), value("wifi"), value("data")
