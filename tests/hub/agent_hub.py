"""Shared by the cross-language end-to-end tests (Java and Swift host agents): a hub with no
simulated device linked to one agent URL, and reference-schema validation of what it returns.

Without ../shared the validation cannot run: locally the calling test is skipped (naming why,
like every skip here); under CI that skip is a failure (tests/conftest.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import msgspec
import pytest

from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from tests.skips import SHARED_ABSENT, SHARED_DIR


@asynccontextmanager
async def hub_on(url: str, *, agent_token: str, hub_token: str, name: str) -> AsyncIterator[Hub]:
    """A running hub on an ephemeral port, linked to the agent at ``url``, once it is online."""
    hub = Hub(
        HubConfig(
            port=0,
            sim=False,
            tokens={hub_token: Principal("controller", name)},
            agents=[AgentTarget(url, agent_token)],
        )
    )
    async with anyio.create_task_group() as tg:
        await tg.start(hub.run)
        with anyio.fail_after(15):
            while not any(d.online for d in hub.service.devices.values()):
                await anyio.sleep(0.05)
        try:
            yield hub
        finally:
            tg.cancel_scope.cancel()


def validate_reference(kind: str, obj: object) -> None:
    """Assert ``obj`` validates against the reference schema ``kind``."""
    if not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT)
    from tests.wire.schemas import reference_validator

    errors = list(reference_validator(kind).iter_errors(json.loads(msgspec.json.encode(obj))))
    assert not errors, (kind, [e.message for e in errors[:3]])
