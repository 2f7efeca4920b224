"""A device layer beside the agent: commands the hub's driver answers itself, for what an agent
cannot do from inside the device (an iPhone's simulated location through pymobiledevice3; the
Simulator's ``simctl privacy``, ``location``, ``pbcopy``/``pbpaste``).

A driver hands the hub a ``DeviceLayer`` with the agent's URL (``AgentTarget.device_layer``);
the hub adds its ``capabilities`` to the ones the agent announced and, before sending a command
to the agent, asks ``answer``: a ``Reply`` (its id is the command's) ends there, None sends the
command to the agent as usual. ``answer`` raises nothing for an expected failure (it is a
failed ``Reply``).
"""

from __future__ import annotations

from typing import Protocol

from bridge.wire.agent_link import HubToAgent, Reply


class DeviceLayer(Protocol):
    capabilities: tuple[str, ...]

    async def answer(self, command: HubToAgent) -> Reply | None:
        """The reply to ``command`` when this layer handles it, else None."""
        ...
