"""Vision: OCR latency on a phone-sized region, and the result cache during a game session.

Rows (``scripts/bench --only vision``; the ``vision`` extra must be installed):

- ``real screens``: every engine side by side on the 41 hand-labelled real screenshots of
  tests/vision/real (tests/vision/real/README.md): word recall and precision in total, the
  lowest of each over the screens and how many screens reach recall 0.85 and precision 0.90,
  p50 / p90 wall time and p50 CPU time (all threads) per screen, the load average beside them;
  then each screen's recall / precision for the first engine (the hub's); the hub's engine on
  the held-out screens of tests/vision/heldout (never used to tune); and the targets without
  words (play, pause, close) the hub's reader gives on the real set, with their CPU;
- ``ocr``: one uncached reading (the hub's engine, then shapes) of a phone-sized region —
  the simulated game's canvas drawn at half size (540x1137) and the five canvas screens of
  tests/vision/screens (540x1170) — p50 / p90 wall time and p50 CPU time of this process;
  then, through the hub's reader, a first frame and the next one with a number changed (only
  the changed part read),
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
from typing import Any

from PIL import Image

SCREENS = Path(__file__).resolve().parents[2] / "tests" / "vision" / "screens"
REAL = Path(__file__).resolve().parents[2] / "tests" / "vision" / "real"
RECALL_TARGET = 0.85
PRECISION_TARGET = 0.90


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
    from bridge.vision.cache import ResultCache
    from bridge.vision.reader import RegionReader
    from bridge.vision.regions import Region

    full_cpu: list[float] = []
    changed_wall: list[float] = []
    changed_cpu: list[float] = []
    for _ in range(rounds):
        for image in regions.values():
            _forget(engine)
            w0, c0 = time.perf_counter(), time.process_time()
            read_lines(engine, image)
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            _forget(engine)  # the hub's path: a reader that saw the last frame of the region
            reader = RegionReader(engine, ResultCache())
            whole = (Region("canvas", (0, 0, image.width, image.height)),)
            c0 = time.process_time()
            reader.read_regions(image, whole, 1.0)
            full_cpu.append((time.process_time() - c0) * 1000)
            frame = _changed(image)  # the next frame: one small part drawn anew
            w0, c0 = time.perf_counter(), time.process_time()
            reader.read_regions(frame, whole, 1.0)
            changed_wall.append((time.perf_counter() - w0) * 1000)
            changed_cpu.append((time.process_time() - c0) * 1000)
    wall.sort()
    changed_wall.sort()
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return [
        f"vision ocr ({engine.name}): {len(regions)} phone-sized regions x {rounds} rounds, "
        "uncached",
        f"  wall p50 {statistics.median(wall):6.1f} ms  p90 {wall[int(0.9 * (len(wall) - 1))]:6.1f}"
        f" ms   cpu p50 {statistics.median(cpu):6.1f} ms   load average {load}",
        "  the hub's reader (words and shapes): a first frame, then the next one with a number"
        " changed (only the changed part read)",
        f"  first frame cpu p50 {statistics.median(full_cpu):6.1f} ms   next frame wall p50 "
        f"{statistics.median(changed_wall):6.1f} ms  p90 "
        f"{changed_wall[int(0.9 * (len(changed_wall) - 1))]:6.1f} ms   cpu p50 "
        f"{statistics.median(changed_cpu):6.1f} ms   ratio (cpu) "
        f"{statistics.median(changed_cpu) / max(0.001, statistics.median(full_cpu)):.2f}",
    ]


def _forget(engine: Any) -> None:
    """Empty the engine's cache of lines seen before, when it has one."""
    forget = getattr(engine, "forget_lines", None)
    if forget is not None:
        forget()


def _changed(image: Image.Image) -> Image.Image:
    """``image`` with a number drawn in a small box near its top left (a score that moved on)."""
    from PIL import ImageDraw

    frame = image.copy()
    draw = ImageDraw.Draw(frame)
    size = max(16, image.width // 20)
    draw.rectangle((size, size, size * 5, size * 2 + 4), fill=(250, 250, 250))
    draw.text((size + 4, size), "4217", fill=(10, 10, 10), font_size=size)
    return frame


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


class RapidOcrDefault:
    """``rapidocr-onnxruntime``'s own pipeline with its defaults (the same PP-OCRv4 models,
    angle classifier on, no word boundaries of its own, every character set): the candidate
    as it comes from the package index, for the side-by-side rows."""

    name = "rapidocr"

    def __init__(self) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self._ocr = RapidOCR()

    def read(self, image: Image.Image) -> tuple[Any, ...]:
        import numpy as np

        from bridge.vision.engine import TextBox

        found, _ = self._ocr(np.asarray(image.convert("RGB"))[:, :, ::-1].copy())
        out = []
        for quad, text, score in found or ():
            xs = [int(p[0]) for p in quad]
            ys = [int(p[1]) for p in quad]
            out.append(TextBox(str(text), (min(xs), min(ys), max(xs), max(ys)), float(score)))
        return tuple(out)


def _candidate(name: str) -> Any:
    from bridge.vision.engine import load_named

    if name != "rapidocr":
        return load_named(name)
    try:
        return RapidOcrDefault()
    except ImportError as exc:
        return f"rapidocr-onnxruntime is not installed ({exc})"


CANDIDATES = ("ppocr", "ppocr-v6-small", "ppocr-v5", "ppocr-v4", "rapidocr", "tesseract")
"""The hub's engine (PP-OCRv6 tiny) first, then the other model sets in the same pipeline,
rapidocr-onnxruntime's own pipeline (PP-OCRv4; measured when that package is installed, it is
not part of the extra), then Tesseract."""


def real_rows(quick: bool) -> list[str]:
    """Engines side by side on the real-screen set (needs the repository's tests/ folder)."""
    import sys

    from bridge.vision.reader import read_lines, with_shapes

    if not (REAL / "labels.yaml").is_file():
        return ["vision real screens: skipped: tests/vision/real is not here (a checkout has it)"]
    root = str(REAL.parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.vision.real.score import load, score_lines, screens, total

    names = screens()
    engines: tuple[str, ...] = CANDIDATES
    if quick:  # a smoke run: the hub's engine on a few screens (the whole table is minutes of CPU)
        names, engines = names[:4], CANDIDATES[:1]
    images = {name: load(name) for name in names}
    lines = [
        f"vision real screens: {len(names)} hand-labelled screenshots (tests/vision/real), "
        f"targets recall {RECALL_TARGET} precision {PRECISION_TARGET} per screen and in total"
    ]
    first: list[Any] = []
    for name in engines:
        engine = _candidate(name)
        if isinstance(engine, str):
            lines.append(f"  {name:10} skipped: {engine}")
            continue
        read_lines(engine, images[names[0]])  # warm-up
        wall: list[float] = []
        cpu: list[float] = []
        scores = []
        for screen in names:
            _forget(engine)
            w0, c0 = time.perf_counter(), time.process_time()
            read = read_lines(engine, images[screen])
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            # the lines the hub gives: a close cross read as X is the cross (the shape pass
            # is measured apart, ``shape_rows``)
            got = [line.text for line, _ in with_shapes(images[screen], read)[0]]
            scores.append(score_lines(screen, got))
        recall, precision = total(scores)
        meeting = sum(
            1 for s in scores if s.recall >= RECALL_TARGET and s.precision >= PRECISION_TARGET
        )
        wall.sort()
        load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
        lines.append(
            f"  {name:10} recall {recall:.3f}  precision {precision:.3f}  "
            f"lowest {min(s.recall for s in scores):.2f} / {min(s.precision for s in scores):.2f}"
            f"  screens on target {meeting}/{len(scores)}  wall p50 "
            f"{statistics.median(wall):5.0f} ms  p90 {wall[int(0.9 * (len(wall) - 1))]:5.0f} ms"
            f"  cpu p50 {statistics.median(cpu):5.0f} ms  load average {load_avg}"
        )
        if not first:
            first = list(scores)
    if first and not quick:
        lines.append("  per screen (the hub's engine): recall / precision")
        lines.extend(f"    {s.screen:26} {s.recall:.2f} / {s.precision:.2f}" for s in first)
    lines += heldout_rows(quick)
    lines += shape_rows(images)
    return lines


def shape_rows(images: dict[str, Image.Image]) -> list[str]:
    """Targets without words on the real set as the hub's reader gives them
    (``bridge.vision.reader.with_shapes``: those overlapping a word left out), measured apart
    from the words: how many of each shape, on how many screens, and the CPU of the pass."""
    from collections import Counter

    from bridge.vision import icons
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_lines, with_shapes

    engine = load_engine()
    if isinstance(engine, str):
        return []
    found: Counter[str] = Counter()
    screens: Counter[str] = Counter()
    cpu: list[float] = []
    for image in images.values():
        lines = read_lines(engine, image)
        c0 = time.process_time()
        shapes = with_shapes(image, lines)[1]
        cpu.append((time.process_time() - c0) * 1000)
        found.update(name for name, _, _ in shapes)
        screens.update({name for name, _, _ in shapes})
    counts = "  ".join(f"{n} {found[n]} on {screens[n]} screens" for n in icons.NAMES)
    return [
        f"  shapes (bridge.vision.icons) on the {len(images)} screens: {counts}   "
        f"cpu p50 {statistics.median(cpu):5.1f} ms per screen"
    ]


def heldout_rows(quick: bool = False) -> list[str]:
    """The hub's engine on the held-out screens (tests/vision/heldout: never used to tune);
    ``quick``: on the first few only (a smoke run: the whole set is minutes of CPU, and grows
    with each batch)."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_region
    from tests.vision.real.score import HELDOUT, load, score_lines, screens, total

    engine = load_engine()
    if isinstance(engine, str) or not (HELDOUT / "labels.yaml").is_file():
        return []
    names = screens(HELDOUT)
    if quick:
        names = names[:4]
    scores = [
        score_lines(n, [line.text for line, _ in read_region(engine, load(n, HELDOUT))[0]], HELDOUT)
        for n in names
    ]
    recall, precision = total(scores)
    meeting = sum(
        1 for s in scores if s.recall >= RECALL_TARGET and s.precision >= PRECISION_TARGET
    )
    return [
        f"  held-out ({len(names)} screens of tests/vision/heldout, {engine.name}): recall "
        f"{recall:.3f}  precision {precision:.3f}  screens on target {meeting}/{len(names)}",
        *(f"    {s.screen:26} {s.recall:.2f} / {s.precision:.2f}" for s in scores),
    ]


def run(quick: bool) -> list[str]:
    import anyio

    from bridge.vision.engine import unavailable

    problem = unavailable()
    if problem is not None:
        return [f"vision: skipped: {problem}"]
    lines = real_rows(quick)
    lines += ocr_rows(2 if quick else 6)
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
