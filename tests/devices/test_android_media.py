"""An Android device's log, screen recording and crash reports through adb, against the fake
adbutils device (the exact shell lines the hub would send): logcat polled from the newest
line seen (no repeats, apps named by their process), screenrecord read back and deleted, the
crash buffer cut into reports."""

from __future__ import annotations

import anyio
import pytest

from bridge.core.mp4_encoder import Mp4Encoder
from bridge.devices.android.media import AndroidMedia, parse_crashes
from bridge.wire.device_media import LogLine
from tests.devices.android_fakes.fake_adbutils import FakeDevice

pytestmark = pytest.mark.anyio


def _tiny_mp4() -> bytes:
    import io

    from PIL import Image

    encoder = Mp4Encoder(5)
    for i in range(3):
        buf = io.BytesIO()
        Image.new("RGB", (64, 128), (i * 60, 0, 0)).save(buf, "PNG")
        encoder.add_png(buf.getvalue(), i * 200)
    return encoder.finish()


async def test_logcat_streams_new_lines_once_with_their_app() -> None:
    fake = FakeDevice("emulator-5554")
    fake.ps_text = "PID NAME\n4242 com.example.shop\n"
    fake.logcat = ["1764671999.000  4242  4250 I Old     : before the subscription"]
    media = AndroidMedia(fake, lambda: 0.0)
    got: list[LogLine] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(media.log_source().run, got.extend)
        await anyio.sleep(0.1)
        fake.logcat.append("1764672000.100  4242  4250 W OkHttp  : request timeout")
        fake.logcat.append("1764672000.200  4242  4251 E Auth    : login refused")
        with anyio.fail_after(10):
            while len(got) < 2:
                await anyio.sleep(0.05)
        await anyio.sleep(1.2)  # two more polls: nothing is repeated
        tg.cancel_scope.cancel()
    assert [(ln.level, ln.tag, ln.text, ln.app) for ln in got] == [
        ("warn", "OkHttp", "request timeout", "com.example.shop"),
        ("error", "Auth", "login refused", "com.example.shop"),
    ]
    assert [ln.seq for ln in got] == [1, 2] and got[0].at_ms == 1764672000100
    assert any(c.startswith("logcat -d -v epoch -T ") for c in fake.calls)


async def test_screenrecord_is_read_back_and_deleted() -> None:
    fake = FakeDevice("emulator-5554")
    fake.mp4 = _tiny_mp4()
    recorder = AndroidMedia(fake, lambda: 0.0).recorder(10)
    made = await recorder.record(3, anyio.Event(), 1 << 20)
    assert made.data == fake.mp4 and made.frames == 3 and (made.width, made.height) == (64, 128)
    runs = fake.argvs("screenrecord")
    assert runs[0][:3] == ["screenrecord", "--time-limit", "3"]
    assert runs[0][3] not in fake.files  # deleted after reading
    capped = await recorder.record(3, anyio.Event(), 1024)
    assert capped.truncated and capped.data == b""


def test_crash_buffer_becomes_reports() -> None:
    text = (
        "--------- beginning of crash\n"
        "1764672000.500  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n"
        "1764672000.500  4242  4242 E AndroidRuntime: Process: com.example.shop, PID: 4242\n"
        "1764672000.500  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: cart\n"
    )
    reports = parse_crashes(text, None)
    assert len(reports) == 1 and reports[0].app == "com.example.shop"
    assert "IllegalStateException" in reports[0].summary
    assert parse_crashes(text, "com.other") == []
