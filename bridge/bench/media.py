"""Device-media figures on the simulated device: a screen recording's size, frames per second
and the hub's CPU for it; the encoder alone (CPU per frame); log lines per second a fast
reader sustains, and what a slow reader loses (the hub's counted ``gap``, its memory bounded).

The log rows feed the subscription from a flood source (``FloodMedia``: batches of synthetic
lines as fast as the hub takes them) registered in place of the simulated device's own log.
"""

from __future__ import annotations

import io
import resource
import time
from collections.abc import Callable, Sequence

import anyio
import msgspec

from bridge.bench.raw_clients import CLIENT_TOKEN, open_client
from bridge.wire.device_media import CrashReport, LogLine, LogsSubscribe

LINE_TEXT = "I/ActivityManager: Displayed dev.mobridge.demo/.Home: +312ms (bench flood line)"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class FloodSource:
    name = "flood"

    def __init__(self, batch: int = 500) -> None:
        self.batch = batch
        self.written = 0

    async def run(self, emit: Callable[[Sequence[LogLine]], None]) -> None:
        while True:
            lines = [
                LogLine(seq=self.written + i + 1, level="info", text=LINE_TEXT, tag="bench")
                for i in range(self.batch)
            ]
            self.written += self.batch
            emit(lines)
            await anyio.sleep(0.005)


class FloodMedia:
    def __init__(self) -> None:
        self.source = FloodSource()

    def log_source(self) -> FloodSource:
        return self.source

    def recorder(self, fps: int) -> None:
        return None

    async def crashes(self, app: str | None) -> Sequence[CrashReport]:
        return ()

    def app_manager(self) -> None:
        return None

    def processes(self) -> None:
        return None


async def _with_hub(body: Callable[..., object]) -> list[str]:
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal

    config = HubConfig(
        host="127.0.0.1",
        port=0,
        tokens={CLIENT_TOKEN: Principal("controller", "bench")},
        sim_options={"animations": False},
    )
    hub = Hub(config)
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        with anyio.fail_after(20):
            while not any(d.online for d in hub.service.devices.values()):  # noqa: ASYNC110
                await anyio.sleep(0.02)
        try:
            lines: list[str] = await body(hub, f"ws://127.0.0.1:{port}/v1")  # type: ignore[misc]
        finally:
            tg.cancel_scope.cancel()
    return lines


async def _recording(hub: object, url: str, seconds: int) -> list[str]:
    import av

    from bridge.client import connect

    async with connect(url, token=CLIENT_TOKEN, name="bench") as client:
        dev = client.device("sim-android")
        cpu0, t0 = _cpu(), time.perf_counter()
        made, data = await dev.record(seconds, fps=10)
        cpu = _cpu() - cpu0
        wall = time.perf_counter() - t0
    with av.open(io.BytesIO(data), mode="r") as container:
        decoded = sum(1 for _ in container.decode(video=0))
    fps = made.frames / (made.duration_ms / 1000) if made.duration_ms else 0.0
    return [
        f"screenrecord sim-android --seconds {seconds} (10 fps asked, hub encodes screenshots)",
        f"  {made.bytes} bytes ({made.bytes / 1024:.0f} KiB), {made.frames} frames "
        f"({decoded} decoded by PyAV), {fps:.1f} fps achieved, {made.width}x{made.height}",
        f"  process CPU (hub + simulated device rendering + encoding): {cpu:.2f} s over "
        f"{wall:.2f} s wall ({100 * cpu / wall:.0f}% of one core)",
    ]


def _encoder_only(frames: int) -> list[str]:
    from bridge.core.mp4_encoder import Mp4Encoder
    from bridge.devices.sim.device import DemoDevice
    from bridge.devices.sim.png import render_scene
    from bridge.wire.enums import Platform

    device = DemoDevice(Platform.ANDROID, now=0.0, start="menu", animations=False)
    png = render_scene(device.scene(0.0), 1)
    encoder = Mp4Encoder(10)
    cpu0 = _cpu()
    for i in range(frames):
        encoder.add_png(png, i * 100)
    data = encoder.finish()
    per = (_cpu() - cpu0) / frames * 1000
    return [
        f"encoder alone: {frames} sim screenshots ({len(png)} B PNG each) -> H.264 "
        f"{encoder.width}x{encoder.height}: {per:.1f} ms CPU per frame (decode + scale + "
        f"encode), {len(data)} bytes",
    ]


async def _logs(hub: object, url: str, seconds: float) -> list[str]:
    service = hub.service  # type: ignore[attr-defined]
    flood = FloodMedia()
    service.media["sim-android"] = flood
    rows: list[str] = []
    cases = (
        ("fast reader, ~2,000 lines/s written", 0.0, 10),
        ("fast reader, flood", 0.0, 500),
        ("slow reader (1 frame / 100 ms), flood", 0.1, 500),
    )
    for label, pause, batch in cases:
        flood.source.written = 0
        flood.source.batch = batch
        async with open_client(url, label) as client:
            ws = client.ws
            message = LogsSubscribe(id=1, device="sim-android")
            await ws.send(msgspec.json.encode(message).decode())
            got = gap = frames = 0
            peak_held = 0
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                    frame = await ws.recv()
                    doc = msgspec.json.decode(frame)
                    if doc.get("type") == "logs":
                        got += len(doc["lines"])
                        gap += doc.get("gap", 0)
                        frames += 1
                    held = service.log_streams.statistics()["held_bytes"]
                    peak_held = max(peak_held, held)
                    if pause:
                        await anyio.sleep(pause)
            written = flood.source.written
        rows.append(
            f"  {label:<40} {got / seconds:>9.0f} lines/s received, {gap:>8} lost (counted "
            f"gap), {written} written, {frames} events, backlog peak {peak_held // 1024} KiB"
        )
    return [f"logs sim-android, a flood source, {seconds:g} s per reader", *rows]


def run(quick: bool) -> list[str]:
    seconds = 3
    lines = anyio.run(_with_hub, lambda hub, url: _recording(hub, url, seconds))
    lines += _encoder_only(10 if quick else 30)
    lines += anyio.run(_with_hub, lambda hub, url: _logs(hub, url, 2.0 if quick else 5.0))
    return lines
