"""The tiny PNG encoder and the screen renderer (words drawn with Pillow), checked by an
independent minimal decoder."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.devices.sim.device import DemoDevice
from bridge.devices.sim.png import PNG_SIGNATURE, encode_png, render_scene
from bridge.devices.sim.scenes import SCREENS
from bridge.devices.sim.views import View
from bridge.wire.enums import Platform


def decode_png(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, RGB) of an 8-bit truecolour PNG using only filter 0; checks CRCs."""
    assert data[:8] == PNG_SIGNATURE
    pos = 8
    chunks: list[tuple[bytes, bytes]] = []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF, f"bad CRC in {tag!r}"
        chunks.append((tag, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, colour, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, comp, filt, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(body for tag, body in chunks if tag == b"IDAT"))
    stride = 1 + 3 * width
    assert len(raw) == stride * height
    rows = [raw[y * stride : (y + 1) * stride] for y in range(height)]
    assert all(row[0] == 0 for row in rows)
    return width, height, b"".join(row[1:] for row in rows)


@settings(max_examples=50)
@given(
    st.integers(min_value=1, max_value=12).flatmap(
        lambda w: st.integers(min_value=1, max_value=12).flatmap(
            lambda h: st.tuples(
                st.just(w), st.just(h), st.binary(min_size=3 * w * h, max_size=3 * w * h)
            )
        )
    )
)
def test_encode_round_trips(image: tuple[int, int, bytes]) -> None:
    width, height, rgb = image
    assert decode_png(encode_png(width, height, rgb)) == (width, height, rgb)


def test_encode_refuses_a_wrong_buffer() -> None:
    with pytest.raises(ValueError, match="need 12 bytes"):
        encode_png(2, 2, b"\x00" * 11)


def test_every_screen_renders_at_device_size() -> None:
    for platform in Platform:
        for screen in SCREENS:
            device = DemoDevice(platform, now=0.0, start=screen, animations=False)
            scene = device.scene(0.5)
            width, height, rgb = decode_png(render_scene(scene, scale=4))
            assert (width, height) == (scene.width // 4, scene.height // 4)
            assert len(set(rgb)) > 2  # boxes drawn, not a blank screen


def test_screens_look_different_and_dialogs_dim_the_backdrop() -> None:
    def pixels(screen: str) -> bytes:
        device = DemoDevice(Platform.ANDROID, now=0.0, start=screen, animations=False)
        return decode_png(render_scene(device.scene(0.5), scale=4))[2]

    menu, dialog, game = pixels("menu"), pixels("dialog"), pixels("game")
    assert len({menu, dialog, game}) == 3
    corner = dialog[:3]  # the top-left pixel lies outside the alert: dimmed background
    assert all(c < 128 for c in corner)


def _scene(platform: Platform, screen: str) -> Any:
    return DemoDevice(platform, now=0.0, start=screen, animations=False).scene(0.5)


def _view(scene: Any, ident: str) -> View:
    return next(v for w in scene.windows for v in w.root.walk() if v.ident == ident)


def _changed_box(a: bytes, b: bytes, width: int) -> tuple[int, int, int, int] | None:
    """The bounding box (in image pixels) of the pixels that differ between two images."""
    xs, ys = [], []
    for i in range(0, len(a), 3):
        if a[i : i + 3] != b[i : i + 3]:
            ys.append(i // 3 // width)
            xs.append(i // 3 % width)
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None


@pytest.mark.parametrize("platform", list(Platform))
def test_words_are_drawn_inside_their_element(platform: Platform) -> None:
    """Changing one button's title changes pixels, and only inside that button: the words
    are drawn (not a bar of fixed length), where the element is."""
    scene = _scene(platform, "login")
    width, _, before = decode_png(render_scene(scene, scale=2))
    button = next(v for w in scene.windows for v in w.root.walk() if v.text == "Sign in")
    button.text = "Log on"
    _, _, after = decode_png(render_scene(scene, scale=2))
    box = _changed_box(before, after, width)
    assert box is not None, "the title is not drawn"
    left, top, right, bottom = (c // 2 for c in button.bounds)
    assert left <= box[0] and top <= box[1] and box[2] <= right and box[3] <= bottom


@pytest.mark.parametrize("platform", list(Platform))
def test_a_hint_and_a_typed_value_are_drawn_differently(platform: Platform) -> None:
    scene = _scene(platform, "login")
    field = _view(scene, "username")
    hint = decode_png(render_scene(scene, scale=2))[2]
    field.text = field.hint
    typed = decode_png(render_scene(scene, scale=2))[2]
    assert hint != typed  # same words, hint grey, value in ink


def test_a_password_draws_the_same_whatever_its_length() -> None:
    scene = _scene(Platform.ANDROID, "login")
    field = _view(scene, "password")
    shots = set()
    for secret in ("a", "hunter2", "correct horse battery staple"):
        field.text = secret
        shots.add(render_scene(scene, scale=2))
    assert len(shots) == 1
    field.text = None
    assert render_scene(scene, scale=2) not in shots  # empty: its hint, not the dots


def test_the_two_flavours_look_like_their_platform() -> None:
    android = decode_png(render_scene(_scene(Platform.ANDROID, "login"), scale=4))[2]
    ios = decode_png(render_scene(_scene(Platform.IOS, "login"), scale=4))[2]
    assert android[:3] == bytes((246, 246, 246)) and ios[:3] == bytes((255, 255, 255))
    assert bytes((0, 122, 255)) in {ios[i : i + 3] for i in range(0, len(ios), 3)}
