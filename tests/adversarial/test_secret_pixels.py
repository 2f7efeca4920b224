"""Issue 33.9 (masking follows secrets into pixels): a secret typed into an ordinary field
(the login screen's username) is not readable in the pictures an observer can fetch: the
screenshot, the journal's copy of it and the frames of a recording show the field black, and
OCR of the screenshot does not find the secret (while it finds the field's neighbours)."""

from __future__ import annotations

import base64
import io
import json
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import av
import pytest
from PIL import Image, ImageStat

from bridge.core.pixel_mask import MARGIN
from tests.adversarial.harness import call, client, hub_under_attack
from tests.hub.hubfixture import OBSERVER
from tests.skips import vision_installed

SECRET = "HUNTER2SECRET"


def fetch(url: str) -> bytes:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {OBSERVER}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return bytes(resp.read())


def region_mean(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    return float(ImageStat.Stat(image.convert("L").crop(box)).mean[0])


def inner(bounds: list[int], scale: float) -> tuple[int, int, int, int]:
    """The field's rectangle in picture pixels, a little inside (the mask's margin aside)."""
    left, top, right, bottom = (int(v * scale) for v in bounds)
    pad = MARGIN + 2
    return left + pad, top + pad, right - pad, bottom - pad


async def test_a_typed_secret_is_black_in_screenshots_journal_and_recordings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOBRIDGE_SECRET_PW", SECRET)
    async with (
        hub_under_attack(sim_scene="login", journal=tmp_path / "j.sqlite3") as rh,
        client(rh.url) as ws,
        client(rh.url, OBSERVER, "onlooker") as observer,
    ):
        dev = rh.device_id
        found = await call(
            ws, {"type": "find", "id": 1, "device": dev, "query": {"resourceId": "username"}}
        )
        match = found["result"]["matches"][0]
        bounds = match["node"]["bounds"]
        act = await call(
            ws,
            {
                "type": "act",
                "id": 2,
                "device": dev,
                "request": {
                    "action": "SET_TEXT",
                    "target": match["ref"],
                    "valueRef": "secret://pw",
                },
            },
        )
        assert act["type"] == "result", act
        shot = await call(observer, {"type": "screenshot", "id": 3, "device": dev})
        assert shot["type"] == "result", shot
        png = await anyio.to_thread.run_sync(fetch, shot["result"]["url"])
        image = Image.open(io.BytesIO(png))
        screen = rh.hub.service.devices[dev].current
        assert screen is not None
        root = screen.normalized.full.nodes[0].bounds
        assert root is not None
        scale = image.width / (root[2] - root[0])
        assert region_mean(image, inner(bounds, scale)) < 5  # black
        assert region_mean(image, (0, 0, image.width, max(1, int(bounds[1] * scale) - 20))) > 40

        if vision_installed():
            from bridge.vision.engine import load_engine

            engine = load_engine()
            assert not isinstance(engine, str)
            words = " ".join(box.text for box in engine.read(image.convert("RGB")))
            assert SECRET not in words.replace(" ", "")
            assert words.strip(), "OCR read nothing at all: the check would prove nothing"

        # the journal's copy of that screenshot
        with anyio.fail_after(10):
            while True:
                at = await call(
                    observer, {"type": "journal.at", "id": 4, "device": dev, "at": "now"}
                )
                url = at.get("result", {}).get("screenshot")
                if url:
                    break
                await anyio.sleep(0.1)
        kept = Image.open(io.BytesIO(await anyio.to_thread.run_sync(fetch, url)))
        assert region_mean(kept, inner(bounds, scale)) < 5

        # a recording's frames
        started = await call(
            observer, {"type": "record.start", "id": 5, "device": dev, "seconds": 1, "fps": 5}
        )
        assert started["type"] == "result", started
        recording = started["result"]["recording"]
        stopped = await call(
            observer, {"type": "record.stop", "id": 6, "recording": recording}, timeout_s=20
        )
        assert stopped["result"]["frames"] >= 1, stopped
        data = bytearray()
        while True:
            part: Any = await call(
                observer,
                {"type": "record.read", "id": 7, "recording": recording, "offset": len(data)},
            )
            chunk = part["result"]["data"]
            data += base64.b64decode(chunk) if isinstance(chunk, str) else bytes(chunk)
            if part["result"]["eof"]:
                break
        frame = next(av.open(io.BytesIO(bytes(data))).decode(video=0)).to_image()
        frame_scale = frame.width / (root[2] - root[0])
        assert region_mean(frame, inner(bounds, frame_scale)) < 30  # H.264 blurs the edges
        assert SECRET not in json.dumps([act, shot, at, stopped])
