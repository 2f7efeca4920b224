"""Relayed streams: 200 subscribers over three hubs rebuild ``snapshot.get`` exactly."""

from __future__ import annotations

import itertools
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bridge.client import build_query, connect
from bridge.wire.codec import WireFormat
from bridge.wire.enums import ActionVerb
from tests.farm.farmfixture import TOKEN, FarmHub, farm, nats_server, need_nats
from tests.farm.subscribers import subscribers, wait_until
from tests.farm.test_farm_e2e import farm_listed

pytestmark = [pytest.mark.anyio, need_nats]


def stats(hub: FarmHub) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{hub.port}/v1/stats", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


async def test_200_subscribers_over_three_hubs_rebuild_the_owner_snapshot(
    tmp_path: Path,
) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "B", "C") as hubs:
        a, b, c = hubs
        await farm_listed(a, {"sim-c"})
        await farm_listed(b, {"sim-c"})
        formats = itertools.cycle([WireFormat.JSON, WireFormat.MSGPACK])
        specs = [(hubs[i % 3].url, "sim-c", next(formats)) for i in range(200)]
        few = [(hub.url, "sim-c", fmt) for hub in (a, b) for fmt in WireFormat]
        async with (
            subscribers(specs) as subs,
            subscribers(few, compact=False) as full_subs,
            subscribers(few, settled=True) as settled_subs,
            connect(a.url, token=TOKEN, name="typist") as typist,
        ):
            dev = typist.device("sim-c")
            for word in ("farm", "relay", "deltas"):
                await dev.act_on(
                    build_query(resource_id="username"), ActionVerb.SET_TEXT, value=word
                )
                await dev.act_on(build_query(text="Sign in"), ActionVerb.CLICK)
            async with connect(c.url, token=TOKEN, name="truth") as owner:
                truth = await owner.device("sim-c").snapshot()
                full = await owner.device("sim-c").snapshot(compact=False)
            assert full.generation == truth.generation

            def caught_up() -> bool:
                every = [*subs, *full_subs, *settled_subs]
                return all(s.tracker.generation == truth.generation for s in every)

            await wait_until(caught_up, 10, "every subscriber at the owner's generation")
            for sub in subs:
                assert sub.errors == []
                assert sub.tracker.snapshot == truth.snapshot
                assert sub.deltas >= 3
            for sub in full_subs:
                assert sub.errors == [] and sub.tracker.snapshot == full.snapshot
            for sub in settled_subs:  # one delta per settled screen, never more than frames
                assert sub.errors == [] and sub.tracker.snapshot == truth.snapshot
                assert 1 <= sub.deltas <= subs[0].deltas
            # one relay per (stream, format) at the owner, one feed per hub and format
            owner = stats(c)["farm"]["owner"]["relays"]
            assert owner["sim-c:compact/json"] == ["A", "B"]
            assert owner["sim-c:compact/msgpack"] == ["A", "B"]
            for hub in (a, b):
                feeds = stats(hub)["farm"]["remote"]["relays"]
                on_hub = sum(1 for s in subs if s.url == hub.url and s.fmt is WireFormat.JSON)
                assert feeds["sim-c:compact/json"]["members"] == on_hub
                assert feeds["sim-c:compact/json"]["owner"] == "C"
            # the same answer from every hub
            for hub in hubs:
                async with connect(hub.url, token=TOKEN, name="get") as client:
                    got = await client.device("sim-c").snapshot()
                assert got.snapshot == truth.snapshot
        stats_c = c.log_text()
        assert "farm_relay_gap" not in stats_c
