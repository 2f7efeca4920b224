"""Vision on a blank canvas for minutes: the device stays online and the hub's RSS stays flat.

A real ``mobridge serve --vision --no-sim`` (its own process) linked to an agent-link server in
this process standing in for a phone (none exists here): one tree whose game canvas is a
SurfaceView (a region the accessibility tree is blind to), and for every screenshot the hub
asks for the next of a blank (white), black, grey and noise picture (the noise one fixed: its
hash is cached after the first reading). The hub's vision loop looks again every few seconds
while blind; a uniform picture is no text without running the models.

Every ``SAMPLE_S`` it notes the hub's RSS (``/proc``) and whether the device is online,
from ``WARMUP_S`` on (models loaded, the first readings done), so growth measures leaks, not
warm-up. One sample is noisy (a screenshot being decoded holds its pixels, ~10 MB, until the
reading ends), so growth compares the median RSS of the first and the last quarter of the
samples. Bound: growth under ``RSS_BOUND`` (10%, the soak's bound), the device online at
every sample, the hub alive.

``python -m bridge.bench.vision_blank --minutes 10`` runs it for N minutes (exit status 1 when
a bound is broken); ``scripts/bench --only vision_blank`` runs one minute (20 s with --quick).
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from PIL import Image
from websockets.asyncio.server import ServerConnection, serve

from bridge.wire.agent_link import (
    AgentHello,
    AgentInfo,
    DeviceInfo,
    Reply,
    ScreenshotCommand,
    TreePush,
)
from bridge.wire.codec import HUB_TO_AGENT, encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow

AGENT_TOKEN = "bench-blank-agent-token"
CONTROL = "bench-blank-controller-token"
DEVICE = "blank-canvas"
SCREEN = (0, 0, 1080, 2400)
CANVAS = (0, 200, 1080, 2300)
KINDS = ("blank", "black", "grey", "noise")
WARMUP_S = 30.0
SAMPLE_S = 5.0
RSS_BOUND = 0.10


def _png(kind: str) -> str:
    size = (1080, 2400)
    if kind == "noise":
        image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    else:
        grey = {"blank": 255, "black": 0, "grey": 128}[kind]
        image = Image.new("RGB", size, (grey, grey, grey))
    out = io.BytesIO()
    image.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def _tree() -> RawTree:
    nodes = (
        RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout", bounds=SCREEN),
        RawNode(handle=2, parent=0, class_name="android.view.SurfaceView", bounds=CANVAS),
    )
    return RawTree(
        capture=1,
        platform=Platform.ANDROID,
        nodes=nodes,
        windows=(RawWindow(id=0, bounds=SCREEN, package="com.example.blank"),),
        package="com.example.blank",
    )


class BlankAgent:
    """Hello, one tree with a canvas, then screenshots of the next kind for each one asked
    (``kinds`` in turn; ``enough`` is set once ``enough_after`` were served). The vision
    tests use it too, with their own tree and names."""

    def __init__(
        self,
        kinds: Sequence[str] = KINDS,
        *,
        tree: RawTree | None = None,
        device: str = DEVICE,
        token: str = AGENT_TOKEN,
        enough_after: int | None = None,
    ) -> None:
        self.shots = [_png(kind) for kind in kinds]
        self.tree = tree if tree is not None else _tree()
        self.device = device
        self.token = token
        self.enough_after = enough_after
        self.enough = anyio.Event()
        self.served = 0

    async def _session(self, ws: ServerConnection) -> None:
        header = ws.request.headers.get("Authorization") if ws.request else None
        if header != f"Bearer {self.token}":
            await ws.close(1008, "token")
            return
        await ws.recv()
        hello = AgentHello(
            protocol=1,
            platform=Platform.ANDROID,
            agent=AgentInfo(name="blank", version="0"),
            device=DeviceInfo(id=self.device),
        )
        await ws.send(encode(hello).decode())
        await ws.send(encode(TreePush(reason="initial", stable=True, tree=self.tree)).decode())
        async for frame in ws:
            command: Any = HUB_TO_AGENT.decode(frame)
            if isinstance(command, ScreenshotCommand):
                shot = self.shots[self.served % len(self.shots)]
                self.served += 1
                if self.enough_after is not None and self.served >= self.enough_after:
                    self.enough.set()
                await ws.send(
                    f'{{"type":"reply","id":{command.id},"ok":true,"pngBase64":"{shot}"}}'
                )
            elif hasattr(command, "id"):
                await ws.send(encode(Reply(id=command.id, ok=True)).decode())

    async def serve(self, *, task_status: anyio.abc.TaskStatus[int]) -> None:
        async with serve(self._session, "127.0.0.1", 0, max_size=64 << 20) as server:
            task_status.started(next(iter(server.sockets)).getsockname()[1])
            await server.serve_forever()


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _start_hub(runtime: Path, agent_port: int) -> tuple[subprocess.Popen[str], int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBRIDGE_")}
    env.update(XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(runtime / "state"))
    env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--no-sim",
         "--no-dashboard", "--vision", "--token", CONTROL,
         "--agent", f"ws://127.0.0.1:{agent_port}", "--agent-token", AGENT_TOKEN],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    port = None
    for _ in range(50):
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("mobridge hub listening on ws://127.0.0.1:"):
            port = int(line.rstrip("\n").rsplit(":", 1)[1].split("/")[0])
        if line.startswith("devices:"):
            break
    if port is None:
        process.kill()
        raise RuntimeError("vision blank: the hub did not start")
    return process, port


async def soak(seconds: float, warmup: float = WARMUP_S) -> dict[str, Any]:
    """Run the hub on the blank canvas for ``warmup`` + ``seconds``; what was seen."""
    from bridge.client import connect

    agent = BlankAgent()
    samples: list[tuple[float, float, bool]] = []
    with tempfile.TemporaryDirectory(prefix="mobridge-vision-blank-") as tmp:
        runtime = Path(tmp)  # mode 0700, as the hub wants its runtime folder
        async with anyio.create_task_group() as tg:
            agent_port = await tg.start(agent.serve)
            process, port = await anyio.to_thread.run_sync(_start_hub, runtime, agent_port)
            try:
                async with connect(f"ws://127.0.0.1:{port}/v1", token=CONTROL, name="b") as hub:
                    with anyio.fail_after(60):
                        while not any(  # noqa: ASYNC110 - polled: the hub has no event for it
                            d.id == DEVICE and d.online for d in await hub.devices()
                        ):
                            await anyio.sleep(0.1)
                    await anyio.sleep(warmup)
                    started = time.monotonic()
                    while True:
                        online = any(d.id == DEVICE and d.online for d in await hub.devices())
                        at = time.monotonic() - started
                        samples.append((at, _rss_mb(process.pid), online))
                        if at >= seconds or process.poll() is not None:
                            break
                        await anyio.sleep(min(SAMPLE_S, max(0.1, seconds - at)))
            finally:
                alive = process.poll() is None
                process.terminate()
                await anyio.to_thread.run_sync(process.wait)
                tg.cancel_scope.cancel()
    quarter = max(1, len(samples) // 4)
    first = statistics.median(s[1] for s in samples[:quarter])
    last = statistics.median(s[1] for s in samples[-quarter:])
    return {
        "samples": samples,
        "screenshots": agent.served,
        "rss_start": first,
        "rss_end": last,
        "rss_min": min(s[1] for s in samples),
        "rss_max": max(s[1] for s in samples),
        "growth": (last - first) / first if first else 0.0,
        "always_online": all(s[2] for s in samples),
        "alive": alive,
    }


def report(seconds: float, warmup: float, got: dict[str, Any]) -> list[str]:
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    ok = got["always_online"] and got["alive"] and got["growth"] < RSS_BOUND
    return [
        f"vision blank canvas: serve --vision, {seconds / 60:.1f} min after {warmup:.0f} s "
        f"warm-up, screenshots {got['screenshots']} (blank, black, grey, noise in turn)",
        f"  RSS median first quarter {got['rss_start']:.1f} MB  last quarter "
        f"{got['rss_end']:.1f} MB  min {got['rss_min']:.1f}  max {got['rss_max']:.1f} MB  "
        f"growth {100 * got['growth']:+.1f}% (bound "
        f"{100 * RSS_BOUND:.0f}%)  online at every sample {got['always_online']}  "
        f"hub alive {got['alive']}  {'OK' if ok else 'FAILED'}  load average {load}",
    ]


def run(quick: bool) -> list[str]:
    from bridge.vision.engine import unavailable

    problem = unavailable()
    if problem is not None:
        return [f"vision blank canvas: skipped: {problem}"]
    seconds, warmup = (20.0, 5.0) if quick else (60.0, WARMUP_S)
    return report(seconds, warmup, anyio.run(soak, seconds, warmup))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bridge.bench.vision_blank")
    parser.add_argument("--minutes", type=float, default=10.0, help="how long (default 10)")
    args = parser.parse_args(argv)
    seconds = max(1.0, args.minutes * 60)
    got = anyio.run(soak, seconds)
    for at, rss, online in got["samples"]:
        print(f"  {at:6.0f} s  RSS {rss:7.1f} MB  online {online}")
    for line in report(seconds, WARMUP_S, got):
        print(line)
    ok = got["always_online"] and got["alive"] and got["growth"] < RSS_BOUND
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
