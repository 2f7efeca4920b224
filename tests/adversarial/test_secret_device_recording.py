"""Issue 33 (masking follows secrets into pixels), recordings the device makes itself
(Android ``screenrecord``, a Simulator's ``simctl io recordVideo``; here the simulated
device's device-side recorder, which films the screen unmasked as they do): a secret typed
into an ordinary field while one runs never leaves the hub in the file an observer reads.
The hub masks the file afterwards (the field black wherever a secret may have shown, the
whole frame while it was being typed) and says so in ``source``; without PyAV it drops the
file and says why; a recording no secret could be in is handed over untouched."""

from __future__ import annotations

import base64
import io
from typing import Any

import anyio
import av
import pytest
from PIL import Image, ImageStat

from tests.adversarial.harness import call, client, hub_under_attack
from tests.adversarial.test_secret_mirror import classify, inner_box
from tests.hub.hubfixture import OBSERVER

pytestmark = pytest.mark.anyio

SECRET = "HUNTER2SECRET"


async def read_recording(ws: Any, recording: str) -> bytes:
    data = bytearray()
    while True:
        part: Any = await call(
            ws, {"type": "record.read", "id": 9, "recording": recording, "offset": len(data)}
        )
        chunk = part["result"]["data"]
        data += base64.b64decode(chunk) if isinstance(chunk, str) else bytes(chunk)
        if part["result"]["eof"]:
            return bytes(data)


async def frames_filmed(rh: Any, at_least: int) -> None:
    media = rh.hub.service.media[rh.device_id]
    with anyio.fail_after(60):
        while not media.recorders or media.recorders[-1].frames < at_least:
            await anyio.sleep(0.05)


async def test_a_secret_typed_during_a_device_side_recording_is_black_in_its_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    async with (
        hub_under_attack(sim_scene="login", sim_options={"device_recorder": True}) as rh,
        client(rh.url) as ws,
        client(rh.url, OBSERVER, "onlooker") as observer,
    ):
        dev = rh.device_id
        found = await call(
            ws, {"type": "find", "id": 1, "device": dev, "query": {"resourceId": "username"}}
        )
        match = found["result"]["matches"][0]
        bounds = match["node"]["bounds"]
        screen = rh.hub.service.devices[dev].current
        assert screen is not None
        root = screen.normalized.full.nodes[0].bounds
        assert root is not None
        started = await call(
            observer, {"type": "record.start", "id": 2, "device": dev, "seconds": 60, "fps": 5}
        )
        assert started["type"] == "result", started
        assert started["result"]["source"] == "device"
        recording = started["result"]["recording"]
        await frames_filmed(rh, 3)
        act = await call(
            ws,
            {
                "type": "act",
                "id": 3,
                "device": dev,
                "request": {
                    "action": "SET_TEXT",
                    "target": match["ref"],
                    "valueRef": "secret://pw",
                },
            },
            timeout_s=30,
        )
        assert act["type"] == "result", act
        filmed = rh.hub.service.media[dev].recorders[-1].frames
        await frames_filmed(rh, filmed + 25)  # 5 s at 5 fps: past the mask's window
        stopped = await call(
            observer, {"type": "record.stop", "id": 4, "recording": recording}, timeout_s=120
        )
        assert stopped["type"] == "result", stopped
        result = stopped["result"]
        data = await read_recording(observer, recording)

    assert result["frames"] >= filmed + 20 and len(data) == result["bytes"] > 0
    container: Any = av.open(io.BytesIO(data))
    pictures = [f.to_image() for f in container.decode(video=0)]
    assert len(pictures) == result["frames"]
    box = inner_box(bounds, pictures[0].width / (root[2] - root[0]))
    empty = pictures[0].convert("L").crop(box)
    seen = [classify(p, box, empty) for p in pictures]
    leaks = [(i, what) for i, what in enumerate(seen) if what not in ("black", "as before")]
    assert not leaks, f"the secret is in frames {leaks[:5]} of {len(seen)} of the file"
    assert seen[-1] == "black", seen
    assert result["source"] == "device, masked by the hub", result
    last: Image.Image = pictures[-1]
    above = (0, 0, last.width, max(1, box[1] - 20))
    assert ImageStat.Stat(last.convert("L").crop(above)).mean[0] > 40  # the rest is visible


async def test_a_device_side_recording_without_a_secret_is_the_devices_own_file() -> None:
    async with (
        hub_under_attack(sim_scene="menu", sim_options={"device_recorder": True}) as rh,
        client(rh.url, OBSERVER, "onlooker") as observer,
    ):
        started = await call(
            observer,
            {"type": "record.start", "id": 1, "device": rh.device_id, "seconds": 60, "fps": 5},
        )
        await frames_filmed(rh, 5)
        recording = started["result"]["recording"]
        stopped = await call(observer, {"type": "record.stop", "id": 2, "recording": recording})
        data = await read_recording(observer, recording)
    assert stopped["result"]["source"] == "device"
    assert stopped["result"]["frames"] >= 5 and len(data) == stopped["result"]["bytes"]


async def test_without_pyav_a_device_file_that_may_hold_a_secret_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bridge.hub import recording as hub_recording

    async with (
        hub_under_attack(sim_scene="login", sim_options={"device_recorder": True}) as rh,
        client(rh.url, OBSERVER, "onlooker") as observer,
    ):
        started = await call(
            observer,
            {"type": "record.start", "id": 1, "device": rh.device_id, "seconds": 60, "fps": 5},
        )
        await frames_filmed(rh, 3)
        # PyAV gone after the start (the device's recorder needs none of the hub's)
        monkeypatch.setattr(hub_recording, "media_extra_missing", lambda: "PyAV is missing")
        recording = started["result"]["recording"]
        stopped = await call(observer, {"type": "record.stop", "id": 2, "recording": recording})
        data = await read_recording(observer, recording)
    result = stopped["result"]
    assert data == b"" and result.get("bytes", 0) == 0 and result["source"] == "device"
    assert "a secret was on screen" in result["reason"] and "PyAV is missing" in result["reason"]
