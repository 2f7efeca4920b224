"""``devices.acquire`` on one hub (real websockets, the simulated device): first come, first
served; a waiter whose client goes away leaves the line; bounded and refused with reasons."""

from __future__ import annotations

import anyio
import pytest

from bridge.client import ProtocolFailure, connect
from bridge.client.errors import PolicyBlockedError
from bridge.wire.acquire import AcquireResult
from bridge.wire.client_protocol import DevicesList, DevicesListResult
from bridge.wire.enums import Platform, ProtocolErrorCode
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def queue_of(url: str) -> list[str]:
    async with connect(url, token=OBSERVER, name="looker") as hub:
        listed = await hub.call(DevicesList(id=hub.next_id()), DevicesListResult)
        return [w.client for w in listed.waiting]


async def test_waiters_are_served_in_arrival_order_and_a_gone_one_leaves_the_line() -> None:
    with anyio.fail_after(60):
        async with (
            running_hub(sim_scene="login") as rh,
            connect(rh.url, token=CONTROLLER, name="holder") as holder,
            connect(rh.url, token=CONTROLLER, name="first") as first,
            connect(rh.url, token=CONTROLLER, name="second") as second,
        ):
            got = await holder.acquire(platform=Platform.ANDROID, timeout_s=5)
            assert got.device == rh.device_id and got.waited_ms < 5000
            served: list[tuple[str, AcquireResult]] = []

            async def wait(name: str, hub: object) -> None:
                served.append((name, await hub.acquire(timeout_s=30)))  # type: ignore[attr-defined]

            async with anyio.create_task_group() as tg:
                async with connect(rh.url, token=CONTROLLER, name="quitter") as quitter:
                    tg.start_soon(wait, "quitter", quitter)
                    while await queue_of(rh.url) != ["quitter"]:
                        await anyio.sleep(0.05)
                    tg.start_soon(wait, "first", first)
                    while await queue_of(rh.url) != ["quitter", "first"]:
                        await anyio.sleep(0.05)
                    tg.start_soon(wait, "second", second)
                    while await queue_of(rh.url) != ["quitter", "first", "second"]:
                        await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()  # stops the three waiting calls...
            # ...so wait again, in order, without the quitter (its connection closed)
            async with anyio.create_task_group() as tg:
                tg.start_soon(wait, "first", first)
                while await queue_of(rh.url) != ["first"]:
                    await anyio.sleep(0.05)
                tg.start_soon(wait, "second", second)
                while await queue_of(rh.url) != ["first", "second"]:
                    await anyio.sleep(0.05)
                await holder.device(rh.device_id).release_lease()
                while len(served) < 1:
                    await anyio.sleep(0.05)
                assert served[0][0] == "first" and await queue_of(rh.url) == ["second"]
                await first.device(rh.device_id).release_lease()
            assert [name for name, _ in served] == ["first", "second"]


async def test_refusals_say_why() -> None:
    with anyio.fail_after(60):
        async with running_hub(sim_scene="login") as rh:
            async with connect(rh.url, token=OBSERVER, name="watcher") as observer:
                with pytest.raises(ProtocolFailure) as refused:
                    await observer.acquire(timeout_s=0)
                assert refused.value.code is ProtocolErrorCode.FORBIDDEN
            async with connect(rh.url, token=CONTROLLER, name="picky") as picky:
                with pytest.raises(PolicyBlockedError) as none:
                    await picky.acquire(platform=Platform.IOS, timeout_s=0)
                assert "no device of this hub matches" in str(none.value)
