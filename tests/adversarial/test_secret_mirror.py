"""Issue 33 (masking follows secrets into pixels), the live mirror: a secret typed into an
ordinary field (the login screen's username) never reaches a ``/v1/mirror`` viewer (an
observer), whichever source the mirror runs: the simulated device's own frames encoded on the
hub, the agent's screenshots encoded on the hub (every iOS device), or a device's own encoder
passed through (Android's ``screenrecord``; here the simulated device's frames encoded without
any mask, as a phone's encoder would, marked ``passthrough``).

Every frame the viewer got, from before the typing until well after it, is decoded (PyAV) and
the username field's inside is classified: as it was before the typing, or black. Anything
else is the secret (or part of it) on screen: a leak."""

from __future__ import annotations

import json
from typing import Any

import anyio
import av
import pytest
import websockets
from PIL import Image, ImageChops, ImageStat

from bridge.core.h264 import MirrorSink
from bridge.core.pixel_mask import CLEAR, MARGIN, MaskPlan
from bridge.devices.sim.mirror import SimFrames
from bridge.wire.pictures import MIRROR_HEADER
from tests.adversarial.harness import call, client, hub_under_attack
from tests.hub.hubfixture import OBSERVER

pytestmark = pytest.mark.anyio

SECRET = "HUNTER2SECRET"
STRONG = 64
"""A pixel differs from the field as it was by at least this much (of 255): a glyph's stroke,
not H.264's noise."""
AFTER_FRAMES = 12
"""Frames the viewer must get after the typing's result (the secret is on screen)."""


class _Unmasked:
    """What a phone's encoder does: films the screen, knowing nothing of secrets."""

    def __init__(self, sink: MirrorSink) -> None:
        self.sink = sink

    def emit(self, unit: Any, at_ms: int, width: int, height: int) -> None:
        self.sink.emit(unit, at_ms, width, height)

    def key_wanted(self) -> bool:
        return self.sink.key_wanted()

    def mask_plan(self) -> MaskPlan:
        return CLEAR


class DeviceEncoder:
    """A device layer's own encoder, passed through by the hub (``passthrough``)."""

    name = "screenrecord"
    passthrough = True

    def __init__(self, frames: SimFrames) -> None:
        self.frames = frames
        self.runs = 0

    async def run(self, sink: MirrorSink) -> None:
        self.runs += 1
        await self.frames.run(_Unmasked(sink))


class DeviceEncoderMedia:
    def __init__(self, scene: Any) -> None:
        self.scene = scene
        self.sources: list[DeviceEncoder] = []

    def mirror_source(self, fps: int) -> DeviceEncoder:
        source = DeviceEncoder(SimFrames(self.scene, fps))
        self.sources.append(source)
        return source


async def type_secret(ws: Any, dev: str, ref: Any, request_id: int) -> Any:
    """SET_TEXT of the secret ``secret://pw`` into ``ref``; the hub's answer."""
    act = {"action": "SET_TEXT", "target": ref, "valueRef": "secret://pw"}
    message = {"type": "act", "id": request_id, "device": dev, "request": act}
    return await call(ws, message, timeout_s=30)


def inner_box(bounds: list[int], scale: float) -> tuple[int, int, int, int]:
    """The field's rectangle in frame pixels, inside the mask's margin and H.264's blur."""
    left, top, right, bottom = (int(v * scale) for v in bounds)
    pad = MARGIN + 4
    return left + pad, top + pad, right - pad, bottom - pad


def classify(picture: Image.Image, box: tuple[int, int, int, int], empty: Image.Image) -> str:
    region = picture.convert("L").crop(box)
    if ImageStat.Stat(region).mean[0] < 30:
        return "black"
    histogram = ImageChops.difference(region, empty).histogram()
    changed = sum(histogram[STRONG:]) / max(1, sum(histogram))
    return "as before" if changed < 0.005 else f"changed ({changed:.1%} of its pixels)"


@pytest.mark.parametrize(
    ("source", "scene", "field"),
    [
        ("frames", "login", "username"),
        ("screenshots", "login", "username"),
        ("passthrough", "search", "query"),  # no password field: the device's frames show
    ],
)
async def test_a_typed_secret_never_reaches_a_mirror_viewer(
    source: str, scene: str, field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    async with (
        hub_under_attack(sim_scene=scene) as rh,
        client(rh.url) as ws,
    ):
        dev = rh.device_id
        service = rh.hub.service
        if source == "screenshots":
            service.media.pop(dev, None)  # no device layer offering a mirror: iOS's way
        elif source == "passthrough":
            media = DeviceEncoderMedia(rh.hub.sim.current_scene)
            service.media[dev] = media
        found = await call(
            ws, {"type": "find", "id": 1, "device": dev, "query": {"resourceId": field}}
        )
        match = found["result"]["matches"][0]
        bounds = match["node"]["bounds"]
        screen = service.devices[dev].current
        assert screen is not None
        root = screen.normalized.full.nodes[0].bounds
        assert root is not None

        url = f"ws://127.0.0.1:{rh.port}/v1/mirror?device={dev}&fps=10"
        frames: list[bytes] = []
        configs: list[dict[str, Any]] = []
        typed_at: list[int] = []
        async with websockets.connect(url, max_size=None) as viewer:
            await viewer.send(json.dumps({"token": OBSERVER}))

            async def read() -> None:
                async for message in viewer:
                    if isinstance(message, str):
                        configs.append(json.loads(message))
                    else:
                        frames.append(message)

            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                with anyio.fail_after(30):
                    while len(frames) < 3:  # the field as it was, before anything is typed
                        await anyio.sleep(0.02)
                typed_at.append(len(frames))
                act = await type_secret(ws, dev, match["ref"], 2)
                assert act["type"] == "result", act
                typed_at.append(len(frames))
                with anyio.fail_after(60):
                    while len(frames) < typed_at[1] + AFTER_FRAMES:
                        await anyio.sleep(0.02)
                tg.cancel_scope.cancel()
        stats = service.statistics()["mirror"][dev]

    decoder = av.CodecContext.create("h264", "r")
    pictures: list[Image.Image] = []
    for message in frames:
        decoded = decoder.decode(av.Packet(message[MIRROR_HEADER.size :]))
        pictures.extend(picture.to_image() for picture in decoded)  # type: ignore[no-untyped-call]
    assert len(pictures) >= typed_at[1] + AFTER_FRAMES - 2, (len(pictures), len(frames))
    scale = pictures[0].width / (root[2] - root[0])
    box = inner_box(bounds, scale)
    empty = pictures[0].convert("L").crop(box)
    seen = [classify(p, box, empty) for p in pictures]
    leaks = [(i, what) for i, what in enumerate(seen) if what not in ("black", "as before")]
    assert not leaks, f"the secret reached the viewer in frames {leaks[:5]} of {len(seen)}"
    assert seen[0] == "as before"
    assert seen[-1] == "black", seen  # the check sees the field: masked once it holds the secret
    assert stats["secret_masked"] > 0
    if source == "passthrough":  # the device's frames, then the hub's masked ones
        assert [c["source"] for c in configs][:2] == ["screenrecord", "screenshots"], configs
        assert len(media.sources) == 1 and media.sources[0].runs >= 1
        assert seen[typed_at[0] - 1] == "as before"


async def test_a_secret_field_coming_back_into_view_is_in_no_frame_before_it_is_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The login screen's username holds a typed secret; HOME, then the app brought back: the
    screen slides in with the secret before any capture says where the field is. Every frame
    a viewer gets from then on shows the launcher as it was, or the field black."""
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    async with hub_under_attack(sim_scene="login") as rh, client(rh.url) as ws:
        dev = rh.device_id
        service = rh.hub.service
        found = await call(
            ws, {"type": "find", "id": 1, "device": dev, "query": {"resourceId": "username"}}
        )
        match = found["result"]["matches"][0]
        bounds = match["node"]["bounds"]
        screen = service.devices[dev].current
        assert screen is not None
        root = screen.normalized.full.nodes[0].bounds
        assert root is not None
        url = f"ws://127.0.0.1:{rh.port}/v1/mirror?device={dev}&fps=30"
        frames: list[bytes] = []
        marks: dict[str, int] = {}

        async def frames_after(count: int) -> None:
            start = len(frames)
            with anyio.fail_after(60):
                while len(frames) < start + count:
                    await anyio.sleep(0.02)

        async with websockets.connect(url, max_size=None) as viewer:
            await viewer.send(json.dumps({"token": OBSERVER}))

            async def read() -> None:
                async for message in viewer:
                    if isinstance(message, bytes):
                        frames.append(message)  # noqa: PERF401 (read as they come)

            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                await frames_after(3)
                typed = await type_secret(ws, dev, match["ref"], 2)
                assert typed["type"] == "result", typed
                await frames_after(AFTER_FRAMES)
                home = await call(
                    ws, {"type": "global", "id": 3, "device": dev, "action": "HOME"}, 30
                )
                assert home["type"] == "result", home
                await frames_after(AFTER_FRAMES)  # the launcher, still
                marks["launcher"] = len(frames) - 1
                back = await call(
                    ws,
                    {
                        "type": "app",
                        "id": 4,
                        "device": dev,
                        "action": "APP_BRING_TO_FRONT",
                        "appId": "dev.mobridge.demo",
                    },
                    timeout_s=30,
                )
                assert back["type"] == "result", back
                await frames_after(AFTER_FRAMES)
                tg.cancel_scope.cancel()
        holds = service.devices[dev].motion_hold.holds

    decoder = av.CodecContext.create("h264", "r")
    pictures: list[Image.Image] = []
    for message in frames:
        decoded = decoder.decode(av.Packet(message[MIRROR_HEADER.size :]))
        pictures.extend(picture.to_image() for picture in decoded)  # type: ignore[no-untyped-call]
    assert len(pictures) >= len(frames) - 2
    scale = pictures[0].width / (root[2] - root[0])
    box = inner_box(bounds, scale)
    launcher = pictures[marks["launcher"]].convert("L").crop(box)
    seen = [classify(p, box, launcher) for p in pictures[marks["launcher"] :]]
    leaks = [(i, what) for i, what in enumerate(seen) if what not in ("black", "as before")]
    assert not leaks, f"the field showed before it was masked: {leaks[:5]} of {len(seen)}"
    assert seen[-1] == "black", seen  # the app is back, its field masked
    assert holds >= 2, "HOME and the app brought back each held the pictures"


async def test_an_empty_password_field_starts_no_motion_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a field with something in it is worth holding pictures for: the login screen's
    empty password field alone lets HOME's frames through; once a secret is typed, HOME holds."""
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    async with hub_under_attack(sim_scene="login") as rh, client(rh.url) as ws:
        dev = rh.device_id
        device = rh.hub.service.devices[dev]
        home = {"type": "global", "id": 1, "device": dev, "action": "HOME"}
        front = {"type": "app", "id": 2, "device": dev, "action": "APP_BRING_TO_FRONT",
                 "appId": "dev.mobridge.demo"}  # fmt: skip
        assert (await call(ws, home, 30))["type"] == "result"
        assert (await call(ws, front, 30))["type"] == "result"
        assert device.motion_hold.holds == 0
        found = await call(
            ws, {"type": "find", "id": 3, "device": dev, "query": {"resourceId": "username"}}
        )
        typed = await type_secret(ws, dev, found["result"]["matches"][0]["ref"], 4)
        assert typed["type"] == "result", typed
        assert (await call(ws, {**home, "id": 5}, 30))["type"] == "result"
        assert device.motion_hold.holds >= 1
