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
    # Issue 34: a bit rate and a size (1080x2400 scaled to a long side of 1280), and its own
    # pid written beside the file so a stop interrupts this recording only.
    assert runs[0][:7] == [
        "screenrecord",
        "--bit-rate",
        "6000000",
        "--size",
        "576x1280",
        "--time-limit",
        "3",
    ]
    path = runs[0][7]
    assert runs[0][8:] == ["&", "echo", "$!", ">", f"{path}.pid;", "wait"]
    assert path not in fake.files  # deleted after reading
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


async def test_android_screenrecord_stop_interrupts_only_its_own_recording() -> None:
    """Issue 34: ``pkill -INT screenrecord`` stopped every recording on the phone."""
    fake = FakeDevice("emulator-5554")
    fake.mp4 = _tiny_mp4()
    stop = anyio.Event()
    stop.set()
    await AndroidMedia(fake, lambda: 0.0).recorder(10).record(3, stop, 1 << 20)
    path = fake.argvs("screenrecord")[0][7]
    assert not any("pkill" in c for c in fake.calls)
    assert f"kill -INT $(cat {path}.pid)" in fake.calls


def test_android_logcat_lost_lines_are_said_not_skipped() -> None:
    """Issue 34: a wrapped buffer or a poll at its line limit lost lines silently."""
    from bridge.devices.android.media import MAX_POLL_LINES, lost_lines, recording_size

    assert lost_lines("last", ["last", "new"], False, 5, 1) is None
    wrapped = lost_lines("last", ["newer", "newest"], False, 5, 1000)
    assert wrapped is not None and wrapped.level == "warn" and wrapped.tag == "mobridge"
    assert "wrapped" in wrapped.text and wrapped.seq == 5
    capped = lost_lines("", ["x"] * MAX_POLL_LINES, True, 1, None)
    assert capped is not None and str(MAX_POLL_LINES) in capped.text
    assert recording_size("Physical size: 1440x3120\nOverride size: 1080x2340\n") == (576, 1280)
    assert recording_size("no size") is None


async def test_android_logcat_wrap_between_polls_emits_a_lost_lines_warning() -> None:
    fake = FakeDevice("emulator-5554")
    fake.ps_text = "PID NAME\n"
    media = AndroidMedia(fake, lambda: 0.0)
    got: list[LogLine] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(media.log_source().run, got.extend)
        await anyio.sleep(0.1)
        fake.logcat.append("1764672000.100  42  42 I A       : one")
        with anyio.fail_after(10):
            while len(got) < 1:
                await anyio.sleep(0.05)
        # The ring buffer wraps: "one" is gone, newer lines are there.
        fake.logcat[:] = ["1764672005.000  42  42 I A       : two"]
        with anyio.fail_after(10):
            while len(got) < 3:
                await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    assert [ln.text for ln in got][:1] == ["one"]
    assert got[1].tag == "mobridge" and "wrapped" in got[1].text
    assert got[2].text == "two" and [ln.seq for ln in got] == [1, 2, 3]
