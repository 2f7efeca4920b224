"""Processes of the pictures benchmark (``bridge.bench.pictures``).

``python -m bridge.bench.pictures_proc hub TOKEN``: a real hub with the simulated device on
127.0.0.1; prints ``{"port": P, "device": ID}`` once it is online, then answers one JSON line
per ``stats`` line on stdin (its CPU time, the simulated device's screenshot count, the hub's
``pictures`` and ``mirror`` statistics); ``quit`` stops it.

``python -m bridge.bench.pictures_proc viewers CONFIG``: ``CONFIG`` is JSON with ``port``,
``device``, ``token``, ``count``, ``mode`` (``pictures``: follow the settled stream with
``pictures`` and fetch the viewer-sized WebP of each picture, as the dashboard does;
``mirror``: read the live mirror at ``fps``) and ``seconds``; prints ``{"ready": true}`` once
every viewer is in, then after ``seconds`` one JSON line of what each viewer saw.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

import anyio


async def _hub(token: str) -> None:
    from bridge.hub.app import Hub, HubConfig
    from bridge.hub.logs import configure as configure_logs
    from bridge.net.auth import Principal

    configure_logs(level=logging.WARNING)
    hub = Hub(
        HubConfig(
            port=0,
            sim_scene="login",
            tokens={token: Principal("controller", "bench")},
            client_limits={"rate_per_s": 10_000.0, "burst": 10_000.0},
        )
    )
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        while not any(d.online for d in hub.service.devices.values()):  # noqa: ASYNC110
            await anyio.sleep(0.02)
        print(json.dumps({"port": port, "device": hub.sim.device_id}), flush=True)
        stdin = anyio.wrap_file(sys.stdin)
        async for line in stdin:
            if line.strip() == "stats":
                stats = hub.service.statistics()
                print(
                    json.dumps(
                        {
                            "cpu_ns": time.process_time_ns(),
                            "screenshots": hub.sim.stats.screenshots,
                            "pictures": stats["pictures"],
                            "mirror": stats["mirror"],
                        }
                    ),
                    flush=True,
                )
            else:
                break
        tg.cancel_scope.cancel()


async def _get(port: int, path: str, token: str) -> bytes:
    stream = await anyio.connect_tcp("127.0.0.1", port)
    async with stream:
        await stream.send(
            f"GET {path} HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer {token}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        data = b""
        try:
            while True:
                data += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(head[:80].decode(errors="replace"))
    return body


async def _picture_viewer(config: dict[str, Any], out: dict[str, Any], ready: Any) -> None:
    import websockets

    port, token = config["port"], config["token"]
    settled: dict[int, float] = {}
    latencies: list[float] = []
    async with websockets.connect(f"ws://127.0.0.1:{port}/v1", max_size=None) as ws:
        await ws.send(
            json.dumps({"type": "hello", "id": 1, "token": token, "client": {"name": "viewer"}})
        )
        await ws.recv()
        await ws.send(
            json.dumps(
                {
                    "type": "subscribe",
                    "id": 2,
                    "device": config["device"],
                    "settled": True,
                    "pictures": True,
                }
            )
        )
        ready()
        async for raw in ws:
            msg = json.loads(raw)
            if msg.get("type") in ("delta", "snapshot"):
                settled[msg["generation"]] = time.perf_counter()
            elif msg.get("type") == "picture":
                path = msg["url"].split(str(port), 1)[1].removesuffix(".png")
                try:
                    await _get(port, f"{path}.webp?width=360", token)
                except (OSError, RuntimeError) as exc:
                    out.setdefault("errors", []).append(str(exc)[:80] or type(exc).__name__)
                    continue
                at = settled.get(msg["generation"])
                if at is not None:
                    latencies.append((time.perf_counter() - at) * 1000)
                out["pictures"] = out.get("pictures", 0) + 1
                out["latencies"] = latencies


async def _mirror_viewer(config: dict[str, Any], out: dict[str, Any], ready: Any) -> None:
    import websockets

    url = f"ws://127.0.0.1:{config['port']}/v1/mirror?device={config['device']}&fps={config['fps']}"
    auth = {"Authorization": f"Bearer {config['token']}"}
    async with websockets.connect(
        url, max_size=None, additional_headers=auth, open_timeout=60
    ) as ws:
        ready()
        out["frames"] = out["bytes"] = 0
        async for message in ws:
            if isinstance(message, bytes):
                out["frames"] += 1
                out["bytes"] += len(message)


async def _viewers(config: dict[str, Any]) -> None:
    results: list[dict[str, Any]] = [{} for _ in range(config["count"])]
    joined = 0
    all_in = anyio.Event()

    def ready() -> None:
        nonlocal joined
        joined += 1
        if joined == config["count"]:
            all_in.set()

    run = _mirror_viewer if config["mode"] == "mirror" else _picture_viewer
    async with anyio.create_task_group() as tg:
        for out in results:
            tg.start_soon(run, config, out, ready)
        await all_in.wait()
        print(json.dumps({"ready": True}), flush=True)
        await anyio.sleep(config["seconds"])
        tg.cancel_scope.cancel()
    print(json.dumps(results), flush=True)


def main(argv: list[str]) -> None:
    if argv[0] == "hub":
        anyio.run(_hub, argv[1])
    else:
        anyio.run(_viewers, json.loads(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
