"""An Android device's live mirror from ``screenrecord --output-format=h264`` streamed over
adb (``bridge.devices.android.mirror``), against the fake adbutils device whose screenrecord
writes a real H.264 stream made with PyAV: the exact command line, the stream cut back into
the very access units that were encoded (key frames marked, SPS/PPS in band), whatever the
chunk size adb delivers."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.core.h264 import AccessUnit, AccessUnits, codec_string
from bridge.core.h264_encoder import H264Encoder
from bridge.devices.android.media import AndroidMedia
from bridge.devices.android.mirror import parse_wm_size
from tests.devices.android_fakes.fake_adbutils import FakeDevice

pytestmark = pytest.mark.anyio


def encoded_stream(frames: int = 12) -> list[AccessUnit]:
    from PIL import Image, ImageDraw

    encoder = H264Encoder(288, 640, fps=30, keyint=5)
    units: list[AccessUnit] = []
    for i in range(frames):
        image = Image.new("RGB", (288, 640), (240, 240, 240))
        ImageDraw.Draw(image).rectangle((10, 10 + 40 * i, 200, 40 + 40 * i), fill=(30, 90, 200))
        units.extend(encoder.encode_image(image, i * 33, key=False))
    return units


class Collect:
    def __init__(self) -> None:
        self.units: list[AccessUnit] = []
        self.sizes: set[tuple[int, int]] = set()

    def emit(self, unit: AccessUnit, at_ms: int, width: int, height: int) -> None:
        self.units.append(unit)
        self.sizes.add((width, height))

    def key_wanted(self) -> bool:
        return False


@pytest.mark.parametrize("chunk", [97, 4096, 1 << 20])
async def test_screenrecord_h264_is_cut_into_the_encoded_access_units(chunk: int) -> None:
    units = encoded_stream()
    fake = FakeDevice("emulator-5554")
    fake.h264 = b"".join(u.data for u in units)
    fake.h264_chunk = chunk
    source: Any = AndroidMedia(fake, lambda: 0.0).mirror_source(30)
    sink = Collect()
    async with anyio.create_task_group() as tg:
        tg.start_soon(source.run, sink)
        with anyio.fail_after(10):
            while len(sink.units) < len(units) - 1:  # the last waits for the next start code
                await anyio.sleep(0.02)
        tg.cancel_scope.cancel()
    got = sink.units
    assert [u.data for u in got] == [u.data for u in units[: len(got)]]
    assert [u.key for u in got] == [u.key for u in units[: len(got)]]
    assert got[0].key and sum(u.key for u in got) >= 2
    assert codec_string(got[0].data) is not None and codec_string(got[0].data).startswith("avc1.42")
    assert sink.sizes == {(576, 1280)}  # 1080x2400 scaled to a 1280 long side
    (record,) = fake.screenrecords
    assert record.argv == [
        "screenrecord", "--output-format=h264", "--bit-rate", "4000000",
        "--time-limit", "180", "--size", "576x1280", "-",
    ]  # fmt: skip
    assert record.closed.is_set()  # cancelled: adb's stream is closed


async def test_a_screenrecord_that_fails_at_once_ends_the_source_with_its_words() -> None:
    fake = FakeDevice("emulator-5554")
    fake.h264 = b"Unknown option: --output-format=h264\n"
    fake.h264_ends = True
    source: Any = AndroidMedia(fake, lambda: 0.0).mirror_source(30)
    with pytest.raises(RuntimeError, match="Unknown option"):
        with anyio.fail_after(10):
            await source.run(Collect())


def test_access_units_of_a_whole_stream_and_wm_size() -> None:
    units = encoded_stream(8)
    cutter = AccessUnits()
    blob = b"".join(u.data for u in units)
    out = cutter.feed(blob[:5]) + cutter.feed(blob[5:]) + cutter.flush()
    assert [u.data for u in out] == [u.data for u in units]
    assert parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (720, 1600)
    assert parse_wm_size("nothing") is None


def test_access_units_skip_junk_and_bound_a_stream_without_start_codes() -> None:
    from bridge.core import h264

    units = encoded_stream(4)
    cutter = AccessUnits()
    out = cutter.feed(b"garbage before the stream")
    for byte in b"".join(u.data for u in units):  # one byte at a time
        out += cutter.feed(bytes([byte]))
    out += cutter.flush()
    assert [u.data for u in out] == [u.data for u in units]
    assert cutter.dropped_bytes == len(b"garbage before the stream")
    flood = AccessUnits()
    assert flood.feed(b"\x01" * (h264.MAX_NAL_BYTES + 1)) == []
    assert flood.dropped_bytes == h264.MAX_NAL_BYTES + 1


async def test_a_hub_mirrors_an_android_device_from_its_screenrecord_stream() -> None:
    """Through a real hub: the device layer's screenrecord stream (the fake adb's PyAV-made
    H.264) reaches a viewer byte for byte, after a config naming its codec and source; the
    hub encodes nothing, and ``/v1/stats`` counts it."""
    import json

    import websockets

    from bridge.wire.pictures import MIRROR_HEADER, MIRROR_KEY
    from tests.hub.hubfixture import OBSERVER, running_hub
    from tests.hub.test_screenshot_cache import http_get

    units = encoded_stream(10)
    fake = FakeDevice("emulator-5554")
    fake.h264 = b"".join(u.data for u in units)
    # a screen with no field holding a secret (a password field would switch the mirror to the
    # hub's masked screenshots: tests/adversarial/test_secret_mirror.py)
    async with running_hub(sim_scene="menu") as rh:
        rh.hub.service.media[rh.device_id] = AndroidMedia(fake, lambda: 0.0)  # type: ignore[assignment]
        url = f"ws://127.0.0.1:{rh.port}/v1/mirror?device={rh.device_id}&fps=30"
        auth = {"Authorization": f"Bearer {OBSERVER}"}
        async with websockets.connect(url, additional_headers=auth, max_size=None) as ws:
            config = json.loads(await ws.recv())
            got = []
            with anyio.fail_after(10):
                while len(got) < len(units) - 1:
                    got.append(await ws.recv())
        assert config["type"] == "mirror.config" and config["source"] == "screenrecord"
        assert config["codec"] == codec_string(units[0].data)
        assert (config["width"], config["height"]) == (576, 1280)
        for message, unit in zip(got, units, strict=False):
            flags, _ = MIRROR_HEADER.unpack(message[: MIRROR_HEADER.size])
            assert message[MIRROR_HEADER.size :] == unit.data
            assert bool(flags & MIRROR_KEY) == unit.key
        status, _, body = await http_get(rh, "/v1/stats", OBSERVER)
        mirror = json.loads(body)["mirror"][rh.device_id]
        assert status == 200 and mirror["source"] == "screenrecord"
        assert mirror["source_starts"] == 1 and mirror["frames"] >= len(units) - 1
        assert rh.hub.sim.stats.screenshots == 0  # nothing taken from the agent
