"""Issue 27.1: screenshots from a rogue agent are bounded in bytes, and their PNG header is
checked before anything is kept (a fake agent over a real agent link, a raw client).

For the memory figure the rogue agent runs in its own process (``python -m
tests.adversarial.test_capture_memory SIZE``), so the test process's RSS is the hub's (and
the small raw client's), not the agent's copies of the image."""

from __future__ import annotations

import base64
import gc
import struct
import sys
import zlib
from typing import Any

import anyio

from bridge.hub.app import AgentTarget
from bridge.hub.capture_store import PER_DEVICE_BYTES
from bridge.wire.agent_link import ScreenshotCommand
from tests.adversarial.harness import ROGUE_TOKEN, RogueAgent, call, client
from tests.hub.hubfixture import running_hub


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack("!I", len(body)) + kind + body + struct.pack("!I", zlib.crc32(kind + body))


def fake_png(width: int, height: int, size: int) -> bytes:
    """A PNG header claiming ``width`` x ``height`` RGBA, padded with an IDAT to ``size``."""
    head = b"\x89PNG\r\n\x1a\n" + _chunk(
        b"IHDR", struct.pack("!IIBBBBB", width, height, 8, 6, 0, 0, 0)
    )
    pad = size - len(head) - 12 - 12
    return (
        head
        + _chunk(b"IDAT", bytes(range(256)) * (pad // 256) + b"\0" * (pad % 256))
        + _chunk(b"IEND", b"")
    )


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


class ShotAgent:
    """Answers every screenshot with the same PNG (the frame is built per reply from two
    halves made once, so the agent side holds one copy of the image)."""

    def __init__(self, png: bytes) -> None:
        self.b64 = base64.b64encode(png).decode()
        self.shots = 0

    def answer(self, command: Any) -> str | None:
        if not isinstance(command, ScreenshotCommand):
            return None
        self.shots += 1
        return f'{{"type":"reply","id":{command.id},"ok":true,"pngBase64":"{self.b64}"}}'


async def _serve_shots(size: int) -> None:
    """The agent process: serve screenshots of ``size`` bytes, print the port, run until
    killed (or stdin closes)."""
    shots = ShotAgent(fake_png(1440, 3200, size))
    rogue = RogueAgent(answer=shots.answer)
    async with anyio.create_task_group() as tg:
        port = await tg.start(rogue.serve)
        print(port, flush=True)
        await anyio.to_thread.run_sync(sys.stdin.read)
        tg.cancel_scope.cancel()


async def test_40_screenshots_of_15_mib_leave_the_hub_under_150_mb_more() -> None:
    agent = await anyio.open_process(
        [sys.executable, "-m", "tests.adversarial.test_capture_memory", str(15 << 20)]
    )
    try:
        assert agent.stdout is not None
        line = b""
        with anyio.fail_after(30):
            while not line.endswith(b"\n"):
                line += await agent.stdout.receive(1)
        url = f"ws://127.0.0.1:{int(line)}"
        async with running_hub(agents=[AgentTarget(url, ROGUE_TOKEN)]) as rh:
            async with client(rh.url) as ws:
                with anyio.fail_after(10):
                    while "rogue-1" not in rh.hub.service.devices or (
                        rh.hub.service.devices["rogue-1"].current is None
                    ):
                        await anyio.sleep(0.05)
                gc.collect()
                rss_before = _rss_mb()
                results = []
                # One screen: only fresh requests make the device take 40 screenshots (the hub
                # shares one per screen otherwise); this session may ask them all at once.
                rh.hub.service.screenshots.fresh_burst = 40
                for i in range(40):
                    reply = await call(
                        ws,
                        {"type": "screenshot", "id": 10 + i, "device": "rogue-1", "fresh": True},
                        60,
                    )
                    results.append(reply)
                gc.collect()
                rss_after = _rss_mb()
                stats = rh.hub.service.statistics()["memory"]["screenshots"]
                kept = len(rh.hub.service.captures)
                first = results[0]["result"]
                last = results[-1]["result"]
                fetched_last = rh.hub.service.capture(last["capture"])
                fetched_first = rh.hub.service.capture(first["capture"])
    finally:
        agent.kill()
        await agent.wait()
    growth = rss_after - rss_before
    print(
        f"40 x 15 MiB screenshots: RSS {rss_before:.0f} -> {rss_after:.0f} MB "
        f"(+{growth:.0f} MB); kept {kept}; stats {stats['devices']['rogue-1']}"
    )
    assert all(r["type"] == "result" for r in results)
    assert (last["width"], last["height"]) == (1440, 3200)
    assert fetched_last is not None and len(fetched_last) == 15 << 20
    assert fetched_first is None  # evicted: the device's budget holds two of them
    device = stats["devices"]["rogue-1"]
    assert device["bytes"] <= PER_DEVICE_BYTES
    assert device["kept"] == kept == PER_DEVICE_BYTES // (15 << 20)
    assert device["evicted"] == 40 - kept
    assert device["evicted_bytes"] == (40 - kept) * (15 << 20)
    assert growth < 150, f"the hub grew by {growth:.0f} MB"


async def test_a_width_of_1_4_billion_and_a_padded_png_are_refused_and_counted() -> None:
    answers = iter(
        [
            fake_png(1_400_000_000, 2400, 4096),  # the reported width of the adversarial run
            fake_png(1080, 2400, 12 << 20),  # more bytes than 1080x2400 RGBA can take
            fake_png(40_000, 40_000, 4096),  # past the display (and a bomb: 1.6 Gpixel)
            b"\x89PNG\r\n\x1a\n" + b"\0" * 40,  # no IHDR
            fake_png(1080, 2400, 200_000),  # a plausible one is kept
        ]
    )

    def answer(command: Any) -> str | None:
        if not isinstance(command, ScreenshotCommand):
            return None
        b64 = base64.b64encode(next(answers)).decode()
        return f'{{"type":"reply","id":{command.id},"ok":true,"pngBase64":"{b64}"}}'

    rogue = RogueAgent(answer=answer)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with running_hub(agents=[AgentTarget(rogue.url, ROGUE_TOKEN)]) as rh:
            async with client(rh.url) as ws:
                with anyio.fail_after(10):
                    while "rogue-1" not in rh.hub.service.devices or (
                        rh.hub.service.devices["rogue-1"].current is None
                    ):
                        await anyio.sleep(0.05)
                replies = [
                    await call(ws, {"type": "screenshot", "id": i, "device": "rogue-1"})
                    for i in range(5)
                ]
                stats = rh.hub.service.statistics()["memory"]["screenshots"]["devices"]["rogue-1"]
        tg.cancel_scope.cancel()
    errors = [r["error"]["message"] for r in replies[:4]]
    assert all(r["type"] == "error" for r in replies[:4]), replies
    assert "IHDR.width" in errors[0] and "1400000000" in errors[0]
    assert errors[1].startswith("the screenshot was refused: bytes:")
    assert "IHDR.width" in errors[2]
    assert "IHDR" in errors[3]
    assert replies[4]["type"] == "result" and replies[4]["result"]["width"] == 1080
    assert stats["refused"] == 4 and stats["kept"] == 1
    assert stats["refused_bytes"] == 4096 + (12 << 20) + 4096 + 48


if __name__ == "__main__":
    anyio.run(_serve_shots, int(sys.argv[1]))
