"""Both agent-link paths give the same snapshots: one simulated device, two hubs linked to
it — one taking tree deltas, one taking every tree whole — and actions that change texts,
states and the shape of the screen. After each step both hubs show the same screen (same
treeHash, same nodes up to their ids: each hub numbers nodes itself)."""

from __future__ import annotations

import secrets

import anyio
import msgspec
import pytest

from bridge.client import build_query, connect
from bridge.devices.sim import SimConfig, SimDevice
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.net.auth import Principal
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb
from bridge.wire.snapshot import ScreenSnapshot

pytestmark = pytest.mark.anyio
TOKEN = "tree-delta-controller"


def _without_ids(snapshot: ScreenSnapshot) -> list[object]:
    """The nodes with ids replaced by their pre-order positions."""
    position = {n.node_id: i for i, n in enumerate(snapshot.nodes)}
    out = []
    for n in snapshot.nodes:
        coll = n.collection
        if coll is not None and coll.scroll_container_id is not None:
            coll = msgspec.structs.replace(
                coll, scroll_container_id=f"n{position[coll.scroll_container_id]}"
            )
        parent = f"n{position[n.parent_id]}" if n.parent_id is not None else None
        out.append(
            msgspec.structs.replace(
                n, node_id=f"n{position[n.node_id]}", parent_id=parent, collection=coll
            )
        )
    return out


async def test_delta_and_full_tree_hubs_show_the_same_screens() -> None:
    sim_token = secrets.token_urlsafe(16)
    sim = SimDevice(SimConfig(token=sim_token, port=0, scene="login", action_ms=0))
    async with anyio.create_task_group() as tg:
        port = await tg.start(sim.serve)
        url = f"ws://127.0.0.1:{port}"
        hubs = []
        for deltas in (True, False):
            hub = Hub(
                HubConfig(
                    host="127.0.0.1",
                    port=0,
                    tokens={TOKEN: Principal("controller", "t")},
                    sim=False,
                    agents=[AgentTarget(url, sim_token)],
                    agent_tree_deltas=deltas,
                )
            )
            await tg.start(hub.run)
            hubs.append(hub)
        with_deltas, whole = hubs
        device_id = next(iter(with_deltas.service.devices))

        async def same_screen() -> None:
            a = with_deltas.service.devices[device_id]
            b = whole.service.devices[device_id]
            with anyio.fail_after(10):
                while True:
                    ca, cb = a.current, b.current
                    if ca is not None and cb is not None:
                        fa, fb = ca.normalized.full, cb.normalized.full
                        if fa.tree_hash == fb.tree_hash and ca.normalized.layout_hash == (
                            cb.normalized.layout_hash
                        ):
                            break
                    await anyio.sleep(0.02)
            assert _without_ids(fa) == _without_ids(fb)
            assert _without_ids(ca.normalized.compact) == _without_ids(cb.normalized.compact)

        await same_screen()
        async with connect(f"ws://127.0.0.1:{with_deltas.port}/v1", token=TOKEN) as client:
            dev = client.device(device_id)
            for field, value in (("username", "ada"), ("username", "ada lovelace")):
                found = await dev.find(build_query(resource_id=field))
                await dev.act(
                    ActionRequest(
                        action=ActionVerb.SET_TEXT, target=found.matches[0].ref, value=value
                    )
                )
                await same_screen()
            found = await dev.find(build_query(resource_id="login"))
            await dev.act(ActionRequest(action=ActionVerb.CLICK, target=found.matches[0].ref))
            await same_screen()  # an error text appeared: a new shape
        links = [h.service.devices[device_id].link for h in hubs]
        assert links[0] is not None and links[0].deltas_enabled and links[0].stats.deltas >= 2
        assert links[1] is not None and not links[1].deltas_enabled and links[1].stats.deltas == 0
        tg.cancel_scope.cancel()
