"""No text is an answer, not an error: a canvas whose screenshot is blank, then black, then
noise (a game's loading screen, a paused video) gives no vision nodes, the device stays
online, and a subscriber sees nothing change. And a fault of the engine itself (Tesseract
raised ``RuntimeError: No text returned`` on such images, in the task group of the device's
link) is counted and logged once, and the device stays linked.

The first test runs a real ``mobridge serve --vision`` against an agent-link server in this
process standing in for a phone (none exists here)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from PIL import Image

from bridge.bench.vision_blank import BlankAgent
from bridge.client import connect
from bridge.wire.enums import Source
from tests.cli.hubproc import LISTENING, ROOT, clean_env, mobridge_command
from tests.skips import need_vision
from tests.vision.test_overlay import game_tree

pytestmark = pytest.mark.anyio

AGENT_TOKEN = "blank-canvas-agent-token"
CONTROL = "blank-canvas-controller-token"
DEVICE = "blank-canvas-1"
KINDS = ("blank", "black", "noise")
ROUNDS = 2
"""Screenshots of each kind the hub must have looked at before the test judges."""


def start_hub(tmp_path: Path, agent_port: int) -> tuple[subprocess.Popen[str], int]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    process = subprocess.Popen(
        mobridge_command(
            "serve",
            "--port",
            "0",
            "--no-sim",
            "--no-dashboard",
            "--vision",
            "--token",
            CONTROL,
            "--agent",
            f"ws://127.0.0.1:{agent_port}",
            "--agent-token",
            AGENT_TOKEN,
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    assert process.stdout is not None
    port = None
    for _ in range(50):
        line = process.stdout.readline()
        if not line:
            break
        if (found := LISTENING.match(line.rstrip("\n"))) is not None:
            port = int(found.group(1))
        if line.startswith("devices:"):
            break
    if port is None:
        process.kill()
        raise AssertionError("the hub did not start")
    return process, port


@need_vision
async def test_blank_black_and_noise_canvases_read_as_nothing_and_the_device_stays_online(
    tmp_path: Path,
) -> None:
    agent = BlankAgent(
        KINDS,
        tree=game_tree(),
        device=DEVICE,
        token=AGENT_TOKEN,
        enough_after=ROUNDS * len(KINDS),
    )
    async with anyio.create_task_group() as tg:
        agent_port = await tg.start(agent.serve)
        process, port = await anyio.to_thread.run_sync(start_hub, tmp_path, agent_port)
        try:
            async with connect(f"ws://127.0.0.1:{port}/v1", token=CONTROL, name="t") as hub:
                with anyio.fail_after(60):
                    while not any(d.id == DEVICE and d.online for d in await hub.devices()):
                        await anyio.sleep(0.05)
                result, channel = await hub.subscribe(DEVICE, compact=False)
                before = result.snapshot
                with anyio.fail_after(90):  # the hub looks again every 2 s while blind
                    await agent.enough.wait()
                (summary,) = [d for d in await hub.devices() if d.id == DEVICE]
                assert summary.online, summary
                after = (await hub.device(DEVICE).snapshot(compact=False)).snapshot
                assert not [n for n in after.nodes if n.source is Source.VISION]
                assert [n.node_id for n in after.nodes] == [n.node_id for n in before.nodes]
                assert channel.receive.statistics().current_buffer_used == 0  # no change
                assert process.poll() is None
        finally:
            process.terminate()
            await anyio.to_thread.run_sync(process.wait)
            tg.cancel_scope.cancel()


class FailingEngine:
    """An engine that fails as Tesseract did on a blank canvas (fault injection: the real
    engines no longer raise there)."""

    name = "failing"

    def __init__(self) -> None:
        self.calls = 0

    def read(self, image: Image.Image) -> tuple[Any, ...]:
        self.calls += 1
        raise RuntimeError("No text returned")


@need_vision
async def test_an_engine_that_raises_is_counted_logged_once_and_the_device_stays_linked() -> None:
    from structlog.testing import capture_logs

    from bridge.client import build_query
    from tests.hub.hubfixture import CONTROLLER, running_hub

    with capture_logs() as logs:
        async with running_hub(vision=True, sim_scene="game") as rh:
            vision = rh.hub.service.vision
            assert vision is not None
            failing = FailingEngine()
            vision.reader.engine = failing
            async with connect(rh.url, token=CONTROLLER, name="t") as hub:
                dev = hub.device(rh.device_id)
                with anyio.fail_after(60):  # the hub looks again every 2 s while blind
                    while vision.reader.stats.failures < 3:
                        vision.reader.forget()  # a failure is cached as no text
                        await anyio.sleep(0.2)
                summary = [d for d in await hub.devices() if d.id == rh.device_id]
                assert summary and summary[0].online
                assert (await dev.find(build_query(role="CANVAS"))).count == 1
            stats = rh.hub.service.statistics()["vision"]
            assert isinstance(stats, dict) and stats["engine_failures"] >= 3
    failed = [e for e in logs if e.get("event") == "vision_engine_failed"]
    assert len(failed) == 1, failed
    assert "No text returned" in str(failed[0].get("error"))
