"""PictureFeed: ``picture`` events on settled streams, for members that asked (``pictures``).

Rules:
- a member of a settled stream that subscribed with ``pictures`` true gets, after each settled
  screen's delta (and once when it joins), a ``picture`` event naming the capture of that
  screen; it never asks for screenshots itself;
- the picture comes from the ``ScreenshotCache``: one device screenshot per screen generation,
  whatever the number of members, streams and other ``screenshot`` requests;
- per device one picture is taken at a time; settles that come while it is taken are
  coalesced (the newest settled screen is pictured next), so a device never takes more than
  one screenshot per settled screen for this feed;
- one event per stream, encoded once per format, the same bytes to every picture member;
- a failed screenshot is counted and logged, never retried in a loop: the next settle tries
  again;
- with ``keep_all`` (the hub keeps a journal) every settled screen is pictured even when no
  member asked, so the journal has the picture of each settled screen change for time travel
  (the screenshot path journals it; the journal drops a picture equal to the last one kept).

The composition root runs ``run`` per device and calls ``settled`` after each settled delta.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from bridge.hub.device import DeviceRuntime, Stream
from bridge.hub.errors import BadRequest, Refusal
from bridge.hub.screenshot_cache import ScreenshotCache
from bridge.net.client_server import Session
from bridge.net.frames import Outgoing
from bridge.wire.codec import encode
from bridge.wire.pictures import PictureEvent


class PictureFeed:
    def __init__(self, cache: ScreenshotCache, capture_url: Callable[[str], str]) -> None:
        self.cache = cache
        self.capture_url = capture_url
        self._members: dict[str, dict[Session, str]] = {}
        """Settled stream id -> its members that asked for pictures, each with the capture it
        was last sent (pruned to the stream's members at every send, so one that left is
        never sent to; a member is never sent the same picture twice)."""
        self._wake: dict[str, anyio.Event] = {}
        self.events = 0
        self.failed = 0
        self.log: Any = None
        self.keep_all = False

    def join(self, session: Session, device: DeviceRuntime, compact: bool) -> None:
        stream = device.settled_streams[compact]
        self._members.setdefault(stream.id, {})[session] = ""
        self.settled(device)

    def settled(self, device: DeviceRuntime) -> None:
        """A settled delta went out (or a member joined): picture the screen."""
        wake = self._wake.get(device.id)
        if wake is None:
            wake = self._wake[device.id] = anyio.Event()
        wake.set()

    def _members_of(self, stream: Stream) -> dict[Session, str]:
        members = self._members.get(stream.id)
        if not members:
            return {}
        for gone in [s for s in members if s not in stream.members]:
            del members[gone]
        return members

    async def run(self, device: DeviceRuntime) -> None:
        """Picture each settled screen for the device's picture members; until cancelled."""
        while True:
            wake = self._wake.get(device.id)
            if wake is None:
                wake = self._wake[device.id] = anyio.Event()
            await wake.wait()
            self._wake[device.id] = anyio.Event()
            streams = [
                s
                for s in device.settled_streams.values()
                if s.base is not None and self._members_of(s)
            ]
            keep = self.keep_all and any(
                s.base is not None for s in device.settled_streams.values()
            )
            if not (streams or keep) or device.link is None or not device.online:
                continue
            try:
                shot, _ = await self.cache.screenshot(device)
            except (Refusal, BadRequest) as exc:
                self.failed += 1
                if self.log is not None:
                    self.log.info("picture_failed", device=device.id, reason=str(exc)[:200])
                continue
            for stream in streams:
                members = self._members_of(stream)
                due = [s for s, last in members.items() if last != shot.capture]
                if not due or stream.base is None:
                    continue
                event = PictureEvent(
                    subscription=stream.id,
                    device=device.id,
                    generation=(
                        shot.generation if shot.generation is not None else stream.base.generation
                    ),
                    capture=shot.capture,
                    url=self.capture_url(shot.capture),
                    width=shot.width,
                    height=shot.height,
                    bytes=shot.size,
                )
                outgoing = Outgoing(event, encode)
                for session in due:
                    members[session] = shot.capture
                    session.push_event(stream.id, outgoing)
                self.events += 1

    def statistics(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "failed": self.failed,
            "members": {k: len(v) for k, v in self._members.items() if v},
        }
