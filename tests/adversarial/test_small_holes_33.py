"""Issue 33.9, the smaller holes: journal times past 2^63 ms; the dashboard's websocket from
the address a 0.0.0.0-bound hub was opened at (another 127.x address stands in for the LAN
one); a built-in simulated device and an ``--agent`` announcing the same id; and a hub that
must exit promptly on SIGTERM after a flood of clients that never read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from bridge.cli.main import EXIT_GRACE_S
from bridge.hub.app import AgentTarget
from tests.adversarial.harness import ROGUE_TOKEN, RogueAgent, call, client, hub_under_attack
from tests.cli.hubproc import LISTENING, ROOT, clean_env, mobridge_command
from tests.hub.hubfixture import CONTROLLER


async def test_journal_times_past_2_63_are_refused_not_internal_errors(tmp_path: Path) -> None:
    async with hub_under_attack(journal=tmp_path / "j.sqlite3") as rh, client(rh.url) as ws:
        dev = rh.device_id
        for n, at in enumerate(
            ("9223372036854775808", "99999999999999999999999999", "-999999999999999999999d"),
            start=1,
        ):
            for message in (
                {"type": "journal.at", "id": n, "device": dev, "at": at},
                {"type": "journal.timeline", "id": 100 + n, "device": dev, "until": at},
                {"type": "snapshot.get", "id": 200 + n, "device": dev, "at": at},
            ):
                reply = await call(ws, message)
                assert reply["type"] == "protocol_error", reply
                assert reply["code"] == "INVALID_PARAMS", reply
                assert "outside the times" in reply["message"], reply


async def test_the_dashboard_connects_from_the_address_it_was_opened_at() -> None:
    async with hub_under_attack() as rh:
        port = rh.port
        headers = {"Authorization": f"Bearer {CONTROLLER}"}
        # the page was opened at http://127.0.0.2:PORT (a LAN address of a 0.0.0.0 hub):
        # its websocket says Host and Origin 127.0.0.2; the TCP connection goes to the hub
        async with ws_connect(
            f"ws://127.0.0.2:{port}/v1",
            host="127.0.0.1",
            port=port,
            origin=f"http://127.0.0.2:{port}",  # type: ignore[arg-type]
            additional_headers=headers,
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "client": {"name": "page"}}))
            assert json.loads(await ws.recv())["type"] == "result"
        # another site's page, or a DNS name pointing here (rebinding), stays refused
        for url, origin in (
            (f"ws://127.0.0.1:{port}/v1", "http://evil.example"),
            (f"ws://rebind.example:{port}/v1", f"http://rebind.example:{port}"),
        ):
            with pytest.raises(InvalidStatus) as refused:
                async with ws_connect(
                    url,
                    host="127.0.0.1",
                    port=port,
                    origin=origin,  # type: ignore[arg-type]
                    additional_headers=headers,
                ):
                    pass
            assert refused.value.response.status_code == 403


async def test_an_agent_with_the_built_in_sims_id_always_gets_it() -> None:
    rogue = RogueAgent(device_id="sim-android")
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with hub_under_attack(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]) as rh:
            device = rh.hub.service.devices["sim-android"]
            with anyio.fail_after(10):
                while device.link is None or device.link.url != rogue.url or not device.online:
                    await anyio.sleep(0.05)
            await anyio.sleep(1.0)  # the sim does not come back for it
            assert device.link is not None and device.link.url == rogue.url
            assert rh.hub._owners["sim-android"] == rogue.url
            assert not any(url in rh.hub._links for url in rh.hub._sim_urls)
        tg.cancel_scope.cancel()


def start_hub(runtime: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        mobridge_command(
            "serve", "--port", "0", "--no-dashboard", "--no-journal", "--token", CONTROLLER
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    assert process.stdout is not None
    for _ in range(50):
        line = process.stdout.readline()
        if not line:
            break
        if (found := LISTENING.match(line.rstrip("\n"))) is not None:
            return process, int(found.group(1))
    process.kill()
    raise AssertionError("the hub did not start")


async def test_sigterm_after_a_flood_exits_promptly(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    process, port = await anyio.to_thread.run_sync(start_hub, runtime)
    try:
        url = f"ws://127.0.0.1:{port}/v1"
        async with anyio.create_task_group() as tg:
            ready = [0]

            async def subscriber(k: int) -> None:
                # subscribes, then never reads: the hub's queue for it fills
                async with ws_connect(
                    url, additional_headers={"Authorization": f"Bearer {CONTROLLER}"}
                ) as ws:
                    await ws.send(
                        json.dumps({"type": "hello", "id": 1, "client": {"name": f"f{k}"}})
                    )
                    await ws.send(
                        json.dumps({"type": "subscribe", "id": 2, "device": "sim-android"})
                    )
                    ws.transport.pause_reading()
                    ready[0] += 1
                    await anyio.sleep_forever()

            for k in range(40):
                tg.start_soon(subscriber, k)
            with anyio.fail_after(30):
                while ready[0] < 40:
                    await anyio.sleep(0.05)
            async with client(url) as ws:  # a burst of work in the hub
                for n in range(200):
                    await ws.send(
                        json.dumps({"type": "snapshot.get", "id": n, "device": "sim-android"})
                    )
            started = time.monotonic()
            os.kill(process.pid, signal.SIGTERM)
            await anyio.to_thread.run_sync(process.wait)
            took = time.monotonic() - started
            tg.cancel_scope.cancel()
        assert took < EXIT_GRACE_S + 2, f"the hub took {took:.1f} s to exit"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
