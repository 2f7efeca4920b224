"""``snapshot.get`` with ``fresh``: the agent captures anew and the answer is made of that
capture; the summary carries the agent's version and the OS version from its hello."""

from __future__ import annotations

import anyio
import pytest

from bridge import __version__
from bridge.client import connect
from bridge.wire.client_protocol import SnapshotGet
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def test_fresh_snapshot_asks_the_agent_for_a_capture() -> None:
    async with running_hub() as rh:
        device = rh.hub.service.devices[rh.device_id]
        assert device.link is not None
        async with connect(rh.url, token=OBSERVER, name="reader") as client:
            dev = client.device(rh.device_id)
            before_link = device.link.stats.commands
            before_no = device.current.capture_no if device.current else -1
            cached = await dev.snapshot()
            assert device.link.stats.commands == before_link, "a plain read captures nothing"
            fresh = await dev.snapshot(compact=False, fresh=True)
            assert device.link.stats.commands == before_link + 1
            assert device.current is not None and device.current.capture_no > before_no
            assert fresh.snapshot.nodes and not fresh.snapshot.compact
            assert fresh.generation == cached.generation, "same screen: same generation"
            # Concurrent fresh reads share captures: never more commands than requests.
            start = device.link.stats.commands
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(dev.snapshot, True)
                    tg.start_soon(lambda: dev.snapshot(fresh=True))
            assert 1 <= device.link.stats.commands - start <= 5


async def test_fresh_defaults_to_false_on_the_wire_and_the_summary_names_versions() -> None:
    assert SnapshotGet(id=1, device="d").fresh is False
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="t") as client:
        (summary,) = await client.devices()
        assert summary.agent_version == __version__
        assert summary.agent == f"mobridge-sim {__version__}"
        assert summary.os_version is not None
