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


def run(quick: bool) -> list[str]:
    import anyio

    from bridge.hub.logs import configure

    configure(level=logging.WARNING, stream=sys.stderr)
    rounds = 5 if quick else 20
    samples = anyio.run(_measure, rounds)
    base = statistics.median(samples["act CLICK (query)"])
    lines = [f"device control: round trip per request, {rounds} rounds interleaved (ms)"]
    for name, values in samples.items():
        median = statistics.median(values)
        lines.append(
            f"  {name:<22} median {median:7.1f}   max {max(values):7.1f}   "
            f"x act {median / base:5.2f}"
        )
    return lines
