"""Where pictures leave the hub, the fields holding a secret are blacked out first
(``bridge.core.pixel_mask``): screenshots (``screenshot``: what clients fetch and what the
journal keeps) and the frames of recordings the hub encodes. The hub itself (vision) reads
its own, unmasked, screenshots.

``mask_picture`` takes the regions from the device's newest snapshot (the tree's units),
checks the picture's size before decoding it, and paints in a worker thread; a picture that
cannot be decoded is returned as None (the caller refuses it, never passes it on unmasked).
"""

from __future__ import annotations

import anyio

from bridge.core.device_control import screen_rect
from bridge.core.pixel_mask import black_out, secret_regions
from bridge.core.png_check import PngRefused, check_png
from bridge.hub.device import DeviceRuntime
from bridge.hub.memory_bounds import display_size


async def mask_picture(device: DeviceRuntime, png: bytes | None) -> bytes | None:
    """``png`` with the secret-holding fields of ``device``'s screen blacked out; the same
    bytes when none shows; None when it needed masking but is not a picture the hub
    decodes."""
    cap = device.current
    if png is None or cap is None:
        return png
    snapshot = cap.normalized.full
    regions = secret_regions(snapshot.nodes)
    if not regions:
        return png
    if isinstance(check_png(png, display_size(device)), PngRefused):
        return None
    try:
        return await anyio.to_thread.run_sync(black_out, png, regions, screen_rect(snapshot))
    except (OSError, ValueError, SyntaxError):  # Pillow's ways of saying "not an image"
        return None
