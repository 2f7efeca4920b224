"""A screenshot cut to an element: Maestro's ``takeScreenshot`` with ``cropOn``.

Bounds are in screen points (the snapshot's coordinates); the picture may be captured at
another scale, so they are scaled by the picture's size over the screen's. The cut is kept
inside the picture and is at least one pixel each way. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import io

from PIL import Image

MAX_PIXELS = 40_000_000
"""A picture larger than this is not decoded (a hostile or broken capture)."""


def crop_png(
    png: bytes, bounds: tuple[int, int, int, int], screen_w: int, screen_h: int
) -> tuple[bytes, tuple[int, int]]:
    """``png`` cut to ``bounds`` (left, top, right, bottom on a ``screen_w`` x
    ``screen_h`` screen); returns the new PNG and its size. Raises ValueError when the
    picture cannot be read or the bounds miss it."""
    try:
        with Image.open(io.BytesIO(png)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise ValueError(f"the screenshot is over {MAX_PIXELS} pixels")
            sx = image.width / screen_w if screen_w > 0 else 1.0
            sy = image.height / screen_h if screen_h > 0 else 1.0
            left = min(max(int(bounds[0] * sx), 0), image.width - 1)
            top = min(max(int(bounds[1] * sy), 0), image.height - 1)
            right = min(max(round(bounds[2] * sx), left + 1), image.width)
            bottom = min(max(round(bounds[3] * sy), top + 1), image.height)
            if bounds[2] <= 0 or bounds[3] <= 0 or bounds[0] >= screen_w or bounds[1] >= screen_h:
                raise ValueError("the element is off the screen")
            cut = image.convert("RGB").crop((left, top, right, bottom))
            out = io.BytesIO()
            cut.save(out, format="PNG")
            return out.getvalue(), (cut.width, cut.height)
    except (OSError, Image.DecompressionBombError) as exc:
        raise ValueError(f"the screenshot could not be read: {exc}") from None
