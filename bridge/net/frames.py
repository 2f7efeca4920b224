"""Server-side websocket frames built once and handed as the same bytes to many connections.

A server's frames are never masked (RFC 6455 §5.1), so a data frame is a function of its
payload, its opcode and whether it is compressed: an event encoded once per format is framed
once per (format, compression) and every member of a stream gets those very bytes — no
per-connection framing, compression or task hop (``Outgoing``).

Compression (RFC 7692 permessage-deflate): the hub negotiates it without context takeover in
either direction (``deflate_extension``), so every message is compressed on its own, a
compressed frame can be shared by every connection that negotiated the same window, and no
connection keeps a compressor's or decompressor's memory between messages. Messages shorter
than ``COMPRESS_MIN_BYTES`` are sent uncompressed (RSV1 clear, which permessage-deflate
allows per message): below that size deflate saves a few hundred bytes at best and costs
more CPU than writing them (``scripts/bench --only fanout`` measures both).
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from websockets.extensions.base import ServerExtensionFactory
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)

COMPRESS_MIN_BYTES = 2048
"""Messages at least this long are compressed when the connection negotiated deflate."""
WINDOW_BITS = 12
MEM_LEVEL = 5
_TAIL = b"\x00\x00\xff\xff"
_OP_TEXT = 0x1
_OP_BINARY = 0x2


def deflate_extension() -> list[ServerExtensionFactory]:
    """The hub's permessage-deflate offer: no context takeover either way (see above)."""
    return [
        ServerPerMessageDeflateFactory(
            server_no_context_takeover=True,
            client_no_context_takeover=True,
            server_max_window_bits=WINDOW_BITS,
            client_max_window_bits=WINDOW_BITS,
            compress_settings={"memLevel": MEM_LEVEL},
        )
    ]


def negotiated_bits(extensions: list[Any]) -> int | None:
    """The window bits to compress with for a connection with these negotiated extensions,
    or None when it did not negotiate deflate without context takeover (send uncompressed)."""
    for ext in extensions:
        if isinstance(ext, PerMessageDeflate):
            if ext.local_no_context_takeover and 9 <= ext.local_max_window_bits <= 15:
                return ext.local_max_window_bits
            return None
    return None


def frame(payload: bytes, text: bool, compressed: bool = False) -> bytes:
    """One final, unmasked data frame carrying ``payload``."""
    first = 0x80 | (0x40 if compressed else 0) | (_OP_TEXT if text else _OP_BINARY)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", first, n)
    elif n < 65536:
        head = struct.pack("!BBH", first, 126, n)
    else:
        head = struct.pack("!BBQ", first, 127, n)
    return head + payload


def deflate(payload: bytes, bits: int) -> bytes:
    """``payload`` compressed as one permessage-deflate message (fresh context)."""
    encoder = zlib.compressobj(wbits=-bits, memLevel=MEM_LEVEL)
    data = encoder.compress(payload) + encoder.flush(zlib.Z_SYNC_FLUSH)
    return data[:-4] if data.endswith(_TAIL) else data


def message_frame(payload: bytes, text: bool, bits: int | None) -> bytes:
    """The frame a connection gets for ``payload``: compressed when it negotiated deflate
    (``bits``) and the payload is long enough, else plain."""
    if bits is not None and len(payload) >= COMPRESS_MIN_BYTES:
        return frame(deflate(payload, bits), text, compressed=True)
    return frame(payload, text)


class Outgoing:
    """One message for many connections: its payload per format (encoded by the caller's
    ``encode`` once per format) and its frame per (format, compression), each built once."""

    __slots__ = ("_encode", "_frames", "_payloads", "message")

    def __init__(self, message: Any, encode: Any) -> None:
        self.message = message
        self._encode = encode
        self._payloads: dict[Any, bytes] = {}
        self._frames: dict[tuple[Any, bool, int | None], bytes] = {}

    def payload(self, fmt: Any) -> bytes:
        data = self._payloads.get(fmt)
        if data is None:
            data = self._payloads[fmt] = self._encode(self.message, fmt)
        return data

    def frame(self, fmt: Any, text: bool, bits: int | None) -> bytes:
        data = self.payload(fmt)
        if bits is not None and len(data) < COMPRESS_MIN_BYTES:
            bits = None  # one uncompressed frame serves every connection
        key = (fmt, text, bits)
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = message_frame(data, text, bits)
        return found

    def frame_for(self, key: tuple[Any, bool, int | None]) -> bytes:
        """``frame(*key)``, remembered under ``key`` as given (a connection's writer key: the
        same key every change, so after the first connection it is one lookup)."""
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = self.frame(*key)
        return found
