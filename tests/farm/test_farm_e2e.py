"""A farm of three hubs (real nats-server, hubs as subprocesses): any hub serves any device."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import msgspec
import pytest

from bridge.client import ProtocolFailure, build_query, connect
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.conditions import ScreenShown
from bridge.wire.enums import ActionVerb, VerificationPolicy
from tests.farm.farmfixture import SECRET, TOKEN, FarmHub, farm, nats_server, need_nats

pytestmark = [pytest.mark.anyio, need_nats]


async def farm_listed(hub: FarmHub, devices: set[str], within_s: float = 10.0) -> dict[str, object]:
    """Wait until ``hub`` lists every device of ``devices`` online; returns id -> summary."""
    async with connect(hub.url, token=TOKEN, name="lister") as client:
        with anyio.fail_after(within_s):
            while True:
                listed = {d.id: d for d in await client.devices()}
                if all(d in listed and listed[d].online for d in devices):
                    return dict(listed)
                await anyio.sleep(0.1)


async def test_a_client_on_hub_a_logs_in_on_hub_c_device(tmp_path: Path) -> None:
    with nats_server(tmp_path) as nats, farm(tmp_path, nats, "A", "B", "C") as (a, b, c):
        listed = await farm_listed(a, {"sim-a", "sim-b", "sim-c"})
        assert {k: v.owner for k, v in listed.items()} == {  # type: ignore[attr-defined]
            "sim-a": "A",
            "sim-b": "B",
            "sim-c": "C",
        }
        async with connect(a.url, token=TOKEN, name="farm-e2e-agent") as hub:
            dev = hub.device("sim-c")
            user = await dev.find(build_query(resource_id="username"))
            assert user.count == 1
            # the owner's snapshot ids: resolution runs at C, in C's id space
            assert user.snapshot_id.startswith("s_")
            await dev.act(
                ActionRequest(action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="demo")
            )
            await dev.act_on(
                build_query(resource_id="password"),
                ActionVerb.SET_TEXT,
                value_ref="secret://demo/password",
            )
            sign_in = await dev.find(build_query(text="Sign in"))
            result = await dev.act(
                ActionRequest(
                    action=ActionVerb.CLICK,
                    target=sign_in.matches[0].ref,
                    verify=Verify(
                        policy=VerificationPolicy.EXPLICIT_CONDITION,
                        expected=ScreenShown(name="home"),
                        timeout_ms=5000,
                    ),
                )
            )
            assert result.verification is not None
            assert result.verification.result.value == "CONDITION_MET"
            waited = await dev.wait(ScreenShown(name="home"))
            assert waited.result.value == "CONDITION_MET"
            history = await dev.history()
            assert [
                e.event.action for e in history.entries if isinstance(e.event, ActionEvent)
            ] == [
                "SET_TEXT",
                "SET_TEXT",
                "CLICK",
            ]
            shot = await dev.screenshot()
            assert shot.url.startswith(f"http://127.0.0.1:{a.port}/")
            png = await dev.fetch_screenshot(shot)
            assert png.startswith(b"\x89PNG")
            # the real client is named in the owner's log, never the secret
            assert SECRET not in msgspec.json.encode(history).decode()
        await anyio.sleep(0.3)
        lines = [json.loads(line) for line in c.log_text().splitlines() if line.startswith("{")]
        actions = [line for line in lines if line.get("event") == "action"]
        assert actions and all(line["client"] == "farm-e2e-agent" for line in actions)
        assert all(line["session"].startswith("A/") for line in actions)
        assert SECRET not in c.log_text() and SECRET not in a.log_text()
        # the device stays C's: B sees the result too, and unknown devices stay unknown
        async with connect(b.url, token=TOKEN, name="b-client") as other:
            waited = await other.device("sim-c").wait(ScreenShown(name="home"), timeout_ms=100)
            assert waited.result.value == "CONDITION_MET"
            with pytest.raises(ProtocolFailure) as refused:
                await other.device("no-such-device").snapshot()
            assert "no-such-device" in str(refused.value)
