"""A real hub on 127.0.0.1 (ephemeral port) with the simulated device, for end-to-end tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from bridge.hub.app import Hub, HubConfig
from bridge.net.auth import Principal

CONTROLLER = "controller-token-for-tests"
CONTROLLER_2 = "second-controller-token"
OBSERVER = "observer-token-for-tests"
PERSON = "person-controller-token"
"""A third controller token (a person at the dashboard, who may veto)."""


@dataclass
class RunningHub:
    hub: Hub
    port: int

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1"

    @property
    def device_id(self) -> str:
        return next(iter(self.hub.service.devices))


@asynccontextmanager
async def running_hub(**overrides: object) -> AsyncIterator[RunningHub]:
    config = HubConfig(
        host="127.0.0.1",
        port=0,
        tokens={
            CONTROLLER: Principal("controller", "c1"),
            CONTROLLER_2: Principal("controller", "c2"),
            PERSON: Principal("controller", "p1"),
            OBSERVER: Principal("observer", "o1"),
        },
    )
    for key, value in overrides.items():
        setattr(config, key, value)
    hub = Hub(config)
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        with anyio.fail_after(10):
            while not any(d.online for d in hub.service.devices.values()):
                await anyio.sleep(0.02)
        try:
            yield RunningHub(hub, port)
        finally:
            tg.cancel_scope.cancel()
