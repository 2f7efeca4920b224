"""Leases and roles across the farm: the owner arbitrates, whoever's hub the client uses."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest

from bridge.client import HubError, ProtocolFailure, build_query, connect
from bridge.wire.enums import ActionVerb, ErrorCode, ProtocolErrorCode
from tests.farm.farmfixture import OBSERVER, TOKEN, farm, nats_server, need_nats
from tests.farm.test_farm_e2e import farm_listed
from tests.farm.test_farm_faults import BOUND_S

pytestmark = [pytest.mark.anyio, need_nats]


async def test_exclusive_lease_through_a_blocks_b_until_a_disappears(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "B", "C") as (a, b, c):
        await farm_listed(a, {"sim-c"})
        await farm_listed(b, {"sim-c"})
        async with (
            connect(a.url, token=TOKEN, name="holder-on-a") as holder,
            connect(b.url, token=TOKEN, name="rival-on-b") as rival,
        ):
            leased = await holder.device("sim-c").acquire_lease("exclusive")
            assert leased.lease is not None and leased.lease.holder_names == ("holder-on-a",)
            assert leased.lease.holders[0].startswith("A/")
            with pytest.raises(HubError) as blocked:
                await rival.device("sim-c").act_on(
                    build_query(resource_id="username"), ActionVerb.SET_TEXT, value="rival"
                )
            assert blocked.value.code is ErrorCode.POLICY_BLOCKED
            assert "holder-on-a" in str(blocked.value)
            with pytest.raises(HubError) as taken:
                await rival.device("sim-c").acquire_lease("exclusive")
            assert taken.value.code is ErrorCode.POLICY_BLOCKED
            # the holder acts; B's list shows who holds the lease
            await holder.device("sim-c").act_on(
                build_query(resource_id="username"), ActionVerb.SET_TEXT, value="holder"
            )
            with anyio.fail_after(5):
                while True:
                    listed = {d.id: d for d in await rival.devices()}
                    lease = listed["sim-c"].lease
                    if lease is not None and lease.holder_names == ("holder-on-a",):
                        break
                    await anyio.sleep(0.1)
        # the holder's connection closed: A tells C, the lease ends
        async with connect(b.url, token=TOKEN, name="rival-on-b") as rival:
            with anyio.fail_after(5):
                while True:
                    try:
                        await rival.device("sim-c").acquire_lease("exclusive")
                        break
                    except HubError:
                        await anyio.sleep(0.1)
            await rival.device("sim-c").release_lease()

        # a holder whose hub disappears: the lease is released within the bound
        async with connect(a.url, token=TOKEN, name="doomed-holder") as holder:
            await holder.device("sim-c").acquire_lease("exclusive")
            killed = time.monotonic()
            a.kill9()
        async with connect(b.url, token=TOKEN, name="rival-on-b") as rival:
            with anyio.fail_after(BOUND_S + 2):
                while True:
                    try:
                        await rival.device("sim-c").acquire_lease("exclusive")
                        break
                    except HubError as exc:
                        assert exc.code is ErrorCode.POLICY_BLOCKED
                        await anyio.sleep(0.1)
            released = time.monotonic() - killed
        lines = [json.loads(x) for x in c.log_text().splitlines() if x.startswith("{")]
        assert any(x.get("event") == "farm_hub_gone" and x.get("hub") == "A" for x in lines)
        print(f"\nfarm lease: holder's hub A killed -> lease free for B after {released:.2f} s")


async def test_roles_travel_with_forwarded_requests(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "C") as (a, _):
        await farm_listed(a, {"sim-c"})
        async with connect(a.url, token=OBSERVER, name="watcher-on-a") as watcher:
            found = await watcher.device("sim-c").find(build_query(resource_id="username"))
            assert found.count == 1
            with pytest.raises(ProtocolFailure) as forbidden:
                await watcher.device("sim-c").act_on(
                    build_query(resource_id="username"), ActionVerb.SET_TEXT, value="nope"
                )
            assert forbidden.value.code is ProtocolErrorCode.FORBIDDEN
            with pytest.raises(ProtocolFailure) as no_lease:
                await watcher.device("sim-c").acquire_lease()
            assert no_lease.value.code is ProtocolErrorCode.FORBIDDEN
