"""Shared frames: built once, parsed by websockets itself, and what clients of every kind get.

Unit level: ``frame`` bytes are what websockets' own parser reads back (every length
encoding, text and binary, compressed or not); ``deflate`` is what its permessage-deflate
decoder inflates; an ``Outgoing`` frames once per (format, compression) and hands out the
very same bytes object. Over real sockets: clients with and without compression, JSON and
MessagePack, subscribed to the simulated device's full stream, all rebuild the same
snapshots from the same deltas; a compressing client negotiated no context takeover.
"""

from __future__ import annotations

import json

import anyio
import msgspec
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from bridge.client import apply_delta
from bridge.net.frames import (
    COMPRESS_MIN_BYTES,
    Outgoing,
    deflate,
    frame,
    message_frame,
)
from bridge.wire.client_protocol import DeltaEvent
from bridge.wire.codec import WireFormat, encode
from bridge.wire.snapshot import ScreenSnapshot
from tests.hub.hubfixture import OBSERVER, running_hub


def _parse(data: bytes, inflate_bits: int | None = None) -> Frame:
    """The frame websockets reads from ``data`` (through a permessage-deflate decoder of
    that window when given: without one, a compressed frame is a protocol error)."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    extensions = [] if inflate_bits is None else [PerMessageDeflate(True, True, inflate_bits, 12)]
    parser = Frame.parse(reader.read_exact, mask=False, max_size=None, extensions=extensions)
    try:
        next(parser)
    except StopIteration as done:
        parsed: Frame = done.value
        return parsed
    raise AssertionError("the frame was not complete")


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65_535, 65_536, 300_000])
@pytest.mark.parametrize("text", [True, False])
def test_frames_parse_back_with_websockets_own_parser(size: int, text: bool) -> None:
    payload = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    parsed = _parse(frame(payload, text))
    assert parsed.opcode is (Opcode.TEXT if text else Opcode.BINARY)
    assert parsed.fin and not parsed.rsv1
    assert bytes(parsed.data) == payload


@pytest.mark.parametrize("bits", [9, 12, 15])
def test_deflated_frames_inflate_with_the_permessage_deflate_decoder(bits: int) -> None:
    payload = json.dumps({"nodes": [{"text": f"row {i}"} for i in range(500)]}).encode()
    data = frame(deflate(payload, bits), True, compressed=True)
    assert data[0] & 0x40, "RSV1 marks a compressed message"
    assert len(data) < len(payload) / 4
    assert bytes(_parse(data, bits).data) == payload


def test_short_messages_go_uncompressed_and_long_ones_compressed() -> None:
    short = b'{"type":"delta"}'
    assert not message_frame(short, True, 12)[0] & 0x40
    assert bytes(_parse(message_frame(short, True, 12), 12).data) == short
    long = b'{"text":"' + b"abc" * COMPRESS_MIN_BYTES + b'"}'
    assert message_frame(long, True, 12)[0] & 0x40
    assert bytes(_parse(message_frame(long, True, 12), 12).data) == long
    assert not message_frame(long, True, None)[0] & 0x40


def test_an_outgoing_message_is_encoded_and_framed_once_per_kind() -> None:
    encodes: list[WireFormat] = []

    def counting(message: object, fmt: WireFormat) -> bytes:
        encodes.append(fmt)
        return encode(message, fmt)

    small = Outgoing({"type": "ping"}, counting)
    a = small.frame(WireFormat.JSON, True, 12)
    b = small.frame(WireFormat.JSON, True, None)
    assert a is b, "a short message: one plain frame for compressing and plain connections"
    big = Outgoing({"text": "x" * 5 * COMPRESS_MIN_BYTES}, counting)
    c1 = big.frame(WireFormat.JSON, True, 12)
    c2 = big.frame(WireFormat.JSON, True, 12)
    plain = big.frame(WireFormat.JSON, True, None)
    m = big.frame(WireFormat.MSGPACK, False, 12)
    assert c1 is c2 and c1 is not plain and m is not c1
    assert encodes == [WireFormat.JSON, WireFormat.JSON, WireFormat.MSGPACK]


@pytest.mark.anyio
async def test_clients_of_every_kind_rebuild_the_same_snapshots() -> None:
    kinds = [("json", "deflate"), ("json", None), ("msgpack", "deflate"), ("msgpack", None)]
    async with running_hub(sim_scene="home", sim_options={"time_scale": 4.0}) as rh:
        results: dict[int, list[ScreenSnapshot]] = {}
        negotiated: dict[int, bool] = {}

        async def follow(k: int, fmt: str, compression: str | None) -> None:
            msgpack = fmt == "msgpack"
            codec = msgspec.msgpack if msgpack else msgspec.json
            async with ws_connect(
                rh.url,
                subprotocols=[f"mobridge.v1.{fmt}"],  # type: ignore[list-item]
                additional_headers={"Authorization": f"Bearer {OBSERVER}"},
                compression=compression,
                max_size=None,
            ) as ws:
                exts = ws.protocol.extensions
                negotiated[k] = bool(exts) and all(
                    isinstance(e, PerMessageDeflate) and e.remote_no_context_takeover for e in exts
                )
                sub = {"type": "subscribe", "id": 1, "device": rh.device_id, "compact": False}
                await ws.send(codec.encode(sub), text=not msgpack)
                first = codec.decode(await ws.recv())
                snap = msgspec.convert(first["result"]["snapshot"], ScreenSnapshot)
                seq = first["result"]["seq"]
                seen = [snap]
                while len(seen) < 4:
                    msg = codec.decode(await ws.recv())
                    if msg.get("type") == "delta":
                        event = msgspec.convert(msg, DeltaEvent)
                        assert event.seq == seq + 1 and event.base == snap.snapshot_id
                        seq, snap = event.seq, apply_delta(snap, event)
                        seen.append(snap)
                results[k] = seen

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for k, (fmt, compression) in enumerate(kinds):
                    tg.start_soon(follow, k, fmt, compression)
        device = rh.hub.service.devices[rh.device_id]
        for k in range(len(kinds)):
            for snap in results[k]:
                capture = device.capture_of(snap.snapshot_id)
                assert capture is not None and snap == capture.snapshot(False)
        assert negotiated == {0: True, 1: False, 2: True, 3: False}
