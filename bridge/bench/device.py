"""Device-control benchmark: what an action on the device itself costs next to a node action.

A hub in this process with the simulated device (animations off, its default 30 ms simulated
action latency) and one client. In one run, interleaved so the machine's load hits every kind
alike: ``act`` CLICK by query on the login screen's focused username field (dispatched, no
screen change), ``gesture`` tap at a point with nothing under it, ``key`` VOLUME_UP,
``type`` into the focused field — each answered after the hub's observation (the screen
quiet for 300 ms) — and the reads ``display.get`` and ``apps.list`` (one agent command, no
observation). Medians in ms and the ratio of each to ``act``.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from collections.abc import Awaitable, Callable


async def _measure(rounds: int) -> dict[str, list[float]]:
    import anyio

    from bridge.client import build_query, connect
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal
    from bridge.wire.enums import ActionVerb

    token = "bench-device-token"
    hub = Hub(
        HubConfig(
            port=0,
            tokens={token: Principal("controller", "bench")},
            sim_scene="login",
            sim_options={"animations": False},
        )
    )
    samples: dict[str, list[float]] = {}
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        device = next(iter(hub.service.devices))
        async with connect(f"ws://127.0.0.1:{port}/v1", token=token, name="bench") as client:
            dev = client.device(device)
            username = build_query(resource_id="dev.mobridge.demo:id/username")
            field = await dev.find(username)
            bounds = field.matches[0].node.bounds
            assert bounds is not None
            await dev.tap_at((bounds[0] + bounds[2]) // 2, (bounds[1] + bounds[3]) // 2)
            kinds: dict[str, Callable[[int], Awaitable[object]]] = {
                "act CLICK (query)": lambda i: dev.act_on(username, ActionVerb.CLICK),
                "gesture tap (point)": lambda i: dev.tap_at(5, 2390),
                "key VOLUME_UP": lambda i: dev.press_key("VOLUME_UP"),
                "type (focused)": lambda i: dev.type_focused("x"),
                "display.get": lambda i: dev.display(),
                "apps.list": lambda i: dev.apps(),
            }
            for name in kinds:  # one warm-up each
                await kinds[name](0)
            for i in range(rounds):
                for name, call in kinds.items():
                    started = time.perf_counter()
                    await call(i)
                    samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
        tg.cancel_scope.cancel()
    return samples


TAP_TARGET_MS = 250.0
"""Issue 28: tap -> settled ActionResult on the simulated device, p50."""
NONE_TARGET_MS = 5.0
"""Issue 28: ``act`` with ``observe: none`` on the simulated device, p50."""


async def _measure_taps(rounds: int, action_ms: float | None = None) -> dict[str, list[float]]:
    """Taps as a user makes them, on the simulated device with its defaults (animations on):
    a toggle that changes in place, the same toggle with ``observe: none``, and a tap that
    opens a screen (an animated transition). CPU figures are not taken here: these are
    waits. ``action_ms``: the simulated device's dispatch time (None: its default)."""
    import anyio

    from bridge.client import build_query, connect
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal
    from bridge.wire.conditions import ScreenShown

    token = "bench-tap-token"
    options: dict[str, object] = {} if action_ms is None else {"action_ms": action_ms}
    hub = Hub(
        HubConfig(
            port=0,
            tokens={token: Principal("controller", "bench")},
            sim_scene="settings",
            sim_options=options,
        )
    )
    samples: dict[str, list[float]] = {}

    def timed(name: str, started: float) -> None:
        samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)

    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        device = next(iter(hub.service.devices))
        async with connect(f"ws://127.0.0.1:{port}/v1", token=token, name="bench") as client:
            dev = client.device(device)
            wifi = build_query(text="Wi-Fi")
            settings = build_query(text="Settings")
            await dev.tap(wifi)  # warm-up
            for i in range(rounds + 1):
                started = time.perf_counter()
                await dev.tap(wifi)
                timed("tap -> settled, in place", started)
                started = time.perf_counter()
                await dev.tap(wifi, observe="none")
                timed("act observe none", started)
                await anyio.sleep(0.4)  # its effect lands before the next tap
                await dev.back()
                await dev.wait(ScreenShown(name="menu"), 3000)
                started = time.perf_counter()
                await dev.tap(settings)
                timed("tap -> settled, opens a screen", started)
                if i == 0:
                    samples.clear()  # the first round warms every path
        tg.cancel_scope.cancel()
    return samples


def tap_lines(rounds: int) -> list[str]:
    """The tap rows of issue 28 (p50 against the targets) and the dispatch-time floor."""
    import anyio

    from bridge.devices.sim.server import SimConfig

    default_ms = SimConfig(token="x").action_ms
    taps = anyio.run(_measure_taps, rounds)
    instant = anyio.run(_measure_taps, rounds, 0.0)
    settled = taps["tap -> settled, in place"] + taps["tap -> settled, opens a screen"]
    lines = [
        f"taps on the simulated device (animations on, {rounds} rounds interleaved; ms; "
        f"its dispatch takes {default_ms:g} ms)",
    ]
    for name, values in taps.items():
        lines.append(f"  {name:<32} p50 {statistics.median(values):7.1f}   max {max(values):7.1f}")
    none_0 = instant["act observe none"]
    lines.append(
        f"  {'act observe none, dispatch 0 ms':<32} p50 {statistics.median(none_0):7.1f}   "
        f"max {max(none_0):7.1f}   (the hub and the link alone)"
    )
    for label, value, target in (
        ("tap -> settled ActionResult p50 (both kinds)", statistics.median(settled), TAP_TARGET_MS),
        ("act observe none p50", statistics.median(taps["act observe none"]), NONE_TARGET_MS),
        ("act observe none p50, device dispatch 0 ms", statistics.median(none_0), NONE_TARGET_MS),
    ):
        ratio = value / target
        lines.append(
            f"  target {label:<46} {value:7.1f} ms {target:>5g} ms {ratio:5.2f}x"
            f"{'' if ratio <= 1 else ' !'}"
        )
    return lines


def run(quick: bool) -> list[str]:
    import anyio

    from bridge.hub.logs import configure

    configure(level=logging.WARNING, stream=sys.stderr)
    rounds = 5 if quick else 20
    taps = tap_lines(rounds)
    samples = anyio.run(_measure, rounds)
    base = statistics.median(samples["act CLICK (query)"])
    lines = [f"device control: round trip per request, {rounds} rounds interleaved (ms)"]
    for name, values in samples.items():
        median = statistics.median(values)
        lines.append(
            f"  {name:<22} median {median:7.1f}   max {max(values):7.1f}   "
            f"x act {median / base:5.2f}"
        )
    return [*lines, "", *taps]
