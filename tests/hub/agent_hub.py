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

from bridge.client import build_query, connect
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest
from bridge.wire.agent_link import CaptureCommand
from bridge.wire.enums import ActionVerb
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


async def assert_tree_deltas_rebuild_the_screen(hub: Hub, *, hub_token: str, name: str) -> None:
    """Type twice into the username field through ``hub``; then the link must have taken tree
    deltas (none refused), and the screen the hub rebuilt from them must be the one a whole
    capture normalizes to (same tree hash, the typed value present)."""
    (device,) = hub.service.devices.values()
    async with connect(f"ws://127.0.0.1:{hub.port}/v1", token=hub_token, name=name) as client:
        dev = client.device(device.id)
        for value in ("ada", "ada lovelace"):
            user = await dev.find(build_query(resource_id="username"))
            await dev.act(
                ActionRequest(action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value=value)
            )
    link = device.link
    assert link is not None and link.deltas_enabled
    assert link.stats.deltas >= 2 and link.stats.delta_refusals == 0
    current = device.current
    assert current is not None
    reply = await link.command(lambda cid: CaptureCommand(id=cid))
    assert reply.tree is not None
    whole = normalize(reply.tree, SnapshotContext(device.id, "s_1", 0))
    assert isinstance(whole, Normalized)
    assert whole.full.tree_hash == current.normalized.full.tree_hash
    assert any(n.value == "ada lovelace" for n in current.normalized.full.nodes)


def validate_reference(kind: str, obj: object) -> None:
    """Assert ``obj`` validates against the reference schema ``kind``."""
    if not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT)
    from tests.wire.schemas import reference_validator

    errors = list(reference_validator(kind).iter_errors(json.loads(msgspec.json.encode(obj))))
    assert not errors, (kind, [e.message for e in errors[:3]])
