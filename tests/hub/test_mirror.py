"""The live mirror (``bridge.hub.mirror``) of the simulated device through a real hub: one
source encodes once for every viewer, what viewers get is real H.264 (decoded here with
PyAV) that starts at a key frame with its config, and a viewer that stops reading is cut off
while the others keep getting every frame."""

from __future__ import annotations

import json
import socket

import anyio
import pytest
import websockets

from bridge.wire.pictures import MIRROR_HEADER, MIRROR_KEY
from tests.hub.hubfixture import OBSERVER, RunningHub, running_hub

pytestmark = pytest.mark.anyio


async def open_viewer(rh: RunningHub, fps: int = 30, small: bool = False) -> object:
    url = f"ws://127.0.0.1:{rh.port}/v1/mirror?device={rh.device_id}&fps={fps}"
    if not small:
        ws = await websockets.connect(url, max_size=None)
    else:  # a viewer that will stop reading: small kernel buffers, one message queued at most
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", rh.port))
        ws = await websockets.connect(url, sock=sock, max_size=None, max_queue=1)
    await ws.send(json.dumps({"token": OBSERVER}))
    return ws


async def test_viewers_share_one_encoded_stream_and_a_stalled_viewer_is_cut_off() -> None:
    import av

    async with running_hub(sim_scene="login", client_limits={"socket_send_buffer": 4096}) as rh:
        rh.hub.service.mirrors.limits = {"viewer_bytes": 16 * 1024, "cut_after_s": 1.0}
        readers = [await open_viewer(rh) for _ in range(2)]
        stalled = await open_viewer(rh, small=True)
        got: list[list[bytes]] = [[], []]
        configs: list[dict[str, object]] = []

        async def read(i: int, ws: object) -> None:
            async for message in ws:  # type: ignore[attr-defined]
                if isinstance(message, str):
                    configs.append(json.loads(message))
                else:
                    got[i].append(message)

        async with anyio.create_task_group() as tg:
            for i, ws in enumerate(readers):
                tg.start_soon(read, i, ws)
            with anyio.fail_after(60):  # the stalled viewer is cut off...
                while rh.hub.service.mirrors.mirrors[rh.device_id].counts.cut_off == 0:
                    await anyio.sleep(0.05)
            marks = [len(g) for g in got]
            with anyio.fail_after(20):  # ...and the others keep getting frames
                while min(len(g) - m for g, m in zip(got, marks, strict=True)) < 30:
                    await anyio.sleep(0.05)
            stats = rh.hub.service.statistics()["mirror"][rh.device_id]
            tg.cancel_scope.cancel()
        with pytest.raises(websockets.ConnectionClosed):
            with anyio.fail_after(10):
                while True:
                    await stalled.recv()  # type: ignore[attr-defined]
        assert stats["source_starts"] == 1 and stats["source"] == "frames"
        assert stats["cut_off"] == 1 and len(stats["viewers"]) == 2
        assert all(v["dropped"] == 0 for v in stats["viewers"].values())
        assert configs and configs[0]["type"] == "mirror.config"
        assert str(configs[0]["codec"]).startswith("avc1.42")
        # both readers got the very same stream, starting at a key frame, and it decodes
        n = min(len(g) for g in got)
        assert got[0][:n] == got[1][:n]
        flags, _ = MIRROR_HEADER.unpack(got[0][0][: MIRROR_HEADER.size])
        assert flags & MIRROR_KEY
        decoder = av.CodecContext.create("h264", "r")
        pictures = []
        for message in got[0][:n]:
            pictures.extend(decoder.decode(av.Packet(message[MIRROR_HEADER.size :])))
        assert len(pictures) >= n - 2
        assert (pictures[0].width, pictures[0].height) == (
            configs[0]["width"],
            configs[0]["height"],
        )
        for ws in readers:
            await ws.close()  # type: ignore[attr-defined]
        with anyio.fail_after(10):  # the last viewer gone, the source stops
            while rh.hub.service.mirrors.mirrors[rh.device_id].scope is not None:
                await anyio.sleep(0.05)


async def test_a_mirror_needs_a_token_and_a_device() -> None:
    async with running_hub(sim_scene="login") as rh:
        url = f"ws://127.0.0.1:{rh.port}/v1/mirror?device={rh.device_id}"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"token": "wrong"}))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        bad = f"ws://127.0.0.1:{rh.port}/v1/mirror?device=nope"
        async with websockets.connect(
            bad, additional_headers={"Authorization": f"Bearer {OBSERVER}"}
        ) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and "device" in closed.value.rcvd.reason


async def test_a_device_without_its_own_encoder_is_mirrored_from_its_agents_screenshots() -> None:
    """The fallback every iOS device takes: the agent's screenshots, encoded once on the hub."""
    import av

    async with running_hub(sim_scene="login") as rh:
        rh.hub.service.media.pop(rh.device_id, None)  # no device layer offering a mirror
        before = rh.hub.sim.stats.screenshots
        ws = await open_viewer(rh, fps=5)
        config = json.loads(await ws.recv())  # type: ignore[attr-defined]
        frames = []
        with anyio.fail_after(30):
            while len(frames) < 4:
                frames.append(await ws.recv())  # type: ignore[attr-defined]
        await ws.close()  # type: ignore[attr-defined]
        assert config["source"] == "screenshots" and config["fps"] == 5
        assert rh.hub.sim.stats.screenshots - before >= 4  # one agent screenshot per frame
        decoder = av.CodecContext.create("h264", "r")
        pictures = []
        for message in frames:
            pictures.extend(decoder.decode(av.Packet(message[MIRROR_HEADER.size :])))
        assert pictures and (pictures[0].width, pictures[0].height) == (
            config["width"],
            config["height"],
        )
