"""H.264 Annex B streams cut into access units, and the facts a viewer needs to decode them.

``AccessUnits`` takes a raw Annex B byte stream in chunks of any size (what
``screenrecord --output-format=h264`` writes) and hands back whole access units (one picture:
its NAL units, start codes kept). Rules:

- a NAL unit is complete when the next start code is seen, so an access unit is handed out
  when the first NAL unit of the next one begins (one frame of delay; ``flush`` hands out the
  last one at the end of the stream);
- a new access unit begins at an access unit delimiter (type 9), an SPS (7), a PPS (8) or an
  SEI (6) that follows a picture's slice, or a slice (1, 5) whose ``first_mb_in_slice`` is 0
  after a slice of the current unit;
- a unit holding an IDR slice (type 5) is a key frame; SPS and PPS that came before it are
  part of it (in band), which is what a decoder joining there needs;
- the buffer is bounded: a stream that sends ``MAX_NAL_BYTES`` without a start code is
  dropped (``dropped_bytes``) and the parser waits for the next start code; an access unit
  is at most ``MAX_UNIT_BYTES``.

``codec_string`` reads the WebCodecs codec string (``avc1.PPCCLL``) from a unit's SPS.
Pure: no clock, no I/O; presentation times are the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from bridge.core.pixel_mask import MaskPlan

START: Final = b"\x00\x00\x01"
MAX_NAL_BYTES: Final = 8 << 20
MAX_UNIT_BYTES: Final = 16 << 20
NAL_SLICE: Final = 1
NAL_IDR: Final = 5
NAL_SEI: Final = 6
NAL_SPS: Final = 7
NAL_PPS: Final = 8
NAL_AUD: Final = 9
_VCL: Final = (NAL_SLICE, NAL_IDR)


@dataclass(frozen=True, slots=True)
class AccessUnit:
    """One picture in Annex B form (start codes included)."""

    data: bytes
    key: bool


def nal_units(data: bytes) -> list[bytes]:
    """The NAL units of a whole Annex B buffer, without their start codes."""
    out: list[bytes] = []
    starts = _starts(data, 0)
    for i, (begin, body) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(data)
        del begin
        out.append(data[body:end].rstrip(b"\x00") if i + 1 < len(starts) else data[body:end])
    return out


def _starts(data: bytes, offset: int) -> list[tuple[int, int]]:
    """(start code position, NAL body position) of each start code from ``offset``; a
    four-byte start code's leading zero counts as part of the code."""
    out: list[tuple[int, int]] = []
    at = data.find(START, offset)
    while at >= 0:
        begin = at - 1 if at > 0 and data[at - 1] == 0 else at
        out.append((begin, at + 3))
        at = data.find(START, at + 3)
    return out


def codec_string(unit: bytes) -> str | None:
    """``avc1.PPCCLL`` from the first SPS in ``unit`` (None: it has none)."""
    for nal in nal_units(unit):
        if nal and nal[0] & 0x1F == NAL_SPS and len(nal) >= 4:
            return f"avc1.{nal[1]:02x}{nal[2]:02x}{nal[3]:02x}"
    return None


class AccessUnits:
    """Cuts an Annex B stream into access units (module rules)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._unit: list[bytes] = []
        self._unit_bytes = 0
        self._has_slice = False
        self._key = False
        self.dropped_bytes = 0
        self.units = 0

    def feed(self, chunk: bytes) -> list[AccessUnit]:
        """Take the next bytes of the stream; the access units completed by them."""
        self._buffer += chunk
        out: list[AccessUnit] = []
        data = bytes(self._buffer)
        starts = _starts(data, 0)
        if not starts:
            if len(data) > MAX_NAL_BYTES:
                self.dropped_bytes += len(data)
                self._buffer.clear()
            return out
        if starts[0][0] > 0:  # bytes before the first start code belong to nothing
            self.dropped_bytes += starts[0][0]
        for i in range(len(starts) - 1):
            begin, _ = starts[i]
            end = starts[i + 1][0]
            self._nal(data[begin:end], out)
        last = starts[-1][0]
        self._buffer = bytearray(data[last:])
        if len(self._buffer) > MAX_NAL_BYTES:
            self.dropped_bytes += len(self._buffer)
            self._buffer.clear()
        return out

    def flush(self) -> list[AccessUnit]:
        """The end of the stream: the last NAL unit and access unit."""
        out: list[AccessUnit] = []
        data = bytes(self._buffer)
        self._buffer.clear()
        if _starts(data, 0):
            self._nal(data, out)
        self._close(out)
        return out

    def _nal(self, nal: bytes, out: list[AccessUnit]) -> None:
        body = nal.lstrip(b"\x00")[1:]  # after the start code's 01
        if not body:
            return
        kind = body[0] & 0x1F
        if kind in (NAL_AUD, NAL_SPS, NAL_PPS, NAL_SEI):
            if self._has_slice:
                self._close(out)
        elif kind in _VCL and self._has_slice and len(body) > 1 and body[1] & 0x80:
            self._close(out)  # first_mb_in_slice == 0: a new picture
        if kind in _VCL:
            self._has_slice = True
            self._key = self._key or kind == NAL_IDR
        if self._unit_bytes + len(nal) > MAX_UNIT_BYTES:
            self.dropped_bytes += len(nal)
            return
        self._unit.append(nal)
        self._unit_bytes += len(nal)

    def _close(self, out: list[AccessUnit]) -> None:
        if self._unit and self._has_slice:
            out.append(AccessUnit(b"".join(self._unit), self._key))
            self.units += 1
        elif self._unit:
            return  # parameter sets without a picture yet: keep them for the next slice
        self._unit, self._unit_bytes = [], 0
        self._has_slice = self._key = False


class MirrorSink(Protocol):
    """Where a mirror source hands its access units (the hub's fan-out)."""

    def emit(self, unit: AccessUnit, at_ms: int, width: int, height: int) -> None:
        """One access unit shown from ``at_ms`` (the source's clock, ms), of a picture of
        ``width`` x ``height`` pixels."""
        ...

    def key_wanted(self) -> bool:
        """A viewer waits for a key frame (a source that can should make the next one key;
        the call clears the wish)."""
        ...

    def mask_plan(self) -> MaskPlan:
        """What a picture of the screen taken now needs before it is encoded
        (``bridge.core.pixel_mask.MaskPlan``): a source that encodes asks before and after it
        takes a picture, skips the picture when either says ``hold`` and paints black the
        union of their regions; a source that passes the device's encoding through says so
        (``passthrough``) and the hub filters it."""
        ...
