"""Pictures for many viewers: the ``picture`` event of settled streams and the live mirror's
messages.

- ``picture`` (hub -> client, on a settled subscription made with ``pictures`` true): the
  capture of the settled screen ``generation``, sent after that screen's delta. Every member
  gets the same capture id: the hub takes one device screenshot per screen generation. The
  full PNG is at ``url``; a viewer-sized image of it is at ``<url without .png>.webp?width=N``
  (or ``.jpg``), derived once per (capture, width, format) by the hub.
- the live mirror is a websocket of its own at ``/v1/mirror?device=ID&fps=N`` (protocol
  README, "Pictures for many viewers and the live mirror"): the client authenticates with
  an ``Authorization: Bearer`` header or, first thing, a text message ``{"token": "..."}``;
  the hub then sends a ``MirrorConfig`` text message and binary messages of one H.264
  access unit each (``MIRROR_HEADER``: a flags byte, bit 0 = key frame, then the
  presentation time in microseconds, unsigned 64-bit big-endian; then the access unit in
  Annex B form, SPS and PPS in band before each key frame) — what WebCodecs'
  ``VideoDecoder`` takes with ``codec`` and no ``description``. A new ``MirrorConfig``
  comes before a key frame whenever the stream's size or codec changes.
"""

from __future__ import annotations

import struct
from typing import Annotated, Final, Literal

import msgspec

from bridge.wire.base import DeviceId, NonNegInt, WireStruct

MIRROR_HEADER: Final = struct.Struct(">BQ")
"""Flags (bit 0: key frame) and the presentation time in microseconds."""
MIRROR_KEY: Final = 0x01
MAX_MIRROR_FPS: Final = 30
MirrorSourceName = Literal["frames", "screenrecord", "screenshots"]


class PictureEvent(WireStruct, tag_field="type", tag="picture", frozen=True):
    """The capture of settled screen ``generation`` (module docstring)."""

    subscription: str
    device: DeviceId
    generation: NonNegInt
    capture: str
    url: str
    width: int
    height: int
    bytes: NonNegInt


class MirrorConfig(WireStruct, tag_field="type", tag="mirror.config", frozen=True):
    """How to decode the access units that follow: ``codec`` is the WebCodecs codec string
    (``avc1.PPCCLL`` from the stream's SPS); ``source`` says where the frames come from:
    ``frames`` (the simulated device's own frames, encoded on the hub), ``screenrecord``
    (an Android device's own encoder), ``screenshots`` (the agent's screenshots at the asked
    rate, encoded on the hub)."""

    device: DeviceId
    codec: Annotated[str, msgspec.Meta(max_length=32)]
    width: NonNegInt
    height: NonNegInt
    fps: NonNegInt
    source: MirrorSourceName


class MirrorClosed(WireStruct, tag_field="type", tag="mirror.closed", frozen=True):
    """Sent before the hub closes a mirror socket on its own (the device went away, the
    source failed); a viewer cut off for not reading gets a close frame only."""

    device: DeviceId
    reason: str
