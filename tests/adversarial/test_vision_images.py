"""Issue 33.2: a rogue agent answers vision's screenshots with 13,000 x 13,000 canvases (a few
hundred KB of deflate each). The hub refuses them from the PNG header, before a pixel is
decoded, and the event loop stays free: pings are answered within 1 s and RSS does not grow
by the hundreds of MB one decoded frame would take."""

from __future__ import annotations

import base64
import struct
import zlib

import anyio
from websockets.asyncio.server import ServerConnection

from bridge.hub.app import AgentTarget
from bridge.wire.agent_link import Reply, ScreenshotCommand, TreePush
from bridge.wire.codec import encode
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.adversarial.harness import ROGUE_TOKEN, RogueAgent, hub_under_attack
from tests.skips import need_vision

SIDE = 13_000


def bomb_png(side: int) -> bytes:
    """A valid grey ``side`` x ``side`` PNG: tiny on the wire, ``side``² bytes decoded."""
    z = zlib.compressobj(9)
    row = b"\x00" * (side + 1)
    parts = [z.compress(row) for _ in range(side)]
    parts.append(z.flush())
    idat = b"".join(parts)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def canvas_tree(capture: int) -> RawTree:
    """A whole-screen SurfaceView (a blind region vision reads), on a screen that claims to
    be as large as the picture, so only the hub's own pixel bound stands in the way."""
    nodes = (
        RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout",
                package="com.example.game", bounds=(0, 0, SIDE, SIDE)),
        RawNode(handle=1, parent=0, class_name="android.view.SurfaceView",
                package="com.example.game", bounds=(0, 0, SIDE, SIDE)),
    )  # fmt: skip
    return RawTree(
        capture=capture, platform=Platform.ANDROID, nodes=nodes, package="com.example.game"
    )


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1])


@need_vision
async def test_huge_vision_screenshots_are_refused_before_decoding() -> None:
    png = await anyio.to_thread.run_sync(bomb_png, SIDE)
    assert len(png) < 400_000
    payload = base64.b64encode(png).decode()
    shots = [0]

    def answer(command: object) -> str | None:
        if isinstance(command, ScreenshotCommand):
            shots[0] += 1
            return encode(Reply(id=command.id, ok=True, png_base64=payload)).decode()
        return None

    async def game(ws: ServerConnection) -> None:
        await ws.send(encode(TreePush(reason="change", stable=True, tree=canvas_tree(2))).decode())

    rogue = RogueAgent(device_id="canvas-1", script=game, answer=answer)
    async with anyio.create_task_group() as tg:
        await tg.start(rogue.serve)
        async with hub_under_attack(
            agents=[AgentTarget(rogue.url, ROGUE_TOKEN)], vision=True
        ) as rh:
            before = rss_kib()
            peak = before
            with anyio.fail_after(30):
                while shots[0] < 3:  # the first reading and two rechecks
                    peak = max(peak, rss_kib())
                    await anyio.sleep(0.05)
            vision = rh.hub.service.vision
            assert vision is not None
            assert vision.counts.refused >= 2
            assert rh.hub.service.statistics()["vision"]["refused"] >= 2
            assert peak - before < 100 * 1024, f"RSS grew {(peak - before) // 1024} MiB"
            device = rh.hub.service.devices["canvas-1"]
            assert device.online
        tg.cancel_scope.cancel()
