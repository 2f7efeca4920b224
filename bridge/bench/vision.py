"""Vision: OCR latency on a phone-sized region, and the result cache during a game session.

Rows (``scripts/bench --only vision``; the ``vision`` extra must be installed):

- ``ocr``: one uncached reading (both inks, Tesseract, shapes) of a phone-sized region —
  the simulated game's canvas drawn at half size (540x1137) and the five canvas screens of
  tests/vision/screens (540x1170) — p50 / p90 wall time and p50 CPU time of this process,
  with the machine's load average beside them (the figures are the machine's, not the code's
  alone: other processes share its cores);
- ``session``: a real hub serving with vision on the game scene, a client that taps PLAY a
  few times, goes back to the menu, opens the game again and taps PLAY again, waiting each
  time for the score the canvas draws; the hub's own counts: readings (screenshots looked
  at), OCR passes, cache hits and misses, hit rate, and its OCR p50.
"""

from __future__ import annotations

import io
import os
import statistics
import time
from pathlib import Path

from PIL import Image

SCREENS = Path(__file__).resolve().parents[2] / "tests" / "vision" / "screens"


def _regions() -> dict[str, Image.Image]:
    from bridge.devices.sim.device import DemoDevice
    from bridge.devices.sim.png import render_scene
    from bridge.wire.enums import Platform

    device = DemoDevice(Platform.ANDROID, now=0.0, start="game", animations=False)
    whole = Image.open(io.BytesIO(render_scene(device.scene(10.0), 2))).convert("RGB")
    frame = device.frame
    out = {"sim game canvas": whole.crop((0, frame.top // 2, whole.width, frame.bottom // 2))}
    for path in sorted(SCREENS.glob("*.png")):
        out[path.stem] = Image.open(path).convert("RGB")
    return out


def ocr_rows(rounds: int) -> list[str]:
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines

    engine = load_engine()
    if isinstance(engine, str):
        return [f"vision: skipped: {engine}"]
    regions = _regions()
    read_lines(engine, next(iter(regions.values())))  # warm-up
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(rounds):
        for image in regions.values():
            w0, c0 = time.perf_counter(), time.process_time()
            read_lines(engine, image)
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    wall.sort()
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return [
        f"vision ocr ({engine.name}): {len(regions)} phone-sized regions x {rounds} rounds, "
        "uncached",
        f"  wall p50 {statistics.median(wall):6.1f} ms  p90 {wall[int(0.9 * (len(wall) - 1))]:6.1f}"
        f" ms   cpu p50 {statistics.median(cpu):6.1f} ms   load average {load}",
    ]


async def session(taps: int) -> dict[str, object]:
    """A scripted game session on a real hub with vision; the hub's vision statistics."""
    import anyio

    from bridge.client import build_query, connect
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal
    from bridge.wire.conditions import Present
    from bridge.wire.enums import Source, VerificationResult
    from bridge.wire.query import SemanticQuery, TextMatch

    token = "bench-vision-token"
    hub = Hub(
        HubConfig(
            port=0,
            tokens={token: Principal("controller", "bench")},
            sim_scene="game",
            sim_options={"animations": False},
            vision=True,
        )
    )

    def shown(words: str) -> Present:
        return Present(query=SemanticQuery(text=TextMatch(value=words)))

    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        device = next(iter(hub.service.devices))
        async with connect(f"ws://127.0.0.1:{port}/v1", token=token, name="bench") as client:
            dev = client.device(device)

            async def expect(words: str) -> None:
                got = await dev.wait(shown(words), timeout_ms=30_000)
                if got.result is not VerificationResult.CONDITION_MET:
                    raise RuntimeError(f"vision bench: {words!r} never appeared")

            async def play_round(score: int) -> None:
                await expect("PLAY")
                for k in range(taps):
                    found = await dev.find(build_query(text="PLAY"), sources=(Source.VISION,))
                    await dev.tap(found.matches[0].ref)
                    await expect(f"SCORE {score + 10 * (k + 1)}")

            await play_round(120)
            await dev.back()
            await dev.wait_for_screen("menu")
            await dev.tap(build_query(text="Game"))
            await dev.wait_for_screen("game")
            await play_round(120)  # the same screens again: the cache answers
        stats = hub.service.vision.statistics() if hub.service.vision is not None else {}
        tg.cancel_scope.cancel()
    return stats


def run(quick: bool) -> list[str]:
    import anyio

    from bridge.vision.engine import unavailable

    problem = unavailable()
    if problem is not None:
        return [f"vision: skipped: {problem}"]
    lines = ocr_rows(2 if quick else 6)
    stats = anyio.run(session, 2 if quick else 4)
    hits, misses = int(str(stats["cache_hits"])), int(str(stats["cache_misses"]))
    rate = hits / (hits + misses) if hits + misses else 0.0
    lines += [
        "vision session (hub, game scene: taps on PLAY, back to the menu, the game again)",
        f"  readings {stats['readings']}  overlays {stats['overlays']}  ocr passes "
        f"{stats['ocr_passes']}  cache hits {hits}  misses {misses}  hit rate {rate:.2f}  "
        f"hub ocr p50 {stats['ocr_p50_ms']} ms",
    ]
    return lines
