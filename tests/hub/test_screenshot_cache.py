"""One device screenshot per screen generation (``bridge.hub.screenshot_cache``), against a
real hub and the simulated device: concurrent and repeated requests on an unchanged screen
share one device screenshot, one capture id and one journal entry; ``fresh`` takes a new one
and is bounded per session; a new screen takes a new one; settled subscribers that opt in get
``picture`` events without asking, and the viewer-sized image is derived once."""

from __future__ import annotations

import io
import json
from pathlib import Path

import anyio
import pytest

from bridge.client import ProtocolFailure, build_query, connect
from bridge.hub.screenshot_cache import FRESH_BURST
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb, ProtocolErrorCode
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub

pytestmark = pytest.mark.anyio


async def http_get(
    rh: RunningHub, path: str, token: str | None
) -> tuple[int, dict[str, str], bytes]:
    stream = await anyio.connect_tcp("127.0.0.1", rh.port)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    await stream.send(f"GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n".encode())
    data = b""
    with anyio.fail_after(10):
        try:
            while True:
                data += await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return int(lines[0].split()[1]), headers, body


async def journal_screenshots(dev: object, at_least: int) -> int:
    with anyio.fail_after(10):
        while True:
            got = await dev.timeline(since="-10m", kinds=("screenshot",))  # type: ignore[attr-defined]
            if len(got.entries) >= at_least:
                return len(got.entries)
            await anyio.sleep(0.05)


async def test_20_concurrent_and_200_sequential_requests_take_one_device_screenshot(
    tmp_path: Path,
) -> None:
    async with (
        running_hub(sim_scene="login", journal=tmp_path / "j.sqlite3") as rh,
        connect(rh.url, token=OBSERVER, name="viewer") as hub,
    ):
        sim = rh.hub.sim
        dev = hub.device(rh.device_id)
        before = sim.stats.screenshots
        generation = rh.hub.service.devices[rh.device_id].generation
        results = []

        async def one() -> None:
            results.append(await dev.screenshot())

        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(one)
        for _ in range(200):
            results.append(await dev.screenshot())  # noqa: PERF401 (one after the other)
        assert rh.hub.service.devices[rh.device_id].generation == generation  # unchanged
        assert sim.stats.screenshots - before == 1  # the agent's screenshot commands
        assert len({r.capture for r in results}) == 1
        assert {r.generation for r in results} == {generation}
        assert sum(not r.shared for r in results) == 1
        assert await journal_screenshots(dev, 1) == 1
        # fresh: a new device screenshot (and a second journal entry, written after the first)
        fresh = await dev.screenshot(fresh=True)
        assert not fresh.shared and fresh.capture != results[0].capture
        assert sim.stats.screenshots - before == 2
        assert await journal_screenshots(dev, 2) == 2
        # ...and it is what later requests for this screen share
        assert (await dev.screenshot()).capture == fresh.capture
        assert sim.stats.screenshots - before == 2
        stats = rh.hub.service.statistics()["pictures"]["screenshots"]
        assert stats["device_screenshots"] == 2 and stats["shared"] == 220


async def test_fresh_is_bounded_per_session_and_a_new_screen_takes_a_new_picture() -> None:
    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="one") as hub,
        connect(rh.url, token=OBSERVER, name="two") as other,
    ):
        dev = hub.device(rh.device_id)
        # the burst is what is tested: a refill of one a second would let a loaded machine
        # (a screenshot taking a second) take all ten
        rh.hub.service.screenshots.fresh_per_s = 0.001
        refused = None
        for _ in range(10):
            try:
                await dev.screenshot(fresh=True)
            except ProtocolFailure as exc:
                refused = exc
                break
        assert refused is not None and refused.code is ProtocolErrorCode.RATE_LIMITED
        assert rh.hub.service.screenshots.counts.fresh == FRESH_BURST  # then the refusal
        await other.device(rh.device_id).screenshot(fresh=True)  # another session is not bounded
        first = await dev.screenshot()
        user = await dev.find(build_query(resource_id="username"))
        await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="ada")
        )
        second = await dev.screenshot()
        assert second.capture != first.capture and second.generation != first.generation


async def test_settled_subscribers_get_pictures_without_asking_and_views_are_derived_once() -> None:
    from PIL import Image

    async with (
        running_hub(sim_scene="login") as rh,
        connect(rh.url, token=CONTROLLER, name="actor") as actor,
    ):
        import websockets

        sim = rh.hub.sim
        before = sim.stats.screenshots
        sockets = []
        for _ in range(3):
            ws = await websockets.connect(rh.url)
            await ws.send(
                json.dumps(
                    {"type": "hello", "id": 1, "token": OBSERVER, "client": {"name": "page"}}
                )
            )
            await ws.recv()
            await ws.send(
                json.dumps(
                    {
                        "type": "subscribe",
                        "id": 2,
                        "device": rh.device_id,
                        "settled": True,
                        "pictures": True,
                    }
                )
            )
            sockets.append(ws)

        async def next_picture(ws: object) -> dict[str, object]:
            with anyio.fail_after(10):
                while True:
                    msg = json.loads(await ws.recv())  # type: ignore[attr-defined]
                    if msg["type"] == "picture":
                        return msg

        firsts = [await next_picture(ws) for ws in sockets]
        assert len({p["capture"] for p in firsts}) == 1
        dev = actor.device(rh.device_id)
        user = await dev.find(build_query(resource_id="username"))
        await dev.act(
            ActionRequest(action=ActionVerb.SET_TEXT, target=user.matches[0].ref, value="ada")
        )
        seconds = [await next_picture(ws) for ws in sockets]
        assert len({p["capture"] for p in seconds}) == 1
        assert seconds[0]["capture"] != firsts[0]["capture"]
        assert seconds[0]["generation"] > firsts[0]["generation"]
        assert sim.stats.screenshots - before == 2  # one per screen, not per viewer
        # the viewer-sized picture: WebP at the page's width, derived once for every page
        path = str(seconds[0]["url"]).split(str(rh.port), 1)[1].removesuffix(".png")
        bodies = []
        for _ in range(3):
            status, headers, body = await http_get(rh, f"{path}.webp?width=300", OBSERVER)
            assert status == 200 and headers["content-type"] == "image/webp"
            bodies.append(body)
        assert len(set(bodies)) == 1 and len(bodies[0]) < int(seconds[0]["bytes"])  # type: ignore[call-overload]
        with Image.open(io.BytesIO(bodies[0])) as image:
            assert image.format == "WEBP" and image.width == 320  # 300 rounded up to 32s
        status, headers, body = await http_get(rh, f"{path}.jpg?width=200", OBSERVER)
        assert status == 200 and headers["content-type"] == "image/jpeg" and body[:2] == b"\xff\xd8"
        assert (await http_get(rh, f"{path}.webp?width=300", None))[0] == 401
        assert (await http_get(rh, "/v1/captures/cap_nothing.webp?width=300", OBSERVER))[0] == 404
        views = rh.hub.service.statistics()["pictures"]["views"]
        assert (
            views["derived"] == 2
            and views["served"] == 4
            and 0 < views["bytes"] <= views["max_bytes"]
        )
        for ws in sockets:
            await ws.close()
