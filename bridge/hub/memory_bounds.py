"""How the hub's capture memory is shared out and reported (screenshots and tree history).

- ``share_history``: each device's history may hold ``HISTORY_BYTES`` (estimated), but all of
  them together at most ``HUB_HISTORY_BYTES``: the service calls it whenever a device is
  added, so with 16 devices each gets 16 MiB;
- ``display_size``: the device's display in pixels as its newest capture shows it (the root's
  screen rectangle), which screenshots are checked against (``bridge.core.png_check``);
- ``keep_screenshot``: check an agent's PNG (``check_png``) and store it, or say why not;
  a refused one is counted and dropped at once;
- ``capture_memory``: the ``memory`` section of ``statistics()``: bytes kept and what was
  evicted or refused, per device and for the hub.
"""

from __future__ import annotations

import secrets as random_ids
from collections.abc import Collection, Iterable
from typing import Any

from bridge.core.device_control import screen_rect
from bridge.core.png_check import PngInfo, PngRefused, check_png
from bridge.hub.capture_store import CaptureStore
from bridge.hub.device import HISTORY_BYTES, HUB_HISTORY_BYTES, DeviceRuntime


def share_history(devices: Collection[DeviceRuntime]) -> None:
    """Set every device's history bound to its share of the hub's."""
    share = min(HISTORY_BYTES, HUB_HISTORY_BYTES // max(1, len(devices)))
    for device in devices:
        device.history_bytes_limit = share


def display_size(device: DeviceRuntime) -> tuple[int, int] | None:
    cap = device.current
    if cap is None:
        return None
    rect = screen_rect(cap.normalized.full)
    if rect is None:
        return None
    return rect[2] - rect[0], rect[3] - rect[1]


def capture_memory(devices: Iterable[DeviceRuntime], captures: CaptureStore) -> dict[str, Any]:
    history = {
        d.id: {
            "generations": len(d.history),
            "bytes": d.history_bytes,
            "limit": d.history_bytes_limit,
            "evicted": d.stats.history_evicted,
            "truncated_captures": d.stats.truncated_captures,
        }
        for d in devices
    }
    return {"screenshots": captures.statistics(), "history": history}


def keep_screenshot(
    store: CaptureStore, device: DeviceRuntime, png: bytes | None
) -> tuple[str, PngInfo, int] | str:
    """(capture id, size, bytes) of the stored screenshot, or why it was refused."""
    if png is None:
        store.refuse(device.id, 0)
        return "the agent sent no valid PNG"
    info = check_png(png, display_size(device))
    if isinstance(info, PngRefused):
        store.refuse(device.id, len(png))
        return f"{info.field}: {info.reason}"
    capture_id = f"cap_{random_ids.token_hex(8)}"
    if not store.put(device.id, capture_id, png):
        return f"{len(png)} bytes is past the capture budget ({store.per_device_bytes} a device)"
    return capture_id, info, len(png)
